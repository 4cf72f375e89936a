// SPDX-License-Identifier: MIT
// Small edits of a written .et (job mode, after the cross-rank analysis).
#pragma once

#include <cstdint>
#include <string>

namespace syncscope {

// The attribute a job export puts on each rank's first node: when the rank's trace
// starts after the job's earliest rank (aligned clocks, µs). ASTRA-sim starts every
// rank at 0; a simulator or script that honours this starts the rank that much later.
inline constexpr const char *kRankStartOffsetAttr = "rank_start_offset_micros";

// The node a job export puts first in a rank's .et when the rank started late: a
// COMP_NODE of `micros` that every node without data_deps depends on, so a simulator
// that starts every rank at 0 (ASTRA-sim) still starts this one `micros` later. It
// carries kRankStartOffsetAttr; Syncscope's replay leaves it out of the windows.
inline constexpr const char *kRankStartDelayName = "syncscope:rank_start_offset";

// Rewrites `path` (atomically, keeping its compression) with the delay node above
// (micros > 0) and none otherwise; patching again replaces it. Throws InputError /
// OutputError naming the file.
void setRankStartOffset(const std::string &path, int64_t micros);

} // namespace syncscope
