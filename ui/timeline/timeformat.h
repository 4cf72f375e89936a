// SPDX-License-Identifier: MIT
// Human-readable durations and time-axis labels (ns, µs, ms, s). Display-free.
#pragma once

#include <string>

namespace syncscope::ui {

// "850 ns", "12.3 µs", "4.56 ms", "1.234 s": three significant digits at least,
// `decimals` more when given (>= 0).
std::string formatDuration(double ns, int decimals = -1);

// The unit an axis with ticks `stepNs` apart uses (that of ten steps), and its size in ns.
struct TimeUnit {
    const char *suffix; // "ns", "µs", "ms", "s"
    double ns;          // 1, 1e3, 1e6, 1e9
};
TimeUnit unitForStep(double stepNs);

// A tick label at `ns` from the trace start when ticks are `stepNs` apart:
// enough decimals to tell neighbouring ticks apart, e.g. "1.25 ms".
std::string formatTick(double ns, double stepNs);

} // namespace syncscope::ui
