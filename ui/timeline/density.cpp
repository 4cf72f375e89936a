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

TimeSpan busyRange(const LaneLayout &layout, double keep, double minDrop)
{
    const double span = std::max<double>(1.0, double(layout.endNs));
    const TimeSpan whole{0, span};
    constexpr int kBins = 4096;
    std::vector<uint64_t> hist(kBins, 0);
    uint64_t total = 0;
    auto bin = [&](double t) { return std::clamp(int(t / span * kBins), 0, kBins - 1); };
    for (const LaneRow &row : layout.rows)
        for (size_t i = 0; i < row.size(); ++i) {
            if (row.category[i] == Category::Annotation)
                continue; // a step annotation spans its step whether or not anything runs
            ++hist[static_cast<size_t>(bin(double(row.start[i])))];
            ++hist[static_cast<size_t>(bin(double(row.end[i])))];
            total += 2;
        }
    if (total == 0)
        return whole;
    // Two pointers: the narrowest run of bins holding at least `keep` of the ends.
    const double need = keep * double(total);
    int best0 = 0, best1 = kBins - 1;
    uint64_t inside = 0;
    for (int lo = 0, hi = 0; hi < kBins; ++hi) {
        inside += hist[static_cast<size_t>(hi)];
        while (lo < hi && double(inside - hist[static_cast<size_t>(lo)]) >= need)
            inside -= hist[static_cast<size_t>(lo++)];
        if (double(inside) >= need && hi - lo < best1 - best0) {
            best0 = lo;
            best1 = hi;
        }
    }
    // Grow it over adjacent busy bins: only what lies beyond an empty stretch is left out.
    while (best0 > 0 && hist[static_cast<size_t>(best0 - 1)] > 0)
        --best0;
    while (best1 + 1 < kBins && hist[static_cast<size_t>(best1 + 1)] > 0)
        ++best1;
    const TimeSpan core{best0 * span / kBins, (best1 + 1) * span / kBins};
    if ((core.t1 - core.t0) > (1 - minDrop) * span)
        return whole;
    return core;
}

} // namespace syncscope::ui
