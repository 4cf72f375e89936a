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
#include "analysis/rankanalysis.h"

#include <nlohmann/json.hpp>

#include <memory>
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
    std::vector<StepBreakdown> steps; // one per ProfilerStep#N (--step all), ts order
    double wholeCpuSeconds = 0; // thread time of the whole-trace part
    double stepsCpuSeconds = 0; // thread time of the per-step part (summed over threads)
};

// A ProfilerStep#N window, trace time base.
struct StepSpan {
    std::string name;
    double startUs = 0, endUs = 0;
};
// The trace's ProfilerStep#N annotations in ts order (analysis/criticalpath.h's
// profilerStepEvents): the same windows as the per-step critical paths', found
// without them, so the breakdowns need not wait for the critical path.
std::vector<StepSpan> profilerStepSpans(const KinetoTrace &trace);
std::vector<StepSpan> stepSpans(const std::vector<StepResult> &steps);

// The step breakdown of a step result (same name and start), null when none.
const StepBreakdown *findStepBreakdown(const ReportBreakdown &b, const StepResult &step);

// The breakdowns as independent items (the whole trace, chunks of steps) that any
// thread with nothing else to do takes: the pipeline's main thread after the link,
// the critical path's thread after the critical path (session/analysis.cpp).
class BreakdownWork
{
public:
    // wholeTrace false: the steps only (result()'s whole stays empty).
    BreakdownWork(const KinetoTrace &trace, std::vector<StepSpan> steps, bool wholeTrace = true);
    ~BreakdownWork();
    // Takes items until none is left; any number of threads may call it at once.
    void help();
    // The result, once every thread that called help() has returned from it.
    std::shared_ptr<const ReportBreakdown> result();

private:
    struct State;
    std::unique_ptr<State> m;
};

// The whole trace as HTA loads it (its last-step filter included).
void computeWholeBreakdown(const KinetoTrace &trace, ReportBreakdown &b);
// Per step, over the events whose ts lies in the step's window (no last-step filter),
// on up to `workers` threads (0: one per core).
void computeStepBreakdowns(const KinetoTrace &trace, const std::vector<StepSpan> &steps, ReportBreakdown &b,
                           unsigned workers = 0);
// Both: the analysis' own when the pipeline computed them (AnalysisRequest::breakdowns).
ReportBreakdown computeReportBreakdown(const Analysis &a, unsigned workers = 0);
BreakdownSet computeBreakdownSet(const hta::RowTable &rows);

// Median and mean of the launch rows' CPU duration, GPU duration and launch delay
// (µs; NaN without rows): the report's launch_stats and the Breakdown dock's table.
struct LaunchDurations {
    double cpuMedian, cpuMean, gpuMedian, gpuMean, delayMedian, delayMean;
};
LaunchDurations launchDurations(const KernelLaunchStats &launch);

// The report's "breakdown" object; NaN becomes null.
nlohmann::ordered_json breakdownJson(const BreakdownSet &set);
// The text summary's lines (per step and the top 5 kernels).
// `capturedIn`: kernel name -> the CPU op its graph was captured in (a replayed graph's
// kernels have no CPU op of their own; analysis/graphcapture.h), shown beside the top kernels.
std::string formatBreakdown(const ReportBreakdown &b,
                            const std::unordered_map<std::string, std::string> *capturedIn = nullptr);

} // namespace syncscope
