// SPDX-License-Identifier: MIT
// The breakdowns of the batch report (docs/breakdowns.md, "In the report"): HTA's
// temporal / idle-time / kernel breakdowns, comm-comp overlap, launch stats and
// queue length for the whole trace, one HTA RowTable shared by every analyzer;
// per ProfilerStep (--step all) the same over the step's window plus the
// exposed communication time (TraceLens' exposed_comm_time).
#pragma once

#include "analysis/htabreakdown.h"
#include "analysis/htalaunch.h"
#include "analysis/htarows.h"
#include "session/analysis.h"

#include <nlohmann/json.hpp>

#include <vector>

namespace syncscope {

// TraceLens' GPU timeline split of communication: per GPU (the kernel rows' pid),
// comm = length of the union of communication kernels, exposed = the part of that
// union not covered by the union of computation kernels of the same GPU.
struct ExposedComm {
    double comm_us = 0;
    double exposed_us = 0;
    double memcpy_us = 0; // union of memory kernels (for the text summary)
};
ExposedComm exposedCommunication(const hta::RowTable &rows);

struct BreakdownSet {
    HtaBreakdown hta;
    KernelLaunchStats launch;
    QueueLengthResult queue;
    ExposedComm comm;
};

struct StepBreakdown {
    std::string name;
    double startUs = 0, endUs = 0; // trace time base, as StepResult
    BreakdownSet set;
};

struct ReportBreakdown {
    bool computed = false; // false: no device trace
    BreakdownSet whole;
    std::vector<StepBreakdown> steps; // one per Analysis::steps entry (--step all)
    double seconds = 0;      // all of it
    double stepsSeconds = 0; // the per-step part
};

// All breakdowns of an analysis (whole trace as HTA loads it; per step over the
// events whose ts lies in the step's window, no last-step filter).
ReportBreakdown computeReportBreakdown(const Analysis &a);
BreakdownSet computeBreakdownSet(const hta::RowTable &rows);

// The report's "breakdown" object; NaN becomes null.
nlohmann::ordered_json breakdownJson(const BreakdownSet &set);
// The text summary's lines (per step and the top 5 kernels).
std::string formatBreakdown(const ReportBreakdown &b);

} // namespace syncscope
