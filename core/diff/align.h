// SPDX-License-Identifier: MIT
// Sequence alignment of two key sequences (op paths), near-linear: common
// prefix and suffix, then patience anchors (keys unique on both sides, longest
// increasing run), recursively between anchors; a range with no unique key is
// matched by (key, occurrence) and reduced to its longest increasing run, or by
// an exact LCS when it is small. An inserted or removed op shifts nothing.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace syncscope {

// Index pairs (i in a, j in b) with a[i] == b[j], both strictly increasing.
std::vector<std::pair<uint32_t, uint32_t>> alignSequences(const std::vector<uint32_t> &a,
                                                          const std::vector<uint32_t> &b);

} // namespace syncscope
