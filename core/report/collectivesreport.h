// SPDX-License-Identifier: MIT
// The single-rank report's `collectives` (docs/breakdowns.md, "One rank's
// collectives"): the trace's collective kernels grouped by type, message size and
// group size, with nccl-tests' algbw / busbw over the median KERNEL time. One rank
// cannot tell its wait for the other ranks from the transfer (job mode can, from
// the last arrival), so these are lower bounds of the link's bandwidth.
#pragma once

#include "analysis/rankanalysis.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace syncscope {

struct CollectiveGroupStats {
    std::string type;        // collectiveTypeName (busbw's type), "" unknown
    int64_t messageBytes = -1; // nccl-tests' S, -1 unknown
    int64_t groupSize = -1;  // "Process Group Ranks" count, -1 unknown
    size_t count = 0;
    double totalUs = 0, meanUs = 0, medianUs = 0, minUs = 0, maxUs = 0; // kernel times
    double algBwGBps = -1, busBwGBps = -1; // over medianUs; -1 unknown (no size, type or group)
};

// Groups in descending total kernel time (ties: type, size, group).
std::vector<CollectiveGroupStats> singleRankCollectives(const Analysis &a);
nlohmann::ordered_json singleRankCollectivesJson(const std::vector<CollectiveGroupStats> &groups);

} // namespace syncscope
