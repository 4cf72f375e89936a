// SPDX-License-Identifier: MIT
#include "lanelayout.h"

#include <algorithm>
#include <cmath>

namespace syncscope::ui {

const char *categoryName(Category c)
{
    switch (c) {
    case Category::CpuOp: return "CPU op";
    case Category::Annotation: return "Annotation";
    case Category::Python: return "Python";
    case Category::Runtime: return "Runtime";
    case Category::Kernel: return "Kernel";
    case Category::Memcpy: return "Memcpy";
    case Category::Memset: return "Memset";
    case Category::Sync: return "Sync";
    case Category::Communication: return "Communication";
    case Category::Other: return "Other";
    }
    return "Other";
}

LaneLayout buildLaneLayout(std::vector<LayoutItem> items, const std::vector<TrackInfo> &tracks, size_t eventCount)
{
    LaneLayout out;
    out.itemCount = items.size();
    out.eventPos.assign(eventCount, EventPos{});
    // Track, band, then start; at equal starts the longer event is the parent; file order breaks ties.
    std::sort(items.begin(), items.end(), [](const LayoutItem &a, const LayoutItem &b) {
        if (a.track != b.track)
            return a.track < b.track;
        if (a.band != b.band)
            return a.band < b.band;
        if (a.startNs != b.startNs)
            return a.startNs < b.startNs;
        if (a.durNs != b.durNs)
            return a.durNs > b.durNs;
        return a.event < b.event;
    });
    std::vector<int64_t> stackEnd; // end of the open event on each row of the current band
    size_t i = 0;
    while (i < items.size()) {
        const uint32_t track = items[i].track;
        LaneGroup g;
        if (track < tracks.size()) {
            g.name = tracks[track].name;
            g.process = tracks[track].process;
            g.gpu = tracks[track].gpu;
        }
        g.track = track;
        g.firstRow = static_cast<uint32_t>(out.rows.size());
        const uint32_t groupIndex = static_cast<uint32_t>(out.groups.size());
        while (i < items.size() && items[i].track == track) {
            const uint8_t band = items[i].band;
            const size_t bandFirstRow = out.rows.size();
            stackEnd.clear();
            size_t open = 0; // rows [0, open) hold an event that contains the current start
            for (; i < items.size() && items[i].track == track && items[i].band == band; ++i) {
                const LayoutItem &it = items[i];
                int64_t start = it.startNs;
                int64_t end = start + std::max<int64_t>(0, it.durNs);
                while (open > 0 && stackEnd[open - 1] <= start + kRoundingToleranceNs)
                    --open;
                const size_t depth = open;
                if (depth == stackEnd.size()) {
                    stackEnd.push_back(end);
                    LaneRow row;
                    row.group = groupIndex;
                    row.band = band;
                    row.depth = static_cast<uint16_t>(std::min<size_t>(depth, 65535));
                    out.rows.push_back(std::move(row));
                } else {
                    stackEnd[depth] = end;
                }
                ++open;
                LaneRow &row = out.rows[bandFirstRow + depth];
                if (!row.end.empty() && row.end.back() > start) { // a rounding overlap: start where the last one ends
                    start = row.end.back();
                    end = std::max(end, start);
                    stackEnd[depth] = end;
                }
                if (it.event < out.eventPos.size())
                    out.eventPos[it.event] = {static_cast<int32_t>(bandFirstRow + depth),
                                              static_cast<uint32_t>(row.event.size())};
                row.start.push_back(start);
                row.end.push_back(end);
                row.event.push_back(it.event);
                row.category.push_back(it.category);
                out.endNs = std::max(out.endNs, end);
                ++g.events;
            }
            if (g.gpu && band == 1)
                g.overlapRows = static_cast<uint32_t>(out.rows.size() - bandFirstRow - 1);
        }
        g.rowCount = static_cast<uint32_t>(out.rows.size()) - g.firstRow;
        out.groups.push_back(std::move(g));
    }
    for (auto &row : out.rows)
        finishRow(row);
    return out;
}

void finishRow(LaneRow &row)
{
    row.criticalPrefix.assign(row.size() + 1, 0);
    row.busyPrefix.assign(row.size() + 1, 0);
    for (size_t i = 0; i < row.size(); ++i)
        row.busyPrefix[i + 1] = row.busyPrefix[i] + std::max<int64_t>(0, row.end[i] - row.start[i]);
    // Buckets of ~8 events for the rows long enough for the searches to miss the cache.
    constexpr size_t kMinEvents = 4096, kPerBucket = 8;
    row.bucketFirst.clear();
    row.bucketWidth = 0;
    if (row.size() < kMinEvents || row.end.back() <= row.start.front())
        return;
    const int64_t origin = row.start.front(), span = row.end.back() - origin;
    const size_t buckets = row.size() / kPerBucket;
    const int64_t width = std::max<int64_t>(1, span / int64_t(buckets) + 1);
    row.bucketOrigin = origin;
    row.bucketWidth = width;
    row.bucketFirst.resize(size_t(span / width) + 2);
    size_t k = 0; // ends ascend: one sweep
    for (size_t b = 0; b < row.bucketFirst.size(); ++b) {
        const int64_t t = origin + int64_t(b) * width;
        while (k < row.size() && row.end[k] <= t)
            ++k;
        row.bucketFirst[b] = uint32_t(k);
    }
}

size_t LaneRow::searchFrom(size_t from, double t) const
{
    size_t k = from;
    if (bucketWidth > 0) {
        const double b = std::floor((t - double(bucketOrigin)) / double(bucketWidth));
        if (b >= 0) {
            const size_t bucket = std::min(bucketFirst.size() - 1, size_t(b));
            k = std::max<size_t>(k, bucketFirst[bucket]); // every event before it ends by the bucket's start <= t
        }
    }
    // Galloping from there: a few steps in the usual bucket, log(n) in a crowded one.
    size_t lo = k, hi = k, step = 1;
    while (hi < size() && double(end[hi]) <= t) {
        lo = hi + 1;
        hi = lo + step;
        step <<= 1;
    }
    hi = std::min(hi, size());
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (double(end[mid]) <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void LaneLayout::setCritical(const std::vector<uint32_t> &events)
{
    std::vector<std::vector<uint8_t>> flags(rows.size());
    for (uint32_t e : events) {
        const EventPos &p = pos(e);
        if (p.row < 0)
            continue;
        auto &f = flags[p.row];
        if (f.empty())
            f.assign(rows[p.row].size(), 0);
        f[p.index] = 1;
    }
    for (size_t r = 0; r < rows.size(); ++r) {
        LaneRow &row = rows[r];
        row.criticalPrefix.assign(row.size() + 1, 0);
        if (flags[r].empty())
            continue;
        for (size_t i = 0; i < row.size(); ++i)
            row.criticalPrefix[i + 1] = row.criticalPrefix[i] + flags[r][i];
    }
}

bool LaneLayout::isCritical(uint32_t event) const
{
    const EventPos &p = pos(event);
    if (p.row < 0)
        return false;
    const LaneRow &row = rows[p.row];
    return row.criticalIn(p.index, p.index + 1) != 0;
}

} // namespace syncscope::ui
