// SPDX-License-Identifier: MIT
// The time <-> pixel mapping of the timeline and its zoom/pan maths. Display-free:
// times are ns relative to the trace start (double, so deep zooms stay smooth),
// x is in pixels from the left edge of the plotting area.
#pragma once

namespace syncscope::ui {

struct Viewport {
    double startNs = 0; // time at x = 0
    double nsPerPx = 1; // > 0
    int widthPx = 1;    // > 0

    double endNs() const { return startNs + nsPerPx * widthPx; }
    double spanNs() const { return nsPerPx * widthPx; }
    double toX(double ns) const { return (ns - startNs) / nsPerPx; }
    double toTime(double x) const { return startNs + x * nsPerPx; }

    // Shows [t0, t1] across `widthPx` pixels (an empty range becomes 1 ns wide).
    static Viewport fit(double t0, double t1, int widthPx);
    // The same time range over a new width (a resize keeps what is shown).
    Viewport resized(int widthPx) const;
    // factor > 1 zooms in; the time under pixel `x` stays under it.
    Viewport zoomedAt(double x, double factor) const;
    // dxPx > 0 moves the view later in time.
    Viewport panned(double dxPx) const;
    // Keeps the view within [minNs - margin, maxNs + margin] (margin = 5 % of the trace)
    // and its scale within [minNsPerPx, whole trace + margins over the width].
    Viewport clamped(double minNs, double maxNs, double minNsPerPx = 1e-3) const;
};

} // namespace syncscope::ui
