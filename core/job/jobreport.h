// SPDX-License-Identifier: MIT
// The job-analysis part of the job report (README "Job report"), as JSON.
// The report assembly puts jobAnalysisJson's members at the top level of the
// document and merges rankJobJson's members into each rank's object:
//
//   jobAnalysisJson(job) = {
//     "clock_reference_rank": 0,
//     "collectives": [ {"name", "process_group", "matched_by", "complete", "ranks": [0, 1],
//                       "arrival_us": {"0": t, ...}, "end_us": {...}, "wait_us": {...},
//                       "last_arrival_rank": 1, "spread_us": x, "wait_caused_us": x}, ... ],
//     "stragglers": [ {"rank", "collective_wait_caused_us", "last_arrivals",
//                      "worst_collectives": [collective index, ...]}, ... ],  (by waits caused)
//     "job_critical_path": {"valid", "reason" (when not valid), "weight_us",
//                           "summary": {bound_by: percent}, "ranks_on_path": [..],
//                           "collectives_crossed": [collective index, ...],
//                           "path": [[rank, op name, start_us, dur_us, bound_by], ...]},
//     "job_diagnostics": [ {"severity", "code", "message", "count"}, ... ],
//     "what_if" (with --what-if): {"ok", "rules": [{"rule", "matched"}], "error" (when not ok),
//                "baseline_us", "projected_us", "speedup",
//                "ranks": [{"rank", "baseline_us", "projected_us", "matched"}],
//                "critical_path": {"ranks_on_path", "summary"}} }
//   rankJobJson(stats) = {"clock_offset_us", "clock_offset_spread_us", "clock_offset_samples",
//                         "collective_wait_us", "collective_wait_caused_us", "last_arrivals",
//                         "collectives"}
//
// Times are µs on the reference rank's clock; rank keys are strings; values are
// rounded to the nanosecond so the document is the same on every platform.
#pragma once

#include "jobanalysis.h"

#include <nlohmann/json.hpp>

namespace syncscope {

nlohmann::json jobAnalysisJson(const JobAnalysis &job);
nlohmann::json rankJobJson(const RankJobStats &stats);
nlohmann::json jobWhatIfJson(const JobWhatIf &whatIf);
// The straggler what-if as the report's straggler_whatif object (core/job/stragglerreport.cpp).
nlohmann::json stragglerWhatIfJson(const StragglerWhatIf &whatIf);
// Its lines in the job's text summary.
std::string stragglerWhatIfText(const StragglerWhatIf &whatIf);

} // namespace syncscope
