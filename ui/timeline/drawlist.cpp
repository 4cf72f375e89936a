// SPDX-License-Identifier: MIT
#include "drawlist.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace syncscope::ui {

RowWindow visibleWindow(const LaneRow &row, double t0, double t1)
{
    RowWindow w;
    // Ends are ascending: the first event ending at or after t0 ...
    w.first = static_cast<size_t>(
        std::lower_bound(row.end.begin(), row.end.end(), t0, [](int64_t e, double t) { return double(e) < t; }) -
        row.end.begin());
    // ... up to the last one starting at or before t1.
    w.last = static_cast<size_t>(
        std::upper_bound(row.start.begin() + static_cast<std::ptrdiff_t>(w.first), row.start.end(), t1,
                         [](double t, int64_t s) { return t < double(s); }) -
        row.start.begin());
    if (w.last < w.first)
        w.last = w.first;
    return w;
}

void buildDrawList(const LaneLayout &layout, const Viewport &view, const std::vector<uint32_t> &rows, double minPx,
                   std::vector<DrawBox> &out, DrawListStats *stats)
{
    const double t0 = view.startNs, t1 = view.endNs();
    const double minNs = minPx * view.nsPerPx;
    for (uint32_t r : rows) {
        if (r >= layout.rows.size())
            continue;
        const LaneRow &row = layout.rows[r];
        const RowWindow w = visibleWindow(row, t0, t1);
        if (stats) {
            ++stats->rowsVisited;
            stats->searches += 2;
            stats->eventsCovered += w.last - w.first;
        }
        const auto startIt = row.start.begin();
        size_t i = w.first;
        while (i < w.last) {
            DrawBox box;
            box.row = r;
            box.first = static_cast<uint32_t>(i);
            box.event = row.event[i];
            box.category = row.category[i];
            box.x0 = view.toX(double(row.start[i]));
            if (double(row.end[i] - row.start[i]) >= minNs) {
                box.x1 = view.toX(double(row.end[i]));
                box.critical = row.criticalIn(i, i + 1);
                out.push_back(box);
                ++i;
                continue;
            }
            // A narrow event: fold it with every following narrow event that starts
            // within minPx of the fold's end. All events starting before `limit` are
            // taken in one binary search; only the last of them can be wide.
            int64_t foldEnd = row.end[i];
            size_t j = i + 1;
            while (j < w.last) {
                const double limit = double(foldEnd) + minNs;
                if (double(row.start[j]) >= limit)
                    break;
                size_t k = static_cast<size_t>(
                    std::lower_bound(startIt + static_cast<std::ptrdiff_t>(j), startIt + static_cast<std::ptrdiff_t>(w.last),
                                     limit, [](int64_t s, double t) { return double(s) < t; }) -
                    startIt);
                if (stats)
                    ++stats->searches;
                if (double(row.end[k - 1] - row.start[k - 1]) >= minNs) {
                    // The last one is wide: it gets its own box.
                    if (k - 1 > j)
                        foldEnd = row.end[k - 2];
                    j = k - 1;
                    break;
                }
                foldEnd = row.end[k - 1];
                j = k;
            }
            box.count = static_cast<uint32_t>(j - i);
            box.x1 = view.toX(double(foldEnd));
            box.critical = row.criticalIn(i, j);
            out.push_back(box);
            i = j;
        }
    }
}

void criticalSpans(const LaneRow &row, const Viewport &view, const DrawBox &box, std::vector<PxSpan> &out)
{
    const auto &prefix = row.criticalPrefix;
    if (prefix.size() != row.size() + 1 || size_t(box.first) >= row.size())
        return; // a row without critical counts (or a box of another row): nothing is critical
    const auto p0 = prefix.begin();
    const auto s0 = row.start.begin();
    const size_t last = std::min<size_t>(size_t(box.first) + box.count, row.size());
    const size_t firstOut = out.size();
    size_t i = box.first;
    while (i < last && prefix[last] > prefix[i]) {
        // The next critical event k: the first with prefix[k + 1] > prefix[i].
        const size_t k = static_cast<size_t>(std::upper_bound(p0 + std::ptrdiff_t(i) + 1, p0 + std::ptrdiff_t(last) + 1,
                                                              prefix[i]) - p0) - 1;
        const double x0 = view.toX(double(row.start[k]));
        double x1 = view.toX(double(row.end[k]));
        // The events that start before the next pixel column are one step: the last
        // critical one among them ends the span (rows do not overlap, so it ends last).
        const double nextT = view.toTime(std::floor(x1) + 1);
        const size_t next = static_cast<size_t>(
            std::lower_bound(s0 + std::ptrdiff_t(k) + 1, s0 + std::ptrdiff_t(last), nextT,
                             [](int64_t s, double t) { return double(s) < t; }) - s0);
        if (prefix[next] > prefix[k + 1]) {
            const size_t p = static_cast<size_t>(
                std::lower_bound(p0 + std::ptrdiff_t(k) + 1, p0 + std::ptrdiff_t(next) + 1, prefix[next]) - p0);
            x1 = std::max(x1, view.toX(double(row.end[p - 1])));
        }
        if (out.size() > firstOut && x0 <= out.back().x1 + 1)
            out.back().x1 = std::max(out.back().x1, x1);
        else
            out.push_back({x0, x1});
        i = next;
    }
}

namespace {

// Nanoseconds of [t0, t1] covered by events [first, last) of the row, the ones that cross it:
// all of them, less what the first and the last have outside (events never overlap).
double busyOf(const LaneRow &row, size_t first, size_t last, double t0, double t1)
{
    double busy = 0;
    if (row.busyPrefix.size() == row.size() + 1) {
        busy = double(row.busyPrefix[last] - row.busyPrefix[first]);
    } else { // a row built without finishRow (tests): summed
        for (size_t i = first; i < last; ++i)
            busy += double(std::max<int64_t>(0, row.end[i] - row.start[i]));
    }
    busy -= std::max(0.0, t0 - double(row.start[first]));
    busy -= std::max(0.0, double(row.end[last - 1]) - t1);
    return std::clamp(busy, 0.0, t1 - t0);
}

} // namespace

double busyNs(const LaneRow &row, double t0, double t1)
{
    if (!(t1 > t0))
        return 0;
    const RowWindow w = visibleWindow(row, t0, t1);
    return w.first < w.last ? busyOf(row, w.first, w.last, t0, t1) : 0.0;
}

void foldedDensity(const LaneRow &row, const Viewport &view, const DrawBox &box, std::vector<PxDensity> &out)
{
    out.clear();
    if (size_t(box.first) >= row.size() || view.nsPerPx <= 0)
        return;
    const size_t last = std::min<size_t>(size_t(box.first) + box.count, row.size());
    const double b0 = double(row.start[box.first]), b1 = double(row.end[last - 1]);
    const int x0 = int(std::floor(view.toX(b0))), x1 = std::max(int(std::ceil(view.toX(b1))), x0 + 1);
    // The columns left to right: the events each one holds move forward with it. Two
    // galloping searches per column, over the ends only (LaneRow::searchFrom).
    size_t i = box.first; // the first event ending after the column's start
    for (int x = x0; x < x1; ++x) {
        const double ta = std::max(view.toTime(x), b0), tb = std::min(view.toTime(x + 1), b1);
        if (!(tb > ta))
            continue;
        // From the time's bucket on long rows (finishRow), from i otherwise: a few events away.
        i = std::min(row.searchFrom(i, ta), last);
        const size_t after = std::min(row.searchFrom(i, tb), last); // first ending after tb
        const size_t j = after < last && double(row.start[after]) < tb ? after + 1 : after; // with the one across tb
        const size_t carry = after; // the next column starts at tb
        if (i >= j) {
            i = carry;
            continue; // idle: the gap stays visible
        }
        const double busy = busyOf(row, i, j, ta, tb);
        if (busy <= 0) {
            i = carry;
            continue;
        }
        // The category with the most time in the column: exact over up to 4 events, else
        // over 4 of them spread evenly (by index); one event (the common case) is its own.
        const size_t n = j - i;
        Category best = row.category[i];
        if (n > 1) {
            std::array<double, kCategoryCount> time{};
            const size_t picks = std::min<size_t>(n, 4);
            for (size_t m = 0; m < picks; ++m) {
                const size_t k = i + (n <= 4 ? m : m * n / picks);
                const double overlap = std::min(double(row.end[k]), tb) - std::max(double(row.start[k]), ta);
                time[size_t(row.category[k])] += std::max(overlap, 1e-9);
            }
            best = Category(std::max_element(time.begin(), time.end()) - time.begin());
        }
        out.push_back({x, float(std::min(1.0, busy / view.nsPerPx)), best});
        i = carry;
    }
}

int64_t eventAt(const LaneRow &row, double t, double toleranceNs)
{
    // The first event ending at or after t either contains t or is the nearest on the
    // right; the one before it is the nearest on the left.
    const size_t n = row.size();
    const size_t idx = static_cast<size_t>(
        std::lower_bound(row.end.begin(), row.end.end(), t, [](int64_t e, double x) { return double(e) < x; }) -
        row.end.begin());
    int64_t best = -1;
    double bestDist = toleranceNs;
    if (idx < n) {
        const double d = std::max(0.0, double(row.start[idx]) - t);
        if (d <= bestDist) {
            best = static_cast<int64_t>(idx);
            bestDist = d;
        }
    }
    if (idx > 0) {
        const double d = t - double(row.end[idx - 1]);
        if (d < bestDist || (best < 0 && d <= bestDist))
            best = static_cast<int64_t>(idx - 1);
    }
    return best < 0 ? -1 : static_cast<int64_t>(row.event[static_cast<size_t>(best)]);
}

} // namespace syncscope::ui
