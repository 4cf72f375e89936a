// SPDX-License-Identifier: MIT
#include "batchwhatif.h"

#include "session/analysis.h"

namespace syncscope {

bool parseWhatIfRules(const CliArgs &args, std::vector<WhatIfRule> &rules, std::string &error)
{
    auto it = args.repeated.find("--what-if");
    if (it == args.repeated.end())
        return true;
    for (const std::string &text : it->second) {
        WhatIfRule rule;
        if (!parseWhatIfRule(text, rule, error))
            return false;
        rules.push_back(std::move(rule));
    }
    return true;
}

std::optional<WhatIfResult> evaluateWhatIf(Analysis &a, const std::vector<WhatIfRule> &rules)
{
    if (!a.device || !a.criticalPath || !a.criticalPath->success) {
        a.diagnostics.error("what_if.no_critical_path",
                            "--what-if needs the critical path, which could not be computed (" +
                                (a.criticalPath ? a.criticalPath->reason : std::string("not run")) + ")");
        return std::nullopt;
    }
    WhatIfEngine engine(*a.device, *a.criticalPath, a.device->distributed.rank);
    WhatIfResult r = engine.evaluate(rules);
    if (!r.ok)
        a.diagnostics.error("what_if.no_match", r.error);
    return r;
}

} // namespace syncscope
