// SPDX-License-Identifier: MIT
// Activity density of each lane over the whole trace (display-free), for the
// overview strip: per lane group, the busy fraction of each of `bins` equal
// time slices (0..1: the busiest row of the lane; annotations are left out).
#pragma once

#include "lanelayout.h"

#include <vector>

namespace syncscope::ui {

struct LaneDensity {
    int bins = 0;
    double spanNs = 0;
    std::vector<std::vector<float>> lanes; // [group][bin]
};

LaneDensity laneDensity(const LaneLayout &layout, int bins);

// Where the events are: the shortest time range holding `keep` of all op starts and
// ends, when leaving out the rest drops at least `minDrop` of the trace's length (a
// long empty span before or after a few stragglers); else the whole trace.
struct TimeSpan {
    double t0 = 0, t1 = 0;
};
TimeSpan busyRange(const LaneLayout &layout, double keep = 0.999, double minDrop = 0.1);

} // namespace syncscope::ui
