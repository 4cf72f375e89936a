// SPDX-License-Identifier: MIT
// The job overview's pixel bins (display-free): per rank and pixel column, what
// the rank's GPU streams did there (activity) or how long it waited in the
// collectives of that column (waits heatmap). Built once per (job, size, range,
// filter); the widget (joboverview.h) then paints them in O(pixels).
#pragma once

#include "timeline/timelinemodel.h"

#include <cstdint>
#include <vector>

namespace syncscope {
struct JobAnalysis;
}

namespace syncscope::ui {

// Rows of the overview in a plot `height` px tall: ranks fill it up to 24 px each
// (rows of 6 px or more keep their last pixel row as a separator); with more
// ranks than pixel rows, `perRow` ranks share one pixel row.
struct OverviewRowGeometry {
    int rowPx = 1;  // pixel rows per rank
    int perRow = 1; // ranks per pixel row
    int rows = 0;   // pixel rows used, each rowPx tall
    bool gap() const { return rowPx >= 6; }
};
OverviewRowGeometry overviewRowGeometry(int ranks, int height);

// Per model part (TimelineModel::parts order): the work rows (band 1) of its GPU streams.
struct OverviewPartRows {
    int64_t rank = -1;
    std::vector<uint32_t> commRows; // streams that run NCCL/RCCL (communication) work
    std::vector<uint32_t> gpuRows;  // every GPU stream
};

// Scans the job model's lanes once (per setJob).
std::vector<OverviewPartRows> overviewRows(const TimelineModel &model);

// Activity of every part over [startNs, endNs) (job time, from the model's origin)
// in `width` columns: the covered share of each column, 0..255, of
//   wait  - a matched collective kernel from its start to the last arrival,
//   comm  - communication work after the wait,
//   other - any other GPU work (only with allStreams).
// Streams that overlap add up (clamped to 255).
struct ActivityBins {
    int width = 0;
    double startNs = 0, endNs = 0;
    std::vector<uint8_t> wait, comm, other; // [part * width + x]
    bool empty() const { return width <= 0; }
};
ActivityBins binActivity(const TimelineModel &model, const std::vector<OverviewPartRows> &rows, bool allStreams,
                         int width, double startNs, double endNs);

// Waits per part and matched collective, the collectives (JobAnalysis::collectives,
// aligned time order) spread over `width` columns (several per column when there
// are more collectives than columns, several columns per collective otherwise).
enum class HeatCell : uint8_t { Absent, Waited, LastArrival };
struct HeatmapBins {
    int width = 0;
    std::vector<uint8_t> level;  // [part * width + x]: wait / the column's longest wait, 0..255
    std::vector<HeatCell> cell;  // [part * width + x]
    std::vector<uint32_t> first, last; // per column: collectives [first, last)
    std::vector<double> startNs; // per collective: its first kernel start on the model's axis (-1 unknown)
    bool empty() const { return width <= 0; }
};
// In a column of several collectives, a cell's level is the part's longest
// normalised wait there and the one LastArrival is the rank that caused the most waits.
HeatmapBins binWaits(const TimelineModel &model, const JobAnalysis &analysis, int width);

// The part's event covering job time `ns` (± toleranceNs) on the rows shown, -1 none;
// a wait (collective kernel) wins over other work.
int64_t overviewEventAt(const TimelineModel &model, const OverviewPartRows &rows, bool allStreams, double ns,
                        double toleranceNs);

} // namespace syncscope::ui
