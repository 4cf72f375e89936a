// SPDX-License-Identifier: MIT
// The machine-readable report (--report) and the one-screen human summary that
// batch mode prints on stderr. Both are built from the same Analysis.
#pragma once

#include "analysis/whatif.h"
#include "export/chakrareplay.h"
#include "report/breakdownreport.h"
#include "analysis/rankanalysis.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace syncscope {

struct OutputRecord {
    std::string kind; // "et_plus", "critical_path", "overlay", "chakra_et", "sqlite", "report"
    std::string path;
    uint64_t bytes = 0;
    std::string status = "written"; // or "failed" (tried, nothing written) or "skipped" (not tried)
    std::string reason;             // why it was not written
    std::vector<ReplayWindow> replay; // chakra_et: replayed vs measured time per window
    double writeSeconds = -1;         // sqlite: how long the database took to write (report "write_s")
};

struct ReportContext {
    const Analysis *analysis = nullptr;
    std::vector<OutputRecord> outputs;
    int exitCode = 0;
    double totalSeconds = 0;
    std::vector<std::string> extraLines; // sections added by later stages (critical path, ...)
    const WhatIfResult *whatIf = nullptr; // --what-if, when evaluated
    // The breakdowns (report "breakdown", summary lines); computed by buildReportJson /
    // formatSummary when unset, so a caller that wants both sets it once.
    std::shared_ptr<const ReportBreakdown> breakdown;
    bool skipBreakdowns = false; // --no-breakdowns: no "breakdown" objects, nothing computed
};

// JSON object with "syncscope", "inputs", "link", "sync", "outputs",
// "diagnostics", "timing" and "exit_code"; keys in a stable order.
std::string buildReportJson(const ReportContext &ctx);

// Human summary: inputs, counts, coverage %, warnings, time taken.
std::string formatSummary(const ReportContext &ctx);

std::string formatBytes(uint64_t bytes);

// The "diagnostics" array of a report (also used per rank by the job report).
nlohmann::ordered_json diagnosticsJson(const Diagnostics &diagnostics);

} // namespace syncscope
