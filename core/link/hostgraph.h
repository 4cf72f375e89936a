// SPDX-License-Identifier: MIT
// Parent/child structure of the host ET and the set of "host ops" Chakra links:
// the nodes reachable from the root (HostTrace::rootId, id 1 in PyTorch's ET) through
// parent links, in ascending id order.
#pragma once

#include "model/hosttrace.h"

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace syncscope {

struct HostGraph {
    std::unordered_map<int64_t, uint32_t> indexOfId; // node id -> HostTrace::nodes index (last wins)
    std::vector<uint32_t> byId;                      // node indices sorted by id
    std::vector<uint32_t> reachable;                 // reachable from the root, sorted by id (root included)
    std::vector<int32_t> parentIndex;                // per node: parent's index or -1
    std::vector<uint32_t> childOffsets, children;    // CSR children lists, children sorted by id
};

HostGraph buildHostGraph(const HostTrace &host);

// Nodes whose parent links (ctrl_deps, or "parent" in schema 1.0.1) form a
// cycle, a node being its own parent included; the root naming itself (1 -> 1,
// or 0 -> 0 in a linked ET+) is the ET convention, not a cycle. Such nodes hang under no thread, so the
// exporters could not place them.
struct ParentCycles {
    size_t nodesOnCycles = 0;
    std::vector<int64_t> firstCycle; // ids of one cycle, in parent order, starting at its smallest id
};
ParentCycles findParentCycles(const HostTrace &host);

bool isProfilerStepName(std::string_view name);

} // namespace syncscope
