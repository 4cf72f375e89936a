// SPDX-License-Identifier: MIT
// Validation, longest path, breakdown and summary of one window (spec 2.9-3.2),
// and the golden-file text dump.
#include "boundedregex.h"
#include "cpbuild.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <unordered_map>

namespace syncscope {

const char *cpBoundName(CpBound b)
{
    switch (b) {
    case CpBound::None:
        return "";
    case CpBound::CpuBound:
        return "cpu_bound";
    case CpBound::DataLoading:
        return "data_loading";
    case CpBound::GpuCommunication:
        return "gpu_communication_bound";
    case CpBound::GpuCompute:
        return "gpu_compute_bound";
    case CpBound::KernelKernelOverhead:
        return "gpu_kernel_kernel_overhead";
    case CpBound::KernelLaunchOverhead:
        return "gpu_kernel_launch_overhead";
    }
    return "";
}

std::string cpShortenName(std::string_view name, HtaVersion version)
{
    // Memory activities keep their name; so do names without template/argument lists
    // (both rules came after d731cc2e).
    for (std::string_view p : {"Memcpy", "hipMemcpy", "Memset", "hipMemset", "dma"})
        if (version != HtaVersion::D731cc2e && name.substr(0, p.size()) == p)
            return std::string(name);
    if (version != HtaVersion::D731cc2e && name.find('<') == std::string_view::npos &&
        name.find('(') == std::string_view::npos)
        return std::string(name);
    // Drop "->", then every (nested) <...> and (...) group; keep the last space-separated token.
    std::string s;
    s.reserve(name.size());
    for (size_t i = 0; i < name.size(); ++i) {
        if (name[i] == '-' && i + 1 < name.size() && name[i + 1] == '>') {
            ++i;
            continue;
        }
        s.push_back(name[i]);
    }
    std::string stack;
    for (char c : s) {
        if (c == '>' || c == ')') {
            const char open = c == '>' ? '<' : '(';
            while (!stack.empty() && stack.back() != open)
                stack.pop_back();
            if (!stack.empty())
                stack.pop_back();
        } else {
            stack.push_back(c);
        }
    }
    const size_t sp = stack.rfind(' ');
    return sp == std::string::npos ? stack : stack.substr(sp + 1);
}

namespace {

using namespace hta;

constexpr size_t kMaxDataLoadPatternBytes = 1024;

bool isCommKernel(std::string_view s, bool d731)
{
    // d731cc2e: only "ncclKernel" anywhere (so ncclDevKernel_* counts as compute).
    if (d731)
        return s.find("ncclKernel") != std::string_view::npos;
    // (^nccl.*)|(^hip)|(^hccl)|(.*ncclKernel.*) with re.match [QUIRK: any hip* counts].
    return s.substr(0, 4) == "nccl" || s.substr(0, 3) == "hip" || s.substr(0, 4) == "hccl" ||
           s.find("ncclKernel") != std::string_view::npos;
}

class BoundBy
{
public:
    BoundBy(const CpaContext &ctx, Diagnostics &diag) : m_ctx(ctx)
    {
        // data_load_events are regexes here (re.search) but literal strings for nodes [QUIRK].
        // d731cc2e has no data_loading bucket.
        // RE2 (linear time; Python's re syntax less back-references and look-around).
        for (const std::string &p : ctx.d731 ? std::vector<std::string>() : ctx.options.dataLoadEvents) {
            std::string why;
            if (auto re = compileBoundedRegex(p, kMaxDataLoadPatternBytes, why)) {
                m_patterns.push_back(std::move(re));
            } else {
                m_literal.push_back(p);
                diag.warning("cpa.bad_data_load_regex", "data-load pattern \"" + p.substr(0, 200) + "\": " + why +
                                                            "; matched literally");
            }
        }
    }

    CpBound operator()(CpEdgeType type, int32_t ev)
    {
        switch (type) {
        case CpEdgeType::KernelKernelDelay:
            return CpBound::KernelKernelOverhead;
        case CpEdgeType::KernelLaunchDelay:
            return CpBound::KernelLaunchOverhead;
        case CpEdgeType::Dependency:
        case CpEdgeType::SyncDependency:
            return CpBound::None;
        case CpEdgeType::OperatorKernel:
            break;
        }
        // Cached per (name, CPU or GPU side): the shortened-name tests are the slow part.
        const StrId name = m_ctx.trace.events[static_cast<uint32_t>(ev)].name;
        const bool cpu = m_ctx.rows.stream(static_cast<uint32_t>(ev)) < 0;
        const uint64_t key = (uint64_t(name) << 1) | (cpu ? 1 : 0);
        auto it = m_cache.find(key);
        if (it != m_cache.end())
            return it->second;
        const std::string s = cpShortenName(m_ctx.trace.str(name), m_ctx.options.htaVersion);
        CpBound b = cpu                          ? CpBound::CpuBound
                    : isCommKernel(s, m_ctx.d731) ? CpBound::GpuCommunication
                                                 : CpBound::GpuCompute;
        if (cpu) {
            for (const auto &re : m_patterns)
                if (boundedRegexSearch(*re, s))
                    b = CpBound::DataLoading;
            for (const auto &lit : m_literal)
                if (s.find(lit) != std::string::npos)
                    b = CpBound::DataLoading;
        }
        m_cache.emplace(key, b);
        return b;
    }

private:
    const CpaContext &m_ctx;
    std::vector<std::shared_ptr<const re2::RE2>> m_patterns;
    std::vector<std::string> m_literal;
    std::unordered_map<uint64_t, CpBound> m_cache;
};

bool fail(CriticalPathResult &out, Diagnostics &diag, const std::string &path, std::string reason)
{
    out.success = false;
    out.reason = std::move(reason);
    diag.error("cpa.failed", path + ": critical-path analysis failed: " + out.reason, path);
    return false;
}

void reportBuildStats(const BuildStats &s, const std::string &path, Diagnostics &diag)
{
    if (s.kernelsWithoutEdge > 0)
        diag.info("cpa.kernel_without_edge",
                  path + ": " + std::to_string(s.kernelsWithoutEdge) +
                      " GPU activities got no launch, kernel-kernel or sync edge (as in HTA); they start the path",
                  path);
    if (s.launchWithoutRuntimeNode > 0)
        diag.warning("cpa.launch_without_runtime",
                     path + ": " + std::to_string(s.launchWithoutRuntimeNode) +
                         " launch delays could not be drawn because the launching call has no graph node (HTA "
                         "fails here)",
                     path);
    if (s.unknownSyncNames > 0)
        diag.warning("cpa.unknown_sync",
                     path + ": " + std::to_string(s.unknownSyncNames) + " cuda_sync rows have an unknown name; ignored",
                     path);
    if (s.unmatchedWaits > 0)
        diag.warning("cpa.unmatched_stream_wait",
                     path + ": " + std::to_string(s.unmatchedWaits) +
                         " Stream Wait Event rows have no matching cudaStreamWaitEvent call; ignored (HTA fails here)",
                     path);
}

} // namespace

namespace hta {

bool analyzeWindow(CpaContext &ctx, const std::vector<uint32_t> &clipped, CriticalPathResult &out, Diagnostics &diag)
{
    const std::string &path = ctx.trace.path;
    CpGraph &g = out.graph;
    out.clippedRows = clipped.size();
    auto t0 = std::chrono::steady_clock::now();
    reportBuildStats(ctx.build(clipped, g), path, diag);
    g.finish(ctx.d731);
    const auto t1 = std::chrono::steady_clock::now();
    out.timings.build = std::chrono::duration<double>(t1 - t0).count();
    struct SolveTimer { // records the solve time on every return path
        CpTimings &t;
        std::chrono::steady_clock::time_point start;
        ~SolveTimer() { t.solve = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); }
    } solveTimer{out.timings, t1};
    out.htaExact = ctx.exact;
    std::vector<uint8_t> inferred(static_cast<size_t>(g.edgeCount()), 0);
    for (int32_t e : ctx.inferredEdges)
        inferred[static_cast<size_t>(e)] = 1;
    for (int32_t u : g.graphNodes) // networkx adjacency order
        for (int32_t k = g.outStart[u]; k < g.outStart[u + 1]; ++k)
            if (const int32_t e = g.outEdges[k]; g.edgeType[e] == CpEdgeType::SyncDependency) {
                out.syncEdges.emplace_back(g.nodeEvent[u], g.nodeEvent[g.edgeTo[e]]);
                if (inferred[static_cast<size_t>(e)])
                    out.syncEdgesInferred.emplace_back(g.nodeEvent[u], g.nodeEvent[g.edgeTo[e]]);
            }

    // Validation (spec 2.9): weights <= -1 count as 0 for the path but keep their
    // stored value for the breakdown [QUIRK]; syncs within one stream are invalid.
    // d731cc2e clamps exactly -1 and fails on anything below (spec 8).
    const bool clamp = ctx.d731 || !ctx.options.strictNegativeWeights;
    size_t clamped = 0, tooNegative = 0, sameStream = 0;
    for (int32_t e = 0; e < g.edgeCount(); ++e) {
        const double w = g.edgeWeight[e];
        const bool fails = w < -1 && (ctx.d731 || !clamp);
        if (fails)
            ++tooNegative;
        else if (clamp && w <= -1)
            ++clamped;
        if (g.edgeType[e] == CpEdgeType::SyncDependency) {
            const int64_t a = ctx.rows.stream(static_cast<uint32_t>(g.nodeEvent[g.edgeFrom[e]]));
            const int64_t b = ctx.rows.stream(static_cast<uint32_t>(g.nodeEvent[g.edgeTo[e]]));
            sameStream += (a != -1 && a == b) ? 1 : 0;
        }
    }
    if (clamped > 0)
        diag.warning("cpa.negative_weight",
                     path + ": " + std::to_string(clamped) +
                         " edges have a weight <= -1 µs (children ending after their parents); counted as 0",
                     path);
    if (tooNegative > 0)
        return fail(out, diag, path,
                    std::to_string(tooNegative) + " edges have a weight below -1 µs (" +
                        (ctx.d731 ? "HTA d731cc2e fails on these" : "strict check") + ")");
    if (sameStream > 0)
        return fail(out, diag, path, std::to_string(sameStream) + " sync edges connect activities on the same stream");
    LongestPath lp = longestPath(g, clamp);
    if (!lp.ok)
        return fail(out, diag, path, lp.error);
    if (!ctx.exact && out.window.wholeTrace) {
        // The trace's ends are its ops' (an annotation such as ProfilerStep#N only brackets them).
        std::vector<uint8_t> ends(static_cast<size_t>(g.nodeCount()), 0);
        for (int32_t v : g.graphNodes)
            ends[v] = ctx.rows.catRole(static_cast<uint32_t>(g.nodeEvent[v])) != CatUserAnnotation;
        const CpStitch st = stitchToTraceEnds(g, lp, clamp, 0.01, ends);
        out.stitchJoins = st.joins;
        if (st.joins > 0)
            diag.info("cpa.stitched",
                      path + ": the whole-trace path was joined in time order at " + std::to_string(st.joins) +
                          " point(s), " + std::to_string(static_cast<long long>(st.gapUs)) +
                          " us between the joined ops, where no recorded dependency connects the work before or "
                          "after its longest chain (another thread, CPU work before the first launch or after "
                          "the last GPU op); --hta-exact leaves it as HTA has it",
                      path);
    }

    out.pathNodes = std::move(lp.nodes);
    out.pathEdges = std::move(lp.edges);
    out.weightUs = lp.weight;
    for (int32_t n : out.pathNodes)
        out.criticalEvents.push_back(static_cast<uint32_t>(g.nodeEvent[n]));
    std::sort(out.criticalEvents.begin(), out.criticalEvents.end());
    out.criticalEvents.erase(std::unique(out.criticalEvents.begin(), out.criticalEvents.end()),
                             out.criticalEvents.end());

    // Breakdown and summary (spec 3.2). An operator edge without an attributed event
    // (HTA would fail) is attributed to its source event.
    BoundBy boundBy(ctx, diag);
    double bucket[kCpBoundCount] = {};
    bool present[kCpBoundCount] = {};
    double total = 0;
    out.breakdown.reserve(out.pathEdges.size());
    for (int32_t e : out.pathEdges) {
        CpBreakdownRow row;
        row.edge = e;
        row.event = g.edgeEvent[e] >= 0 ? g.edgeEvent[e] : -1;
        row.duration = g.edgeWeight[e];
        row.type = g.edgeType[e];
        row.bound = boundBy(row.type, row.event >= 0 ? row.event : g.nodeEvent[g.edgeFrom[e]]);
        bucket[static_cast<int>(row.bound)] += row.duration;
        present[static_cast<int>(row.bound)] = true;
        total += row.duration;
        out.breakdown.push_back(row);
    }
    // Every edge's bucket, so a re-weighted graph (what-if) can be summarised alike.
    out.edgeBound.resize(static_cast<size_t>(g.edgeCount()));
    for (int32_t e = 0; e < g.edgeCount(); ++e)
        out.edgeBound[e] = boundBy(g.edgeType[e], g.edgeEvent[e] >= 0 ? g.edgeEvent[e] : g.nodeEvent[g.edgeFrom[e]]);
    for (int b = 0; b < kCpBoundCount; ++b) // enum order = sorted names
        if (present[b])
            out.summary.push_back({cpBoundName(static_cast<CpBound>(b)), total != 0 ? 100.0 * bucket[b] / total : 0.0,
                                   bucket[b]});
    out.success = true;
    return true;
}

} // namespace hta

namespace {

std::string formatNumber(double v)
{
    if (v == std::floor(v) && std::fabs(v) < 9e15)
        return std::to_string(static_cast<long long>(v));
    char buf[32];
    auto res = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, res.ptr);
}

// First `n` code points of a UTF-8 string (Python's name[:n]).
std::string_view prefixChars(std::string_view s, size_t n)
{
    size_t i = 0, count = 0;
    while (i < s.size() && count < n) {
        const unsigned char c = static_cast<unsigned char>(s[i]);
        i += c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : 4;
        ++count;
    }
    return s.substr(0, std::min(i, s.size()));
}

} // namespace

std::string criticalPathDump(const KinetoTrace &trace, const CriticalPathResult &r)
{
    const CpGraph &g = r.graph;
    std::string out = "NODES (id: ev_idx name S/E ts_rel)\n";
    for (int32_t id = 0; id < g.nodeCount(); ++id) {
        const uint32_t ev = static_cast<uint32_t>(g.nodeEvent[id]);
        out += "  " + std::to_string(id) + ": ev" + std::to_string(ev) + " ";
        out += prefixChars(trace.str(trace.events[ev].name), 28);
        out += g.nodeIsStart[id] ? " S " : " E ";
        out += formatNumber(g.nodeTime[id]) + "\n";
    }
    out += "EDGES in insertion order (u->v TYPE weight [attributed ev])\n";
    if (g.finished()) {
        for (int32_t e : g.adjacencyOrder()) {
            out += "  " + std::to_string(g.edgeFrom[e]) + "->" + std::to_string(g.edgeTo[e]) + " " +
                   cpEdgeTypeEnumName(g.edgeType[e]) + " " + formatNumber(g.edgeWeight[e]);
            if (g.edgeEvent[e] != kNoAttribution)
                out += " [ev" + std::to_string(g.edgeEvent[e]) + "]";
            out += "\n";
        }
    }
    out += "CRITICAL PATH nodes: [";
    for (size_t k = 0; k < r.pathNodes.size(); ++k)
        out += (k ? ", " : "") + std::to_string(r.pathNodes[k]);
    out += "]\n";
    return out;
}

} // namespace syncscope
