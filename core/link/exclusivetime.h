// SPDX-License-Identifier: MIT
// Exclusive ("self") time of CPU ops, Chakra's rule (trace_link_spec 3.1):
// for op P, take every later op C in the given order that starts at or after P
// and ends at or before P's end (stop at the first op starting after P's end),
// merge those intervals (touching intervals merge) and subtract their lengths.
// Chakra scans forward for every op (O(n^2) per thread); here a max-end segment
// tree jumps over everything already covered, so nested ops cost O(n log n).
#pragma once

#include "json/pyjson.h"
#include "model/kinetotrace.h"

#include <cstdint>
#include <vector>

namespace syncscope {

// `ops` are event indices of one thread, already in the rule's order
// (Chakra: ts then dur ascending; default mode: ts ascending, dur descending so a
// child starting together with its parent is subtracted). Writes exclusive[op].
// Integer-ness follows Python: the result is an int when every input was.
void computeExclusiveTimes(const KinetoTrace &trace, const std::vector<uint32_t> &ops,
                           std::vector<PyNumber> &exclusive);

} // namespace syncscope
