// SPDX-License-Identifier: MIT
#include "syncinfer.h"

#include "htarows.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <limits>
#include <map>
#include <tuple>
#include <unordered_map>

namespace syncscope {

std::string_view runtimeBaseName(std::string_view name)
{
    for (std::string_view suffix : {"_ptsz", "_ptds"})
        if (name.size() > suffix.size() && name.substr(name.size() - suffix.size()) == suffix)
            name.remove_suffix(suffix.size());
    // _v<digits>, e.g. cudaLaunchKernel_v7000
    size_t k = name.size();
    while (k > 0 && std::isdigit(static_cast<unsigned char>(name[k - 1])))
        --k;
    if (k < name.size() && k >= 2 && name[k - 1] == 'v' && name[k - 2] == '_')
        name = name.substr(0, k - 2);
    return name;
}

namespace {

bool nameStartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool nameContains(std::string_view s, std::string_view p) { return s.find(p) != std::string_view::npos; }

} // namespace

RuntimeApi classifyRuntimeApi(std::string_view full)
{
    const std::string_view name = runtimeBaseName(full);
    // The API proper after its prefix: cuda*, cu*, hip*.
    std::string_view api;
    if (nameStartsWith(name, "cuda"))
        api = name.substr(4);
    else if (nameStartsWith(name, "hip"))
        api = name.substr(3);
    else if (nameStartsWith(name, "cu"))
        api = name.substr(2);
    else
        return RuntimeApi::Other;
    if (api == "GraphLaunch")
        return RuntimeApi::GraphLaunch;
    if (api == "StreamSynchronize")
        return RuntimeApi::StreamSync;
    if (api == "DeviceSynchronize" || api == "CtxSynchronize" || api == "ThreadSynchronize")
        return RuntimeApi::DeviceSync;
    if (api == "EventSynchronize")
        return RuntimeApi::EventSync;
    if (api == "EventQuery")
        return RuntimeApi::EventQuery;
    if (api == "EventRecord" || api == "EventRecordWithFlags")
        return RuntimeApi::EventRecord;
    if (api == "StreamWaitEvent")
        return RuntimeApi::StreamWaitEvent;
    if (nameStartsWith(api, "Memcpy"))
        return nameContains(api, "Async") || nameContains(api, "WithStream") ? RuntimeApi::CopyAsync : RuntimeApi::Copy;
    if (nameStartsWith(api, "Memset"))
        return RuntimeApi::Memset;
    if (nameContains(api, "Launch") && (nameContains(api, "Kernel") || nameContains(api, "Cooperative")))
        return RuntimeApi::KernelLaunch;
    return RuntimeApi::Other;
}

bool copyIsDeviceToDevice(std::string_view n)
{
    return nameContains(n, "DtoD") || nameContains(n, "PtoP") || nameContains(n, "Device -> Device") ||
           nameContains(n, "DeviceToDevice");
}

bool copyBlocksHost(std::string_view n)
{
    if (copyIsDeviceToDevice(n))
        return false;
    // HIP writes "Host" for any host memory; CUDA says Pageable or Pinned.
    return nameContains(n, "DtoH") || nameContains(n, "DeviceToHost") || nameContains(n, "Pageable") || nameContains(n, "-> Host") ||
           nameContains(n, "Host ->");
}

namespace {

// A call can return a little before the end of the copy it waited for when the
// CPU and GPU clocks disagree; beyond this it returned before the copy ended.
constexpr double kCopyClockSlackUs = 1.0;
// GPU ops looked at per synchronising call, at most.
constexpr size_t kMaxScan = 4096;
// Event records / stream waits looked at per candidate GPU->GPU edge, at most.
constexpr size_t kMaxCallScan = 256;


// A runtime or driver call, copied out of the (large) event records once.
struct Call {
    uint32_t ev;
    RuntimeApi api;
    int64_t corr;
    double ts, dur;
    double end() const { return ts + dur; }
};

// A GPU op (48 bytes: these arrays are filled once, and fresh pages are most of
// what the pass costs).
struct Gpu {
    uint32_t ev;
    uint32_t lane;   // dense id of its (device, stream)
    uint32_t device; // dense id of its device
    int32_t launch;  // its launching call, -1 when unknown
    int64_t corr;
    double ts, end;
    double launchTs; // ts of its launching call, NaN when unknown
};

class Inference
{
public:
    Inference(const KinetoTrace &trace, const std::vector<SyncEdge> &recorded, const SyncInferenceOptions &o,
              SyncInferenceStats &stats)
        : m_trace(trace), m_events(trace.events), m_o(o), m_stats(stats), m_api(trace)
    {
        index(recorded);
    }

    std::vector<SyncEdge> run()
    {
        gpuToCpu();
        gpuToGpu();
        std::stable_sort(m_out.begin(), m_out.end(), [](const SyncEdge &a, const SyncEdge &b) {
            return std::tie(a.dst, a.src) < std::tie(b.dst, b.src);
        });
        return std::move(m_out);
    }

private:
    static bool usable(const KinetoEvent &e) { return e.has(KinetoEvent::HasTs) && e.has(KinetoEvent::HasDur); }
    bool isCall(const KinetoEvent &e) const
    {
        return (e.kind == EventKind::Runtime || e.kind == EventKind::Driver) && usable(e);
    }

    RuntimeApi apiOfName(StrId name) { return m_api.of(name); }

    static bool waits(RuntimeApi api)
    {
        return api == RuntimeApi::Copy || api == RuntimeApi::CopyAsync || api == RuntimeApi::StreamSync ||
               api == RuntimeApi::DeviceSync || api == RuntimeApi::EventSync;
    }

    // Dense ids of devices and (device, stream) lanes. Usually a handful, but a file
    // may have any number: a map, with the last lane remembered.
    uint32_t laneOf(const KinetoEvent &e, uint32_t &device)
    {
        const std::pair<hta::IdKey, int64_t> key{hta::pidKey(e), e.htaStream()};
        if (m_lastLane < m_lanes.size() && m_lanes[m_lastLane] == key) {
            device = m_laneDevice[m_lastLane];
            return m_lastLane;
        }
        auto [it, added] = m_laneIds.try_emplace(key, static_cast<uint32_t>(m_lanes.size()));
        if (added) {
            auto [d, newDevice] = m_deviceIds.try_emplace(key.first, static_cast<uint32_t>(m_deviceIds.size()));
            (void)newDevice;
            m_lanes.push_back(key);
            m_laneDevice.push_back(d->second);
        }
        m_lastLane = it->second;
        device = m_laneDevice[m_lastLane];
        return m_lastLane;
    }

    // Dense ids of CPU threads (pid, tid), numbered in (pid, tid) order once every
    // thread is seen (finishThreads): the call lists sort and search on a 4-byte id
    // instead of two keys, in the same order as before.
    struct ThreadKey {
        hta::IdKey pid, tid;
        bool operator==(const ThreadKey &o) const { return pid == o.pid && tid == o.tid; }
    };
    struct ThreadHash {
        size_t operator()(const ThreadKey &k) const
        {
            const uint64_t a = uint64_t(k.pid.value) * 0x9e3779b97f4a7c15ULL ^ (k.pid.isString ? 1 : 0);
            const uint64_t b = uint64_t(k.tid.value) * 0xc2b2ae3d27d4eb4fULL ^ (k.tid.isString ? 2 : 0);
            return size_t(a ^ (b + 0x165667b19e3779f9ULL + (a << 6) + (a >> 2)));
        }
    };
    uint32_t threadSeen(const KinetoEvent &e)
    {
        const ThreadKey key{hta::pidKey(e), hta::tidKey(e)};
        if (m_lastThread < m_threads.size() && m_threads[m_lastThread] == key)
            return m_lastThread;
        auto [it, added] = m_threadIds.try_emplace(key, static_cast<uint32_t>(m_threads.size()));
        if (added)
            m_threads.push_back(key);
        m_lastThread = it->second;
        return m_lastThread;
    }
    // Renumbers the threads in (pid, tid) order; returns old id -> new id.
    std::vector<uint32_t> finishThreads()
    {
        std::vector<uint32_t> order(m_threads.size());
        for (uint32_t k = 0; k < order.size(); ++k)
            order[k] = k;
        std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
            return std::tie(m_threads[a].pid, m_threads[a].tid) < std::tie(m_threads[b].pid, m_threads[b].tid);
        });
        std::vector<uint32_t> rank(order.size());
        for (uint32_t k = 0; k < order.size(); ++k)
            rank[order[k]] = k;
        for (auto &[key, id] : m_threadIds)
            id = rank[id];
        return rank;
    }
    // The (final) id of an event's thread; ~0u for a thread no call ran on.
    uint32_t threadOf(const KinetoEvent &e) const
    {
        const auto it = m_threadIds.find(ThreadKey{hta::pidKey(e), hta::tidKey(e)});
        return it == m_threadIds.end() ? ~0u : it->second;
    }

    void index(const std::vector<SyncEdge> &recorded)
    {
        // Two passes over the events (reads are cheap; fresh pages are not): count,
        // then copy out exactly what the rules read.
        const uint32_t n = static_cast<uint32_t>(m_events.size());
        size_t gpuOps = 0, waitingCalls = 0, corrCalls = 0;
        int64_t maxCorr = -1;
        for (uint32_t i = 0; i < n; ++i) {
            const KinetoEvent &e = m_events[i];
            if (isCall(e)) {
                waitingCalls += waits(apiOfName(e.name)) ? 1 : 0;
                if (e.correlation >= 0) {
                    ++corrCalls;
                    maxCorr = std::max(maxCorr, e.correlation);
                }
            } else if (isGpuActivity(e.kind) && usable(e) && e.htaStream() >= 0) {
                ++gpuOps;
            }
        }
        // The launching call of each correlation (the first in the file). Correlation
        // ids are small counters in practice: a direct table then, a sorted list
        // otherwise (ids from an untrusted file may be anything).
        const bool dense = maxCorr >= 0 && static_cast<uint64_t>(maxCorr) <= 4ull * n + 1024;
        std::vector<int32_t> callAt;
        std::vector<uint32_t> callThreadAt; // dense: the launching call's thread (provisional id)
        std::vector<double> callTsAt;       // dense: its ts
        std::vector<std::pair<int64_t, uint32_t>> callByCorr;
        if (dense) {
            callAt.assign(static_cast<size_t>(maxCorr) + 1, -1);
            callThreadAt.assign(static_cast<size_t>(maxCorr) + 1, 0);
            callTsAt.assign(static_cast<size_t>(maxCorr) + 1, 0.0);
        } else {
            callByCorr.reserve(corrCalls);
        }
        m_calls.reserve(waitingCalls);
        m_gpu.reserve(gpuOps);
        for (uint32_t i = 0; i < n; ++i) {
            const KinetoEvent &e = m_events[i];
            if (isCall(e)) {
                const RuntimeApi api = apiOfName(e.name);
                const uint32_t thread = threadSeen(e);
                if (waits(api))
                    m_calls.push_back({i, api, e.correlation, e.ts, e.dur});
                else if (api == RuntimeApi::StreamWaitEvent)
                    m_waitCalls.push_back({thread, e.ts, i});
                else if (api == RuntimeApi::EventRecord)
                    m_recordCalls.push_back({thread, e.ts, i});
                if (e.correlation < 0)
                    continue;
                if (!dense) {
                    callByCorr.emplace_back(e.correlation, i);
                } else if (callAt[static_cast<size_t>(e.correlation)] < 0) {
                    callAt[static_cast<size_t>(e.correlation)] = static_cast<int32_t>(i);
                    callThreadAt[static_cast<size_t>(e.correlation)] = thread;
                    callTsAt[static_cast<size_t>(e.correlation)] = e.ts;
                }
            } else if (isGpuActivity(e.kind)) {
                if (!usable(e) || e.htaStream() < 0)
                    continue;
                uint32_t device = 0;
                const uint32_t lane = laneOf(e, device);
                m_gpu.push_back({i, lane, device, -1, e.correlation, e.ts, e.end(),
                                 std::numeric_limits<double>::quiet_NaN()});
            }
        }
        std::sort(callByCorr.begin(), callByCorr.end());
        const std::vector<uint32_t> rank = finishThreads();
        for (auto *calls : {&m_waitCalls, &m_recordCalls}) {
            for (auto &c : *calls)
                std::get<0>(c) = rank[std::get<0>(c)];
            std::sort(calls->begin(), calls->end()); // by (pid, tid), ts, event: as before the ids
        }
        // Each GPU op's launching call, its ts and thread (from the tables: the call's own
        // event is a cache miss per op at this size).
        std::vector<uint32_t> launchThread(m_gpu.size(), ~0u);
        for (size_t k = 0; k < m_gpu.size(); ++k) {
            Gpu &g = m_gpu[k];
            if (g.corr < 0)
                continue;
            if (dense) {
                const bool in = g.corr <= maxCorr;
                g.launch = in ? callAt[static_cast<size_t>(g.corr)] : -1;
                if (g.launch >= 0) {
                    g.launchTs = callTsAt[static_cast<size_t>(g.corr)];
                    launchThread[k] = rank[callThreadAt[static_cast<size_t>(g.corr)]];
                }
            } else {
                auto it = std::lower_bound(callByCorr.begin(), callByCorr.end(), std::make_pair(g.corr, 0u));
                g.launch = it != callByCorr.end() && it->first == g.corr ? static_cast<int32_t>(it->second) : -1;
                if (g.launch >= 0) {
                    const KinetoEvent &l = m_events[static_cast<uint32_t>(g.launch)];
                    g.launchTs = l.ts;
                    launchThread[k] = threadOf(l);
                }
            }
        }
        streamsOfCalls(launchThread);
        for (const SyncEdge &e : recorded)
            (e.gpuToGpu ? m_coveredGpu : m_coveredCalls).push_back(e.dst);
        for (auto *v : {&m_coveredGpu, &m_coveredCalls}) {
            std::sort(v->begin(), v->end());
            v->erase(std::unique(v->begin(), v->end()), v->end());
        }
        // By end: the GPU ops a blocking call may have waited for.
        {
            std::vector<std::pair<double, uint32_t>> keys(m_gpu.size());
            for (uint32_t k = 0; k < keys.size(); ++k)
                keys[k] = {m_gpu[k].end, k};
            std::sort(keys.begin(), keys.end());
            m_byEnd.resize(keys.size());
            m_endSorted.resize(keys.size());
            for (size_t k = 0; k < keys.size(); ++k) {
                m_byEnd[k] = keys[k].second;
                m_endSorted[k] = keys[k].first;
            }
        }
        // By correlation: a copy call's own copies, a graph launch's replayed ops.
        {
            // m_gpu is in event order, so (correlation, position) orders ties by event.
            std::vector<std::pair<int64_t, uint32_t>> keys(m_gpu.size());
            for (uint32_t k = 0; k < keys.size(); ++k)
                keys[k] = {m_gpu[k].corr, k};
            std::sort(keys.begin(), keys.end());
            m_byCorr.resize(keys.size());
            for (size_t k = 0; k < keys.size(); ++k)
                m_byCorr[k] = keys[k].second;
        }
    }

    // Which stream each event record and stream wait was for. Kineto's runtime rows do
    // not say, but PyTorch records on the current stream and waits to switch to the
    // waiting one: a record is taken as on the stream of its thread's launch before it,
    // a wait as for the stream of its thread's launch after it (-1: no such launch).
    void streamsOfCalls(const std::vector<uint32_t> &launchThread)
    {
        m_waitLane.assign(m_waitCalls.size(), -1);
        m_records.clear();
        if (m_waitCalls.empty()) // no stream wait: no GPU->GPU edge outside graph replays to order
            return;
        std::vector<std::tuple<uint32_t, double, int64_t>> launches; // per thread, by ts
        launches.reserve(m_gpu.size());
        for (size_t k = 0; k < m_gpu.size(); ++k)
            if (m_gpu[k].launch >= 0)
                launches.emplace_back(launchThread[k], m_gpu[k].launchTs, static_cast<int64_t>(m_gpu[k].lane));
        std::sort(launches.begin(), launches.end());
        auto sameThread = [](const auto &it, uint32_t thread) { return std::get<0>(*it) == thread; };
        for (size_t k = 0; k < m_waitCalls.size(); ++k) {
            const auto &[thread, ts, ev] = m_waitCalls[k];
            auto it = std::upper_bound(launches.begin(), launches.end(),
                                       std::make_tuple(thread, ts, std::numeric_limits<int64_t>::max()));
            m_waitLane[k] = it != launches.end() && sameThread(it, thread) ? std::get<2>(*it) : -1;
        }
        for (const auto &[thread, ts, ev] : m_recordCalls) {
            auto it = std::lower_bound(launches.begin(), launches.end(), std::make_tuple(thread, ts, int64_t(-1)));
            const bool before = it != launches.begin() && sameThread(it - 1, thread);
            m_records.emplace_back(ts, before ? std::get<2>(*(it - 1)) : -1);
        }
        std::sort(m_records.begin(), m_records.end());
    }

    static bool has(const std::vector<uint32_t> &sorted, uint32_t v)
    {
        return std::binary_search(sorted.begin(), sorted.end(), v);
    }

    // [lo, hi) of m_byCorr for a correlation id.
    std::pair<size_t, size_t> corrRange(int64_t corr) const
    {
        auto lo = std::lower_bound(m_byCorr.begin(), m_byCorr.end(), corr,
                                   [&](uint32_t k, int64_t c) { return m_gpu[k].corr < c; });
        auto hi = std::upper_bound(lo, m_byCorr.end(), corr, [&](int64_t c, uint32_t k) { return c < m_gpu[k].corr; });
        return {static_cast<size_t>(lo - m_byCorr.begin()), static_cast<size_t>(hi - m_byCorr.begin())};
    }

    void add(uint32_t src, uint32_t dst, uint32_t shownBy, SyncKind kind, bool gpuToGpu, double waitUs)
    {
        m_out.push_back({src, dst, shownBy, kind, gpuToGpu, true, waitUs});
    }

    void gpuToCpu()
    {
        // A call whose cuda_sync row gave an edge keeps that one; a row that gave none
        // (its rule found nothing) is inferred like a call without a row.
        for (const Call &call : m_calls) {
            if (has(m_coveredCalls, call.ev))
                continue;
            if (call.api == RuntimeApi::Copy || call.api == RuntimeApi::CopyAsync)
                copyWait(call);
            else
                syncWait(call);
        }
    }

    void copyWait(const Call &call)
    {
        const RuntimeApi api = call.api;
        const uint32_t c = call.ev;
        if (call.corr < 0)
            return;
        const int32_t own = ownCopy(call.corr, api == RuntimeApi::Copy);
        if (own < 0)
            return;
        const Gpu &g = m_gpu[static_cast<uint32_t>(own)];
        if (g.end > call.end() + kCopyClockSlackUs || g.end <= call.ts) {
            ++m_stats.stagedCopies; // returned before its copy ended: it waited for nothing
            return;
        }
        ++m_stats.blockingCopies;
        add(g.ev, c, c, SyncKind::BlockingCopy, false, std::clamp(g.end - call.ts, 0.0, std::max(0.0, call.dur)));
    }

    // The copy of a correlation a copy call waits for (the latest-ending one that blocks the
    // host), -1 none. Worked out once per correlation and kind of call: N calls sharing one
    // correlation with N copies were N x N (issue 40: 40 k copies took 168 s).
    int32_t ownCopy(int64_t corr, bool synchronous)
    {
        auto [it, fresh] = m_ownCopy.try_emplace(corr, std::array<int32_t, 2>{-2, -2});
        int32_t &own = it->second[synchronous ? 0 : 1];
        if (own != -2)
            return own;
        own = -1;
        const auto [lo, hi] = corrRange(corr);
        for (size_t k = lo; k < hi; ++k) {
            const Gpu &g = m_gpu[m_byCorr[k]];
            const KinetoEvent &ge = m_events[g.ev];
            if (ge.kind != EventKind::Memcpy)
                continue;
            auto [cls, added] = m_copyClass.try_emplace(ge.name, uint8_t(0));
            if (added) { // 1: device to device, 2: blocks the host
                const std::string_view name = m_trace.str(ge.name);
                cls->second = uint8_t((copyIsDeviceToDevice(name) ? 1 : 0) | (copyBlocksHost(name) ? 2 : 0));
            }
            const bool b = synchronous ? !(cls->second & 1) : (cls->second & 2) != 0;
            if (b && (own < 0 || g.end > m_gpu[static_cast<uint32_t>(own)].end))
                own = static_cast<int32_t>(m_byCorr[k]);
        }
        return own;
    }

    void syncWait(const Call &call)
    {
        const RuntimeApi api = call.api;
        const uint32_t c = call.ev;
        const double t0 = call.ts, t1 = call.end();
        // GPU ops that ended inside the call and were launched before it began.
        auto hiIt = m_byEnd.begin() + (std::upper_bound(m_endSorted.begin(), m_endSorted.end(), t1) - m_endSorted.begin());
        const SyncKind kind = api == RuntimeApi::StreamSync  ? SyncKind::StreamSync
                              : api == RuntimeApi::EventSync ? SyncKind::EventSync
                                                             : SyncKind::ContextSync;
        const double dur = std::max(0.0, call.dur);
        std::vector<uint32_t> seen; // lanes already given an edge (device sync)
        // Bounded: a long wait while other threads launch thousands of ops must not
        // make the pass quadratic; the awaited op ends last, so it comes early.
        size_t scanned = 0;
        for (auto it = hiIt; it != m_byEnd.begin() && scanned < kMaxScan; ++scanned) {
            --it;
            const Gpu &g = m_gpu[*it];
            if (g.end <= t0)
                break;
            // Launched after the call began: not awaited. An op whose launch is not in the
            // trace at all was queued before the profiler started (before the call), when it
            // started before the call returned.
            if (g.launch >= 0 ? !(g.launchTs < t0) : !(g.ts < t1))
                continue;
            if (api != RuntimeApi::DeviceSync) {
                add(g.ev, c, c, kind, false, std::clamp(g.end - t0, 0.0, dur));
                return;
            }
            // A device sync waits for every stream: the last op to end on each.
            if (std::find(seen.begin(), seen.end(), g.lane) != seen.end())
                continue;
            seen.push_back(g.lane);
            add(g.ev, c, c, kind, false, std::clamp(g.end - t0, 0.0, dur));
        }
    }

    // A stream wait on the thread of `launch`, after `after` and before `before`, for
    // `lane` (or a stream not known); -1 when none.
    int32_t waitBetween(const KinetoEvent &launch, double after, double before, int64_t lane) const
    {
        const uint32_t thread = threadOf(launch);
        if (thread == ~0u)
            return -1;
        auto it = std::upper_bound(m_waitCalls.begin(), m_waitCalls.end(), std::make_tuple(thread, after, ~0u));
        for (size_t scanned = 0; it != m_waitCalls.end() && scanned < kMaxCallScan; ++it, ++scanned) {
            if (std::get<0>(*it) != thread || !(std::get<1>(*it) < before))
                return -1;
            const int64_t waits = m_waitLane[static_cast<size_t>(it - m_waitCalls.begin())];
            if (waits < 0 || waits == lane)
                return static_cast<int32_t>(std::get<2>(*it));
        }
        return -1;
    }

    // The calls that can order op o before op g on another stream: an event recorded
    // on o's stream after o's launch, then a stream wait for g's stream after that
    // record and before g's launch, on the thread that launched g or o (traces without
    // any cudaEventRecord: the wait alone). A record or wait that belongs to other
    // streams orders nothing (issue 38). Returns the wait call, -1 when there is none.
    int32_t orderingWait(const Gpu &o, const Gpu &g) const
    {
        double after = o.launchTs;
        if (!m_records.empty()) {
            auto r = std::upper_bound(m_records.begin(), m_records.end(),
                                      std::make_pair(o.launchTs, std::numeric_limits<int64_t>::max()));
            bool found = false;
            for (size_t scanned = 0; r != m_records.end() && r->first < g.launchTs && scanned < kMaxCallScan;
                 ++r, ++scanned)
                if (r->second < 0 || r->second == static_cast<int64_t>(o.lane)) {
                    after = r->first;
                    found = true;
                    break;
                }
            if (!found)
                return -1;
        }
        const double before = g.launchTs + 1e-9;
        const int64_t lane = g.lane;
        const int32_t w = waitBetween(m_events[static_cast<uint32_t>(g.launch)], after, before, lane);
        return w >= 0 ? w : waitBetween(m_events[static_cast<uint32_t>(o.launch)], after, before, lane);
    }

    void gpuToGpu()
    {
        // Ops per lane in start order: the previous op on the stream. Bucketed by
        // lane keeping event order, then a lane is sorted by start only when the file
        // did not already list it in order (Kineto usually does).
        std::vector<uint32_t> laneStart(m_lanes.size() + 1, 0);
        for (const Gpu &g : m_gpu)
            ++laneStart[g.lane + 1];
        for (size_t l = 1; l < laneStart.size(); ++l)
            laneStart[l] += laneStart[l - 1];
        std::vector<uint32_t> byStream(m_gpu.size()), fill(laneStart.begin(), laneStart.end() - 1);
        for (uint32_t k = 0; k < m_gpu.size(); ++k)
            byStream[fill[m_gpu[k].lane]++] = k;
        auto startLess = [&](uint32_t a, uint32_t b) { return m_gpu[a].ts != m_gpu[b].ts ? m_gpu[a].ts < m_gpu[b].ts : a < b; };
        for (size_t l = 0; l + 1 < laneStart.size(); ++l) {
            auto lo = byStream.begin() + laneStart[l], hi = byStream.begin() + laneStart[l + 1];
            if (!std::is_sorted(lo, hi, startLess))
                std::sort(lo, hi, startLess);
        }
        for (size_t j = 0; j < byStream.size(); ++j) {
            const Gpu &g = m_gpu[byStream[j]];
            if (g.launch < 0 || has(m_coveredGpu, g.ev))
                continue;
            double ready = g.launchTs;
            if (j > 0) {
                const Gpu &p = m_gpu[byStream[j - 1]];
                if (p.lane == g.lane)
                    ready = std::max(ready, p.end);
            }
            if (g.ts - ready < m_o.minQueuedUs)
                continue; // started about when it could: nothing held it back
            inferStreamWait(g, ready);
        }
    }

    void inferStreamWait(const Gpu &g, double ready)
    {
        // The op on another stream of the same device that ended last before g started (up
        // to kCopyClockSlackUs after: timestamps rounded to whole µs, or written with fewer
        // digits than the GPU's clock, can put an awaited op's end just past its waiter's start).
        auto it = m_byEnd.begin() +
                  (std::upper_bound(m_endSorted.begin(), m_endSorted.end(), g.ts + kCopyClockSlackUs) - m_endSorted.begin());
        size_t examined = 0;
        while (it != m_byEnd.begin()) {
            --it;
            const Gpu &o = m_gpu[*it];
            if (o.end < g.ts - m_o.streamWaitSlackUs || o.end <= ready)
                return;
            if (o.device != g.device || o.lane == g.lane || !(g.launchTs < o.end))
                continue;
            if (++examined > m_o.maxWaitCandidates) {
                ++m_stats.waitScansCut;
                return;
            }
            // Evidence of an ordering between the two launches.
            int32_t shownBy = -1;
            if (o.corr == g.corr && g.corr >= 0)
                shownBy = g.launch; // inside one graph replay
            else if (o.launch >= 0)
                shownBy = orderingWait(o, g);
            if (shownBy < 0)
                continue;
            add(o.ev, g.ev, static_cast<uint32_t>(shownBy), SyncKind::StreamWaitEvent, true,
                std::max(0.0, std::min(o.end, g.ts) - ready));
            return;
        }
    }

    const KinetoTrace &m_trace;
    const std::vector<KinetoEvent> &m_events;
    const SyncInferenceOptions &m_o;
    SyncInferenceStats &m_stats;
    std::vector<Gpu> m_gpu;
    RuntimeApiTable m_api;
    std::vector<Call> m_calls; // the calls that can block (syncs, copies), in event order
    std::map<hta::IdKey, uint32_t> m_deviceIds;
    std::map<std::pair<hta::IdKey, int64_t>, uint32_t> m_laneIds;
    std::vector<std::pair<hta::IdKey, int64_t>> m_lanes; // (device, stream)
    std::vector<uint32_t> m_laneDevice;
    uint32_t m_lastLane = ~0u;
    std::vector<uint32_t> m_byEnd, m_byCorr;
    std::vector<double> m_endSorted; // m_gpu[m_byEnd[k]].end
    std::vector<uint32_t> m_coveredCalls, m_coveredGpu;
    std::vector<std::tuple<uint32_t, double, uint32_t>> m_waitCalls; // (thread, ts, event), sorted
    std::vector<int64_t> m_waitLane; // per m_waitCalls: the lane it waits for, -1 unknown
    std::vector<std::tuple<uint32_t, double, uint32_t>> m_recordCalls; // (thread, ts, event), sorted
    std::vector<ThreadKey> m_threads; // by provisional id
    std::unordered_map<ThreadKey, uint32_t, ThreadHash> m_threadIds; // final ids after finishThreads
    uint32_t m_lastThread = ~0u;
    std::vector<std::pair<double, int64_t>> m_records; // (ts, lane recorded on, -1 unknown), by ts
    std::vector<SyncEdge> m_out;
    std::unordered_map<int64_t, std::array<int32_t, 2>> m_ownCopy; // ownCopy's answers (-2: not yet)
    std::unordered_map<uint32_t, uint8_t> m_copyClass;             // copy name id -> its class bits
};

} // namespace

std::vector<SyncEdge> inferSyncEdges(const KinetoTrace &trace, const std::vector<SyncEdge> &recorded,
                                     const SyncInferenceOptions &options, SyncInferenceStats *stats)
{
    SyncInferenceStats local;
    Inference inference(trace, recorded, options, stats ? *stats : local);
    return inference.run();
}

} // namespace syncscope
