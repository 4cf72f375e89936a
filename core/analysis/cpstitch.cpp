// SPDX-License-Identifier: MIT
// The default mode's joins of the whole-trace path to the trace's ends (cpgraph.h,
// stitchToTraceEnds; docs/critical_path.md, departure 10).
#include "cpgraph.h"

#include <algorithm>
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

// u->v: the graph's own edge where it has one (a path start whose in-edges weigh below 0),
// else a new 0-weight dependency edge.
int32_t joinEdge(CpGraph &g, int32_t u, int32_t v)
{
    const int32_t e = g.findEdge(u, v);
    return e >= 0 ? e : g.addEdgeAfterFinish(u, v, CpEdgeType::Dependency, 0);
}

} // namespace

CpStitch stitchToTraceEnds(CpGraph &g, LongestPath &lp, bool clamp, double tolUs, const std::vector<uint8_t> &ends)
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
    constexpr int kMaxJoins = 32; // each costs a pass over the graph
    std::vector<double> dist;
    std::vector<int32_t> link;
    // Its start: join the heaviest path that ends no later than it starts.
    while (out.joins < kMaxJoins && g.nodeTime[lp.nodes.front()] - t0 > tolUs) {
        const int32_t s = lp.nodes.front();
        const std::vector<double> w = solveWeights(g, clamp);
        longestAll(g, w, /*forward=*/true, dist, link);
        const std::vector<uint8_t> after = reachable(g, s, true);
        int32_t best = -1;
        for (int32_t u : g.graphNodes)
            if (ends[u] && !after[u] && g.nodeTime[u] <= g.nodeTime[s] &&
                (best < 0 || dist[u] > dist[best] || (dist[u] == dist[best] && g.nodeTime[u] > g.nodeTime[best])))
                best = u;
        if (best < 0)
            break;
        std::vector<int32_t> nodes, edges;
        for (int32_t v = best;; v = g.edgeFrom[link[v]]) {
            nodes.push_back(v);
            if (link[v] < 0)
                break;
            edges.push_back(link[v]);
        }
        std::reverse(nodes.begin(), nodes.end());
        std::reverse(edges.begin(), edges.end());
        const int32_t join = joinEdge(g, best, s);
        edges.push_back(join);
        out.gapUs += g.nodeTime[s] - g.nodeTime[best];
        lp.weight += dist[best] + (join < static_cast<int32_t>(w.size()) ? w[join] : 0.0);
        lp.nodes.insert(lp.nodes.begin(), nodes.begin(), nodes.end());
        lp.edges.insert(lp.edges.begin(), edges.begin(), edges.end());
        ++out.joins;
    }
    // Its end: join the heaviest path that starts no earlier than it ends.
    while (out.joins < kMaxJoins && t1 - g.nodeTime[lp.nodes.back()] > tolUs) {
        const int32_t e = lp.nodes.back();
        const std::vector<double> w = solveWeights(g, clamp);
        longestAll(g, w, /*forward=*/false, dist, link);
        const std::vector<uint8_t> before = reachable(g, e, false);
        int32_t best = -1;
        for (int32_t v : g.graphNodes)
            if (ends[v] && !before[v] && g.nodeTime[v] >= g.nodeTime[e] &&
                (best < 0 || dist[v] > dist[best] || (dist[v] == dist[best] && g.nodeTime[v] < g.nodeTime[best])))
                best = v;
        if (best < 0)
            break;
        const int32_t join = joinEdge(g, e, best);
        lp.edges.push_back(join);
        out.gapUs += g.nodeTime[best] - g.nodeTime[e];
        lp.weight += dist[best] + (join < static_cast<int32_t>(w.size()) ? w[join] : 0.0);
        for (int32_t v = best;; v = g.edgeTo[link[v]]) {
            lp.nodes.push_back(v);
            if (link[v] < 0)
                break;
            lp.edges.push_back(link[v]);
        }
        ++out.joins;
    }
    return out;
}

} // namespace syncscope
