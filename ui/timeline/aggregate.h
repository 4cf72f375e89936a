// SPDX-License-Identifier: MIT
// Area selection (display-free): the ops of some lane rows that meet a time range,
// aggregated per name as Perfetto's area selection does: count, total, average,
// maximum and share of the range's time (durations clipped to the range).
#pragma once

#include "timelinemodel.h"

#include <cstdint>
#include <string>
#include <vector>

namespace syncscope::ui {

struct AggregateRow {
    std::string name;
    size_t count = 0;
    double totalNs = 0;   // clipped to the range
    double maxNs = 0;     // the longest op, clipped
    uint32_t maxEvent = 0; // that op (a click selects it)
    double avgNs() const { return count ? totalNs / double(count) : 0; }
};

// Sorted by total, longest first. `rows`: LaneLayout rows (empty = every row).
std::vector<AggregateRow> aggregateRange(const TimelineModel &model, double t0, double t1,
                                         const std::vector<uint32_t> &rows);

} // namespace syncscope::ui
