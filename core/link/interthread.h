// SPDX-License-Identifier: MIT
// Inter-thread order (trace_link_spec 3.2): each thread's CPU ops are cut into
// groups at gaps longer than the threshold; the first op of a group depends on
// the latest op that started before it on any other thread.
// Chakra searches every other thread for every group (O(G * N log N)); here
// each thread is searched by binary search, O(G * T * log N).
#pragma once

#include "link/kinetoview.h"

#include <cstdint>
#include <vector>

namespace syncscope {

// Per Kineto event: the CPU op (event index) its group depends on, -1 if none.
// Chakra mode keeps Chakra's quirks: the dependency is dropped when that op's
// Record function id is missing or 0, and the search ignores ops with ts <= 0.
std::vector<int32_t> findInterThreadDeps(const KinetoTrace &trace, const KinetoView &view, double gapUs);

} // namespace syncscope
