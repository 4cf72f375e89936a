// SPDX-License-Identifier: MIT
#include "jobtimeline.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <tuple>

namespace syncscope::ui {

namespace {

struct SummaryItem {
    int64_t start, end;
    uint32_t event;
    Category category;
};

// The rank's CPU activity on one lane: the top-level ops of all its threads,
// earliest first; an op that starts while an earlier one still runs (another
// thread) is left out, so the lane never overlaps (its thread lane has it).
LaneRow cpuSummaryRow(const LaneLayout &layout, int64_t shiftNs, uint32_t base)
{
    std::vector<SummaryItem> items;
    for (const LaneGroup &g : layout.groups) {
        if (g.gpu)
            continue;
        for (uint32_t r = g.firstRow; r < g.firstRow + g.rowCount; ++r) {
            const LaneRow &row = layout.rows[r];
            if (row.depth != 0 || row.band != 0)
                continue;
            for (size_t i = 0; i < row.size(); ++i)
                items.push_back({row.start[i], row.end[i], row.event[i], row.category[i]});
        }
    }
    std::sort(items.begin(), items.end(), [](const SummaryItem &a, const SummaryItem &b) {
        return std::tie(a.start, b.end, a.event) < std::tie(b.start, a.end, b.event);
    });
    LaneRow out;
    for (const SummaryItem &it : items) {
        if (!out.end.empty() && it.start < out.end.back() - shiftNs)
            continue;
        out.start.push_back(it.start + shiftNs);
        out.end.push_back(it.end + shiftNs);
        out.event.push_back(it.event + base);
        out.category.push_back(it.category);
    }
    return out;
}

// The rank's GPU activity on one lane: every stream's ops, communication first (the
// collectives are what a job view compares across ranks), the rest in the gaps left,
// earliest first; an op overlapping what is already there is cut to the free time
// or left out (its stream lane has it whole).
LaneRow gpuSummaryRow(const LaneLayout &layout, int64_t shiftNs, uint32_t base)
{
    std::vector<SummaryItem> comm, other;
    for (const LaneGroup &g : layout.groups) {
        if (!g.gpu)
            continue;
        for (uint32_t r = g.firstRow; r < g.firstRow + g.rowCount; ++r) {
            const LaneRow &row = layout.rows[r];
            for (size_t i = 0; i < row.size(); ++i)
                (row.category[i] == Category::Communication ? comm : other)
                    .push_back({row.start[i], row.end[i], row.event[i], row.category[i]});
        }
    }
    auto byStart = [](const SummaryItem &a, const SummaryItem &b) {
        return std::tie(a.start, b.end, a.event) < std::tie(b.start, a.end, b.event);
    };
    std::sort(comm.begin(), comm.end(), byStart);
    std::sort(other.begin(), other.end(), byStart);
    std::vector<SummaryItem> kept;
    int64_t lastEnd = std::numeric_limits<int64_t>::min();
    for (const SummaryItem &it : comm)
        if (it.start >= lastEnd) {
            kept.push_back(it);
            lastEnd = it.end;
        }
    const size_t commKept = kept.size();
    // The other ops, each cut to the time no collective and no earlier op holds.
    lastEnd = std::numeric_limits<int64_t>::min();
    size_t c = 0;
    for (const SummaryItem &it : other) {
        int64_t s = std::max(it.start, lastEnd);
        while (c < commKept && kept[c].end <= s)
            ++c;
        for (size_t k = c; s < it.end; ++k) {
            const int64_t e = k < commKept ? std::min(it.end, kept[k].start) : it.end;
            if (e > s)
                kept.push_back({s, e, it.event, it.category});
            if (k >= commKept)
                break;
            s = std::max(s, kept[k].end);
        }
        lastEnd = std::max(lastEnd, it.end);
    }
    std::sort(kept.begin(), kept.end(), byStart);
    LaneRow out;
    for (const SummaryItem &it : kept) {
        out.start.push_back(it.start + shiftNs);
        out.end.push_back(it.end + shiftNs);
        out.event.push_back(it.event + base);
        out.category.push_back(it.category);
    }
    return out;
}

double offsetUsOf(const JobAnalysis *analysis, int64_t rank)
{
    if (!analysis)
        return 0;
    for (const RankJobStats &s : analysis->ranks)
        if (s.rank == rank)
            return s.clockOffsetUs;
    return 0;
}

// The rank's event for a job critical path row: same name, start within 1.5 µs
// (the summary keeps µs), on any lane of the rank; -1 when not found.
int64_t findRowEvent(const TimelineModel &m, const std::string &op, double localNs)
{
    constexpr double kTolNs = 1500;
    int64_t best = -1;
    double bestDist = kTolNs;
    for (const LaneRow &row : m.layout.rows) {
        auto it = std::lower_bound(row.start.begin(), row.start.end(), localNs - kTolNs,
                                   [](int64_t s, double t) { return double(s) < t; });
        for (; it != row.start.end() && double(*it) <= localNs + kTolNs; ++it) {
            const uint32_t ev = row.event[size_t(it - row.start.begin())];
            const double d = std::abs(double(*it) - localNs);
            if (d <= bestDist && m.name(ev) == op) {
                best = ev;
                bestDist = d;
            }
        }
    }
    return best;
}

} // namespace

std::shared_ptr<TimelineModel> buildJobTimelineModel(const std::vector<JobTimelineRank> &ranks,
                                                     const JobAnalysis *analysis, const JobTimelineOptions &options)
{
    auto job = std::make_shared<TimelineModel>();
    // Parts, their bases and the time shift onto the job's axis.
    int64_t origin = std::numeric_limits<int64_t>::max();
    uint32_t base = 0;
    for (const JobTimelineRank &r : ranks) {
        if (!r.model)
            continue;
        TimelineRankPart p;
        p.rank = r.rank;
        p.base = base;
        p.model = r.model;
        p.events = static_cast<uint32_t>(r.model->layout.eventPos.size());
        p.clockOffsetUs = options.rawClocks ? 0.0 : offsetUsOf(analysis, r.rank);
        p.label = "Rank " + std::to_string(r.rank) + (r.label.empty() ? std::string() : "  \u00b7  " + r.label);
        base += p.events;
        origin = std::min<int64_t>(origin, r.model->originNs + std::llround(p.clockOffsetUs * 1000));
        job->parts.push_back(std::move(p));
    }
    if (job->parts.empty())
        return job;
    job->originNs = origin;
    job->timeBase = options.rawClocks || !analysis || analysis->clockReferenceRank < 0
                        ? "job time: each rank on its own clock, from the earliest trace start"
                        : "job time: clocks aligned on rank " + std::to_string(analysis->clockReferenceRank) +
                              ", from the earliest rank's start";
    job->timeBaseShort = "job time";
    LaneLayout &out = job->layout;
    out.eventPos.assign(base, EventPos{});
    for (size_t pi = 0; pi < job->parts.size(); ++pi) {
        TimelineRankPart &part = job->parts[pi];
        const TimelineModel &m = *part.model;
        const LaneLayout &in = m.layout;
        part.shiftNs = m.originNs + std::llround(part.clockOffsetUs * 1000) - origin;
        const std::string rankName = "Rank " + std::to_string(part.rank);
        auto addRow = [&](LaneRow row, uint32_t group) {
            row.group = group;
            finishRow(row);
            const uint32_t r = static_cast<uint32_t>(out.rows.size());
            for (size_t i = 0; i < row.size(); ++i)
                out.endNs = std::max(out.endNs, row.end[i]);
            out.rows.push_back(std::move(row));
            return r;
        };
        // The summary lanes first (a folded rank's two strips).
        auto addSummary = [&](LaneRow row, std::string name, bool gpu, LaneGroup::JobRole role) {
            LaneGroup g;
            g.name = std::move(name);
            g.process = rankName;
            g.gpu = gpu;
            g.part = static_cast<int32_t>(pi);
            g.role = role;
            g.track = static_cast<uint32_t>(out.groups.size());
            g.events = row.size();
            g.firstRow = static_cast<uint32_t>(out.rows.size());
            g.rowCount = 1;
            addRow(std::move(row), static_cast<uint32_t>(out.groups.size()));
            out.groups.push_back(std::move(g));
        };
        const size_t cpuGroups = static_cast<size_t>(
            std::count_if(in.groups.begin(), in.groups.end(), [](const LaneGroup &g) { return !g.gpu; }));
        if (cpuGroups > 0)
            addSummary(cpuSummaryRow(in, part.shiftNs, part.base),
                       "CPU \u00b7 top-level ops of " + std::to_string(cpuGroups) +
                           (cpuGroups == 1 ? " thread" : " threads"),
                       false, LaneGroup::JobRole::CpuSummary);
        if (const size_t gpuGroups = in.groups.size() - cpuGroups; gpuGroups > 0)
            addSummary(gpuSummaryRow(in, part.shiftNs, part.base),
                       "GPU \u00b7 " + std::to_string(gpuGroups) + (gpuGroups == 1 ? " stream" : " streams"), true,
                       LaneGroup::JobRole::GpuSummary);
        for (const LaneGroup &src : in.groups) {
            LaneGroup g = src;
            g.name = src.process + " \u00b7 " + src.name;
            g.process = rankName;
            g.part = static_cast<int32_t>(pi);
            g.role = src.gpu ? LaneGroup::JobRole::Lane : LaneGroup::JobRole::CpuThread;
            g.track = static_cast<uint32_t>(out.groups.size());
            g.firstRow = static_cast<uint32_t>(out.rows.size());
            const uint32_t groupIndex = static_cast<uint32_t>(out.groups.size());
            for (uint32_t r = src.firstRow; r < src.firstRow + src.rowCount; ++r) {
                LaneRow row;
                const LaneRow &s = in.rows[r];
                row.band = s.band;
                row.depth = s.depth;
                row.start.resize(s.size());
                row.end.resize(s.size());
                row.event.resize(s.size());
                row.category = s.category;
                for (size_t i = 0; i < s.size(); ++i) {
                    row.start[i] = s.start[i] + part.shiftNs;
                    row.end[i] = s.end[i] + part.shiftNs;
                    row.event[i] = s.event[i] + part.base;
                    out.eventPos[row.event[i]] = {static_cast<int32_t>(out.rows.size()), static_cast<uint32_t>(i)};
                }
                addRow(std::move(row), groupIndex);
            }
            out.groups.push_back(std::move(g));
        }
        out.itemCount += in.itemCount;
    }

    // Edges: each rank's, moved; its own critical path only when there is no job path.
    const bool jobPath = analysis && analysis->criticalPath.valid;
    for (const TimelineRankPart &part : job->parts) {
        for (int k = 0; k < kEdgeKindCount; ++k) {
            const EdgeKind kind = static_cast<EdgeKind>(k);
            if (kind == EdgeKind::CriticalPath && jobPath)
                continue;
            for (TimelineEdge e : part.model->edges.edges(kind)) {
                e.from += part.base;
                e.to += part.base;
                e.fromNs += double(part.shiftNs);
                e.toNs += double(part.shiftNs);
                job->edges.add(e);
            }
        }
        if (!jobPath)
            for (uint32_t ev : part.model->criticalEvents)
                job->criticalEvents.push_back(ev + part.base);
    }

    auto partOfRank = [&](int64_t rank) -> const TimelineRankPart * {
        for (const TimelineRankPart &p : job->parts)
            if (p.rank == rank)
                return &p;
        return nullptr;
    };
    if (jobPath) {
        int64_t previous = -1;
        for (const JobCriticalPathRow &row : analysis->criticalPath.path) {
            const TimelineRankPart *p = partOfRank(row.rank);
            if (!p)
                continue;
            const double localNs =
                row.startUs * 1000.0 - offsetUsOf(analysis, row.rank) * 1000.0 - double(p->model->originNs);
            const int64_t local = findRowEvent(*p->model, row.op, localNs);
            if (local < 0)
                continue;
            const uint32_t ev = static_cast<uint32_t>(local) + p->base;
            job->criticalEvents.push_back(ev);
            if (previous >= 0 && uint32_t(previous) != ev) {
                TimelineEdge e;
                e.kind = EdgeKind::CriticalPath;
                e.from = static_cast<uint32_t>(previous);
                e.to = ev;
                e.fromNs = job->endNs(e.from);
                e.toNs = job->startNs(ev);
                if (e.toNs < e.fromNs) // nested or overlapping ops: from where the next one starts
                    e.fromNs = e.toNs;
                e.valueUs = static_cast<float>(row.durUs);
                job->edges.add(e);
            }
            previous = ev;
        }
    }
    job->edges.finish();
    std::sort(job->criticalEvents.begin(), job->criticalEvents.end());
    job->criticalEvents.erase(std::unique(job->criticalEvents.begin(), job->criticalEvents.end()),
                              job->criticalEvents.end());
    out.setCritical(job->criticalEvents);

    // Matched collectives: each kernel's instance, wait and last arriver.
    if (analysis) {
        job->collectiveEvents.resize(analysis->collectives.size());
        for (size_t ci = 0; ci < analysis->collectives.size(); ++ci) {
            const MatchedCollective &c = analysis->collectives[ci];
            for (size_t k = 0; k < c.ranks.size() && k < c.index.size(); ++k) {
                const TimelineRankPart *p = partOfRank(c.ranks[k]);
                const JobTimelineRank *in = nullptr;
                for (const JobTimelineRank &r : ranks)
                    if (r.rank == c.ranks[k])
                        in = &r;
                if (!p || !in || !in->summary || c.index[k] >= in->summary->collectives.size())
                    continue;
                const uint32_t local = in->summary->collectives[c.index[k]].event;
                if (local >= p->events || p->model->layout.pos(local).row < 0)
                    continue;
                const uint32_t ev = local + p->base;
                CollectiveMark mark;
                mark.collective = static_cast<uint32_t>(ci);
                auto w = c.waitUs.find(c.ranks[k]);
                mark.waitNs = w == c.waitUs.end() ? 0.f : static_cast<float>(w->second * 1000.0);
                mark.lastArrival = c.ranks[k] == c.lastArrivalRank && c.ranks.size() > 1;
                job->collectiveOf[ev] = mark;
                job->collectiveEvents[ci].push_back(ev);
            }
        }
    }
    return job;
}

std::vector<uint32_t> rankDisplayOrder(const TimelineModel &model, RankOrder order,
                                       const std::vector<double> &stepTimeUs, const std::vector<double> &waitCausedUs)
{
    std::vector<uint32_t> out(model.parts.size());
    std::iota(out.begin(), out.end(), 0u);
    if (order == RankOrder::ByRank)
        return out;
    const std::vector<double> &key = order == RankOrder::ByStepTime ? stepTimeUs : waitCausedUs;
    auto value = [&](uint32_t p) { return p < key.size() && key[p] >= 0 ? key[p] : -1.0; };
    std::stable_sort(out.begin(), out.end(), [&](uint32_t a, uint32_t b) {
        if (value(a) != value(b))
            return value(a) > value(b); // the slowest / the worst straggler first
        return model.parts[a].rank < model.parts[b].rank;
    });
    return out;
}

int64_t jobEventId(const TimelineModel &model, int64_t rank, uint32_t event)
{
    for (const TimelineRankPart &p : model.parts)
        if (p.rank == rank)
            return event < p.events ? int64_t(p.base) + event : -1;
    return -1;
}

} // namespace syncscope::ui
