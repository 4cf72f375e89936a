// SPDX-License-Identifier: MIT
// The cross-rank critical path (docs/job_analysis.md, "Job critical path"): the
// per-rank critical-path graphs joined by collective edges, longest path.
#include "analysis/criticalpath.h"
#include "jobinternal.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <unordered_map>

namespace syncscope::job {

namespace {

struct Edge {
    int32_t from, to;
    double weight;
    uint8_t type, bound;
    uint32_t rank;        // summary index of the edge's rank (the destination's for collective edges)
    int32_t op;           // op on that rank, -1 none
    int32_t collective;   // job collective index, -1 none
    double ratio = 1;     // what-if: new / measured weight of a rank edge (scales collective work)
};

} // namespace

JobCriticalPath jobCriticalPath(const std::vector<RankSummary> &ranks, const std::vector<uint8_t> &use,
                                const std::vector<MatchedCollective> &collectives, const std::vector<double> &offsetNs,
                                Diagnostics &diag, const std::vector<std::vector<double>> *weights)
{
    JobCriticalPath out;
    const size_t n = ranks.size();
    // Join the graphs of one step: the ProfilerStep#N most ranks analysed.
    std::unordered_map<int64_t, size_t> stepVotes;
    for (uint32_t i = 0; i < n; ++i)
        if (use[i] && ranks[i].criticalPath.valid)
            ++stepVotes[ranks[i].criticalPath.windowStep];
    int64_t step = -1;
    size_t votes = 0;
    for (const auto &[s, v] : stepVotes)
        if (v > votes || (v == votes && s < step)) {
            step = s;
            votes = v;
        }
    size_t otherStep = 0;
    for (uint32_t i = 0; i < n; ++i)
        otherStep += use[i] && ranks[i].criticalPath.valid && ranks[i].criticalPath.windowStep != step ? 1 : 0;
    if (otherStep > 0)
        diag.warning("job.step_mismatch",
                     "job critical path: " + std::to_string(otherStep) +
                         " ranks analysed another window than " +
                         (step >= 0 ? "ProfilerStep#" + std::to_string(step) : std::string("the others")) +
                         " (the traces start at different steps); they are left out of the job critical path");
    auto joins = [&](uint32_t i) {
        return use[i] && ranks[i].criticalPath.valid && !ranks[i].criticalPath.nodes.empty() &&
               ranks[i].criticalPath.windowStep == step;
    };
    // Times relative to the job's earliest aligned instant (exact in doubles, unlike epoch ns).
    auto offset = [&](uint32_t i) { return static_cast<int64_t>(std::llround(offsetNs[i])); };
    int64_t origin = INT64_MAX;
    for (uint32_t i = 0; i < n; ++i)
        if (joins(i))
            for (const RankCpNode &node : ranks[i].criticalPath.nodes)
                origin = std::min(origin, node.timeNs + offset(i));
    auto relUs = [&](int64_t ns, uint32_t i) { return double(ns + offset(i) - origin) / 1000.0; };
    std::vector<int32_t> base(n, -1);
    std::vector<uint32_t> nodeRank;
    std::vector<double> nodeUs;
    std::unordered_map<int64_t, uint32_t> summaryOf;
    size_t withGraph = 0;
    for (uint32_t i = 0; i < n; ++i) {
        if (!use[i])
            continue;
        summaryOf.emplace(ranks[i].rank, i);
        const RankCpGraph &g = ranks[i].criticalPath;
        if (!joins(i))
            continue;
        ++withGraph;
        base[i] = static_cast<int32_t>(nodeUs.size());
        for (const RankCpNode &node : g.nodes) {
            nodeUs.push_back(relUs(node.timeNs, i));
            nodeRank.push_back(i);
        }
    }
    if (withGraph == 0) {
        out.reason = "no rank has a single-rank critical path to join";
        return out;
    }

    // Per rank: the job collective of each of its collective kernels.
    std::vector<std::vector<int32_t>> jobCollective(n);
    for (uint32_t i = 0; i < n; ++i)
        jobCollective[i].assign(ranks[i].collectives.size(), -1);
    for (uint32_t j = 0; j < collectives.size(); ++j)
        for (size_t p = 0; p < collectives[j].ranks.size(); ++p)
            jobCollective[summaryOf.at(collectives[j].ranks[p])][collectives[j].index[p]] = static_cast<int32_t>(j);

    // The per-rank edges; remember each collective kernel's start/end node and its own edge.
    std::vector<Edge> edges;
    size_t edgeCount = 0;
    for (uint32_t i = 0; i < n; ++i)
        edgeCount += base[i] >= 0 ? ranks[i].criticalPath.edges.size() : 0;
    for (const MatchedCollective &c : collectives)
        edgeCount += c.ranks.size();
    edges.reserve(edgeCount);
    struct KernelNodes {
        int32_t start = -1, end = -1, edge = -1, op = -1;
    };
    std::vector<std::unordered_map<uint32_t, KernelNodes>> kernels(n);
    for (uint32_t i = 0; i < n; ++i) {
        if (base[i] < 0)
            continue;
        const RankCpGraph &g = ranks[i].criticalPath;
        for (size_t k = 0; k < g.nodes.size(); ++k) {
            const int32_t op = g.nodes[k].op;
            if (op < 0 || g.ops[op].collective < 0)
                continue;
            KernelNodes &kn = kernels[i][static_cast<uint32_t>(g.ops[op].collective)];
            (g.nodes[k].isStart ? kn.start : kn.end) = base[i] + static_cast<int32_t>(k);
            kn.op = op;
        }
        for (size_t k = 0; k < g.edges.size(); ++k) {
            const RankCpEdge &e = g.edges[k];
            // HTA's default validation: weights <= -1 count as 0 for the path.
            const double measured = e.weightUs <= -1 ? 0.0 : e.weightUs;
            const double weight = weights ? (*weights)[i][k] : measured;
            if (std::isnan(weight)) // a sync wait the what-if dropped
                continue;
            const int32_t from = base[i] + e.from, to = base[i] + e.to;
            int32_t coll = -1;
            if (e.op >= 0 && g.ops[e.op].collective >= 0) {
                coll = jobCollective[i][g.ops[e.op].collective];
                KernelNodes &kn = kernels[i][static_cast<uint32_t>(g.ops[e.op].collective)];
                if (kn.start == from && kn.end == to)
                    kn.edge = static_cast<int32_t>(edges.size());
            }
            edges.push_back({from, to, weight, e.type, e.bound, i, e.op, coll,
                             measured > 0 && weight != measured ? weight / measured : 1.0});
        }
    }

    // Collective edges: the last arriver's kernel start -> every participant's kernel end;
    // an early rank's own kernel counts only after the last arrival.
    size_t joined = 0;
    for (uint32_t j = 0; j < collectives.size(); ++j) {
        const MatchedCollective &c = collectives[j];
        std::vector<const KernelNodes *> kn(c.ranks.size(), nullptr);
        bool all = true;
        for (size_t p = 0; p < c.ranks.size() && all; ++p) {
            const uint32_t i = summaryOf.at(c.ranks[p]);
            auto it = kernels[i].find(c.index[p]);
            all = it != kernels[i].end() && it->second.start >= 0 && it->second.end >= 0;
            kn[p] = all ? &it->second : nullptr;
        }
        if (!all)
            continue;
        ++joined;
        const size_t lastPos = static_cast<size_t>(
            std::find(c.ranks.begin(), c.ranks.end(), c.lastArrivalRank) - c.ranks.begin());
        const uint32_t last = summaryOf.at(c.lastArrivalRank);
        const double lastArrival = relUs(ranks[last].collectives[c.index[lastPos]].startNs, last);
        for (size_t p = 0; p < c.ranks.size(); ++p) {
            if (p == lastPos)
                continue;
            const uint32_t i = summaryOf.at(c.ranks[p]);
            double work = std::max(0.0, relUs(ranks[i].collectives[c.index[p]].endNs, i) - lastArrival);
            if (kn[p]->edge >= 0) // a what-if that scales the kernel scales its work after the last arrival
                work *= edges[kn[p]->edge].ratio;
            if (kn[p]->edge >= 0)
                edges[kn[p]->edge].weight = work;
            edges.push_back({kn[lastPos]->start, kn[p]->end, work, kJobCollectiveEdge,
                             static_cast<uint8_t>(CpBound::GpuCommunication), i, kn[p]->op, static_cast<int32_t>(j)});
        }
    }

    // Longest path over the DAG (Kahn's order; any node may start the path).
    const size_t nodes = nodeUs.size();
    std::vector<int32_t> outStart(nodes + 1, 0), outEdges(edges.size()), indegree(nodes, 0);
    for (const Edge &e : edges) {
        ++outStart[e.from + 1];
        ++indegree[e.to];
    }
    for (size_t v = 0; v < nodes; ++v)
        outStart[v + 1] += outStart[v];
    {
        std::vector<int32_t> fill(outStart.begin(), outStart.end() - 1);
        for (size_t e = 0; e < edges.size(); ++e)
            outEdges[fill[edges[e].from]++] = static_cast<int32_t>(e);
    }
    std::vector<int32_t> queue;
    queue.reserve(nodes);
    for (size_t v = 0; v < nodes; ++v)
        if (indegree[v] == 0)
            queue.push_back(static_cast<int32_t>(v));
    std::vector<double> dist(nodes, 0);
    std::vector<int32_t> via(nodes, -1);
    for (size_t head = 0; head < queue.size(); ++head) {
        const int32_t u = queue[head];
        for (int32_t k = outStart[u]; k < outStart[u + 1]; ++k) {
            const Edge &e = edges[outEdges[k]];
            if (dist[u] + e.weight > dist[e.to]) {
                dist[e.to] = dist[u] + e.weight;
                via[e.to] = outEdges[k];
            }
            if (--indegree[e.to] == 0)
                queue.push_back(e.to);
        }
    }
    if (queue.size() != nodes) {
        out.reason = "the joined graph has a cycle (collectives matched inconsistently across ranks)";
        diag.warning("job.critical_path_cycle", "job critical path: " + out.reason);
        return out;
    }
    int32_t end = 0;
    for (size_t v = 1; v < nodes; ++v)
        if (dist[v] > dist[end])
            end = static_cast<int32_t>(v);
    std::vector<int32_t> pathEdges;
    for (int32_t v = end; via[v] >= 0; v = edges[via[v]].from)
        pathEdges.push_back(via[v]);
    std::reverse(pathEdges.begin(), pathEdges.end());

    out.valid = true;
    out.weightUs = dist[end];
    double bucket[kCpBoundCount] = {};
    bool present[kCpBoundCount] = {};
    double total = 0;
    auto noteRank = [&](uint32_t i) {
        if (std::find(out.ranksOnPath.begin(), out.ranksOnPath.end(), ranks[i].rank) == out.ranksOnPath.end())
            out.ranksOnPath.push_back(ranks[i].rank);
    };
    if (pathEdges.empty())
        noteRank(nodeRank[end]);
    for (int32_t id : pathEdges) {
        const Edge &e = edges[id];
        noteRank(nodeRank[e.from]);
        noteRank(nodeRank[e.to]);
        const int b = e.bound < kCpBoundCount ? e.bound : 0;
        bucket[b] += e.weight;
        present[b] = true;
        total += e.weight;
        if (e.collective >= 0 &&
            std::find(out.collectivesCrossed.begin(), out.collectivesCrossed.end(), uint32_t(e.collective)) ==
                out.collectivesCrossed.end())
            out.collectivesCrossed.push_back(static_cast<uint32_t>(e.collective));
        if (e.op < 0)
            continue;
        const int64_t rank = ranks[e.rank].rank;
        const RankCpOp &op = ranks[e.rank].criticalPath.ops[e.op];
        const std::string bound = cpBoundName(static_cast<CpBound>(b));
        const double startUs = double(op.startNs + offset(e.rank)) / 1000.0;
        if (!out.path.empty() && out.path.back().rank == rank && out.path.back().op == op.name &&
            out.path.back().startUs == startUs) {
            if (out.path.back().boundBy.empty())
                out.path.back().boundBy = bound;
            continue;
        }
        out.path.push_back({rank, op.name, startUs, double(op.durNs) / 1000.0, bound});
    }
    for (int b = 0; b < kCpBoundCount; ++b)
        if (present[b])
            out.summaryPct.emplace_back(cpBoundName(static_cast<CpBound>(b)), total != 0 ? 100.0 * bucket[b] / total : 0.0);
    if (joined == 0 && !collectives.empty())
        diag.info("job.critical_path_no_collectives",
                  "job critical path: no matched collective lies inside every participant's critical-path window; "
                  "the ranks' graphs are not joined");
    return out;
}

} // namespace syncscope::job
