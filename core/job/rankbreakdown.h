// SPDX-License-Identifier: MIT
// A rank's whole-trace breakdowns in job mode (issue 25, docs/breakdowns.md "Job
// mode"): computed while the rank's analysis is alive, kept compactly in
// RankSummary::breakdown (the analysis is freed after extraction) and written as
// the job report's ranks[i].breakdown.
#pragma once

#include "analysis/ranksummary.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace syncscope {

struct Analysis;
struct BreakdownSet;

// The compact summary of a whole-trace BreakdownSet (report/breakdownreport.h): HTA's
// temporal, idle-time and per-type kernel breakdowns, the comm/comp overlap, the
// exposed communication, and the kMaxRankTopKernels kernels with the largest sums.
RankBreakdown summarizeBreakdown(const BreakdownSet &set);

// The whole-trace breakdowns of a finished analysis into summary.breakdown: the
// pipeline's (Analysis::breakdown) when it computed them, else from HTA's row load of
// its device trace; nothing without a device trace.
void addRankBreakdown(const Analysis &analysis, RankSummary &summary);

// ranks[i].breakdown: the keys of the single-rank report's "breakdown" that the
// summary keeps (temporal, idle_time, comm_comp_overlap_pct, comm_time_us,
// exposed_comm_us, memcpy_time_us, kernels {by_type, by_kernel (top kernels only)});
// no launch_stats nor queue_length. NaN becomes null.
nlohmann::ordered_json rankBreakdownJson(const RankBreakdown &b);

// The text summary's per-rank GPU lines (compute / comm exposed / memcpy / idle % of the
// GPU span, comm/comp overlap %), empty when no rank has a breakdown.
std::string formatRankBreakdowns(const std::vector<RankSummary> &ranks);

} // namespace syncscope
