// SPDX-License-Identifier: MIT
#include "joboverviewbins.h"

#include "job/jobanalysis.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace syncscope::ui {

namespace {

constexpr uint8_t kWorkBand = 1; // GPU lanes: 0 annotations, 1 work, 2 cuda_sync

// Adds the interval [a, b) (ns) to `acc`, in covered pixel fractions per column.
void addSpan(float *acc, int width, double t0, double nsPerPx, double a, double b)
{
    const double x0 = std::max(0.0, (a - t0) / nsPerPx);
    const double x1 = std::min(double(width), (b - t0) / nsPerPx);
    if (!(x1 > x0))
        return;
    const int i0 = std::min(width - 1, int(x0));
    const int i1 = std::min(width - 1, int(std::ceil(x1)) - 1);
    if (i0 >= i1) {
        acc[i0] += float(x1 - x0);
        return;
    }
    acc[i0] += float(double(i0 + 1) - x0);
    for (int i = i0 + 1; i < i1; ++i)
        acc[i] += 1.f;
    acc[i1] += float(x1 - double(i1));
}

// A covered share as a byte; anything covered stays visible (>= 1).
uint8_t quantise(float f)
{
    if (f <= 0.f)
        return 0;
    return static_cast<uint8_t>(std::clamp<long>(std::lround(f * 255.f), 1, 255));
}

// First index of `row` whose end is after `ns` (ends ascend within a row).
size_t firstEndingAfter(const LaneRow &row, double ns)
{
    return size_t(std::upper_bound(row.end.begin(), row.end.end(), ns,
                                   [](double t, int64_t e) { return t < double(e); }) -
                  row.end.begin());
}

} // namespace

OverviewRowGeometry overviewRowGeometry(int ranks, int height)
{
    constexpr int kMaxRowPx = 24; // "a few px" per rank when ranks are few
    OverviewRowGeometry g;
    if (ranks <= 0 || height <= 0)
        return g;
    if (ranks <= height)
        g.rowPx = std::clamp(height / ranks, 1, kMaxRowPx);
    else
        g.perRow = (ranks + height - 1) / height;
    g.rows = (ranks + g.perRow - 1) / g.perRow;
    return g;
}

std::vector<OverviewPartRows> overviewRows(const TimelineModel &model)
{
    std::vector<OverviewPartRows> out(model.parts.size());
    for (size_t p = 0; p < model.parts.size(); ++p)
        out[p].rank = model.parts[p].rank;
    for (const LaneGroup &g : model.layout.groups) {
        if (!g.gpu || g.role == LaneGroup::JobRole::GpuSummary || g.part < 0 || size_t(g.part) >= out.size())
            continue;
        OverviewPartRows &o = out[size_t(g.part)];
        std::vector<uint32_t> work;
        bool comm = false;
        for (uint32_t r = g.firstRow; r < g.firstRow + g.rowCount && r < model.layout.rows.size(); ++r) {
            const LaneRow &row = model.layout.rows[r];
            if (row.band != kWorkBand)
                continue;
            work.push_back(r);
            comm = comm || std::find(row.category.begin(), row.category.end(), Category::Communication) !=
                               row.category.end();
        }
        o.gpuRows.insert(o.gpuRows.end(), work.begin(), work.end());
        if (comm)
            o.commRows.insert(o.commRows.end(), work.begin(), work.end());
    }
    return out;
}

ActivityBins binActivity(const TimelineModel &model, const std::vector<OverviewPartRows> &rows, bool allStreams,
                         int width, double startNs, double endNs)
{
    ActivityBins b;
    if (width <= 0 || !(endNs > startNs))
        return b;
    b.width = width;
    b.startNs = startNs;
    b.endNs = endNs;
    const size_t cells = rows.size() * size_t(width);
    b.wait.assign(cells, 0);
    b.comm.assign(cells, 0);
    b.other.assign(cells, 0);
    const double nsPerPx = (endNs - startNs) / width;
    std::vector<float> wait(static_cast<size_t>(width)), comm(static_cast<size_t>(width)), other(static_cast<size_t>(width));
    for (size_t p = 0; p < rows.size(); ++p) {
        std::fill(wait.begin(), wait.end(), 0.f);
        std::fill(comm.begin(), comm.end(), 0.f);
        std::fill(other.begin(), other.end(), 0.f);
        for (uint32_t r : allStreams ? rows[p].gpuRows : rows[p].commRows) {
            const LaneRow &row = model.layout.rows[r];
            for (size_t i = firstEndingAfter(row, startNs); i < row.size() && double(row.start[i]) < endNs; ++i) {
                const double s = double(row.start[i]), e = double(row.end[i]);
                double workFrom = s;
                if (const CollectiveMark *m = model.collectiveMark(row.event[i]); m && m->waitNs > 0) {
                    workFrom = std::min(e, s + double(m->waitNs));
                    addSpan(wait.data(), width, startNs, nsPerPx, s, workFrom);
                }
                float *acc = row.category[i] == Category::Communication ? comm.data() : other.data();
                addSpan(acc, width, startNs, nsPerPx, workFrom, e);
            }
        }
        const size_t base = p * size_t(width);
        for (int x = 0; x < width; ++x) {
            b.wait[base + size_t(x)] = quantise(wait[size_t(x)]);
            b.comm[base + size_t(x)] = quantise(comm[size_t(x)]);
            b.other[base + size_t(x)] = quantise(other[size_t(x)]);
        }
    }
    return b;
}

HeatmapBins binWaits(const TimelineModel &model, const JobAnalysis &analysis, int width)
{
    HeatmapBins h;
    const size_t count = analysis.collectives.size();
    const size_t parts = model.parts.size();
    if (width <= 0 || count == 0 || parts == 0)
        return h;
    h.width = width;
    std::unordered_map<int64_t, uint32_t> partOfRank;
    for (size_t p = 0; p < parts; ++p)
        partOfRank.emplace(model.parts[p].rank, uint32_t(p));
    h.startNs.assign(count, -1);
    for (size_t c = 0; c < count && c < model.collectiveEvents.size(); ++c)
        for (uint32_t ev : model.collectiveEvents[c]) {
            const double s = model.startNs(ev);
            h.startNs[c] = h.startNs[c] < 0 ? s : std::min(h.startNs[c], s);
        }
    // Per collective: its cells (part, wait / its longest wait) and the waits it caused.
    std::vector<std::vector<std::pair<uint32_t, uint8_t>>> cells(count);
    std::vector<double> caused(count, 0);
    for (size_t c = 0; c < count; ++c) {
        const MatchedCollective &mc = analysis.collectives[c];
        double longest = 0;
        for (const auto &[rank, us] : mc.waitUs)
            longest = std::max(longest, us);
        for (int64_t rank : mc.ranks) {
            auto p = partOfRank.find(rank);
            if (p == partOfRank.end())
                continue;
            auto w = mc.waitUs.find(rank);
            const double share = w != mc.waitUs.end() && longest > 0 ? std::clamp(w->second / longest, 0.0, 1.0) : 0.0;
            cells[c].emplace_back(p->second, uint8_t(std::lround(share * 255)));
        }
        caused[c] = waitCausedUs(mc);
    }
    h.level.assign(parts * size_t(width), 0);
    h.cell.assign(parts * size_t(width), HeatCell::Absent);
    h.first.resize(size_t(width));
    h.last.resize(size_t(width));
    std::vector<std::pair<int64_t, double>> causedBy; // rank -> waits caused in this column
    for (int x = 0; x < width; ++x) {
        const size_t first = size_t(uint64_t(x) * count / uint64_t(width));
        const size_t last = std::max(first + 1, size_t(uint64_t(x + 1) * count / uint64_t(width)));
        h.first[size_t(x)] = uint32_t(first);
        h.last[size_t(x)] = uint32_t(last);
        causedBy.clear();
        for (size_t c = first; c < last; ++c) {
            for (const auto &[part, level] : cells[c]) {
                const size_t i = size_t(part) * size_t(width) + size_t(x);
                h.level[i] = std::max(h.level[i], level);
                h.cell[i] = HeatCell::Waited;
            }
            const MatchedCollective &mc = analysis.collectives[c];
            if (mc.ranks.size() < 2 || mc.lastArrivalRank < 0)
                continue;
            auto it = std::find_if(causedBy.begin(), causedBy.end(),
                                   [&](const auto &e) { return e.first == mc.lastArrivalRank; });
            if (it == causedBy.end())
                causedBy.emplace_back(mc.lastArrivalRank, caused[c]);
            else
                it->second += caused[c];
        }
        auto worst = std::max_element(causedBy.begin(), causedBy.end(),
                                      [](const auto &a, const auto &b) { return a.second < b.second; });
        if (worst != causedBy.end())
            if (auto p = partOfRank.find(worst->first); p != partOfRank.end())
                h.cell[size_t(p->second) * size_t(width) + size_t(x)] = HeatCell::LastArrival;
    }
    return h;
}

int64_t overviewEventAt(const TimelineModel &model, const OverviewPartRows &rows, bool allStreams, double ns,
                        double toleranceNs)
{
    int64_t best = -1;
    double bestDist = toleranceNs + 1;
    bool bestWait = false;
    for (uint32_t r : allStreams ? rows.gpuRows : rows.commRows) {
        const LaneRow &row = model.layout.rows[r];
        for (size_t i = firstEndingAfter(row, ns - toleranceNs);
             i < row.size() && double(row.start[i]) <= ns + toleranceNs; ++i) {
            const double s = double(row.start[i]), e = double(row.end[i]);
            const double dist = ns < s ? s - ns : (ns > e ? ns - e : 0.0);
            const CollectiveMark *m = model.collectiveMark(row.event[i]);
            const bool wait = m && m->waitNs > 0 && dist == 0 && ns < s + double(m->waitNs);
            if ((wait && !bestWait) || (wait == bestWait && dist < bestDist)) {
                best = row.event[i];
                bestDist = dist;
                bestWait = wait;
            }
        }
    }
    return best;
}

} // namespace syncscope::ui
