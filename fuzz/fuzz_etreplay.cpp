// SPDX-License-Identifier: MIT
// A Chakra protobuf .et (.gz too) replayed as --inspect FILE --replay does: the
// reader, the summary and the list-scheduling replay with its step windows.
// Invariants: every node is either replayed or counted as never ready; a repeated
// id is counted the same by the summary and the replay; the figures are finite; the
// last window is "overall". Linear in the nodes whatever the parent links (two-node
// parent cycles were quadratic), so the time limit catches a regression.
#include "fuzzinput.h"

#include "export/chakrareplay.h"
#include "export/chakrasummary.h"
#include "io/bytesource.h"

#include <cmath>
#include <cstdlib>

using namespace syncscope;

extern "C" int SYNCSCOPE_FUZZ_ENTRY(const uint8_t *data, size_t size)
{
    fuzz::MemFile et(data, size);
    ChakraEtSummary summary;
    try {
        summary = summarizeChakraEt(et.path());
    } catch (const InputError &) {
        return 0; // rejected with a message: fine (the replay reads the same way)
    }
    ReplayResult r;
    try {
        r = replayChakraEt(et.path());
    } catch (const InputError &) {
        std::abort(); // the summary read the file: the replay must too
    }
    (void)formatChakraEtSummary(summary);
    (void)formatReplay(r);
    (void)formatReplayErrors(r.windows);
    const bool counts = r.nodes + r.duplicateIds == summary.nodes && r.duplicateIds == summary.duplicateIds &&
                        r.unreachable >= 0 && r.unreachable <= r.nodes && r.missingDeps >= 0 && r.selfDeps >= 0 &&
                        r.selfDeps <= summary.selfDeps;
    if (!counts || r.windows.empty() || r.windows.back().window != "overall" || !std::isfinite(r.makespanUs) ||
        r.makespanUs < 0)
        std::abort();
    for (const ReplayWindow &w : r.windows)
        if (!std::isfinite(w.replayedUs) || w.replayedUs < 0 || !std::isfinite(w.measuredUs))
            std::abort();
    return 0;
}
