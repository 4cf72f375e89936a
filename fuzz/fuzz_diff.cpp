// SPDX-License-Identifier: MIT
// The run diff (--diff): an arbitrary Kineto device trace against the small fixed
// pair (tests/data/golden/trace_link, analysed once), in both directions, as batch
// mode does it: both runs analysed with every step's critical path, matched,
// aggregated, the report dumped and the summary formatted. Invariants: the report
// dumps (valid UTF-8 JSON) and the matches are one-to-one.
#include "fuzzinput.h"

#include "diff/diffreport.h"
#include "diff/tracediff.h"
#include "session/analysis.h"

#include <cstdlib>

using namespace syncscope;

namespace {

std::shared_ptr<const Analysis> baseline()
{
    static const std::shared_ptr<const Analysis> a = [] {
        auto r = runAnalysis(diffRunRequest({}, SYNCSCOPE_PAIR_DIR "/device.0.json", SYNCSCOPE_PAIR_DIR "/host.0.json",
                                            false));
        if (!r->inputsOk || !r->criticalPath || !r->criticalPath->success)
            std::abort(); // the fixed pair must analyse, or the harness tests nothing
        return r;
    }();
    return a;
}

void check(const TraceDiff &d)
{
    (void)diffReportJson(d).dump(1); // throws (uncaught: a finding) on text that is not UTF-8
    (void)formatDiffSummary(d);
    if (d.baselineMatch.size() != d.baselineOps.size() || d.candidateMatch.size() != d.candidateOps.size())
        std::abort();
    for (const auto &[x, y] : d.matches)
        if (x >= d.baselineMatch.size() || y >= d.candidateMatch.size() || d.baselineMatch[x] != int32_t(y) ||
            d.candidateMatch[y] != int32_t(x))
            std::abort();
}

} // namespace

extern "C" int SYNCSCOPE_FUZZ_ENTRY(const uint8_t *data, size_t size)
{
    fuzz::MemFile device(data, size);
    std::shared_ptr<const Analysis> run = runAnalysis(diffRunRequest({}, device.path(), {}, false));
    if (!run->inputsOk)
        return 0; // refused with a diagnostic: batch mode exits 3
    DiffOptions forward;
    forward.baselineWindow = windowOf(*baseline());
    forward.candidateWindow = windowOf(*run);
    check(*diffRuns(baseline(), run, forward));
    DiffOptions backward;
    backward.baselineWindow = forward.candidateWindow;
    backward.candidateWindow = forward.baselineWindow;
    check(*diffRuns(run, baseline(), backward));
    return 0;
}
