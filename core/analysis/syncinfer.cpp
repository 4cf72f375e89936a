// SPDX-License-Identifier: MIT
#include "syncinfer.h"

#include "htarows.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <tuple>

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

bool startsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool contains(std::string_view s, std::string_view p) { return s.find(p) != std::string_view::npos; }

} // namespace

RuntimeApi classifyRuntimeApi(std::string_view full)
{
    const std::string_view name = runtimeBaseName(full);
    // The API proper after its prefix: cuda*, cu*, hip*.
    std::string_view api;
    if (startsWith(name, "cuda"))
        api = name.substr(4);
    else if (startsWith(name, "hip"))
        api = name.substr(3);
    else if (startsWith(name, "cu"))
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
    if (startsWith(api, "Memcpy"))
        return contains(api, "Async") || contains(api, "WithStream") ? RuntimeApi::CopyAsync : RuntimeApi::Copy;
    if (startsWith(api, "Memset"))
        return RuntimeApi::Memset;
    if (contains(api, "Launch") && (contains(api, "Kernel") || contains(api, "Cooperative")))
        return RuntimeApi::KernelLaunch;
    return RuntimeApi::Other;
}

bool copyIsDeviceToDevice(std::string_view n)
{
    return contains(n, "DtoD") || contains(n, "PtoP") || contains(n, "Device -> Device") ||
           contains(n, "DeviceToDevice");
}

bool copyBlocksHost(std::string_view n)
{
    if (copyIsDeviceToDevice(n))
        return false;
    // HIP writes "Host" for any host memory; CUDA says Pageable or Pinned.
    return contains(n, "DtoH") || contains(n, "DeviceToHost") || contains(n, "Pageable") || contains(n, "-> Host") ||
           contains(n, "Host ->");
}

namespace {

// A call can return a little before the end of the copy it waited for when the
// CPU and GPU clocks disagree; beyond this it returned before the copy ended.
constexpr double kCopyClockSlackUs = 1.0;
// GPU ops looked at per synchronising call, at most.
constexpr size_t kMaxScan = 4096;

struct Gpu {
    uint32_t ev;
    double ts, end;
    hta::IdKey device;
    int64_t stream;
    int64_t corr;
    double launchTs;     // ts of its launching call, NaN when unknown
    int32_t launch;      // its launching call, -1 when unknown
};

class Inference
{
public:
    Inference(const KinetoTrace &trace, const std::vector<SyncEdge> &recorded, const SyncInferenceOptions &o,
              SyncInferenceStats &stats)
        : m_trace(trace), m_events(trace.events), m_o(o), m_stats(stats)
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

    void index(const std::vector<SyncEdge> &recorded)
    {
        const uint32_t n = static_cast<uint32_t>(m_events.size());
        // Launching calls by correlation (the runtime/driver row of each correlation id).
        std::vector<std::pair<int64_t, uint32_t>> callByCorr;
        for (uint32_t i = 0; i < n; ++i) {
            const KinetoEvent &e = m_events[i];
            if (isCall(e) && e.correlation >= 0)
                callByCorr.emplace_back(e.correlation, i);
        }
        std::sort(callByCorr.begin(), callByCorr.end());
        auto callOf = [&](int64_t corr) -> int32_t {
            auto it = std::lower_bound(callByCorr.begin(), callByCorr.end(), std::make_pair(corr, 0u));
            return it != callByCorr.end() && it->first == corr ? static_cast<int32_t>(it->second) : -1;
        };
        for (uint32_t i = 0; i < n; ++i) {
            const KinetoEvent &e = m_events[i];
            if (!isGpuActivity(e.kind) || !usable(e) || e.htaStream() < 0)
                continue;
            const int32_t call = e.correlation >= 0 ? callOf(e.correlation) : -1;
            m_gpu.push_back({i, e.ts, e.end(), hta::pidKey(e), e.htaStream(), e.correlation,
                             call >= 0 ? m_events[static_cast<uint32_t>(call)].ts
                                       : std::numeric_limits<double>::quiet_NaN(),
                             call});
        }
        // By end: the GPU ops a blocking call may have waited for.
        m_byEnd.resize(m_gpu.size());
        for (uint32_t k = 0; k < m_byEnd.size(); ++k)
            m_byEnd[k] = k;
        std::sort(m_byEnd.begin(), m_byEnd.end(), [&](uint32_t a, uint32_t b) {
            return m_gpu[a].end != m_gpu[b].end ? m_gpu[a].end < m_gpu[b].end : m_gpu[a].ev < m_gpu[b].ev;
        });
        // By correlation: a copy call's own copies, a graph launch's replayed ops.
        m_byCorr.resize(m_gpu.size());
        for (uint32_t k = 0; k < m_byCorr.size(); ++k)
            m_byCorr[k] = k;
        std::sort(m_byCorr.begin(), m_byCorr.end(), [&](uint32_t a, uint32_t b) {
            return std::tie(m_gpu[a].corr, m_gpu[a].ev) < std::tie(m_gpu[b].corr, m_gpu[b].ev);
        });
        // Calls with a cuda_sync row, and what the recorded edges already cover.
        for (uint32_t i = 0; i < n; ++i)
            if (m_events[i].kind == EventKind::CudaSync && m_events[i].correlation >= 0)
                m_rowCorr.push_back(m_events[i].correlation);
        std::sort(m_rowCorr.begin(), m_rowCorr.end());
        for (const SyncEdge &e : recorded)
            (e.gpuToGpu ? m_coveredGpu : m_coveredCalls).push_back(e.dst);
        for (auto *v : {&m_coveredGpu, &m_coveredCalls}) {
            std::sort(v->begin(), v->end());
            v->erase(std::unique(v->begin(), v->end()), v->end());
        }
        // Event records (by time) and stream waits (per thread, by time).
        for (uint32_t i = 0; i < n; ++i) {
            const KinetoEvent &e = m_events[i];
            if (!isCall(e))
                continue;
            const RuntimeApi api = classifyRuntimeApi(m_trace.str(e.name));
            if (api == RuntimeApi::StreamWaitEvent)
                m_waitCalls.push_back({hta::pidKey(e), hta::tidKey(e), e.ts, i});
            else if (api == RuntimeApi::EventRecord)
                m_recordTs.push_back(e.ts);
        }
        std::sort(m_waitCalls.begin(), m_waitCalls.end());
        std::sort(m_recordTs.begin(), m_recordTs.end());
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
        const uint32_t n = static_cast<uint32_t>(m_events.size());
        for (uint32_t c = 0; c < n; ++c) {
            const KinetoEvent &e = m_events[c];
            if (!isCall(e))
                continue;
            const RuntimeApi api = classifyRuntimeApi(m_trace.str(e.name));
            if (api != RuntimeApi::Copy && api != RuntimeApi::CopyAsync && api != RuntimeApi::StreamSync &&
                api != RuntimeApi::DeviceSync && api != RuntimeApi::EventSync)
                continue;
            const bool row = e.correlation >= 0 && std::binary_search(m_rowCorr.begin(), m_rowCorr.end(), e.correlation);
            if (has(m_coveredCalls, c)) {
                ++m_stats.callsWithRows;
                continue;
            }
            const size_t before = m_out.size();
            if (api == RuntimeApi::Copy || api == RuntimeApi::CopyAsync)
                copyWait(c, api);
            else
                syncWait(c, api);
            if (row && m_out.size() > before)
                ++m_stats.rowsWithoutEdge;
        }
    }

    void copyWait(uint32_t c, RuntimeApi api)
    {
        const KinetoEvent &call = m_events[c];
        if (call.correlation < 0)
            return;
        const auto [lo, hi] = corrRange(call.correlation);
        int32_t own = -1;
        bool blocks = false;
        for (size_t k = lo; k < hi; ++k) {
            const Gpu &g = m_gpu[m_byCorr[k]];
            const KinetoEvent &ge = m_events[g.ev];
            if (ge.kind != EventKind::Memcpy)
                continue;
            const std::string_view name = m_trace.str(ge.name);
            const bool b = api == RuntimeApi::Copy ? !copyIsDeviceToDevice(name) : copyBlocksHost(name);
            if (!b)
                continue;
            blocks = true;
            if (own < 0 || g.end > m_gpu[static_cast<uint32_t>(own)].end)
                own = static_cast<int32_t>(m_byCorr[k]);
        }
        if (!blocks)
            return;
        const Gpu &g = m_gpu[static_cast<uint32_t>(own)];
        if (g.end > call.end() + kCopyClockSlackUs || g.end <= call.ts) {
            ++m_stats.stagedCopies; // returned before its copy ended: it waited for nothing
            return;
        }
        ++m_stats.blockingCopies;
        add(g.ev, c, c, SyncKind::BlockingCopy, false, std::clamp(g.end - call.ts, 0.0, std::max(0.0, call.dur)));
    }

    void syncWait(uint32_t c, RuntimeApi api)
    {
        const KinetoEvent &call = m_events[c];
        const double t0 = call.ts, t1 = call.end();
        // GPU ops that ended inside the call and were launched before it began.
        auto hiIt = std::upper_bound(m_byEnd.begin(), m_byEnd.end(), t1,
                                     [&](double t, uint32_t k) { return t < m_gpu[k].end; });
        const SyncKind kind = api == RuntimeApi::StreamSync  ? SyncKind::StreamSync
                              : api == RuntimeApi::EventSync ? SyncKind::EventSync
                                                             : SyncKind::ContextSync;
        const double dur = std::max(0.0, call.dur);
        std::vector<std::pair<hta::IdKey, int64_t>> seen; // streams already given an edge (device sync)
        bool any = false;
        // Bounded: a long wait while other threads launch thousands of ops must not
        // make the pass quadratic; the awaited op ends last, so it comes early.
        size_t scanned = 0;
        for (auto it = hiIt; it != m_byEnd.begin() && scanned < kMaxScan; ++scanned) {
            --it;
            const Gpu &g = m_gpu[*it];
            if (g.end <= t0)
                break;
            if (!(g.launchTs < t0)) // launched after the call began (or unknown): not awaited
                continue;
            if (api != RuntimeApi::DeviceSync) {
                add(g.ev, c, c, kind, false, std::clamp(g.end - t0, 0.0, dur));
                return;
            }
            // A device sync waits for every stream: the last op to end on each.
            const auto key = std::make_pair(g.device, g.stream);
            if (std::find(seen.begin(), seen.end(), key) != seen.end())
                continue;
            seen.push_back(key);
            add(g.ev, c, c, kind, false, std::clamp(g.end - t0, 0.0, dur));
            any = true;
        }
        if (!any)
            ++m_stats.syncCallsNoWait;
    }

    // A stream wait on the thread of `launch`, after `after` and before `before`; -1 when none.
    int32_t waitBetween(const KinetoEvent &launch, double after, double before) const
    {
        const hta::IdKey pid = hta::pidKey(launch), tid = hta::tidKey(launch);
        auto it = std::upper_bound(m_waitCalls.begin(), m_waitCalls.end(), std::make_tuple(pid, tid, after, ~0u));
        if (it == m_waitCalls.end() || !(std::get<0>(*it) == pid) || !(std::get<1>(*it) == tid) ||
            !(std::get<2>(*it) < before))
            return -1;
        return static_cast<int32_t>(std::get<3>(*it));
    }

    // The calls that can order op o before op g on another stream: an event recorded
    // after o's launch, then a stream wait after that record and before g's launch, on
    // the thread that launched g or o (traces without any cudaEventRecord: the wait
    // alone). Returns the wait call, -1 when there is none.
    int32_t orderingWait(const Gpu &o, const Gpu &g) const
    {
        double after = o.launchTs;
        if (!m_recordTs.empty()) {
            auto r = std::upper_bound(m_recordTs.begin(), m_recordTs.end(), o.launchTs);
            if (r == m_recordTs.end() || !(*r < g.launchTs))
                return -1;
            after = *r;
        }
        const double before = g.launchTs + 1e-9;
        const int32_t w = waitBetween(m_events[static_cast<uint32_t>(g.launch)], after, before);
        return w >= 0 ? w : waitBetween(m_events[static_cast<uint32_t>(o.launch)], after, before);
    }

    void gpuToGpu()
    {
        // Ops per (device, stream) in start order: the previous op on the stream.
        std::vector<uint32_t> byStream(m_gpu.size());
        for (uint32_t k = 0; k < byStream.size(); ++k)
            byStream[k] = k;
        auto streamKey = [&](uint32_t k) {
            return std::make_tuple(m_gpu[k].device, m_gpu[k].stream, m_gpu[k].ts, m_gpu[k].ev);
        };
        std::sort(byStream.begin(), byStream.end(), [&](uint32_t a, uint32_t b) { return streamKey(a) < streamKey(b); });
        for (size_t j = 0; j < byStream.size(); ++j) {
            const Gpu &g = m_gpu[byStream[j]];
            if (g.launch < 0 || has(m_coveredGpu, g.ev))
                continue;
            double ready = g.launchTs;
            if (j > 0) {
                const Gpu &p = m_gpu[byStream[j - 1]];
                if (p.device == g.device && p.stream == g.stream)
                    ready = std::max(ready, p.end);
            }
            if (g.ts - ready < m_o.minQueuedUs)
                continue; // started about when it could: nothing held it back
            inferStreamWait(g, ready);
        }
    }

    void inferStreamWait(const Gpu &g, double ready)
    {
        // The op on another stream of the same device that ended last before g started.
        auto it = std::upper_bound(m_byEnd.begin(), m_byEnd.end(), g.ts,
                                   [&](double t, uint32_t k) { return t < m_gpu[k].end; });
        while (it != m_byEnd.begin()) {
            --it;
            const Gpu &o = m_gpu[*it];
            if (o.end < g.ts - m_o.streamWaitSlackUs || o.end <= ready)
                return;
            if (!(o.device == g.device) || o.stream == g.stream || !(g.launchTs < o.end))
                continue;
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
    std::vector<uint32_t> m_byEnd, m_byCorr;
    std::vector<int64_t> m_rowCorr;
    std::vector<uint32_t> m_coveredCalls, m_coveredGpu;
    std::vector<std::tuple<hta::IdKey, hta::IdKey, double, uint32_t>> m_waitCalls;
    std::vector<double> m_recordTs;
    std::vector<SyncEdge> m_out;
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
