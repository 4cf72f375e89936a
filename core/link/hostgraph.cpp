// SPDX-License-Identifier: MIT
#include "hostgraph.h"

#include <algorithm>

namespace syncscope {

bool isProfilerStepName(std::string_view name)
{
    return name.find("ProfilerStep") != std::string_view::npos;
}

ParentCycles findParentCycles(const HostTrace &host)
{
    const auto &nodes = host.nodes;
    const auto n = static_cast<uint32_t>(nodes.size());
    std::unordered_map<int64_t, uint32_t> indexOfId;
    indexOfId.reserve(n * 2);
    for (uint32_t i = 0; i < n; ++i)
        indexOfId[nodes[i].id] = i;
    auto parentOf = [&](uint32_t i) -> int64_t {
        const HostNode &node = nodes[i];
        if (node.id == host.rootId || !node.has(HostNode::HasParent))
            return -1;
        auto it = indexOfId.find(node.parent);
        return it == indexOfId.end() ? -1 : static_cast<int64_t>(it->second);
    };
    // Each node has at most one parent: follow the chain from every unvisited
    // node; meeting a node of the current walk closes a cycle. O(n), iterative.
    ParentCycles result;
    std::vector<uint32_t> walk(n, 0); // 0: unvisited, else the walk that reached it
    std::vector<uint32_t> path;
    for (uint32_t start = 0; start < n; ++start) {
        if (walk[start] != 0)
            continue;
        const uint32_t stamp = start + 1;
        path.clear();
        int64_t at = start;
        while (at >= 0 && walk[static_cast<size_t>(at)] == 0) {
            walk[static_cast<size_t>(at)] = stamp;
            path.push_back(static_cast<uint32_t>(at));
            at = parentOf(static_cast<uint32_t>(at));
        }
        if (at < 0 || walk[static_cast<size_t>(at)] != stamp)
            continue; // reached a root or an earlier walk
        const auto from = std::find(path.begin(), path.end(), static_cast<uint32_t>(at));
        result.nodesOnCycles += static_cast<size_t>(path.end() - from);
        if (result.firstCycle.empty()) {
            std::vector<uint32_t> cycle(from, path.end());
            std::rotate(cycle.begin(), std::min_element(cycle.begin(), cycle.end(), [&](uint32_t a, uint32_t b) {
                            return nodes[a].id < nodes[b].id;
                        }),
                        cycle.end());
            for (uint32_t i : cycle)
                result.firstCycle.push_back(nodes[i].id);
        }
    }
    return result;
}

HostGraph buildHostGraph(const HostTrace &host)
{
    HostGraph g;
    const auto &nodes = host.nodes;
    const auto n = static_cast<uint32_t>(nodes.size());
    g.indexOfId.reserve(n * 2);
    for (uint32_t i = 0; i < n; ++i)
        g.indexOfId[nodes[i].id] = i;
    g.byId.resize(n);
    for (uint32_t i = 0; i < n; ++i)
        g.byId[i] = i;
    std::stable_sort(g.byId.begin(), g.byId.end(), [&](uint32_t a, uint32_t b) { return nodes[a].id < nodes[b].id; });

    // PARAM links a node to its parent only when the parent exists and the node is not
    // the root (id 1; a linked ET+'s self-parented process node).
    g.parentIndex.assign(n, -1);
    std::vector<uint32_t> counts(n + 1, 0);
    for (uint32_t i = 0; i < n; ++i) {
        const HostNode &node = nodes[i];
        if (node.id == host.rootId || !node.has(HostNode::HasParent))
            continue;
        auto it = g.indexOfId.find(node.parent);
        if (it == g.indexOfId.end() || it->second == i)
            continue;
        g.parentIndex[i] = static_cast<int32_t>(it->second);
        ++counts[it->second + 1];
    }
    g.childOffsets.assign(n + 1, 0);
    for (uint32_t i = 0; i < n; ++i)
        g.childOffsets[i + 1] = g.childOffsets[i] + counts[i + 1];
    g.children.resize(g.childOffsets[n]);
    std::vector<uint32_t> fill(g.childOffsets.begin(), g.childOffsets.end() - 1);
    for (uint32_t i : g.byId) // children end up sorted by id
        if (g.parentIndex[i] >= 0)
            g.children[fill[static_cast<uint32_t>(g.parentIndex[i])]++] = i;

    auto root = g.indexOfId.find(host.rootId);
    if (root != g.indexOfId.end()) {
        std::vector<uint8_t> seen(n, 0);
        std::vector<uint32_t> stack{root->second};
        while (!stack.empty()) {
            const uint32_t i = stack.back();
            stack.pop_back();
            if (seen[i])
                continue;
            seen[i] = 1;
            g.reachable.push_back(i);
            for (uint32_t c = g.childOffsets[i]; c < g.childOffsets[i + 1]; ++c)
                stack.push_back(g.children[c]);
        }
        std::sort(g.reachable.begin(), g.reachable.end(),
                  [&](uint32_t a, uint32_t b) { return nodes[a].id < nodes[b].id; });
    }
    return g;
}

} // namespace syncscope
