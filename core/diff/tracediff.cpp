// SPDX-License-Identifier: MIT
#include "tracediff.h"

#include "align.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <tuple>
#include <unordered_map>

namespace syncscope {

namespace {

double secondsSince(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Aligns the top-level ops of each (step, thread) group, then the children of
// every matched pair, top-down: unmatched ops take their subtrees with them.
void matchForests(TraceDiff &d)
{
    const OpForest &a = d.baselineOps, &b = d.candidateOps;
    d.baselineMatch.assign(a.size(), -1);
    d.candidateMatch.assign(b.size(), -1);
    std::vector<std::pair<uint32_t, uint32_t>> queue;
    auto alignLists = [&](const uint32_t *xa, size_t na, const uint32_t *xb, size_t nb) {
        std::vector<uint32_t> ka(na), kb(nb);
        for (size_t i = 0; i < na; ++i)
            ka[i] = a.pathId[xa[i]];
        for (size_t j = 0; j < nb; ++j)
            kb[j] = b.pathId[xb[j]];
        for (const auto &[i, j] : alignSequences(ka, kb))
            queue.emplace_back(xa[i], xb[j]);
    };
    size_t ga = 0, gb = 0;
    while (ga < a.groups.size() && gb < b.groups.size()) {
        const auto &x = a.groups[ga], &y = b.groups[gb];
        const auto kx = std::make_pair(x.step, x.thread), ky = std::make_pair(y.step, y.thread);
        if (kx < ky)
            ++ga;
        else if (ky < kx)
            ++gb;
        else {
            alignLists(x.roots.data(), x.roots.size(), y.roots.data(), y.roots.size());
            ++ga, ++gb;
        }
    }
    for (size_t q = 0; q < queue.size(); ++q) {
        const auto [x, y] = queue[q];
        d.baselineMatch[x] = static_cast<int32_t>(y);
        d.candidateMatch[y] = static_cast<int32_t>(x);
        alignLists(a.childIds.data() + a.childBegin[x], a.childBegin[x + 1] - a.childBegin[x],
                   b.childIds.data() + b.childBegin[y], b.childBegin[y + 1] - b.childBegin[y]);
    }
    d.matches = std::move(queue);
    std::sort(d.matches.begin(), d.matches.end());
}

void diffSteps(TraceDiff &d)
{
    const Analysis *side[2] = {d.baseline.get(), d.candidate.get()};
    const OpForest *ops[2] = {&d.baselineOps, &d.candidateOps};
    const size_t n = std::max(ops[0]->stepEvents.size(), ops[1]->stepEvents.size());
    // Each side's successful per-step paths by instance, found once (not per step).
    std::vector<const StepResult *> paths[2];
    for (int k = 0; k < 2; ++k) {
        paths[k].assign(n, nullptr);
        for (const StepResult &r : side[k]->steps)
            if (r.success && r.instance >= 0 && static_cast<size_t>(r.instance) < n)
                paths[k][static_cast<size_t>(r.instance)] = &r;
    }
    for (size_t i = 0; i < n; ++i) {
        StepDiff s;
        s.index = static_cast<int>(i);
        for (int k = 0; k < 2; ++k) {
            if (i >= ops[k]->stepEvents.size())
                continue;
            const KinetoEvent &e = side[k]->device->events[ops[k]->stepEvents[i]];
            (k ? s.inCandidate : s.inBaseline) = true;
            (k ? s.candidateName : s.baselineName) = std::string(side[k]->device->str(e.name));
            (k ? s.candidateUs : s.baselineUs) = e.dur;
            if (const StepResult *r = paths[k][i]) {
                (k ? s.candidateCpUs : s.baselineCpUs) = r->weightUs;
                (k ? s.candidateBound : s.baselineBound) = r->summary;
            }
        }
        d.steps.push_back(std::move(s));
    }
}

void diffOps(TraceDiff &d, const DiffOptions &o)
{
    std::vector<OpDiff> rows(d.paths.size());
    auto count = [&](const KinetoTrace &t, const OpForest &f, const std::vector<int32_t> &match,
                     const DiffWindow &w, bool candidate) {
        for (size_t i = 0; i < f.size(); ++i) {
            const KinetoEvent &e = t.events[f.event[i]];
            if (!w.contains(e.ts))
                continue;
            OpDiff &r = rows[f.pathId[i]];
            DiffSide &s = candidate ? r.candidate : r.baseline;
            ++s.count;
            s.totalUs += e.dur;
            s.selfUs += f.selfUs[i];
            if (match[i] < 0)
                ++(candidate ? r.added : r.removed);
            else if (!candidate)
                ++r.matched;
        }
    };
    count(*d.baseline->device, d.baselineOps, d.baselineMatch, o.baselineWindow, false);
    count(*d.candidate->device, d.candidateOps, d.candidateMatch, o.candidateWindow, true);
    for (uint32_t p = 0; p < rows.size(); ++p) {
        rows[p].path = p;
        if (rows[p].baseline.count || rows[p].candidate.count)
            d.ops.push_back(rows[p]);
    }
    std::sort(d.ops.begin(), d.ops.end(),
              [&](const OpDiff &x, const OpDiff &y) { return d.paths.path(x.path) < d.paths.path(y.path); });
}

const char *gpuCategory(EventKind k)
{
    return k == EventKind::Kernel ? "kernel" : k == EventKind::Memcpy ? "memcpy" : "memset";
}

void diffGpu(TraceDiff &d, const DiffOptions &o)
{
    // (category, name, launch path string) -> row; std::map keeps the output sorted.
    using Key = std::tuple<std::string, std::string, std::string>;
    std::map<Key, GpuDiff> byOp;
    auto count = [&](const KinetoTrace &t, const OpForest &f, const DiffWindow &w, bool candidate) {
        // First per (name id, path id), then merged by strings: few distinct keys.
        std::unordered_map<uint64_t, std::pair<EventKind, DiffSide>> local;
        for (uint32_t i = 0; i < t.events.size(); ++i) {
            const KinetoEvent &e = t.events[i];
            if (!isGpuActivity(e.kind) || e.ph != 'X' || !w.contains(e.ts))
                continue;
            const uint32_t path = f.launchPath(t, i);
            auto &[kind, s] = local[(uint64_t(e.name) << 32) | path];
            kind = e.kind;
            ++s.count;
            s.totalUs += e.dur;
        }
        for (const auto &[key, v] : local) {
            const uint32_t path = static_cast<uint32_t>(key & 0xffffffffu);
            const std::string name(t.str(static_cast<StrId>(key >> 32)));
            GpuDiff &r = byOp[{gpuCategory(v.first), name, d.pathText(path)}];
            r.category = gpuCategory(v.first);
            r.name = name;
            r.launchPath = path;
            DiffSide &s = candidate ? r.candidate : r.baseline;
            s.count += v.second.count;
            s.totalUs += v.second.totalUs;
        }
    };
    count(*d.baseline->device, d.baselineOps, o.baselineWindow, false);
    count(*d.candidate->device, d.candidateOps, o.candidateWindow, true);
    std::map<std::pair<std::string, std::string>, GpuDiff> byName;
    for (const auto &[key, r] : byOp) {
        GpuDiff &n = byName[{r.category, r.name}];
        n.category = r.category;
        n.name = r.name;
        n.baseline.count += r.baseline.count;
        n.baseline.totalUs += r.baseline.totalUs;
        n.candidate.count += r.candidate.count;
        n.candidate.totalUs += r.candidate.totalUs;
        (r.category == "kernel" ? d.kernelsByOp : d.memcpysByOp).push_back(r);
    }
    for (const auto &[key, r] : byName)
        (r.category == "kernel" ? d.kernels : d.memcpys).push_back(r);
}

void diffSync(TraceDiff &d, const DiffOptions &o)
{
    using Key = std::tuple<std::string, std::string, std::string>; // kind, call, waiter path
    std::map<Key, SyncDiff> byWaiter;
    auto count = [&](const Analysis &a, const OpForest &f, const DiffWindow &w, bool candidate) {
        const KinetoTrace &t = *a.device;
        // A call waiting on several activities (Context Sync) counts its longest wait once.
        std::unordered_map<uint32_t, size_t> longest; // sync row -> edge
        for (size_t i = 0; i < a.syncEdges.size(); ++i) {
            const SyncEdge &e = a.syncEdges[i];
            if (!w.contains(t.events[e.dst].ts))
                continue;
            auto [it, added] = longest.emplace(e.syncEvent, i);
            if (!added && e.waitUs > a.syncEdges[it->second].waitUs)
                it->second = i;
        }
        std::vector<size_t> edges;
        for (const auto &[row, i] : longest)
            edges.push_back(i);
        std::sort(edges.begin(), edges.end()); // a fixed summation order
        for (size_t i : edges) {
            const SyncEdge &e = a.syncEdges[i];
            const uint32_t waiter = e.gpuToGpu ? f.launchPath(t, e.dst) : f.callerPath(e.dst);
            const std::string call(t.str(t.events[e.dst].name));
            SyncDiff &r = byWaiter[{syncKindName(e.kind), call, d.pathText(waiter)}];
            r.kind = syncKindName(e.kind);
            r.call = call;
            r.waiter = waiter;
            DiffSide &s = candidate ? r.candidate : r.baseline;
            ++s.count;
            s.totalUs += e.waitUs;
        }
    };
    count(*d.baseline, d.baselineOps, o.baselineWindow, false);
    count(*d.candidate, d.candidateOps, o.candidateWindow, true);
    std::map<std::string, SyncDiff> byKind;
    for (const auto &[key, r] : byWaiter) {
        d.syncByWaiter.push_back(r);
        SyncDiff &k = byKind[r.kind];
        k.kind = r.kind;
        k.baseline.count += r.baseline.count;
        k.baseline.totalUs += r.baseline.totalUs;
        k.candidate.count += r.candidate.count;
        k.candidate.totalUs += r.candidate.totalUs;
    }
    for (const auto &[kind, r] : byKind)
        d.syncByKind.push_back(r);
}

void diffCriticalPath(TraceDiff &d)
{
    const Analysis *side[2] = {d.baseline.get(), d.candidate.get()};
    const OpForest *ops[2] = {&d.baselineOps, &d.candidateOps};
    d.criticalPathBoth = true;
    for (const Analysis *a : side)
        d.criticalPathBoth = d.criticalPathBoth && a->criticalPath && a->criticalPath->success;
    if (!d.criticalPathBoth)
        return;
    std::map<std::string, BoundDiff> bound;
    using Key = std::tuple<std::string, std::string, std::string>;
    std::map<Key, CpKeyDiff> keys;
    for (int k = 0; k < 2; ++k) {
        const CriticalPathResult &cp = *side[k]->criticalPath;
        (k ? d.candidateCpUs : d.baselineCpUs) = cp.weightUs;
        for (const CpSummaryRow &row : cp.summary) {
            BoundDiff &b = bound[row.boundBy.empty() ? "dependency" : row.boundBy];
            b.boundBy = row.boundBy.empty() ? "dependency" : row.boundBy;
            (k ? b.candidatePercent : b.baselinePercent) = row.percent;
            (k ? b.candidateUs : b.baselineUs) = row.durationUs;
        }
        const KinetoTrace &t = *side[k]->device;
        std::unordered_map<uint32_t, uint32_t> nodeOf;
        nodeOf.reserve(ops[k]->size());
        for (uint32_t n = 0; n < ops[k]->size(); ++n)
            nodeOf.emplace(ops[k]->event[n], n);
        for (uint32_t ev : cp.criticalEvents) {
            const KinetoEvent &e = t.events[ev];
            std::string category;
            uint32_t path = kNoPath;
            if (isCpuSideOp(e.kind)) {
                auto it = nodeOf.find(ev);
                category = "op";
                path = it == nodeOf.end() ? kNoPath : ops[k]->pathId[it->second];
            } else if (e.kind == EventKind::Runtime) {
                category = "runtime";
                path = ops[k]->callerPath(ev);
            } else if (isGpuActivity(e.kind)) {
                category = gpuCategory(e.kind);
                path = ops[k]->launchPath(t, ev);
            } else
                continue;
            const std::string name = category == "op" && path != kNoPath ? d.paths.leaf(path) : std::string(t.str(e.name));
            CpKeyDiff &r = keys[{category, name, d.pathText(path)}];
            r.category = category;
            r.name = name;
            r.path = path;
            DiffSide &s = k ? r.candidate : r.baseline;
            ++s.count;
            s.totalUs += e.dur;
        }
    }
    for (const auto &[name, b] : bound)
        d.bound.push_back(b);
    for (const auto &[key, r] : keys) {
        if (r.baseline.count == 0)
            d.cpEntered.push_back(r);
        else if (r.candidate.count == 0)
            d.cpLeft.push_back(r);
    }
}

void topChanges(TraceDiff &d, size_t limit)
{
    std::vector<TopChange> all;
    for (const OpDiff &r : d.ops)
        all.push_back({"op", d.paths.leaf(r.path), d.paths.path(r.path), r.baseline.selfUs, r.candidate.selfUs});
    for (const auto *list : {&d.kernelsByOp, &d.memcpysByOp})
        for (const GpuDiff &r : *list)
            all.push_back({r.category, r.name, d.pathText(r.launchPath), r.baseline.totalUs, r.candidate.totalUs});
    for (const SyncDiff &r : d.syncByWaiter)
        all.push_back({"sync", r.kind + " in " + r.call, d.pathText(r.waiter), r.baseline.totalUs,
                       r.candidate.totalUs});
    all.erase(std::remove_if(all.begin(), all.end(), [](const TopChange &c) { return c.deltaUs() == 0; }),
              all.end());
    std::sort(all.begin(), all.end(), [](const TopChange &x, const TopChange &y) {
        const double ax = std::fabs(x.deltaUs()), ay = std::fabs(y.deltaUs());
        if (ax != ay)
            return ax > ay;
        return std::tie(x.category, x.name, x.where) < std::tie(y.category, y.name, y.where);
    });
    if (all.size() > limit)
        all.resize(limit);
    d.top = std::move(all);
}

} // namespace

DiffWindow windowOf(const Analysis &analysis)
{
    DiffWindow w;
    if (analysis.criticalPath && analysis.criticalPath->success && !analysis.criticalPath->window.wholeTrace) {
        const CpWindow &cw = analysis.criticalPath->window;
        // HTA-relative µs plus the trace's minimum is off by float rounding at
        // epoch-µs magnitudes: half a nanosecond of slack keeps the boundary events right.
        constexpr double kSlackUs = 5e-4;
        w.startUs = cw.startAbsUs - kSlackUs;
        w.endUs = cw.startAbsUs + (cw.endUs - cw.startUs) - kSlackUs;
    }
    return w;
}

AnalysisRequest diffRunRequest(AnalysisRequest r, const std::string &devicePath, const std::string &hostPath,
                               bool windowGiven)
{
    r.devicePath = devicePath;
    r.hostPath = hostPath;
    r.rolesGiven = false; // either order
    r.allSteps = true;    // the per-step table
    r.keepRawEvents = false;
    r.progress = nullptr;
    r.loaded = nullptr;
    if (!windowGiven) { // the whole trace (a --step all or --instance all adds only the per-step table)
        r.cpa.annotation.clear();
        r.window = WindowKind::Default;
        r.stepFirst = r.stepLast = -1;
    }
    return r;
}

std::unique_ptr<TraceDiff> diffRuns(std::shared_ptr<const Analysis> baseline,
                                    std::shared_ptr<const Analysis> candidate, const DiffOptions &options)
{
    auto d = std::make_unique<TraceDiff>();
    d->baseline = std::move(baseline);
    d->candidate = std::move(candidate);
    auto t0 = std::chrono::steady_clock::now();
    d->baselineOps = buildOpForest(*d->baseline->device, d->paths);
    d->candidateOps = buildOpForest(*d->candidate->device, d->paths);
    matchForests(*d);
    d->matchSeconds = secondsSince(t0);
    t0 = std::chrono::steady_clock::now();
    diffSteps(*d);
    diffOps(*d, options);
    diffGpu(*d, options);
    diffSync(*d, options);
    diffCriticalPath(*d);
    topChanges(*d, options.topChanges);
    d->aggregateSeconds = secondsSince(t0);
    return d;
}

} // namespace syncscope
