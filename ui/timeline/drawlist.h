// SPDX-License-Identifier: MIT
// Level of detail, before any painting (display-free): for each visible row,
// the window of events that intersect the viewport is found by binary search,
// and runs of events narrower than `minPx` are folded into one box. Folding
// jumps over the events it swallows with binary searches too, so the work per
// row is bounded by the row's width in pixels (times log n), not by its events.
#pragma once

#include "lanelayout.h"
#include "viewport.h"

#include <cstdint>
#include <vector>

namespace syncscope::ui {

struct DrawBox {
    double x0 = 0, x1 = 0;    // pixels; x1 - x0 may be below 1 for a lone tiny event
    uint32_t row = 0;         // LaneLayout row
    uint32_t first = 0;       // index in the row of the first event covered
    uint32_t count = 1;       // events covered (> 1: a folded run)
    uint32_t event = 0;       // the first event's id
    uint32_t critical = 0;    // critical events among those covered
    Category category = Category::Other; // the first event's category
    bool folded() const { return count > 1; }
};

struct DrawListStats {
    size_t rowsVisited = 0;
    size_t searches = 0; // binary searches done (the cost measure)
    size_t eventsCovered = 0;
};

// Appends the boxes of `rows` (LaneLayout row indices) inside `view` to `out`,
// row by row, each row left to right. Boxes of one row never overlap.
void buildDrawList(const LaneLayout &layout, const Viewport &view, const std::vector<uint32_t> &rows, double minPx,
                   std::vector<DrawBox> &out, DrawListStats *stats = nullptr);

// Where a folded box's critical events are (issue 23): pixel spans [x0, x1], left
// to right, critical events less than a pixel apart joined into one span. A box of
// "N ops" is no more critical than those spans, so only they are drawn red. The work
// is two binary searches per span, and spans are at least a pixel column apart:
// bounded by the box's width in pixels, not by its events.
struct PxSpan {
    double x0 = 0, x1 = 0;
};
void criticalSpans(const LaneRow &row, const Viewport &view, const DrawBox &box, std::vector<PxSpan> &out);

// A folded box drawn as what it holds (issue 41: at fit-all every lane was one solid bar
// "1127 ops", gaps hidden, coloured by its first op): per pixel column, the share of the
// column's time the row is busy and the category that takes most of it; a column the
// row leaves idle is absent. Cost: a few binary searches per column (busyPrefix), not a
// walk over the box's events.
struct PxDensity {
    int x = 0;      // pixel column (viewport x)
    float busy = 0; // 0..1
    Category category = Category::Other;
};
void foldedDensity(const LaneRow &row, const Viewport &view, const DrawBox &box, std::vector<PxDensity> &out);
// Nanoseconds of [t0, t1] covered by the row's events (a row's events never overlap).
double busyNs(const LaneRow &row, double t0, double t1);

// [first, last) of the events of `row` that intersect [t0, t1] (an event that
// ends at t0 or starts at t1 counts).
struct RowWindow {
    size_t first = 0, last = 0;
};
RowWindow visibleWindow(const LaneRow &row, double t0, double t1);

// The event of `row` under time t, or the nearest one within `toleranceNs`; -1 if none.
int64_t eventAt(const LaneRow &row, double t, double toleranceNs);

} // namespace syncscope::ui
