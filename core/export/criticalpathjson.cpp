// SPDX-License-Identifier: MIT
#include "criticalpathjson.h"

#include "io/outputfile.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>

namespace syncscope {

namespace {

// Appends to a buffer and hands it to `flush` once it is large, so a path of a
// million nodes never sits in memory twice.
class Out
{
public:
    explicit Out(std::function<void(std::string &)> flush) : m_flush(std::move(flush)) {}
    Out &operator<<(std::string_view s)
    {
        m_buf.append(s);
        if (m_buf.size() >= (1u << 20))
            flush();
        return *this;
    }
    Out &operator<<(size_t v) { return *this << std::string_view(std::to_string(v)); }
    Out &operator<<(int v) { return *this << std::string_view(std::to_string(v)); }
    Out &num(double v)
    {
        if (!std::isfinite(v))
            return *this << "null";
        if (v == std::floor(v) && std::fabs(v) < 9e15)
            return *this << std::string_view(std::to_string(static_cast<long long>(v)));
        char buf[32];
        auto r = std::to_chars(buf, buf + sizeof buf, v); // shortest round trip: deterministic
        return *this << std::string_view(buf, static_cast<size_t>(r.ptr - buf));
    }
    Out &str(std::string_view s)
    {
        return *this << std::string_view(
                   nlohmann::json(std::string(s)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    }
    Out &boolean(bool b) { return *this << (b ? "true" : "false"); }
    void flush()
    {
        m_flush(m_buf);
        m_buf.clear();
    }

private:
    std::function<void(std::string &)> m_flush;
    std::string m_buf;
};

void writeTypeCounts(Out &o, const std::vector<size_t> &counts)
{
    o << "{";
    for (int t = 0; t < kCpEdgeTypeCount; ++t) {
        o << (t ? ", " : "");
        o.str(cpEdgeTypeEnumName(static_cast<CpEdgeType>(t))) << ": " << counts[static_cast<size_t>(t)];
    }
    o << "}";
}

void writeSummary(Out &o, const std::vector<CpSummaryRow> &summary)
{
    o << "{";
    for (size_t k = 0; k < summary.size(); ++k) {
        o << (k ? ", " : "");
        o.str(summary[k].boundBy) << ": ";
        o.num(summary[k].percent);
    }
    o << "}";
}

void writeSteps(Out &o, const std::vector<StepResult> &steps)
{
    o << ",\n  \"steps\": [";
    for (size_t k = 0; k < steps.size(); ++k) {
        const StepResult &s = steps[k];
        o << (k ? ",\n    " : "\n    ") << "{\"instance\": " << s.instance << ", \"event_index\": "
          << size_t(s.event) << ", \"name\": ";
        o.str(s.name) << ", \"start_us\": ";
        o.num(s.startUs) << ", \"end_us\": ";
        o.num(s.endUs) << ", \"success\": ";
        o.boolean(s.success) << ", \"reason\": ";
        o.str(s.reason) << ", \"weight_us\": ";
        o.num(s.weightUs) << ", \"path_nodes\": " << s.pathNodes << ", \"critical_events\": " << s.criticalEvents
                          << ", \"summary\": ";
        writeSummary(o, s.summary);
        o << "}";
    }
    o << (steps.empty() ? "]" : "\n  ]");
}

void writeSyncWaits(Out &o, const std::vector<SyncEdge> &edges)
{
    const SyncWaitTotals totals = syncWaitTotals(edges);
    o << ",\n  \"sync_waits\": {";
    for (int k = 0; k < kSyncKindCount; ++k) {
        const SyncKindTotals &t = totals.byKind[static_cast<size_t>(k)];
        o << (k ? ", " : "");
        o.str(syncKindName(static_cast<SyncKind>(k))) << ": {\"edges\": " << t.edges << ", \"calls\": " << t.calls
                                                      << ", \"wait_us\": ";
        o.num(t.waitUs) << "}";
    }
    o << ", \"total_wait_us\": ";
    o.num(totals.totalWaitUs()) << "}";
}

void writeDocument(Out &o, const CriticalPathJsonInput &in)
{
    const CriticalPathResult &r = *in.result;
    const CriticalPathOptions &opt = *in.options;
    const CpGraph &g = r.graph;
    o << "{\n  \"tool\": \"syncscope\", \"version\": ";
    o.str(SYNCSCOPE_VERSION) << ",\n  \"input\": ";
    o.str(in.trace->path) << ",\n  \"annotation\": ";
    o.str(opt.annotation) << ",\n  \"instance\": ";
    if (opt.instanceFirst == opt.instanceLast)
        o << opt.instanceFirst;
    else
        o << "[" << opt.instanceFirst << ", " << opt.instanceLast << "]";
    o << ",\n  \"success\": ";
    o.boolean(r.success) << ",\n  \"reason\": ";
    o.str(r.reason) << ",\n  \"options\": {\"hta_version\": ";
    o.str(htaVersionName(opt.htaVersion)) << ", \"hta_exact\": ";
    o.boolean(r.htaExact) << ", \"zero_weight_launch_edges\": ";
    o.boolean(opt.zeroWeightLaunchEdges) << ", \"ns_rounding\": ";
    o.boolean(opt.nsRounding) << ", \"data_load_events\": [";
    for (size_t k = 0; k < opt.dataLoadEvents.size(); ++k) {
        o << (k ? ", " : "");
        o.str(opt.dataLoadEvents[k]);
    }
    o << "]},\n  \"window\": {\"whole_trace\": ";
    o.boolean(r.window.wholeTrace) << ", \"annotation_found\": ";
    o.boolean(r.window.annotationFound) << ", \"instance_count\": " << r.window.instanceCount
                                        << ", \"start_us\": ";
    o.num(r.window.startUs) << ", \"end_us\": ";
    o.num(r.window.endUs) << "},\n  \"rows\": {\"loaded\": " << r.loadedRows << ", \"clipped\": " << r.clippedRows
                          << "},\n  \"graph\": {\"node_list\": " << size_t(g.nodeCount())
                          << ", \"nodes\": " << r.graphNodeCount() << ", \"edges\": " << size_t(g.edgeCount())
                          << ", \"edges_by_type\": ";
    writeTypeCounts(o, r.edgeCountsByType());
    o << "},\n  \"critical_path\": {\"nodes\": " << r.pathNodes.size() << ", \"events\": " << r.criticalEvents.size()
      << ", \"edges\": " << r.pathEdges.size() << ", \"edges_by_type\": ";
    writeTypeCounts(o, r.pathEdgeCountsByType());
    o << ", \"weight_us\": ";
    o.num(r.weightUs) << ",\n    \"path\": [";
    for (size_t k = 0; k < r.pathNodes.size(); ++k) {
        const int32_t n = r.pathNodes[k];
        o << (k ? ", " : "") << "[" << size_t(g.nodeEvent[n]) << (g.nodeIsStart[n] ? ", \"start\"]" : ", \"end\"]");
    }
    o << "],\n    \"critical_events\": [";
    for (size_t k = 0; k < r.criticalEvents.size(); ++k)
        o << (k ? ", " : "") << size_t(r.criticalEvents[k]);
    o << "]},\n  \"sync_edges\": [";
    std::vector<std::pair<uint32_t, uint32_t>> sync(r.syncEdges);
    std::sort(sync.begin(), sync.end());
    for (size_t k = 0; k < sync.size(); ++k)
        o << (k ? ", " : "") << "[" << size_t(sync[k].first) << ", " << size_t(sync[k].second) << "]";
    o << "],\n  \"sync_edges_inferred\": [";
    std::vector<std::pair<uint32_t, uint32_t>> inferred(r.syncEdgesInferred);
    std::sort(inferred.begin(), inferred.end());
    for (size_t k = 0; k < inferred.size(); ++k)
        o << (k ? ", " : "") << "[" << size_t(inferred[k].first) << ", " << size_t(inferred[k].second) << "]";
    o << "],\n  \"summary\": ";
    writeSummary(o, r.summary);
    if (in.steps)
        writeSteps(o, *in.steps);
    if (in.syncEdges)
        writeSyncWaits(o, *in.syncEdges);
    o << "\n}\n";
    o.flush();
}

} // namespace

std::string criticalPathJson(const CriticalPathJsonInput &input)
{
    std::string text;
    Out o([&](std::string &chunk) { text += chunk; });
    writeDocument(o, input);
    return text;
}

bool writeCriticalPathJson(const std::string &path, const CriticalPathJsonInput &input, Diagnostics &diag,
                           const std::vector<std::string> &otherInputs)
{
    try {
        std::vector<std::string> inputs = otherInputs;
        inputs.push_back(input.trace->path);
        OutputFile file(path, inputs);
        Out o([&](std::string &chunk) { file.write(chunk); });
        writeDocument(o, input);
        file.commit();
        return true;
    } catch (const std::exception &e) {
        diag.error("export.critical_path", std::string("cannot write the critical-path JSON: ") + e.what(), path);
        return false;
    }
}

} // namespace syncscope
