// SPDX-License-Identifier: MIT
// --what-if in batch mode: rules parsed before the (long) analysis, evaluated
// on the session's critical-path graph after it.
#pragma once

#include "analysis/whatif.h"
#include "cliargs.h"

#include <optional>
#include <string>
#include <vector>

namespace syncscope {

struct Analysis;

// Parses every --what-if rule; false with a usage message on a bad one.
bool parseWhatIfRules(const CliArgs &args, std::vector<WhatIfRule> &rules, std::string &error);

// Evaluates the rules on the analysis' critical path. nullopt when there is no
// critical path (an Error diagnostic says why); a rule matching nothing is an
// Error diagnostic too (result.ok false).
std::optional<WhatIfResult> evaluateWhatIf(Analysis &analysis, const std::vector<WhatIfRule> &rules);

} // namespace syncscope
