// SPDX-License-Identifier: MIT
// The run diff as the --diff-report JSON and as the text summary of batch mode.
#pragma once

#include "tracediff.h"

#include <nlohmann/json.hpp>

#include <string>

namespace syncscope {

// {"tool", "version", "baseline", "candidate", "steps", "ops", "ops_added", "ops_removed",
//  "kernels", "kernels_by_op", "memcpys", "memcpys_by_op", "sync_waits", "critical_path",
//  "top_changes", "timing"}; docs/diff.md describes every key. Times in µs.
nlohmann::ordered_json diffReportJson(const TraceDiff &diff);

// The human summary: steps, critical path, the top changes, added/removed ops,
// sync waits and the ops that entered or left the critical path.
std::string formatDiffSummary(const TraceDiff &diff);

} // namespace syncscope
