// SPDX-License-Identifier: MIT
// A hang case's known answer, as nvidia-resiliency-ext's analyzer writes it next to real
// dumps (reference_output.txt: "PGID | Process Group Desc | Op Type | Size | Dtype | Missing
// Ranks") and the fault injector's log (fault_injection.log: "Fault ranks: [12, 14]"), and
// the check that a hang analysis agrees with it (issue 39).
#pragma once

#include "hang/hanganalysis.h"

#include <cstdint>
#include <string>
#include <vector>

namespace testutil {

struct HangReferenceRow {
    std::string pg, op, size, dtype;
    std::vector<int64_t> missing; // ascending
};

struct HangReference {
    std::vector<HangReferenceRow> rows;   // the analyzer's answer, first row first
    std::vector<int64_t> faultRanks;      // ascending; empty when there is no log
    bool found = false;                   // a reference_output.txt was read
};

HangReference readHangReference(const std::string &dir);

// Empty when the analysis agrees: its first suspect is the first row (group, op, missing
// ranks), every row is a suspect, and no root names a missing rank outside the fault ranks.
std::vector<std::string> compareHangReference(const syncscope::HangAnalysis &a, const HangReference &ref);

} // namespace testutil
