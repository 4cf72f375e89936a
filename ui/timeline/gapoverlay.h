// SPDX-License-Identifier: MIT
// The breakdown overlays of the timeline (display-free, built off the GUI thread):
// each GPU stream's idle gaps with HTA's cause, on the lane row of the kernel that
// ends the gap, and each communication kernel's exposed part (not under any
// computation kernel of its GPU), on the kernel's own row. The intervals come from
// core/analysis/gapcauses.h in the trace's own ns, so they meet the boxes exactly.
#pragma once

#include "timelinemodel.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace syncscope::ui {

enum class OverlayKind : uint8_t { HostWait, KernelWait, OtherIdle, ExposedComm };
const char *overlayKindName(OverlayKind kind); // "host wait", "kernel wait", "other idle", "exposed communication"

struct OverlaySpan {
    int64_t startNs = 0, endNs = 0; // the model's time base
    OverlayKind kind = OverlayKind::OtherIdle;
};

// One layout row's spans: sorted by start, never overlapping (so ends ascend too).
struct OverlayRow {
    std::vector<OverlaySpan> spans;
    bool empty() const { return spans.empty(); }
};

struct TimelineOverlay {
    std::vector<OverlayRow> gaps;    // indexed by LaneLayout row
    std::vector<OverlayRow> exposed; // indexed by LaneLayout row
    size_t gapCount = 0, exposedCount = 0;
    double gapNs[3] = {0, 0, 0}; // drawn gap time per cause (positive gaps only)
    double exposedNs = 0;        // drawn exposed time summed over the communication rows
};

// Idle gaps of every stream (HTA's classification over every event: no last-step
// filter, so every step has its gaps) and exposed communication per GPU. A gap is
// drawn only when positive and when the kernels before and after it share a lane
// (HTA keys streams by number alone). Empty for job and synthetic models.
std::shared_ptr<TimelineOverlay> buildTimelineOverlay(const TimelineModel &model);

// [first, last) of the spans meeting [t0, t1].
struct SpanWindow {
    size_t first = 0, last = 0;
};
SpanWindow overlayWindow(const OverlayRow &row, double t0, double t1);
// The span under time t (or within toleranceNs of it); null if none.
const OverlaySpan *overlayAt(const OverlayRow &row, double t, double toleranceNs);

} // namespace syncscope::ui
