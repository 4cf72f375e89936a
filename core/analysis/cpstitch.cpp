// SPDX-License-Identifier: MIT
// The default mode's joins of the whole-trace path to the trace's ends (cpgraph.h,
// stitchToTraceEnds; docs/critical_path.md, departure 10).
#include "cpgraph.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace syncscope {

namespace {

// The weights longestPath solves with.
std::vector<double> solveWeights(const CpGraph &g, bool clamp)
{
    std::vector<double> w(g.edgeWeight);
    if (clamp)
        for (double &x : w)
            x = x <= -1 ? 0.0 : x;
    return w;
}

// Nodes reachable from `from` along out-edges (forward) or in-edges (backward), itself included.
std::vector<uint8_t> reachable(const CpGraph &g, int32_t from, bool forward)
{
    std::vector<uint8_t> seen(static_cast<size_t>(g.nodeCount()), 0);
    std::vector<int32_t> stack{from};
    seen[from] = 1;
    while (!stack.empty()) {
        const int32_t u = stack.back();
        stack.pop_back();
        const auto &start = forward ? g.outStart : g.inStart;
        const auto &list = forward ? g.outEdges : g.inEdges;
        for (int32_t k = start[u]; k < start[u + 1]; ++k) {
            const int32_t e = list[k];
            const int32_t v = forward ? g.edgeTo[e] : g.edgeFrom[e];
            if (!seen[v]) {
                seen[v] = 1;
                stack.push_back(v);
            }
        }
    }
    return seen;
}

// Longest paths ending at every node (forward) or starting at every node (backward), with
// longestPath's rules (a path restarts where its weight would go below 0); `link` is the edge
// to the predecessor (forward) or successor (backward), -1 at a path's end.
void longestAll(const CpGraph &g, const std::vector<double> &w, bool forward, std::vector<double> &dist,
                std::vector<int32_t> &link)
{
    std::vector<int32_t> order = topologicalOrder(g);
    if (!forward)
        std::reverse(order.begin(), order.end());
    dist.assign(static_cast<size_t>(g.nodeCount()), 0.0);
    link.assign(static_cast<size_t>(g.nodeCount()), -1);
    for (int32_t v : order) {
        double d = 0;
        int32_t pe = -1;
        const auto &start = forward ? g.inStart : g.outStart;
        const auto &list = forward ? g.inEdges : g.outEdges;
        for (int32_t k = start[v]; k < start[v + 1]; ++k) {
            const int32_t e = list[k];
            const double cand = dist[forward ? g.edgeFrom[e] : g.edgeTo[e]] + w[e];
            if (pe < 0 || cand > d) {
                d = cand;
                pe = e;
            }
        }
        if (d < 0) {
            d = 0;
            pe = -1;
        }
        dist[v] = d;
        link[v] = pe;
    }
}

// One join at the path's start (`atStart`) or end: the heaviest chain ending no later than
// its start (starting no earlier than its end) that the path does not reach, joined by the
// graph's own edge where there is one (a path start whose in-edges weigh below 0), else by a
// new 0-weight dependency edge. False when no chain qualifies. `w`: the solve weights, one
// per edge, kept in step with the graph.
bool joinOnce(CpGraph &g, LongestPath &lp, std::vector<double> &w, const std::vector<uint8_t> &ends, bool atStart,
              CpStitch &out)
{
    const int32_t at = atStart ? lp.nodes.front() : lp.nodes.back();
    std::vector<double> dist;
    std::vector<int32_t> link;
    longestAll(g, w, atStart, dist, link);
    const std::vector<uint8_t> connected = reachable(g, at, atStart);
    auto fits = [&](int32_t v) { return atStart ? g.nodeTime[v] <= g.nodeTime[at] : g.nodeTime[v] >= g.nodeTime[at]; };
    auto closer = [&](int32_t a, int32_t b) { return atStart ? g.nodeTime[a] > g.nodeTime[b] : g.nodeTime[a] < g.nodeTime[b]; };
    int32_t best = -1;
    for (int32_t v : g.graphNodes)
        if (ends[v] && !connected[v] && fits(v) &&
            (best < 0 || dist[v] > dist[best] || (dist[v] == dist[best] && closer(v, best))))
            best = v;
    if (best < 0)
        return false;
    std::vector<int32_t> nodes, edges; // the chain, from `best` outwards
    for (int32_t v = best;; v = atStart ? g.edgeFrom[link[v]] : g.edgeTo[link[v]]) {
        nodes.push_back(v);
        if (link[v] < 0)
            break;
        edges.push_back(link[v]);
    }
    const int32_t u = atStart ? best : at, v = atStart ? at : best;
    int32_t join = g.findEdge(u, v);
    if (join < 0) {
        join = g.addEdgeAfterFinish(u, v, CpEdgeType::Dependency, 0);
        w.push_back(0.0);
    }
    lp.weight += dist[best] + w[static_cast<size_t>(join)];
    out.gapUs += std::abs(g.nodeTime[at] - g.nodeTime[best]);
    if (atStart) {
        std::reverse(nodes.begin(), nodes.end());
        std::reverse(edges.begin(), edges.end());
        edges.push_back(join);
        lp.nodes.insert(lp.nodes.begin(), nodes.begin(), nodes.end());
        lp.edges.insert(lp.edges.begin(), edges.begin(), edges.end());
    } else {
        lp.edges.push_back(join);
        lp.nodes.insert(lp.nodes.end(), nodes.begin(), nodes.end());
        lp.edges.insert(lp.edges.end(), edges.begin(), edges.end());
    }
    ++out.joins;
    return true;
}

} // namespace

CpStitch stitchToTraceEnds(CpGraph &g, LongestPath &lp, bool clamp, double tolFraction, const std::vector<uint8_t> &ends)
{
    CpStitch out;
    if (!lp.ok || lp.nodes.empty() || g.graphNodes.empty())
        return out;
    double t0 = std::numeric_limits<double>::infinity(), t1 = -t0;
    for (int32_t v : g.graphNodes)
        if (ends[v]) {
            t0 = std::min(t0, g.nodeTime[v]);
            t1 = std::max(t1, g.nodeTime[v]);
        }
    if (!(t1 >= t0))
        return out;
    const double tolUs = std::max(1.0, tolFraction * (t1 - t0));
    constexpr int kMaxJoins = 32; // each costs a pass over the graph
    std::vector<double> w = solveWeights(g, clamp);
    while (out.joins < kMaxJoins && g.nodeTime[lp.nodes.front()] - t0 > tolUs && joinOnce(g, lp, w, ends, true, out)) {
    }
    while (out.joins < kMaxJoins && t1 - g.nodeTime[lp.nodes.back()] > tolUs && joinOnce(g, lp, w, ends, false, out)) {
    }
    return out;
}

} // namespace syncscope
