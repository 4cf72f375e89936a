// SPDX-License-Identifier: MIT
#include "jobrankpath.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace syncscope::job {

RankPathIndex::RankPathIndex(const RankCpGraph &graph) : m_graph(graph)
{
    const size_t n = graph.nodes.size();
    m_outStart.assign(n + 1, 0);
    m_outEdges.resize(graph.edges.size());
    for (const RankCpEdge &e : graph.edges)
        if (e.from >= 0 && size_t(e.from) < n && e.to >= 0 && size_t(e.to) < n)
            ++m_outStart[size_t(e.from) + 1];
    for (size_t v = 0; v < n; ++v)
        m_outStart[v + 1] += m_outStart[v];
    std::vector<int32_t> fill(m_outStart.begin(), m_outStart.end() - 1);
    size_t used = 0;
    for (size_t k = 0; k < graph.edges.size(); ++k) {
        const RankCpEdge &e = graph.edges[k];
        if (e.from >= 0 && size_t(e.from) < n && e.to >= 0 && size_t(e.to) < n) {
            m_outEdges[size_t(fill[size_t(e.from)]++)] = static_cast<int32_t>(k);
            ++used;
        }
    }
    m_outEdges.resize(used);
    m_byTime.resize(n);
    for (size_t v = 0; v < n; ++v)
        m_byTime[v] = static_cast<int32_t>(v);
    std::stable_sort(m_byTime.begin(), m_byTime.end(),
                     [&](int32_t a, int32_t b) { return graph.nodes[size_t(a)].timeNs < graph.nodes[size_t(b)].timeNs; });
}

RankPathIndex::Path RankPathIndex::longest(int64_t fromNs, int64_t toNs, const std::vector<double> &weight,
                                           bool wantEdges) const
{
    Path out;
    const auto &nodes = m_graph.nodes;
    auto lo = std::lower_bound(m_byTime.begin(), m_byTime.end(), fromNs,
                               [&](int32_t v, int64_t t) { return nodes[size_t(v)].timeNs < t; });
    auto hi = std::upper_bound(lo, m_byTime.end(), toNs,
                               [&](int64_t t, int32_t v) { return t < nodes[size_t(v)].timeNs; });
    if (lo == hi)
        return out;
    // Kahn's order over the window's nodes (edges may join nodes of equal time).
    std::unordered_map<int32_t, uint32_t> local;
    local.reserve(size_t(hi - lo));
    for (auto it = lo; it != hi; ++it)
        local.emplace(*it, static_cast<uint32_t>(local.size()));
    const size_t n = local.size();
    std::vector<int32_t> indegree(n, 0);
    auto inWindow = [&](int32_t v) {
        const int64_t t = nodes[size_t(v)].timeNs;
        return t >= fromNs && t <= toNs;
    };
    for (auto it = lo; it != hi; ++it)
        for (int32_t k = m_outStart[size_t(*it)]; k < m_outStart[size_t(*it) + 1]; ++k) {
            const RankCpEdge &e = m_graph.edges[size_t(m_outEdges[size_t(k)])];
            if (inWindow(e.to))
                ++indegree[local.at(e.to)];
        }
    std::vector<int32_t> queue;
    queue.reserve(n);
    for (auto it = lo; it != hi; ++it)
        if (indegree[local.at(*it)] == 0)
            queue.push_back(*it);
    std::vector<double> dist(n, 0);
    std::vector<int32_t> via(n, -1);
    int32_t best = queue.empty() ? -1 : queue.front();
    for (size_t head = 0; head < queue.size(); ++head) {
        const int32_t u = queue[head];
        const uint32_t lu = local.at(u);
        if (dist[lu] > dist[local.at(best)])
            best = u;
        for (int32_t k = m_outStart[size_t(u)]; k < m_outStart[size_t(u) + 1]; ++k) {
            const int32_t id = m_outEdges[size_t(k)];
            const RankCpEdge &e = m_graph.edges[size_t(id)];
            if (!inWindow(e.to))
                continue;
            const uint32_t lv = local.at(e.to);
            const double w = weight[size_t(id)];
            if (!std::isnan(w) && dist[lu] + w > dist[lv]) {
                dist[lv] = dist[lu] + w;
                via[lv] = id;
            }
            if (--indegree[lv] == 0)
                queue.push_back(e.to);
        }
    }
    if (best < 0) // a cycle covers the window: no path
        return out;
    out.weightUs = dist[local.at(best)];
    if (wantEdges) {
        for (int32_t v = best; via[local.at(v)] >= 0; v = m_graph.edges[size_t(via[local.at(v)])].from)
            out.edges.push_back(via[local.at(v)]);
        std::reverse(out.edges.begin(), out.edges.end());
    }
    return out;
}

std::vector<double> measuredWeights(const RankCpGraph &graph)
{
    std::vector<double> w(graph.edges.size());
    for (size_t e = 0; e < graph.edges.size(); ++e)
        w[e] = graph.edges[e].weightUs <= -1 ? 0 : graph.edges[e].weightUs;
    return w;
}

} // namespace syncscope::job
