// SPDX-License-Identifier: MIT
// The what-if section of the batch report and its lines in the text summary.
#pragma once

#include "analysis/whatif.h"

#include <nlohmann/json.hpp>

#include <string>

namespace syncscope {

// {"baseline_us", "projected_us", "speedup", "rules": [{"rule", "matched"}],
//  "critical_path": {"nodes", "events", "summary"}, "top_moved": [{"name", "event",
//  "baseline_start_us", "projected_start_us", "shift_us"}] (top 20)}
nlohmann::ordered_json whatIfJson(const KinetoTrace &trace, const CriticalPathResult &cp, const WhatIfResult &r);

// "  what-if   715.0 us -> 512.3 us (1.40x) ..." lines for the summary.
std::string formatWhatIf(const KinetoTrace &trace, const WhatIfResult &r);

} // namespace syncscope
