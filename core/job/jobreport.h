// SPDX-License-Identifier: MIT
// TEMPORARY (branch issue12b): the declarations the cross-rank engineer provides in
// core/job/jobreport.h on branch issue12. On merge, take theirs.
#pragma once

#include "jobanalysis.h"

#include <nlohmann/json.hpp>

namespace syncscope {

// Keys "collectives", "stragglers", "job_critical_path".
nlohmann::json jobAnalysisJson(const JobAnalysis &analysis);
// Per rank: "clock_offset_us", "collective_wait_us", "collective_wait_caused_us", "last_arrivals".
nlohmann::json rankJobJson(const RankJobStats &stats);

} // namespace syncscope
