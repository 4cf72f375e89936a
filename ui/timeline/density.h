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

} // namespace syncscope::ui
