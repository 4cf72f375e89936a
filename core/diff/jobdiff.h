// SPDX-License-Identifier: MIT
// The diff of two job folders: one run diff per rank found in both, merged into
// one report with the same keys (counts and times summed over the ranks, a step's
// time the slowest rank's, the top changes across ranks with their rank).
#pragma once

#include "job/discovery.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace syncscope {

struct RankDiffReport {
    int64_t rank = -1;
    nlohmann::ordered_json report; // diffReportJson() of the rank
};

// A file or folder of one run that could not be read (discovery's errors): the
// rank it holds may be the one the other run has "only". A job diff with any is
// a load failure (exit 3), never a clean "only in" difference.
struct JobDiffLoadFailure {
    std::string side; // "baseline" or "candidate"
    std::string file;
    std::string code;
    std::string message;
};

std::vector<JobDiffLoadFailure> jobDiffLoadFailures(const JobDiscovery &baseline, const JobDiscovery &candidate);

// {"tool", "version", "job": true, "ranks": [{rank, baseline, candidate, critical_path: {baseline_us,
//  candidate_us, delta_us}}], "ranks_only_in_baseline", "ranks_only_in_candidate", "steps", "ops",
//  "ops_added", "ops_removed", "kernels", "kernels_by_op", "memcpys", "memcpys_by_op", "sync_waits",
//  "critical_path", "top_changes", "load_failures": [{side, file, code, message}]} — see docs/diff.md.
nlohmann::ordered_json mergeRankDiffs(const std::vector<RankDiffReport> &ranks,
                                      const std::vector<int64_t> &onlyInBaseline,
                                      const std::vector<int64_t> &onlyInCandidate,
                                      const std::vector<JobDiffLoadFailure> &loadFailures = {},
                                      size_t topChanges = 20);

// The job summary: per rank step time and critical path, then the top changes across ranks.
std::string formatJobDiffSummary(const nlohmann::ordered_json &job);

} // namespace syncscope
