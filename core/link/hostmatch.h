// SPDX-License-Identifier: MIT
// Matching host ET nodes to Kineto CPU ops.
#pragma once

#include "link/hostgraph.h"
#include "link/kinetoview.h"
#include "model/diagnostics.h"

#include <cstdint>
#include <vector>

namespace syncscope {

struct HostMatch {
    MatchStrategy strategy = MatchStrategy::None;
    std::vector<int32_t> hostEvent; // per host node: Kineto CPU op event, -1 if none
    int64_t nameMismatches = 0;     // id-matched pairs whose names differ
};

// Chakra mode: only rf_id == "Record function id", over the nodes reachable from node 1.
// Default mode: Record function id when the trace has usable ones; otherwise
// External id when it agrees with rf_id (same name) for most ops; otherwise
// name and order per thread (legacy traces, e.g. PyTorch <= 2.3 with schema 1.0.1).
HostMatch matchHostOps(const HostTrace &host, const HostGraph &graph, const KinetoTrace &trace,
                       const KinetoView &view, Diagnostics &diagnostics);

// Visible for testing: aligns two name sequences (host ops in id order, Kineto
// ops in start order) greedily with a look-ahead window and verified long jumps.
// Returns, per host position, the matched Kineto position or -1.
std::vector<int32_t> alignByNameAndOrder(const std::vector<uint32_t> &hostNames,
                                         const std::vector<uint32_t> &kinetoNames, size_t anchor);

} // namespace syncscope
