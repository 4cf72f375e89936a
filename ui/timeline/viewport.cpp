// SPDX-License-Identifier: MIT
#include "viewport.h"

#include <algorithm>
#include <cmath>

namespace syncscope::ui {

Viewport Viewport::fit(double t0, double t1, int widthPx)
{
    Viewport v;
    v.widthPx = std::max(1, widthPx);
    if (!(t1 > t0))
        t1 = t0 + 1;
    v.startNs = t0;
    v.nsPerPx = (t1 - t0) / v.widthPx;
    return v;
}

Viewport Viewport::resized(int w) const
{
    return fit(startNs, endNs(), w);
}

Viewport Viewport::zoomedAt(double x, double factor) const
{
    if (!(factor > 0) || !std::isfinite(factor))
        return *this;
    Viewport v = *this;
    const double t = toTime(x);
    v.nsPerPx = nsPerPx / factor;
    v.startNs = t - x * v.nsPerPx;
    return v;
}

Viewport Viewport::panned(double dxPx) const
{
    Viewport v = *this;
    v.startNs += dxPx * nsPerPx;
    return v;
}

Viewport Viewport::clamped(double minNs, double maxNs, double minNsPerPx) const
{
    Viewport v = *this;
    if (!(maxNs > minNs))
        maxNs = minNs + 1;
    const double margin = 0.05 * (maxNs - minNs);
    const double lo = minNs - margin, hi = maxNs + margin;
    const double maxNsPerPx = (hi - lo) / widthPx;
    if (!std::isfinite(v.nsPerPx) || v.nsPerPx <= 0)
        v.nsPerPx = maxNsPerPx;
    v.nsPerPx = std::clamp(v.nsPerPx, std::min(minNsPerPx, maxNsPerPx), maxNsPerPx);
    if (!std::isfinite(v.startNs))
        v.startNs = lo;
    v.startNs = std::clamp(v.startNs, lo, hi - v.nsPerPx * widthPx);
    return v;
}

} // namespace syncscope::ui
