// SPDX-License-Identifier: MIT
#include "jobwhatif.h"

#include "analysis/cpgraph.h"
#include "jobinternal.h"
#include "jobrankpath.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace syncscope {

double rankLongestPathUs(const RankCpGraph &graph, const std::vector<double> &weight)
{
    const size_t n = graph.nodes.size();
    std::vector<int32_t> outStart(n + 1, 0), outEdges(graph.edges.size()), indegree(n, 0);
    for (const RankCpEdge &e : graph.edges) {
        ++outStart[static_cast<size_t>(e.from) + 1];
        ++indegree[static_cast<size_t>(e.to)];
    }
    for (size_t v = 0; v < n; ++v)
        outStart[v + 1] += outStart[v];
    {
        std::vector<int32_t> fill(outStart.begin(), outStart.end() - 1);
        for (size_t e = 0; e < graph.edges.size(); ++e)
            outEdges[static_cast<size_t>(fill[static_cast<size_t>(graph.edges[e].from)]++)] = static_cast<int32_t>(e);
    }
    std::vector<int32_t> queue;
    queue.reserve(n);
    for (size_t v = 0; v < n; ++v)
        if (indegree[v] == 0)
            queue.push_back(static_cast<int32_t>(v));
    std::vector<double> dist(n, 0);
    double best = 0;
    for (size_t head = 0; head < queue.size(); ++head) {
        const int32_t u = queue[head];
        best = std::max(best, dist[static_cast<size_t>(u)]);
        for (int32_t k = outStart[static_cast<size_t>(u)]; k < outStart[static_cast<size_t>(u) + 1]; ++k) {
            const RankCpEdge &e = graph.edges[static_cast<size_t>(outEdges[static_cast<size_t>(k)])];
            const double w = weight[static_cast<size_t>(outEdges[static_cast<size_t>(k)])];
            if (!std::isnan(w))
                dist[static_cast<size_t>(e.to)] = std::max(dist[static_cast<size_t>(e.to)], dist[static_cast<size_t>(u)] + w);
            if (--indegree[static_cast<size_t>(e.to)] == 0)
                queue.push_back(e.to);
        }
    }
    return best;
}

namespace job {

JobWhatIf jobWhatIf(const std::vector<RankSummary> &ranks, const std::vector<uint8_t> &use,
                    const std::vector<MatchedCollective> &collectives, const std::vector<double> &offsetNs,
                    const std::vector<WhatIfRule> &rules, const JobCriticalPath &baseline, Diagnostics &diag)
{
    JobWhatIf out;
    std::vector<int64_t> matched(rules.size(), 0);
    // The rules on every rank at once (=median|mean|min need all ranks' ops).
    std::vector<std::vector<int64_t>> perRank;
    std::vector<std::vector<double>> weights =
        jobWhatIfAllWeights(ranks, use, jobTransfers(ranks, use, collectives), rules, perRank);
    for (size_t i = 0; i < ranks.size(); ++i) {
        const RankCpGraph &g = ranks[i].criticalPath;
        if (!use[i] || !g.valid)
            continue;
        const std::vector<int64_t> &mine = perRank[i];
        JobWhatIfRank row;
        row.rank = ranks[i].rank;
        row.baselineUs = rankLongestPathUs(g, measuredWeights(g));
        row.projectedUs = rankLongestPathUs(g, weights[i]);
        for (size_t r = 0; r < rules.size(); ++r) {
            matched[r] += mine[r];
            row.matched += mine[r];
        }
        out.ranks.push_back(row);
    }
    for (size_t r = 0; r < rules.size(); ++r)
        out.rules.push_back({rules[r].text, matched[r]});
    // Ranks the rules could not see: no critical-path graph (their analysis failed or
    // was not asked for; their own diagnostics say why).
    std::vector<int64_t> noGraph;
    for (size_t i = 0; i < ranks.size(); ++i)
        if (use[i] && !ranks[i].criticalPath.valid)
            noGraph.push_back(ranks[i].rank);
    auto rankList = [&] {
        std::string s;
        for (size_t k = 0; k < noGraph.size() && k < 8; ++k)
            s += (k ? ", " : "") + std::to_string(noGraph[k]);
        return noGraph.size() > 8 ? s + ", ..." : s;
    };
    // No baseline first: without one no rule can match anything, and "matches nothing"
    // would blame the rule for a missing critical path.
    if (!baseline.valid || out.ranks.empty()) {
        out.error = "--what-if needs the job critical path, which could not be computed (" +
                    (baseline.valid ? std::string("no rank has a critical-path graph") : baseline.reason) + ")";
        if (!noGraph.empty())
            out.error += "; rank(s) without a critical-path graph: " + rankList() + " (see their diagnostics)";
        diag.error("what_if.no_critical_path", out.error);
        return out;
    }
    for (size_t r = 0; r < rules.size() && out.error.empty(); ++r)
        if (matched[r] == 0) {
            out.error = "the what-if rule \"" + rules[r].text + "\" matches nothing on any rank's critical-path graph";
            if (!noGraph.empty())
                out.error += " (rank(s) " + rankList() + " have no critical-path graph and were not searched)";
        }
    if (!out.error.empty()) {
        diag.error("what_if.no_match", out.error);
        return out;
    }
    Diagnostics quiet; // the baseline run reported the joining problems already
    const JobCriticalPath projected = jobCriticalPath(ranks, use, collectives, offsetNs, quiet, &weights);
    if (!projected.valid) {
        out.error = "the re-weighted job graph has no critical path (" + projected.reason + ")";
        diag.error("what_if.no_critical_path", out.error);
        return out;
    }
    // The job's step (earliest start to latest end), measured and replayed: the path's
    // own length may grow when the walk then starts on a rank that started earlier.
    out.baselineUs = baseline.stepTime.stepTimeUs;
    out.projectedUs = projected.stepTime.stepTimeUs;
    out.speedup = out.projectedUs > 0 ? out.baselineUs / out.projectedUs : std::numeric_limits<double>::infinity();
    out.ranksOnPath = projected.ranksOnPath;
    out.summaryPct = projected.summaryPct;
    out.ok = true;
    return out;
}

} // namespace job

} // namespace syncscope
