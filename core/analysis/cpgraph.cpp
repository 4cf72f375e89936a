// SPDX-License-Identifier: MIT
#include "cpgraph.h"

#include <algorithm>
#include <cmath>

namespace syncscope {

const char *cpEdgeTypeValue(CpEdgeType t)
{
    switch (t) {
    case CpEdgeType::OperatorKernel:
        return "critical_path_operator";
    case CpEdgeType::Dependency:
        return "critical_path_dependency";
    case CpEdgeType::KernelLaunchDelay:
        return "critical_path_kernel_launch_delay";
    case CpEdgeType::KernelKernelDelay:
        return "critical_path_kernel_kernel_delay";
    case CpEdgeType::SyncDependency:
        return "critical_path_sync_dependency";
    }
    return "";
}

const char *cpEdgeTypeEnumName(CpEdgeType t)
{
    switch (t) {
    case CpEdgeType::OperatorKernel:
        return "OPERATOR_KERNEL";
    case CpEdgeType::Dependency:
        return "DEPENDENCY";
    case CpEdgeType::KernelLaunchDelay:
        return "KERNEL_LAUNCH_DELAY";
    case CpEdgeType::KernelKernelDelay:
        return "KERNEL_KERNEL_DELAY";
    case CpEdgeType::SyncDependency:
        return "SYNC_DEPENDENCY";
    }
    return "";
}

namespace {

constexpr uint64_t kEmpty = ~uint64_t(0);

uint64_t mix(uint64_t x)
{
    // splitmix64 finaliser: node ids are dense, so spread them before masking.
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

uint64_t edgeKey(int32_t u, int32_t v)
{
    return (uint64_t(uint32_t(u)) << 32) | uint32_t(v);
}

} // namespace

void CpGraph::grow()
{
    const size_t cap = m_keys.empty() ? 1024 : m_keys.size() * 2;
    std::vector<uint64_t> keys(cap, kEmpty);
    std::vector<int32_t> vals(cap, -1);
    for (size_t i = 0; i < m_keys.size(); ++i) {
        if (m_keys[i] == kEmpty)
            continue;
        size_t h = mix(m_keys[i]) & (cap - 1);
        while (keys[h] != kEmpty)
            h = (h + 1) & (cap - 1);
        keys[h] = m_keys[i];
        vals[h] = m_vals[i];
    }
    m_keys.swap(keys);
    m_vals.swap(vals);
}

void CpGraph::hashInsert(uint64_t key, int32_t edge)
{
    if ((m_used + 1) * 2 > m_keys.size())
        grow();
    size_t h = mix(key) & (m_keys.size() - 1);
    while (m_keys[h] != kEmpty)
        h = (h + 1) & (m_keys.size() - 1);
    m_keys[h] = key;
    m_vals[h] = edge;
    ++m_used;
}

int32_t CpGraph::lookup(int32_t u, int32_t v, int *scanned) const
{
    if (m_useHash) {
        const uint64_t key = edgeKey(u, v);
        size_t h = mix(key) & (m_keys.size() - 1);
        while (m_keys[h] != kEmpty) {
            if (m_keys[h] == key)
                return m_vals[h];
            h = (h + 1) & (m_keys.size() - 1);
        }
        return -1;
    }
    if (u < 0 || static_cast<size_t>(u) >= m_headOut.size())
        return -1;
    int n = 0;
    for (int32_t e = m_headOut[u]; e >= 0; e = m_nextOut[e], ++n) {
        if (edgeTo[e] == v)
            return e;
    }
    if (scanned)
        *scanned = n;
    return -1;
}

int32_t CpGraph::addEdge(int32_t u, int32_t v, CpEdgeType type, double weight)
{
    int scanned = 0;
    const int32_t found = lookup(u, v, &scanned);
    if (found >= 0) {
        edgeType[found] = type;
        edgeWeight[found] = weight;
        return found;
    }
    if (scanned > 64 && !m_useHash) { // a hub (e.g. a kernel many syncs wait on): switch to hashing
        for (int32_t x = 0; x < edgeCount(); ++x)
            hashInsert(edgeKey(edgeFrom[x], edgeTo[x]), x);
        m_useHash = true;
    }
    const int32_t e = edgeCount();
    edgeFrom.push_back(u);
    edgeTo.push_back(v);
    edgeWeight.push_back(weight);
    edgeType.push_back(type);
    edgeEvent.push_back(kNoAttribution);
    if (m_headOut.size() < nodeEvent.size() || static_cast<size_t>(u) >= m_headOut.size())
        m_headOut.resize(std::max(nodeEvent.size(), static_cast<size_t>(u) + 1), -1);
    m_nextOut.push_back(m_headOut[u]);
    m_headOut[u] = e;
    if (m_useHash)
        hashInsert(edgeKey(u, v), e);
    return e;
}

int32_t CpGraph::findEdge(int32_t u, int32_t v) const
{
    if (m_finished) {
        if (u < 0 || u + 1 >= static_cast<int32_t>(outStart.size()))
            return -1;
        for (int32_t k = outStart[u]; k < outStart[u + 1]; ++k)
            if (edgeTo[outEdges[k]] == v)
                return outEdges[k];
        return -1;
    }
    return lookup(u, v, nullptr);
}

int32_t CpGraph::addEdgeAfterFinish(int32_t u, int32_t v, CpEdgeType type, double weight)
{
    edgeFrom.push_back(u);
    edgeTo.push_back(v);
    edgeWeight.push_back(weight);
    edgeType.push_back(type);
    edgeEvent.push_back(kNoAttribution);
    finish(m_allNodes);
    return edgeCount() - 1;
}

void CpGraph::finish(bool allNodes)
{
    m_allNodes = allNodes;
    const int32_t n = nodeCount();
    const int32_t m = edgeCount();
    auto buildCsr = [&](const std::vector<int32_t> &key, std::vector<int32_t> &start, std::vector<int32_t> &list) {
        start.assign(static_cast<size_t>(n) + 1, 0);
        for (int32_t e = 0; e < m; ++e)
            ++start[key[e] + 1];
        for (int32_t i = 0; i < n; ++i)
            start[i + 1] += start[i];
        list.resize(m);
        std::vector<int32_t> fill(start.begin(), start.end() - 1);
        for (int32_t e = 0; e < m; ++e) // edge ids ascending = insertion order
            list[fill[key[e]]++] = e;
    };
    buildCsr(edgeFrom, outStart, outEdges);
    buildCsr(edgeTo, inStart, inEdges);

    graphNodes.clear();
    if (allNodes) {
        for (int32_t x = 0; x < n; ++x)
            graphNodes.push_back(x);
    } else {
        std::vector<uint8_t> seen(static_cast<size_t>(n), 0);
        for (int32_t e = 0; e < m; ++e) {
            for (int32_t x : {edgeFrom[e], edgeTo[e]}) {
                if (!seen[x]) {
                    seen[x] = 1;
                    graphNodes.push_back(x);
                }
            }
        }
    }
    std::vector<uint64_t>().swap(m_keys);
    std::vector<int32_t>().swap(m_vals);
    std::vector<int32_t>().swap(m_headOut);
    std::vector<int32_t>().swap(m_nextOut);
    m_used = 0;
    m_useHash = false;
    m_finished = true;
}

std::vector<int32_t> CpGraph::adjacencyOrder() const
{
    std::vector<int32_t> order;
    order.reserve(edgeFrom.size());
    for (int32_t u : graphNodes)
        for (int32_t k = outStart[u]; k < outStart[u + 1]; ++k)
            order.push_back(outEdges[k]);
    return order;
}

size_t CpGraph::memoryBytes() const
{
    return nodeEvent.capacity() * 4 + nodeTime.capacity() * 8 + nodeIsStart.capacity() + edgeFrom.capacity() * 4 +
           edgeTo.capacity() * 4 + edgeWeight.capacity() * 8 + edgeType.capacity() + edgeEvent.capacity() * 4 +
           graphNodes.capacity() * 4 + (outStart.capacity() + outEdges.capacity() + inStart.capacity() +
                                        inEdges.capacity()) * 4 +
           m_keys.capacity() * 8 + m_vals.capacity() * 4 + (m_headOut.capacity() + m_nextOut.capacity()) * 4;
}

std::vector<int32_t> topologicalOrder(const CpGraph &g)
{
    // Kahn's algorithm by generations (networkx topological_generations): a FIFO
    // over graph nodes in insertion order visits the generations in order.
    const int32_t n = g.nodeCount();
    std::vector<int32_t> indeg(static_cast<size_t>(n), 0);
    for (int32_t v = 0; v < n; ++v)
        indeg[v] = g.inStart[v + 1] - g.inStart[v];
    std::vector<int32_t> topo;
    topo.reserve(g.graphNodes.size());
    for (int32_t v : g.graphNodes)
        if (indeg[v] == 0)
            topo.push_back(v);
    for (size_t head = 0; head < topo.size(); ++head) {
        const int32_t u = topo[head];
        for (int32_t k = g.outStart[u]; k < g.outStart[u + 1]; ++k) {
            const int32_t v = g.edgeTo[g.outEdges[k]];
            if (--indeg[v] == 0)
                topo.push_back(v);
        }
    }
    return topo;
}

LongestPath longestPathWith(const CpGraph &g, const std::vector<int32_t> &topo, const std::vector<double> &weight)
{
    LongestPath r;
    // dist(v) = first maximum over predecessors in edge insertion order.
    const int32_t n = g.nodeCount();
    std::vector<double> dist(static_cast<size_t>(n), 0.0);
    std::vector<int32_t> predEdge(static_cast<size_t>(n), -1); // -1: the path starts here
    int32_t best = -1;
    for (int32_t v : topo) {
        double d = 0;
        int32_t pe = -1;
        bool any = false;
        for (int32_t k = g.inStart[v]; k < g.inStart[v + 1]; ++k) {
            const int32_t e = g.inEdges[k];
            if (std::isnan(weight[e]))
                continue;
            const double cand = dist[g.edgeFrom[e]] + weight[e];
            if (!any || cand > d) {
                d = cand;
                pe = e;
                any = true;
            }
        }
        if (d < 0) { // networkx restarts the path at v
            d = 0;
            pe = -1;
        }
        dist[v] = d;
        predEdge[v] = pe;
        if (best < 0 || d > dist[best])
            best = v;
    }
    if (best < 0) {
        r.error = "the graph has no edges";
        return r;
    }
    for (int32_t v = best;; v = g.edgeFrom[predEdge[v]]) {
        r.nodes.push_back(v);
        if (predEdge[v] < 0)
            break;
        r.edges.push_back(predEdge[v]);
    }
    std::reverse(r.nodes.begin(), r.nodes.end());
    std::reverse(r.edges.begin(), r.edges.end());
    r.weight = dist[best];
    if (r.nodes.size() < 2) {
        r.error = "the critical path has fewer than two nodes";
        return r;
    }
    r.ok = true;
    return r;
}

LongestPath longestPath(const CpGraph &g, bool clampNegative)
{
    LongestPath r;
    if (g.edgeCount() == 0) {
        r.error = "the graph has no edges";
        return r;
    }
    const std::vector<int32_t> topo = topologicalOrder(g);
    if (topo.size() != g.graphNodes.size()) {
        r.error = "the graph has a cycle";
        return r;
    }
    std::vector<double> weight(g.edgeWeight);
    if (clampNegative)
        for (double &w : weight)
            w = w <= -1 ? 0.0 : w;
    return longestPathWith(g, topo, weight);
}

} // namespace syncscope
