// SPDX-License-Identifier: MIT
// What-if across a job (docs/what_if.md, "Jobs"): the rules re-weight every
// rank's critical-path graph (rank=N restricts a rule to rank N), the ranks'
// graphs are re-timed together (jobreplay.cpp) and the job's step and critical
// path recomputed. Works on the rank summaries only, like the rest of the job layer.
#pragma once

#include "analysis/whatif.h"
#include "analysis/ranksummary.h"

#include <cstdint>
#include <limits>
#include <string>
#include <unordered_map>
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

struct MatchedCollective;

// Does `selector` hold for `op` of rank `rank`? (event=N never holds: the job
// layer has no trace events; nor do coll=, pg= and step= without the summary.)
bool jobWhatIfMatches(const WhatIfSelector &selector, const RankCpOp &op, int64_t rank);
// The same with the rank's summary: coll= and pg= read the op's RankCollective,
// step= its collective's step or, for other ops, the RankStep containing its start.
bool jobWhatIfMatches(const WhatIfSelector &selector, const RankSummary &summary, const RankCpOp &op);

// The edge weights of `graph` after `rules` (HTA's clamp of weights <= -1 to 0
// first; a dropped sync edge is NaN). `matched[r]` is incremented by what rule r changed.
// One graph alone: =median|mean|min take their statistic over its own ops.
std::vector<double> jobWhatIfWeights(const RankCpGraph &graph, int64_t rank, const std::vector<WhatIfRule> &rules,
                                     std::vector<int64_t> &matched);

// A collective kernel the replay joins across ranks (jobreplay.cpp): its measured
// transfer, the aligned end minus the instance's last arrival (µs, >= 0), and the
// index of its kernel edge, whose weight scales the transfer in the replay.
struct JobTransfer {
    double transferUs = 0;
    int32_t edge = -1;
};
using JobTransfers = std::vector<std::unordered_map<int32_t, JobTransfer>>;
// Per summary: op index (into its RankCpGraph::ops) -> transfer, for the collective
// kernels of `collectives` found on at least two used ranks' graphs (as the replay joins them).
JobTransfers jobTransfers(const std::vector<RankSummary> &ranks, const std::vector<uint8_t> &use,
                          const std::vector<MatchedCollective> &collectives);

// Every used rank's edge weights after `rules`, applied in order to all ranks at
// once, so =median|mean|min take their statistic over the matching ops of every rank
// (a joined collective kernel: over transfers, docs/what_if.md "Relative to the data").
// Per summary (empty: not used, or no graph); `matched[i][r]`: what rule r changed on summary i.
std::vector<std::vector<double>> jobWhatIfAllWeights(const std::vector<RankSummary> &ranks,
                                                     const std::vector<uint8_t> &use, const JobTransfers &transfers,
                                                     const std::vector<WhatIfRule> &rules,
                                                     std::vector<std::vector<int64_t>> &matched);

// Longest path of one rank's graph under `weight` (NaN edges left out), µs.
double rankLongestPathUs(const RankCpGraph &graph, const std::vector<double> &weight);

} // namespace syncscope
