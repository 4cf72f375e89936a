// SPDX-License-Identifier: MIT
#include "syncedges.h"

#include "syncinfer.h"
#include "syncsweep.h"

#include <algorithm>
#include <string>

namespace syncscope {

const char *syncKindName(SyncKind k)
{
    switch (k) {
    case SyncKind::StreamSync:
        return "Stream Sync";
    case SyncKind::EventSync:
        return "Event Sync";
    case SyncKind::ContextSync:
        return "Context Sync";
    case SyncKind::StreamWaitEvent:
        return "Stream Wait Event";
    case SyncKind::BlockingCopy:
        return "Blocking Copy";
    }
    return "";
}

double SyncWaitTotals::totalWaitUs() const
{
    double sum = 0;
    for (const auto &k : byKind)
        sum += k.waitUs;
    return sum;
}

size_t SyncWaitTotals::inferredEdges() const
{
    size_t n = 0;
    for (const auto &k : byKind)
        n += k.inferred;
    return n;
}

bool hasCudaSyncRows(const KinetoTrace &trace)
{
    if (trace.strings.find("cuda_sync") < 0) // the category is interned only when it occurs
        return false;
    for (const KinetoEvent &e : trace.events) {
        if (e.kind == EventKind::CudaSync)
            return true;
    }
    return false;
}

size_t unresolvedCudaSyncRows(const KinetoTrace &trace)
{
    if (trace.strings.find("cuda_sync") < 0) // no row at all: no pass over the events
        return 0;
    size_t n = 0;
    for (const KinetoEvent &e : trace.events) {
        if (e.kind != EventKind::CudaSync || (e.waitOnStream >= 0 && e.waitOnRecordCorr >= 0))
            continue;
        const std::string_view name = trace.str(e.name);
        n += (name == "Stream Wait Event" || name == "Event Sync") ? 1 : 0;
    }
    return n;
}

static const char *kRecordHint = "record them with torch.profiler.profile(..., experimental_config=torch._C._profiler."
                                 "_ExperimentalConfig(enable_cuda_sync_events=True))";

bool checkCudaSyncPresent(const KinetoTrace &trace, Diagnostics &diag, bool htaExact)
{
    if (hasCudaSyncRows(trace))
        return true;
    if (htaExact)
        diag.warning("kineto.no_cuda_sync",
                     trace.path + ": the trace has no cuda_sync events, so no CPU<->GPU synchronisation edges can be "
                                  "inferred with --hta-exact (the critical path may be wrong); " +
                         kRecordHint,
                     trace.path);
    else
        diag.warning("kineto.no_cuda_sync",
                     trace.path + ": the trace has no cuda_sync events (torch.profiler writes them only on request); "
                                  "the sync edges are inferred from the runtime calls and the GPU timing "
                                  "(docs/sync_inference.md); for exact edges " +
                         kRecordHint,
                     trace.path);
    return false;
}

namespace {

using namespace hta;

class EdgeCollector : public SyncSweepVisitor
{
public:
    explicit EdgeCollector(const RowTable &rows) : m_rows(rows) {}

    bool present(uint32_t event) const override { return m_rows.isLoaded(event); }

    void activity(uint32_t g, int32_t prev, const std::vector<StreamWait> &waits) override
    {
        if (waits.empty())
            return;
        // The wait cost dst only the part of its gap when it was otherwise ready to run.
        bool known = false;
        double ready = 0;
        const int32_t runtime = m_rows.partner(g);
        if (runtime >= 0 && m_rows.isLoaded(static_cast<uint32_t>(runtime)) && m_rows.stream(static_cast<uint32_t>(runtime)) == -1) {
            ready = m_rows.ts(static_cast<uint32_t>(runtime));
            known = true;
        }
        if (prev >= 0) {
            const double prevEnd = m_rows.end(static_cast<uint32_t>(prev));
            ready = known ? std::max(ready, prevEnd) : prevEnd;
            known = true;
        }
        // Several waits (a join of side streams): by the end of what they await, each
        // is charged the delay beyond the ones that ended before it, so the kernel's
        // waits add up to its one gap.
        m_byEnd.assign(waits.begin(), waits.end());
        std::stable_sort(m_byEnd.begin(), m_byEnd.end(), [&](const StreamWait &a, const StreamWait &b) {
            return m_rows.end(a.src) < m_rows.end(b.src);
        });
        for (const StreamWait &w : m_byEnd) {
            const double until = std::min(m_rows.end(w.src), m_rows.ts(g));
            const double wait = known ? std::max(0.0, until - ready) : 0.0;
            if (known)
                ready = std::max(ready, until);
            edges.push_back({w.src, g, w.row, SyncKind::StreamWaitEvent, true, false, wait});
        }
    }

    void cpuSync(uint32_t src, uint32_t syncRow, SyncKind kind) override
    {
        const int32_t call = m_rows.partner(syncRow);
        if (call < 0 || !m_rows.isLoaded(static_cast<uint32_t>(call))) {
            ++unlinkedSyncs;
            return;
        }
        const uint32_t c = static_cast<uint32_t>(call);
        const double dur = std::max(0.0, m_rows.dur(c));
        const double wait = std::clamp(m_rows.end(src) - m_rows.ts(c), 0.0, dur);
        edges.push_back({src, c, syncRow, kind, false, false, wait});
    }

    std::vector<SyncEdge> edges;
    std::vector<StreamWait> m_byEnd;
    size_t unlinkedSyncs = 0;

private:
    const RowTable &m_rows;
};

} // namespace

std::vector<SyncEdge> findAllSyncEdges(const KinetoTrace &trace, Diagnostics &diag, const SyncOptions &options)
{
    const bool rows = checkCudaSyncPresent(trace, diag, options.htaExact);
    std::vector<SyncEdge> edges = rows ? findRecordedSyncEdges(trace, diag, !options.htaExact) : std::vector<SyncEdge>();
    const size_t unresolved = rows ? unresolvedCudaSyncRows(trace) : 0;
    if (unresolved > 0)
        diag.warning("sync.unresolved_row",
                     trace.path + ": " + std::to_string(unresolved) +
                         " Stream Wait Event / Event Sync rows do not say which event record they wait on "
                         "(wait_on_stream / wait_on_cuda_event_record_corr_id -1, as Kineto writes them on CUDA >= "
                         "12.9 before kineto#1552)" +
                         (options.htaExact ? std::string("; --hta-exact gives them no edge")
                                           : std::string("; their waits are inferred like those of a call without "
                                                         "a row (docs/sync_inference.md)")),
                     trace.path);
    if (options.htaExact)
        return edges;
    SyncInferenceStats stats;
    const SyncInferenceOptions inference;
    std::vector<SyncEdge> inferred = inferSyncEdges(trace, edges, inference, &stats);
    if (!inferred.empty()) {
        size_t gpu = 0;
        for (const SyncEdge &e : inferred)
            gpu += e.gpuToGpu ? 1 : 0;
        std::string why = rows ? std::string("for the calls that have no cuda_sync row")
                               : std::string("the trace has no cuda_sync events");
        diag.info("sync.inferred",
                  trace.path + ": " + std::to_string(inferred.size()) + " sync edges inferred from runtime calls (" +
                      why + "): " + std::to_string(inferred.size() - gpu) + " GPU->CPU (" +
                      std::to_string(stats.blockingCopies) + " from blocking copies), " + std::to_string(gpu) +
                      " GPU->GPU; --hta-exact leaves them out",
                  trace.path);
    }
    if (stats.waitScansCut > 0)
        diag.warning("sync.wait_scan_cut",
                     trace.path + ": " + std::to_string(stats.waitScansCut) +
                         " queued GPU ops had more than " + std::to_string(inference.maxWaitCandidates) +
                         " ops of other streams ending just before they started; only the " +
                         std::to_string(inference.maxWaitCandidates) +
                         " that ended last were examined for the stream wait that held each back",
                     trace.path);
    edges.insert(edges.end(), inferred.begin(), inferred.end());
    return edges;
}

std::vector<SyncEdge> findRecordedSyncEdges(const KinetoTrace &trace, Diagnostics &diag, bool everyWait)
{
    RowOptions options;
    options.nsRounding = false;
    options.dropLastProfilerStep = false;
    const RowTable rows(trace, options, diag);
    const SyncTables tables(rows, diag);
    std::vector<uint32_t> sweep;
    for (uint32_t i = 0; i < rows.eventCount(); ++i) {
        if (isSweepRow(rows, i))
            sweep.push_back(i);
    }
    EdgeCollector collector(rows);
    SweepOptions sweepOptions;
    sweepOptions.keyByDevice = true;
    sweepOptions.everyWait = everyWait;
    const SweepStats stats = runSyncSweep(rows, tables, std::move(sweep), sweepOptions, collector);
    if (collector.unlinkedSyncs > 0)
        diag.warning("sync.unlinked_call",
                     trace.path + ": " + std::to_string(collector.unlinkedSyncs) +
                         " cuda_sync rows have no matching CPU runtime call (correlation not found); their "
                         "sync edges were skipped",
                     trace.path);
    if (stats.unmatchedWaits > 0)
        diag.warning("sync.unmatched_stream_wait",
                     trace.path + ": " + std::to_string(stats.unmatchedWaits) +
                         " Stream Wait Event rows have no matching cudaStreamWaitEvent call; skipped",
                     trace.path);
    if (stats.unknownSyncNames > 0)
        diag.warning("sync.unknown_kind",
                     trace.path + ": " + std::to_string(stats.unknownSyncNames) +
                         " cuda_sync rows have an unknown name; they were ignored",
                     trace.path);
    return std::move(collector.edges);
}

SyncWaitTotals syncWaitTotals(const std::vector<SyncEdge> &edges)
{
    SyncWaitTotals totals;
    // Edges of one call are adjacent (the sweep handles one sync row at a time),
    // except GPU->GPU edges, which are one per Stream Wait Event row anyway.
    std::vector<std::pair<uint32_t, size_t>> byCall; // (syncEvent, edge)
    byCall.reserve(edges.size());
    for (size_t k = 0; k < edges.size(); ++k)
        byCall.emplace_back(edges[k].syncEvent, k);
    std::sort(byCall.begin(), byCall.end());
    for (size_t a = 0; a < byCall.size();) {
        size_t b = a;
        double maxWait = 0;
        const SyncKind kind = edges[byCall[a].second].kind;
        while (b < byCall.size() && byCall[b].first == byCall[a].first) {
            maxWait = std::max(maxWait, edges[byCall[b].second].waitUs);
            ++b;
        }
        auto &t = totals.byKind[static_cast<size_t>(kind)];
        for (size_t k = a; k < b; ++k)
            (edges[byCall[k].second].inferred ? t.inferred : t.recorded) += 1;
        t.edges += b - a;
        t.calls += 1;
        t.waitUs += maxWait;
        a = b;
    }
    return totals;
}

} // namespace syncscope
