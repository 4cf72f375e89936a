// SPDX-License-Identifier: MIT
#include "gapoverlay.h"

#include "analysis/gapcauses.h"
#include "analysis/htabreakdown.h"
#include "analysis/htarows.h"
#include "model/kinetotrace.h"

#include <algorithm>

namespace syncscope::ui {

const char *overlayKindName(OverlayKind kind)
{
    switch (kind) {
    case OverlayKind::HostWait: return "host wait";
    case OverlayKind::KernelWait: return "kernel wait";
    case OverlayKind::OtherIdle: return "other idle";
    case OverlayKind::ExposedComm: break;
    }
    return "exposed communication";
}

namespace {

void sortRows(std::vector<OverlayRow> &rows)
{
    for (OverlayRow &r : rows)
        std::sort(r.spans.begin(), r.spans.end(),
                  [](const OverlaySpan &a, const OverlaySpan &b) { return a.startNs < b.startNs; });
}

int32_t groupOf(const LaneLayout &layout, uint32_t event)
{
    const EventPos &p = layout.pos(event);
    return p.row < 0 ? -1 : static_cast<int32_t>(layout.rows[size_t(p.row)].group);
}

} // namespace

std::shared_ptr<TimelineOverlay> buildTimelineOverlay(const TimelineModel &model)
{
    auto out = std::make_shared<TimelineOverlay>();
    const LaneLayout &layout = model.layout;
    out->gaps.resize(layout.rows.size());
    out->exposed.resize(layout.rows.size());
    if (!model.trace || model.isJob())
        return out;
    const KinetoTrace &trace = *model.trace;
    // Both times are from the trace's earliest event; the model's origin may differ in theory.
    const int64_t shift = trace.minTsNs - model.originNs;
    Diagnostics scratch; // the analysis reports the rows' problems
    hta::RowOptions options;
    options.dropLastProfilerStep = false; // the timeline shows every step
    const hta::RowTable rows(trace, options, scratch);

    for (const StreamIdleGaps &s : idleGaps(rows)) {
        for (const IdleGap &g : s.gaps) {
            const int32_t group = groupOf(layout, g.after);
            if (g.endNs <= g.startNs || group < 0 || group != groupOf(layout, g.before))
                continue;
            const OverlayKind kind = static_cast<OverlayKind>(g.cause); // same order
            out->gaps[size_t(layout.pos(g.after).row)].spans.push_back({g.startNs + shift, g.endNs + shift, kind});
            out->gapNs[size_t(g.cause)] += double(g.endNs - g.startNs);
            ++out->gapCount;
        }
    }

    // Exposed intervals per GPU, cut to each communication kernel of that GPU.
    const std::vector<GpuExposedComm> gpus = exposedCommIntervals(rows);
    for (uint32_t i = 0; i < rows.eventCount(); ++i) {
        if (!rows.isLoaded(i) || rows.stream(i) == -1 || layout.pos(i).row < 0)
            continue;
        const KinetoEvent &e = trace.events[i];
        if (htaKernelType(trace.str(e.name)) != HtaKernelType::Communication)
            continue;
        auto gpu = std::lower_bound(gpus.begin(), gpus.end(), e.pid,
                                    [](const GpuExposedComm &g, int64_t pid) { return g.pid < pid; });
        if (gpu == gpus.end() || gpu->pid != e.pid)
            continue;
        const int64_t k0 = e.tsNs - trace.minTsNs, k1 = e.endNs() - trace.minTsNs;
        auto it = std::upper_bound(gpu->exposed.begin(), gpu->exposed.end(), k0,
                                   [](int64_t t, const ExposedInterval &x) { return t < x.endNs; });
        OverlayRow &row = out->exposed[size_t(layout.pos(i).row)];
        for (; it != gpu->exposed.end() && it->startNs < k1; ++it) {
            const int64_t a = std::max(k0, it->startNs), b = std::min(k1, it->endNs);
            if (b <= a)
                continue;
            row.spans.push_back({a + shift, b + shift, OverlayKind::ExposedComm});
            out->exposedNs += double(b - a);
            ++out->exposedCount;
        }
    }
    sortRows(out->gaps);
    sortRows(out->exposed);
    return out;
}

SpanWindow overlayWindow(const OverlayRow &row, double t0, double t1)
{
    const auto &v = row.spans;
    auto first = std::lower_bound(v.begin(), v.end(), t0,
                                  [](const OverlaySpan &s, double t) { return double(s.endNs) < t; });
    auto last = std::upper_bound(first, v.end(), t1,
                                 [](double t, const OverlaySpan &s) { return t < double(s.startNs); });
    return {size_t(first - v.begin()), size_t(last - v.begin())};
}

const OverlaySpan *overlayAt(const OverlayRow &row, double t, double toleranceNs)
{
    const SpanWindow w = overlayWindow(row, t - toleranceNs, t + toleranceNs);
    const OverlaySpan *best = nullptr;
    double bestDist = 0;
    for (size_t i = w.first; i < w.last; ++i) {
        const OverlaySpan &s = row.spans[i];
        const double d = t < double(s.startNs) ? double(s.startNs) - t : t > double(s.endNs) ? t - double(s.endNs) : 0;
        if (!best || d < bestDist) {
            best = &s;
            bestDist = d;
        }
    }
    return best;
}

} // namespace syncscope::ui
