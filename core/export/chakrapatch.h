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

// Rewrites `path` (atomically, keeping its compression) with `kRankStartOffsetAttr`
// = `micros` on its first node. Throws InputError / OutputError naming the file.
void setRankStartOffset(const std::string &path, int64_t micros);

} // namespace syncscope
