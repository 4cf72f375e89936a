// SPDX-License-Identifier: MIT
// The diff of two job folders: one run diff per rank found in both, merged into
// one report with the same keys (counts and times summed over the ranks, a step's
// time the slowest rank's, the top changes across ranks with their rank).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace syncscope {

struct RankDiffReport {
    int64_t rank = -1;
    nlohmann::ordered_json report; // diffReportJson() of the rank
};

// {"tool", "version", "job": true, "ranks": [{rank, baseline, candidate, critical_path: {baseline_us,
//  candidate_us, delta_us}}], "ranks_only_in_baseline", "ranks_only_in_candidate", "steps", "ops",
//  "ops_added", "ops_removed", "kernels", "kernels_by_op", "memcpys", "memcpys_by_op", "sync_waits",
//  "critical_path", "top_changes"} — see docs/diff.md.
nlohmann::ordered_json mergeRankDiffs(const std::vector<RankDiffReport> &ranks,
                                      const std::vector<int64_t> &onlyInBaseline,
                                      const std::vector<int64_t> &onlyInCandidate, size_t topChanges = 20);

// The job summary: per rank step time and critical path, then the top changes across ranks.
std::string formatJobDiffSummary(const nlohmann::ordered_json &job);

} // namespace syncscope
