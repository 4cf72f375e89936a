// SPDX-License-Identifier: MIT
#include "timeformat.h"

#include <cmath>
#include <cstdio>

namespace syncscope::ui {

namespace {

TimeUnit unitFor(double magnitudeNs)
{
    const double a = std::fabs(magnitudeNs);
    if (a < 1e3)
        return {"ns", 1};
    if (a < 1e6)
        return {"\u00b5s", 1e3};
    if (a < 1e9)
        return {"ms", 1e6};
    return {"s", 1e9};
}

std::string format(double value, int decimals, const char *suffix)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f %s", decimals, value, suffix);
    return buf;
}

} // namespace

std::string formatDuration(double ns, int decimals)
{
    if (!std::isfinite(ns))
        return "-";
    TimeUnit u = unitFor(ns);
    double v = ns / u.ns;
    if (decimals < 0) {
        const double a = std::fabs(v);
        decimals = u.ns == 1 ? 0 : a < 10 ? 2 : a < 100 ? 1 : 0;
        // 999.96 µs would print as "1000.0 µs": move up a unit instead.
        if (u.ns < 1e9 && std::fabs(std::round(v * std::pow(10, decimals)) / std::pow(10, decimals)) >= 1000) {
            u = unitFor(ns * 1000);
            v = ns / u.ns;
            decimals = 2;
        }
    }
    return format(v, decimals, u.suffix);
}

TimeUnit unitForStep(double stepNs)
{
    return unitFor(stepNs * 10);
}

std::string formatTick(double ns, double stepNs)
{
    // The unit of ten steps: 250 µs steps read "0.25 ms, 0.50 ms", not "250 µs ... 2250 µs".
    const TimeUnit u = unitFor(stepNs * 10);
    const double step = stepNs / u.ns;
    int decimals = 0;
    while (decimals < 6 && std::fabs(step * std::pow(10, decimals) - std::round(step * std::pow(10, decimals))) > 1e-6)
        ++decimals;
    double v = ns / u.ns;
    if (std::fabs(v) < 0.5 * std::pow(10, -decimals))
        v = 0; // no "-0"
    return format(v, decimals, u.suffix);
}

} // namespace syncscope::ui
