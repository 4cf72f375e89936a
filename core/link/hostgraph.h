// SPDX-License-Identifier: MIT
// Parent/child structure of the host ET and the set of "host ops" Chakra links:
// the nodes reachable from node 1 through parent links, in ascending id order.
#pragma once

#include "model/hosttrace.h"

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace syncscope {

struct HostGraph {
    std::unordered_map<int64_t, uint32_t> indexOfId; // node id -> HostTrace::nodes index (last wins)
    std::vector<uint32_t> byId;                      // node indices sorted by id
    std::vector<uint32_t> reachable;                 // reachable from id 1, sorted by id (root included)
    std::vector<int32_t> parentIndex;                // per node: parent's index or -1
    std::vector<uint32_t> childOffsets, children;    // CSR children lists, children sorted by id
};

HostGraph buildHostGraph(const HostTrace &host);

bool isProfilerStepName(std::string_view name);

} // namespace syncscope
