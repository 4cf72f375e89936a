// SPDX-License-Identifier: MIT
#include "density.h"

#include <algorithm>

namespace syncscope::ui {

LaneDensity laneDensity(const LaneLayout &layout, int bins)
{
    LaneDensity d;
    d.bins = std::max(1, bins);
    d.spanNs = std::max<double>(1.0, double(layout.endNs));
    d.lanes.assign(layout.groups.size(), std::vector<float>(static_cast<size_t>(d.bins), 0.f));
    const double binNs = d.spanNs / d.bins;
    std::vector<float> rowBusy(static_cast<size_t>(d.bins));
    for (const LaneRow &row : layout.rows) {
        if (row.group >= d.lanes.size())
            continue;
        // Annotations (ProfilerStep#N) cover everything; the ops under them show the activity.
        std::fill(rowBusy.begin(), rowBusy.end(), 0.f);
        bool any = false;
        for (size_t i = 0; i < row.size(); ++i) {
            if (row.category[i] == Category::Annotation)
                continue;
            any = true;
            const double s = double(row.start[i]), e = std::max(double(row.end[i]), s + 1);
            const int b0 = std::clamp(int(s / binNs), 0, d.bins - 1), b1 = std::clamp(int(e / binNs), 0, d.bins - 1);
            for (int b = b0; b <= b1; ++b) {
                const double lo = std::max(s, b * binNs), hi = std::min(e, (b + 1) * binNs);
                rowBusy[static_cast<size_t>(b)] += float(std::max(0.0, hi - lo) / binNs);
            }
        }
        if (!any)
            continue;
        // A lane is as busy as its busiest row (nested ops are not added up).
        std::vector<float> &lane = d.lanes[row.group];
        for (size_t b = 0; b < lane.size(); ++b)
            lane[b] = std::max(lane[b], rowBusy[b]);
    }
    for (auto &lane : d.lanes)
        for (float &v : lane)
            v = std::min(v, 1.f); // several bands of a GPU lane may add up past 1
    return d;
}

} // namespace syncscope::ui
