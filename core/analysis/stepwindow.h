// SPDX-License-Identifier: MIT
// Which window the critical path covers — a ProfilerStep#N chosen by the number in
// its name (--step, the default) or HTA's instance numbering (--instance), whose
// instances count the GPU copies of the annotation and whose loader cuts the last
// step short — and how the reports say which one it was (README "Steps and HTA
// instances").
#pragma once

#include "analysis/rankanalysis.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace syncscope {

// N of "ProfilerStep#N", -1 when the name has no such number.
int64_t profilerStepNumber(std::string_view name);

// True when the default rule keeps HTA's window: HTA-exact output is asked for (the
// conformance modes: --hta-exact, d731cc2e, --compat chakra) or HTA's window is
// described (an annotation other than ProfilerStep, a non-zero instance).
bool defaultKeepsHtaWindow(const AnalysisRequest &request);

// The rule a request follows before a trace is seen: Step or HtaInstance.
WindowKind requestedWindowKind(const AnalysisRequest &request);

// "step", "hta_instance" (Default reads as the rule it resolves to elsewhere).
const char *windowKindName(WindowKind kind);

// The critical path of the request's window. `used` gets the rule followed (Step
// or HtaInstance). A --step number the trace lacks fails with the Error
// diagnostic "cpa.step_not_found", which names the steps that exist.
CriticalPathResult analyzeRequestedWindow(const KinetoTrace &trace, const AnalysisRequest &request,
                                          const CriticalPathOptions &cpa, Diagnostics &diag, WindowKind &used);

// "ProfilerStep#0, ProfilerStep#1, ..." (at most `limit` names), "none" without steps.
std::string stepNamesText(const KinetoTrace &trace, size_t limit = 12);

// The report's "window": {"kind": "step" | "hta_instance" | "whole_trace", "default",
// step: "step", "index", "name" (and "step_last", "index_last", "name_last" for a
// range); HTA: "annotation", "instance" ("instance_last"), "name", "step" of the row
// when it is a CPU-side ProfilerStep#N; both: "start_us", "duration_us"; whole
// trace: "reason"}. Null without a critical path.
nlohmann::ordered_json windowJson(const Analysis &analysis);

// The summary's words for the window: "ProfilerStep#2, whole step, --step 2",
// "\"ProfilerStep\" HTA instance 4 = ProfilerStep#2 (GPU copy)", "whole trace".
std::string windowText(const Analysis &analysis);

} // namespace syncscope
