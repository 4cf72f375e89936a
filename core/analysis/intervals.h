// SPDX-License-Identifier: MIT
// Time intervals as HTA's breakdowns and the report's exposed communication treat
// them: merged as hta/utils/utils.py merge_kernel_intervals does (sorted by start;
// touching intervals merge), their total length and the length two lists share.
#pragma once

#include <algorithm>
#include <vector>

namespace syncscope {

struct Interval {
    double ts, end;
};

inline std::vector<Interval> mergeIntervals(std::vector<Interval> v)
{
    std::sort(v.begin(), v.end(), [](const Interval &a, const Interval &b) { return a.ts < b.ts; });
    std::vector<Interval> out;
    for (const Interval &iv : v) {
        if (!out.empty() && !(iv.ts > out.back().end))
            out.back().end = std::max(out.back().end, iv.end);
        else
            out.push_back(iv);
    }
    return out;
}

inline double totalLength(const std::vector<Interval> &v)
{
    double s = 0;
    for (const Interval &iv : v)
        s += iv.end - iv.ts;
    return s;
}

// Length of the intersection of two merged (disjoint, sorted) interval lists.
inline double overlapLength(const std::vector<Interval> &a, const std::vector<Interval> &b)
{
    double s = 0;
    size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        const double lo = std::max(a[i].ts, b[j].ts), hi = std::min(a[i].end, b[j].end);
        if (hi > lo)
            s += hi - lo;
        (a[i].end < b[j].end) ? ++i : ++j;
    }
    return s;
}

} // namespace syncscope
