// SPDX-License-Identifier: MIT
// What-if across a job (docs/what_if.md, "Jobs"): the rules re-weight every
// rank's critical-path graph (rank=N restricts a rule to rank N), the ranks'
// graphs are re-timed together (jobreplay.cpp) and the job's step and critical
// path recomputed. Works on the rank summaries only, like the rest of the job layer.
#pragma once

#include "analysis/whatif.h"
#include "ranksummary.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace syncscope {

struct JobWhatIfRank {
    int64_t rank = -1;
    double baselineUs = 0;   // the rank's own critical path (longest path of its graph)
    double projectedUs = 0;  // the same after the rules
    int64_t matched = 0;     // events (or sync waits) the rules changed on this rank
};

struct JobWhatIf {
    bool ok = false;
    std::string error;        // e.g. a rule that matches nothing on any rank
    double baselineUs = 0;    // the job's step as measured (job critical path's step_time_us)
    double projectedUs = 0;   // the step replayed after the rules
    double speedup = 1;
    std::vector<WhatIfRuleCount> rules;
    std::vector<JobWhatIfRank> ranks; // ranks with a critical-path graph, summary order
    std::vector<int64_t> ranksOnPath; // of the projected job critical path
    std::vector<std::pair<std::string, double>> summaryPct; // its bound-by breakdown
};

// Does `selector` hold for `op` of rank `rank`? (event=N never holds: the job
// layer has no trace events.)
bool jobWhatIfMatches(const WhatIfSelector &selector, const RankCpOp &op, int64_t rank);

// The edge weights of `graph` after `rules` (HTA's clamp of weights <= -1 to 0
// first; a dropped sync edge is NaN). `matched[r]` is incremented by what rule r changed.
std::vector<double> jobWhatIfWeights(const RankCpGraph &graph, int64_t rank, const std::vector<WhatIfRule> &rules,
                                     std::vector<int64_t> &matched);

// Longest path of one rank's graph under `weight` (NaN edges left out), µs.
double rankLongestPathUs(const RankCpGraph &graph, const std::vector<double> &weight);

} // namespace syncscope
