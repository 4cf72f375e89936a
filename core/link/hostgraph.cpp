// SPDX-License-Identifier: MIT
#include "hostgraph.h"

#include <algorithm>

namespace syncscope {

bool isProfilerStepName(std::string_view name)
{
    return name.find("ProfilerStep") != std::string_view::npos;
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

    // PARAM links a node to its parent only when the parent exists and the node is not id 1.
    g.parentIndex.assign(n, -1);
    std::vector<uint32_t> counts(n + 1, 0);
    for (uint32_t i = 0; i < n; ++i) {
        const HostNode &node = nodes[i];
        if (node.id == 1 || !node.has(HostNode::HasParent))
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

    auto root = g.indexOfId.find(1);
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
