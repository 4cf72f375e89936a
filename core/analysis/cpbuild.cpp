// SPDX-License-Identifier: MIT
// Window clipping, the node list and the runtime-lock pass (spec 2.2-2.5).
#include "cpbuild.h"

#include "syncinfer.h"

#include <algorithm>
#include <tuple>

namespace syncscope::hta {

void attributeEdge(CpGraph &g, int32_t e, int32_t srcParent)
{
    const CpEdgeType type = g.edgeType[e];
    if (type != CpEdgeType::OperatorKernel && type != CpEdgeType::KernelKernelDelay)
        return;
    const int32_t u = g.edgeFrom[e], v = g.edgeTo[e];
    int32_t ev;
    if (type == CpEdgeType::KernelKernelDelay || g.nodeIsStart[u])
        ev = g.nodeEvent[u]; // the delay goes to the previous kernel; start->x lies inside the source
    else if (!g.nodeIsStart[v])
        ev = g.nodeEvent[v]; // end->end: unwinding into the destination
    else
        ev = srcParent;      // end->start between siblings: their parent
    g.edgeEvent[e] = ev;
}

namespace {

// HTA's launch names; by default also every runtime call whose correlation reaches
// a kernel, copy or memset (graph launches, hipExtLaunchKernel, _v suffixes, ...).
std::vector<uint8_t> launchRows(const RowTable &rows, uint16_t launchRole, bool exact)
{
    std::vector<uint8_t> out(rows.eventCount(), 0);
    for (uint32_t i = 0; i < out.size(); ++i) {
        if (!rows.isLoaded(i) || rows.indexCorr(i) <= 0)
            continue;
        if (rows.nameRoles(i) & launchRole)
            out[i] = 1;
        else if (!exact && rows.catRole(i) == CatRuntime && rows.stream(i) == -1)
            out[i] = isGpuActivity(rows.kind(static_cast<uint32_t>(rows.indexCorr(i)))) ? 1 : 0;
    }
    return out;
}

} // namespace

CpaContext::CpaContext(const KinetoTrace &t, const CriticalPathOptions &o, const RowOptions &rowOptions,
                       Diagnostics &diag)
    : trace(t), options(o), d731(o.htaVersion == HtaVersion::D731cc2e), exact(isHtaExact(o)),
      launchRole(d731 ? uint16_t(RoleLaunchD731) : uint16_t(RoleLaunch)), rows(t, rowOptions, diag),
      launchRow(launchRows(rows, launchRole, exact)), tables(rows, diag, launchRow)
{
    computeQueueLengths(diag);
    const StringTable &strings = trace.strings;
    blockingName.assign(strings.size(), 0);
    for (StrId id = 0; id < strings.size(); ++id) {
        bool blocking = rows.rolesOfName(id) & RoleBlocking;
        if (!exact && !blocking) { // the HIP, driver and suffixed spellings of HTA's list
            const RuntimeApi api = classifyRuntimeApi(strings.view(id));
            blocking = api == RuntimeApi::StreamSync || api == RuntimeApi::DeviceSync ||
                       api == RuntimeApi::EventSync || api == RuntimeApi::EventQuery || api == RuntimeApi::Copy ||
                       api == RuntimeApi::CopyAsync;
        }
        blockingName[id] = blocking ? 1 : 0;
    }
    dataLoadName.assign(strings.size(), 0);
    for (const std::string &s : options.dataLoadEvents) {
        for (StrId id = 0; id < strings.size(); ++id)
            dataLoadName[id] |= strings.view(id).find(s) != std::string_view::npos ? 1 : 0;
    }
    const uint32_t n = static_cast<uint32_t>(rows.eventCount());
    for (uint32_t i = 0; i < n; ++i) {
        if (!rows.isLoaded(i))
            continue;
        if (rows.stream(i) == -1)
            cpuRowsByTs.push_back(i);
        if (rows.nameRoles(i) & RoleStreamWaitEvent)
            streamWaitRows.push_back(i);
    }
    std::sort(cpuRowsByTs.begin(), cpuRowsByTs.end(), [&](uint32_t a, uint32_t b) {
        return rows.ts(a) != rows.ts(b) ? rows.ts(a) < rows.ts(b) : a < b;
    });
    m_start.assign(n, -1);
    m_end.assign(n, -1);
    prepareStepWaits();
    if (!exact)
        prepareDefaultMode();
}

void CpaContext::prepareStepWaits()
{
    // What a Stream Wait Event row (cat cuda_sync, on a stream) does to a window's graph
    // (spec 2.3, 2.7.3): nodes that never get an edge; a stream of -1/0 mixed with it
    // on one (pid, tid) is not walked as a CPU thread; and, in the sweep, the sync
    // source of the first launch after its cudaStreamWaitEvent call. Only the last
    // depends on the window, through that activity. Rows of another kind that carry
    // the name (not written by Kineto) are taken only where the window holds them.
    const auto &events = trace.events;
    std::vector<std::tuple<IdKey, IdKey, uint32_t>> threads;
    for (uint32_t row : streamWaitRows) {
        if (rows.catRole(row) != CatCudaSync || rows.stream(row) == -1)
            continue;
        threads.emplace_back(pidKey(events[row]), tidKey(events[row]), row);
        if (rows.indexCorr(row) < 0 || tables.recordPreviousLaunch(events[row].waitOnRecordCorr) < 0)
            continue;
        const int32_t waitCall = rows.indexCorr(row);
        const int32_t next = waitCall > 0 ? tables.waitNextLaunch(static_cast<uint32_t>(waitCall)) : -2;
        if (next < 0)
            continue;
        const int32_t dest = rows.indexCorr(static_cast<uint32_t>(next));
        if (dest >= 0)
            waitRowsByDest.emplace_back(static_cast<uint32_t>(dest), row);
    }
    std::sort(waitRowsByDest.begin(), waitRowsByDest.end());
    std::sort(threads.begin(), threads.end());
    for (size_t k = 0; k < threads.size(); ++k)
        if (k == 0 || !(std::get<0>(threads[k]) == std::get<0>(threads[k - 1]) &&
                        std::get<1>(threads[k]) == std::get<1>(threads[k - 1])))
            waitRowPerThread.push_back(std::get<2>(threads[k]));
}

void CpaContext::prepareDefaultMode()
{
    const auto &events = trace.events;
    const uint32_t n = static_cast<uint32_t>(rows.eventCount());
    // Every GPU-side row of a correlation, not only the last (graph replays).
    std::vector<std::tuple<IdKey, int64_t, double, uint32_t>> byStream;
    for (uint32_t i = 0; i < n; ++i) {
        if (!rows.isLoaded(i) || !rows.isGpuSide(i) || rows.stream(i) == -1 || rows.correlation(i) < 0)
            continue;
        gpuByCorr.emplace_back(rows.correlation(i), i);
        if (isGpuActivity(rows.kind(i)))
            byStream.emplace_back(pidKey(events[i]), rows.stream(i), rows.ts(i), i);
    }
    std::sort(gpuByCorr.begin(), gpuByCorr.end());
    replayCount.assign(n, 0);
    for (size_t a = 0; a < gpuByCorr.size();) {
        size_t b = a;
        int32_t activities = 0;
        for (; b < gpuByCorr.size() && gpuByCorr[b].first == gpuByCorr[a].first; ++b)
            activities += isGpuActivity(rows.kind(gpuByCorr[b].second)) ? 1 : 0;
        for (size_t k = a; k < b; ++k)
            replayCount[gpuByCorr[k].second] = activities;
        a = b;
    }
    std::sort(byStream.begin(), byStream.end());
    streamPrev.assign(n, -1);
    for (size_t k = 1; k < byStream.size(); ++k) {
        const auto &[dev, stream, ts, row] = byStream[k];
        const auto &[pdev, pstream, pts, prow] = byStream[k - 1];
        if (dev == pdev && stream == pstream)
            streamPrev[row] = static_cast<int32_t>(prow);
    }
}

void CpaContext::takeSyncEdges()
{
    if (exact || m_edgesTaken)
        return;
    m_edgesTaken = true;
    // The inferred sync edges: the caller's, or inferred here. Taken only now, as the
    // GPU pass of the first window needs them: the nodes and the call stacks are built
    // while the session's other thread still looks for them (issue 40, class 11).
    const uint32_t n = static_cast<uint32_t>(rows.eventCount());
    std::shared_ptr<const std::vector<SyncEdge>> edges = options.syncEdges;
    if (!edges && options.syncEdgesLater.valid())
        edges = options.syncEdgesLater.get();
    if (!edges) {
        Diagnostics scratch; // the session reports the sync diagnostics once
        edges = std::make_shared<const std::vector<SyncEdge>>(findAllSyncEdges(trace, scratch));
    }
    for (const SyncEdge &e : *edges) {
        if (!e.inferred || e.src >= n || e.dst >= n)
            continue;
        (e.gpuToGpu ? inferredGpu : inferredCpu).emplace_back(e.dst, e.src);
    }
    std::sort(inferredGpu.begin(), inferredGpu.end());
    std::sort(inferredCpu.begin(), inferredCpu.end(), [&](const auto &a, const auto &b) {
        return rows.ts(a.first) != rows.ts(b.first) ? rows.ts(a.first) < rows.ts(b.first) : a < b;
    });
}

int32_t CpaContext::inferredGpuSource(uint32_t dst) const
{
    auto it = std::lower_bound(inferredGpu.begin(), inferredGpu.end(), std::make_pair(dst, 0u));
    return it != inferredGpu.end() && it->first == dst ? static_cast<int32_t>(it->second) : -1;
}

void CpaContext::computeQueueLengths(Diagnostics &diag)
{
    // Spec 2.7.1 over all loaded rows: +1 at each launch call (on its GPU row's
    // stream), -1 at each GPU row of a launch; a running sum per stream. HTA
    // joins launches and GPU rows on correlation, so L launches and G GPU rows
    // sharing one id make L x G +1 steps. Here one step per (launch, stream)
    // carries the count of that stream's GPU rows (same sums), and a
    // correlation whose launches x streams still exceeds kMaxFanout over more
    // than kFewStreams streams keeps only its last launch, with a warning: at
    // most ~32 steps per row whatever the input.
    constexpr size_t kMaxFanout = 4096;
    constexpr size_t kFewStreams = 8;
    const uint32_t n = static_cast<uint32_t>(rows.eventCount());
    queue.assign(n, kNoQueue);
    struct StreamCount {
        int64_t corr;
        int64_t stream;
        int32_t count;
    };
    std::vector<std::pair<int64_t, int64_t>> gpuCorrStream; // GPU rows (stream != -1): (correlation, stream)
    std::vector<std::pair<int64_t, uint32_t>> launches;     // (correlation, row)
    for (uint32_t i = 0; i < n; ++i) {
        if (!rows.isLoaded(i))
            continue;
        if (rows.stream(i) != -1)
            gpuCorrStream.emplace_back(rows.correlation(i), rows.stream(i));
        if (launchRow[i])
            launches.emplace_back(rows.correlation(i), i);
    }
    std::sort(gpuCorrStream.begin(), gpuCorrStream.end());
    std::sort(launches.begin(), launches.end());
    std::vector<StreamCount> streamCounts;
    for (const auto &[corr, stream] : gpuCorrStream) {
        if (!streamCounts.empty() && streamCounts.back().corr == corr && streamCounts.back().stream == stream)
            ++streamCounts.back().count;
        else
            streamCounts.push_back({corr, stream, 1});
    }

    struct Step {
        double ts;
        bool launch;
        uint32_t row;
        int64_t stream;
        int32_t delta;
    };
    std::vector<Step> steps;
    size_t launchesLeftOut = 0, sharedIds = 0;
    for (size_t a = 0; a < launches.size();) {
        const int64_t corr = launches[a].first;
        size_t b = a;
        while (b < launches.size() && launches[b].first == corr)
            ++b;
        const auto lo = std::lower_bound(streamCounts.begin(), streamCounts.end(), corr,
                                         [](const StreamCount &s, int64_t c) { return s.corr < c; });
        auto hi = lo;
        while (hi != streamCounts.end() && hi->corr == corr)
            ++hi;
        const size_t streams = static_cast<size_t>(hi - lo);
        if (b - a > 1 && streams > kFewStreams && (b - a) * streams > kMaxFanout) {
            launchesLeftOut += b - a - 1;
            ++sharedIds;
            a = b - 1;
        }
        for (; a < b; ++a)
            for (auto s = lo; s != hi; ++s)
                steps.push_back({rows.ts(launches[a].second), true, launches[a].second, s->stream, s->count});
    }
    if (launchesLeftOut > 0)
        diag.warning("cpa.shared_correlation",
                     trace.path + ": " + std::to_string(sharedIds) +
                         " correlation ids are shared by many launches and GPU activities; the GPU queue lengths "
                         "count only the last launch of each (" +
                         std::to_string(launchesLeftOut) + " launches left out; HTA pairs every launch with every "
                                                           "activity, which grows with the square of their number)",
                     trace.path);
    for (uint32_t i = 0; i < n; ++i) {
        if (!rows.isLoaded(i) || rows.stream(i) == -1)
            continue;
        const int64_t corr = rows.correlation(i);
        const bool launched = std::binary_search(launches.begin(), launches.end(), std::make_pair(corr, 0u),
                                                 [](const auto &x, const auto &y) { return x.first < y.first; });
        if (launched)
            steps.push_back({rows.ts(i), false, i, rows.stream(i), -1});
    }
    // Ties: launches before activities, then by index (HTA's sort is unstable; spec 2.7.1),
    // then by stream (a launch's last step gives its queue value).
    std::sort(steps.begin(), steps.end(), [](const Step &a, const Step &b) {
        if (a.ts != b.ts)
            return a.ts < b.ts;
        if (a.launch != b.launch)
            return a.launch;
        if (a.row != b.row)
            return a.row < b.row;
        return a.stream < b.stream;
    });
    queueSteps = steps.size();
    std::vector<int64_t> streams;
    for (const Step &s : steps)
        streams.push_back(s.stream);
    std::sort(streams.begin(), streams.end());
    streams.erase(std::unique(streams.begin(), streams.end()), streams.end());
    std::vector<int32_t> sum(streams.size(), 0);
    for (const Step &s : steps) {
        const size_t k = static_cast<size_t>(std::lower_bound(streams.begin(), streams.end(), s.stream) - streams.begin());
        sum[k] += s.delta;
        queue[s.row] = sum[k];
    }
}

std::vector<uint32_t> CpaContext::clipCpu(double start, double end, size_t extra) const
{
    // CPU rows (stream -1) starting in the window with dur > 0 (HTA #116).
    auto lo = std::lower_bound(cpuRowsByTs.begin(), cpuRowsByTs.end(), start,
                               [&](uint32_t i, double t) { return rows.ts(i) < t; });
    auto hi = std::upper_bound(lo, cpuRowsByTs.end(), end, [&](double t, uint32_t i) { return t < rows.ts(i); });
    std::vector<uint32_t> out;
    out.reserve(static_cast<size_t>(hi - lo) + extra);
    std::vector<int64_t> corrs;
    for (auto it = lo; it != hi; ++it) {
        const uint32_t c = *it;
        if (!(rows.dur(c) > 0))
            continue;
        out.push_back(c);
        // GPU rows launched from the window, wherever they run (by default every
        // row of the correlation: a graph launch replays many).
        const int32_t k = rows.partner(c);
        if (k >= 0 && rows.isLoaded(static_cast<uint32_t>(k)) && rows.stream(static_cast<uint32_t>(k)) != -1)
            out.push_back(static_cast<uint32_t>(k));
        if (!exact && k >= 0)
            corrs.push_back(trace.events[c].correlation);
    }
    // Each correlation's rows once: N calls sharing one correlation with N copies added N x N
    // rows to sort (issue 40: 10 k copies took 3 s and 680 MB).
    std::sort(corrs.begin(), corrs.end());
    corrs.erase(std::unique(corrs.begin(), corrs.end()), corrs.end());
    for (const int64_t corr : corrs) {
        auto it = std::lower_bound(gpuByCorr.begin(), gpuByCorr.end(), std::make_pair(corr, 0u));
        for (; it != gpuByCorr.end() && it->first == corr; ++it)
            out.push_back(it->second);
    }
    return out;
}

std::vector<uint32_t> CpaContext::clip(double start, double end) const
{
    std::vector<uint32_t> out = clipCpu(start, end, streamWaitRows.size());
    // Every Stream Wait Event row of the trace [QUIRK].
    out.insert(out.end(), streamWaitRows.begin(), streamWaitRows.end());
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

std::vector<uint32_t> CpaContext::clipStep(double start, double end) const
{
    std::vector<uint32_t> out = clipCpu(start, end, waitRowPerThread.size());
    // The Stream Wait Event rows that set the sync source of an activity kept here,
    // and one per thread that has any: the same graph as clip()'s (node ids aside).
    const size_t kept = out.size();
    for (size_t k = 0; k < kept; ++k) {
        if (rows.stream(out[k]) == -1)
            continue;
        auto it = std::lower_bound(waitRowsByDest.begin(), waitRowsByDest.end(), std::make_pair(out[k], 0u));
        for (; it != waitRowsByDest.end() && it->first == out[k]; ++it)
            out.push_back(it->second);
    }
    out.insert(out.end(), waitRowPerThread.begin(), waitRowPerThread.end());
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

void CpaContext::createNodes(const std::vector<uint32_t> &clipped, CpGraph &g)
{
    struct Key {
        double time;
        uint32_t ev;
        uint32_t isEnd;
    };
    std::vector<Key> keys;
    for (uint32_t ev : clipped) {
        const uint8_t cat = rows.catRole(ev);
        const bool bearing = cat == CatCpuOp || cat == CatRuntime || dataLoadName[trace.events[ev].name] ||
                             (rows.stream(ev) != -1 && rows.indexCorr(ev) >= 0);
        if (!bearing)
            continue;
        keys.push_back({rows.ts(ev), ev, 0});
        keys.push_back({rows.ts(ev) + rows.dur(ev), ev, 1});
    }
    // By (time, event index); the start of an event before its end at equal time.
    std::sort(keys.begin(), keys.end(), [](const Key &a, const Key &b) {
        if (a.time != b.time)
            return a.time < b.time;
        if (a.ev != b.ev)
            return a.ev < b.ev;
        return a.isEnd < b.isEnd;
    });
    g.nodeEvent.resize(keys.size());
    g.nodeTime.resize(keys.size());
    g.nodeIsStart.resize(keys.size());
    for (size_t id = 0; id < keys.size(); ++id) {
        g.nodeEvent[id] = static_cast<int32_t>(keys[id].ev);
        g.nodeTime[id] = keys[id].time;
        g.nodeIsStart[id] = keys[id].isEnd ? 0 : 1;
        (keys[id].isEnd ? m_end : m_start)[keys[id].ev] = static_cast<int32_t>(id);
    }
}

int32_t CpaContext::addEventNodes(uint32_t ev, CpGraph &g)
{
    const int32_t id = g.nodeCount();
    for (int isEnd = 0; isEnd < 2; ++isEnd) {
        g.nodeEvent.push_back(static_cast<int32_t>(ev));
        g.nodeTime.push_back(rows.ts(ev) + (isEnd ? rows.dur(ev) : 0.0));
        g.nodeIsStart.push_back(isEnd ? 0 : 1);
    }
    m_start[ev] = id;
    m_end[ev] = id + 1;
    return id;
}

void CpaContext::runtimeLockPass(CpGraph &g)
{
    // Spec 2.5: calls holding the CUDA runtime lock serialise in order of completion.
    std::vector<int32_t> pending;
    int32_t last = -1;
    for (int32_t id = 0; id < g.nodeCount(); ++id) {
        const uint32_t ev = static_cast<uint32_t>(g.nodeEvent[id]);
        if (!(rows.nameRoles(ev) & RoleLock))
            continue;
        if (g.nodeIsStart[id]) {
            pending.push_back(id);
        } else {
            while (!pending.empty()) {
                const int32_t s = pending.back();
                pending.pop_back();
                if (static_cast<uint32_t>(g.nodeEvent[s]) == ev) {
                    const int32_t e = g.addEdge(s, id, CpEdgeType::OperatorKernel, g.nodeTime[id] - g.nodeTime[s]);
                    attributeEdge(g, e, static_cast<int32_t>(ev));
                } else {
                    g.addEdge(s, id, CpEdgeType::Dependency, 0);
                }
            }
            if (last >= 0 && !g.nodeIsStart[last])
                g.addEdge(last, id, CpEdgeType::Dependency, 0);
        }
        last = id;
    }
}

BuildStats CpaContext::build(const std::vector<uint32_t> &clipped, CpGraph &g)
{
    BuildStats stats;
    inferredEdges.clear();
    if (!d731) { // d731cc2e creates nodes in the passes and has no lock pass
        createNodes(clipped, g);
        runtimeLockPass(g);
    }
    callStackPass(clipped, g);
    takeSyncEdges();
    gpuPass(clipped, g, stats);
    for (int32_t ev : g.nodeEvent) { // reset the per-event scratch for the next window
        m_start[ev] = -1;
        m_end[ev] = -1;
    }
    return stats;
}

} // namespace syncscope::hta
