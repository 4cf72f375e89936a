// SPDX-License-Identifier: MIT
#include "jobwhatif.h"

#include "analysis/cpgraph.h"
#include "jobinternal.h"
#include "jobrankpath.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace syncscope {

bool jobWhatIfMatches(const WhatIfSelector &selector, const RankCpOp &op, int64_t rank)
{
    using Term = WhatIfSelector::Term;
    const std::string_view kernel = eventKindName(EventKind::Kernel);
    for (const Term &t : selector.terms) {
        bool hit = false;
        switch (t.kind) {
        case Term::NameRegex: hit = whatIfRegexSearch(t, op.name); break;
        case Term::NameEquals: hit = op.name == t.text; break;
        case Term::Category:
            hit = op.kind == eventKindName(t.category) ||
                  (t.category == EventKind::Runtime && op.kind == eventKindName(EventKind::Driver));
            break;
        case Term::Comm:
        case Term::Compute:
            hit = op.kind == kernel && (op.collective >= 0 || isCommKernelName(op.name)) == (t.kind == Term::Comm);
            break;
        case Term::Stream: hit = op.stream >= 0 && op.stream == t.number; break;
        case Term::Rank: hit = rank == t.number; break;
        case Term::Event: hit = false; break;
        }
        if (!hit)
            return false;
    }
    return true;
}

std::vector<double> jobWhatIfWeights(const RankCpGraph &graph, int64_t rank, const std::vector<WhatIfRule> &rules,
                                     std::vector<int64_t> &matched)
{
    std::vector<double> w = job::measuredWeights(graph);
    const auto opKernel = static_cast<uint8_t>(CpEdgeType::OperatorKernel);
    const auto sync = static_cast<uint8_t>(CpEdgeType::SyncDependency);
    for (size_t r = 0; r < rules.size(); ++r) {
        const WhatIfRule &rule = rules[r];
        // One regex test per op, not per edge.
        std::vector<int8_t> holds(graph.ops.size(), -1);
        auto opHolds = [&](int32_t op) {
            if (op < 0)
                return false;
            int8_t &h = holds[static_cast<size_t>(op)];
            if (h < 0)
                h = jobWhatIfMatches(rule.selector, graph.ops[static_cast<size_t>(op)], rank) ? 1 : 0;
            return h == 1;
        };
        if (rule.action == WhatIfRule::DropSync) {
            for (size_t e = 0; e < graph.edges.size(); ++e)
                if (graph.edges[e].type == sync && !std::isnan(w[e]) &&
                    opHolds(graph.nodes[static_cast<size_t>(graph.edges[e].to)].op)) {
                    w[e] = std::numeric_limits<double>::quiet_NaN();
                    ++matched[r];
                }
            continue;
        }
        // An op's own time is the sum of its operator edges, as in WhatIfEngine.
        std::unordered_map<int32_t, double> own;
        for (size_t e = 0; e < graph.edges.size(); ++e)
            if (graph.edges[e].type == opKernel && opHolds(graph.edges[e].op))
                own[graph.edges[e].op] += w[e];
        matched[r] += static_cast<int64_t>(own.size());
        std::unordered_map<int32_t, bool> firstPiece;
        for (size_t e = 0; e < graph.edges.size(); ++e) {
            if (graph.edges[e].type != opKernel)
                continue;
            auto it = own.find(graph.edges[e].op);
            if (it == own.end())
                continue;
            const bool first = rule.action == WhatIfRule::Set && it->second <= 0 &&
                               firstPiece.try_emplace(it->first, true).second;
            w[e] = whatIfPieceWeight(rule, w[e], it->second, first);
        }
    }
    return w;
}

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
    std::vector<std::vector<double>> weights(ranks.size());
    for (size_t i = 0; i < ranks.size(); ++i) {
        const RankCpGraph &g = ranks[i].criticalPath;
        if (!use[i] || !g.valid)
            continue;
        std::vector<int64_t> mine(rules.size(), 0);
        weights[i] = jobWhatIfWeights(g, ranks[i].rank, rules, mine);
        std::vector<int64_t> none;
        JobWhatIfRank row;
        row.rank = ranks[i].rank;
        row.baselineUs = rankLongestPathUs(g, jobWhatIfWeights(g, ranks[i].rank, {}, none));
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
