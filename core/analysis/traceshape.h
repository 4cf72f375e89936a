// SPDX-License-Identifier: MIT
// Checks of a device trace's shape that no single event shows: GPU rows in a
// category Syncscope does not read, and a GPU that starts long after the CPU
// launched its work. Both are reported as diagnostics (so batch, job, GUI and
// Python show them alike) and as figures for the report.
#pragma once

#include "model/diagnostics.h"
#include "model/kinetotrace.h"

#include <cstdint>
#include <string>
#include <vector>

namespace syncscope {

// Events of a category no reader understands that still look like GPU work
// (a stream or device argument, or a GPU-sounding category name).
struct UnknownGpuCategory {
    std::string category;
    int64_t events = 0;
};
std::vector<UnknownGpuCategory> unknownGpuCategories(const KinetoTrace &trace);

// The stretch between the return of the first GPU op's launch and that op's start,
// when the GPU recorded nothing before it. A queue this long at the start means the
// GPU was still busy with work queued before the profiler started, or the CPU and
// GPU clocks are out of step.
struct GpuStartHole {
    bool found = false;      // a hole at least the thresholds below
    double startUs = 0;      // from the trace start: where the hole starts (the launch returned)
    double endUs = 0;        // the first GPU op's start
    double traceSpanUs = 0;  // the whole trace, first event to last end
    uint32_t firstGpuEvent = 0;
    double lengthUs() const { return endUs - startUs; }
    double share() const { return traceSpanUs > 0 ? lengthUs() / traceSpanUs : 0; }
};
// Thresholds: at least kMinGpuStartHoleUs and kMinGpuStartHoleShare of the trace.
constexpr double kMinGpuStartHoleUs = 1000;
constexpr double kMinGpuStartHoleShare = 0.05;
GpuStartHole findGpuStartHole(const KinetoTrace &trace);

// Adds kineto.unknown_gpu_category (one warning per category) and
// trace.gpu_start_hole (one warning) where they apply.
void checkTraceShape(const KinetoTrace &trace, Diagnostics &diag);

} // namespace syncscope
