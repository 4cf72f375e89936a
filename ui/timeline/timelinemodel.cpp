// SPDX-License-Identifier: MIT
#include "timelinemodel.h"

#include "analysis/criticalpath.h"
#include "model/kinetotrace.h"
#include "session/analysis.h"

#include <algorithm>
#include <array>
#include <map>
#include <tuple>
#include <unordered_map>

namespace syncscope::ui {

namespace {

bool containsNoCase(std::string_view s, std::string_view needle)
{
    if (needle.size() > s.size())
        return false;
    for (size_t i = 0; i + needle.size() <= s.size(); ++i) {
        size_t k = 0;
        while (k < needle.size() && std::tolower(static_cast<unsigned char>(s[i + k])) == needle[k])
            ++k;
        if (k == needle.size())
            return true;
    }
    return false;
}

bool isCommunication(std::string_view name)
{
    return containsNoCase(name, "nccl") || containsNoCase(name, "rccl") || containsNoCase(name, "record_param_comms") ||
           containsNoCase(name, "c10d::");
}

bool isSyncCall(std::string_view name)
{
    return name.find("Synchronize") != std::string_view::npos || name.find("EventQuery") != std::string_view::npos ||
           name.find("StreamWaitEvent") != std::string_view::npos;
}

bool onTimeline(const KinetoEvent &e)
{
    if (!e.has(KinetoEvent::HasTs))
        return false;
    // The profiler's own span ("PyTorch Profiler (0)") and instants only add a noise lane.
    return e.kind != EventKind::Flow && e.kind != EventKind::Metadata && e.kind != EventKind::TraceSpan &&
           e.kind != EventKind::Instant;
}

struct TrackKey {
    int64_t pid, tid;
    bool pidStr, tidStr;
    bool operator<(const TrackKey &o) const
    {
        return std::tie(pidStr, pid, tidStr, tid) < std::tie(o.pidStr, o.pid, o.tidStr, o.tid);
    }
};

std::string idText(const KinetoTrace &t, int64_t v, bool isString)
{
    return isString ? std::string(t.str(static_cast<StrId>(v))) : std::to_string(v);
}

// What a stream mostly runs: " (NCCL)", " (compute)", " (copy)", or "" without GPU work.
std::string streamKindSuffix(const std::array<size_t, kCategoryCount> &work)
{
    const auto n = [&](Category c) { return work[static_cast<size_t>(c)]; };
    const size_t comm = n(Category::Communication), compute = n(Category::Kernel),
                 copy = n(Category::Memcpy) + n(Category::Memset);
    if (comm + compute + copy == 0)
        return {};
    if (comm >= compute && comm >= copy)
        return " (NCCL)";
    return compute >= copy ? " (compute)" : " (copy)";
}

} // namespace

Category categoryOf(const KinetoTrace &trace, uint32_t event)
{
    const KinetoEvent &e = trace.events[event];
    switch (e.kind) {
    case EventKind::CpuOp:
        return isCommunication(trace.str(e.name)) ? Category::Communication : Category::CpuOp;
    case EventKind::UserAnnotation:
    case EventKind::GpuUserAnnotation:
        return Category::Annotation;
    case EventKind::PythonFunction:
        return Category::Python;
    case EventKind::Runtime:
    case EventKind::Driver:
        return isSyncCall(trace.str(e.name)) ? Category::Sync : Category::Runtime;
    case EventKind::Kernel:
        return isCommunication(trace.str(e.name)) ? Category::Communication : Category::Kernel;
    case EventKind::Memcpy:
        return Category::Memcpy;
    case EventKind::Memset:
        return Category::Memset;
    case EventKind::CudaSync:
        return Category::Sync;
    default:
        return Category::Other;
    }
}

int TimelineModel::partOf(uint32_t event) const
{
    auto it = std::upper_bound(parts.begin(), parts.end(), event,
                               [](uint32_t e, const TimelineRankPart &p) { return e < p.base; });
    if (it == parts.begin())
        return -1;
    --it;
    return event - it->base < it->events ? static_cast<int>(it - parts.begin()) : -1;
}

std::string_view TimelineModel::name(uint32_t event) const
{
    if (!parts.empty()) {
        const int p = partOf(event);
        return p < 0 ? std::string_view("event") : parts[size_t(p)].model->name(event - parts[size_t(p)].base);
    }
    if (trace && event < trace->events.size())
        return trace->str(trace->events[event].name);
    return "event";
}

Category TimelineModel::category(uint32_t event) const
{
    const EventPos &p = layout.pos(event);
    if (p.row < 0)
        return Category::Other;
    return layout.rows[p.row].category[p.index];
}

double TimelineModel::startNs(uint32_t event) const
{
    const EventPos &p = layout.pos(event);
    if (p.row >= 0)
        return double(layout.rows[p.row].start[p.index]);
    if (trace && event < trace->events.size())
        return double(trace->events[event].tsNs - originNs);
    if (const int p = partOf(event); p >= 0)
        return parts[size_t(p)].model->startNs(event - parts[size_t(p)].base) + double(parts[size_t(p)].shiftNs);
    return 0;
}

double TimelineModel::endNs(uint32_t event) const
{
    const EventPos &p = layout.pos(event);
    if (p.row >= 0)
        return double(layout.rows[p.row].end[p.index]);
    if (trace && event < trace->events.size())
        return double(trace->events[event].endNs() - originNs);
    if (const int p = partOf(event); p >= 0)
        return parts[size_t(p)].model->endNs(event - parts[size_t(p)].base) + double(parts[size_t(p)].shiftNs);
    return 0;
}

std::string TimelineModel::laneName(uint32_t event) const
{
    const EventPos &p = layout.pos(event);
    if (p.row < 0)
        return {};
    const LaneGroup &g = layout.groups[layout.rows[p.row].group];
    return g.process + " \u00b7 " + g.name;
}

std::shared_ptr<TimelineModel> buildTimelineModel(std::shared_ptr<const KinetoTrace> tracePtr)
{
    auto model = std::make_shared<TimelineModel>();
    model->trace = tracePtr;
    if (!tracePtr)
        return model;
    const KinetoTrace &trace = *tracePtr;
    model->originNs = trace.minTsNs;

    // Lane names from the metadata rows, and which processes hold GPU work.
    std::map<std::pair<bool, int64_t>, std::string> processNames;
    std::map<TrackKey, std::string> threadNames;
    std::map<std::pair<bool, int64_t>, bool> gpuProcess;
    std::map<TrackKey, uint32_t> trackOf;
    for (const KinetoEvent &e : trace.events) {
        const bool pidStr = e.has(KinetoEvent::PidIsString), tidStr = e.has(KinetoEvent::TidIsString);
        if (e.kind == EventKind::Metadata) {
            const std::string_view n = trace.str(e.name);
            if (n == "process_name" && e.label != kNoString)
                processNames[{pidStr, e.pid}] = std::string(trace.str(e.label));
            else if (n == "thread_name" && e.label != kNoString)
                threadNames[{e.pid, e.tid, pidStr, tidStr}] = std::string(trace.str(e.label));
            continue;
        }
        if (!onTimeline(e))
            continue;
        trackOf.emplace(TrackKey{e.pid, e.tid, pidStr, tidStr}, 0);
        if (isGpuActivity(e.kind) || e.kind == EventKind::GpuUserAnnotation)
            gpuProcess[{pidStr, e.pid}] = true;
    }
    const int64_t cpuPid = kinetoProcessId(trace);
    // Display order: CPU processes (the main one first, its main thread first), then
    // GPU devices with their streams in order, then anything keyed by strings.
    std::vector<std::pair<std::tuple<int, int64_t, int, int64_t>, TrackKey>> order;
    for (auto &[key, _] : trackOf) {
        const bool gpu = gpuProcess.count({key.pidStr, key.pid}) != 0;
        const int cls = key.pidStr || key.tidStr ? 3 : gpu ? 2 : key.pid == cpuPid ? 0 : 1;
        const int mainThread = (!gpu && key.tid == key.pid) ? 0 : (gpu && key.tid < 0) ? 2 : 1;
        order.push_back({{cls, key.pid, mainThread, key.tid}, key});
    }
    std::sort(order.begin(), order.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
    std::vector<TrackInfo> tracks;
    for (auto &[_, key] : order) {
        TrackInfo info;
        info.gpu = gpuProcess.count({key.pidStr, key.pid}) != 0;
        auto pn = processNames.find({key.pidStr, key.pid});
        const std::string pidText = idText(trace, key.pid, key.pidStr);
        const std::string tidText = idText(trace, key.tid, key.tidStr);
        // A GPU is "GPU N" whatever its process_name row says (real traces name it "python3.10").
        if (info.gpu)
            info.process = "GPU " + pidText;
        else
            info.process = pn != processNames.end() ? pn->second + " (pid " + pidText + ")" : "pid " + pidText;
        auto tn = threadNames.find(key);
        if (tn != threadNames.end()) {
            info.name = tn->second;
            while (!info.name.empty() && info.name.back() == ' ') // Kineto writes "stream 7 "
                info.name.pop_back();
        }
        else if (info.gpu)
            info.name = key.tid < 0 && !key.tidStr ? std::string("device sync") : "stream " + tidText;
        else
            info.name = "thread " + tidText;
        trackOf[key] = static_cast<uint32_t>(tracks.size());
        tracks.push_back(std::move(info));
    }

    std::vector<LayoutItem> items;
    items.reserve(trace.events.size());
    std::vector<std::array<size_t, kCategoryCount>> workOnTrack(tracks.size());
    for (uint32_t i = 0; i < trace.events.size(); ++i) {
        const KinetoEvent &e = trace.events[i];
        if (!onTimeline(e))
            continue;
        LayoutItem it;
        it.startNs = e.tsNs - model->originNs;
        it.durNs = std::max<int64_t>(0, e.durNs);
        it.event = i;
        it.track = trackOf[{e.pid, e.tid, e.has(KinetoEvent::PidIsString), e.has(KinetoEvent::TidIsString)}];
        it.category = categoryOf(trace, i);
        // GPU lanes: annotations, then the work (overlaps there are real), then cuda_sync rows.
        if (tracks[it.track].gpu)
            it.band = e.kind == EventKind::GpuUserAnnotation ? 0 : e.kind == EventKind::CudaSync ? 2 : 1;
        if (isGpuActivity(e.kind))
            ++workOnTrack[it.track][static_cast<size_t>(it.category)];
        items.push_back(it);
    }
    for (size_t k = 0; k < tracks.size(); ++k)
        if (tracks[k].gpu)
            tracks[k].name += streamKindSuffix(workOnTrack[k]);
    model->layout = buildLaneLayout(std::move(items), tracks, trace.events.size());

    // Launch edges: the runtime call with the GPU activity's correlation id.
    std::unordered_map<int64_t, uint32_t> launcher;
    for (uint32_t i = 0; i < trace.events.size(); ++i) {
        const KinetoEvent &e = trace.events[i];
        if ((e.kind == EventKind::Runtime || e.kind == EventKind::Driver) && e.has(KinetoEvent::HasCorrelation) &&
            e.correlation > 0)
            launcher.emplace(e.correlation, i);
    }
    for (uint32_t i = 0; i < trace.events.size(); ++i) {
        const KinetoEvent &e = trace.events[i];
        if (!isGpuActivity(e.kind) || !e.has(KinetoEvent::HasCorrelation))
            continue;
        auto it = launcher.find(e.correlation);
        if (it == launcher.end())
            continue;
        TimelineEdge edge;
        edge.kind = EdgeKind::Launch;
        edge.from = it->second;
        edge.to = i;
        edge.fromNs = model->startNs(it->second);
        edge.toNs = model->startNs(i);
        model->edges.add(edge);
    }
    model->edges.finish();
    return model;
}

std::unordered_map<uint32_t, std::pair<float, float>> criticalParts(const CriticalPathResult &cp)
{
    std::unordered_map<uint32_t, std::pair<float, float>> out;
    if (!cp.success)
        return out;
    const CpGraph &g = cp.graph;
    std::unordered_map<uint32_t, uint8_t> ends; // bit 0: start node on the path, bit 1: end node
    for (int32_t n : cp.pathNodes)
        if (n >= 0 && size_t(n) < g.nodeEvent.size() && g.nodeEvent[size_t(n)] >= 0)
            ends[static_cast<uint32_t>(g.nodeEvent[size_t(n)])] |= g.nodeIsStart[size_t(n)] ? 1 : 2;
    for (const auto &[ev, bits] : ends)
        if (bits == 1)
            out.emplace(ev, std::make_pair(0.0f, 0.0f));
        else if (bits == 2)
            out.emplace(ev, std::make_pair(1.0f, 1.0f));
    return out;
}

std::vector<TimelineEdge> criticalPathEdges(const TimelineModel &model, const CriticalPathResult &cp)
{
    std::vector<TimelineEdge> out;
    if (!cp.success)
        return out;
    const CpGraph &g = cp.graph;
    auto timeOf = [&](int32_t node) {
        const uint32_t ev = static_cast<uint32_t>(g.nodeEvent[node]);
        return g.nodeIsStart[node] ? model.startNs(ev) : model.endNs(ev);
    };
    for (int32_t e : cp.pathEdges) {
        if (e < 0 || e >= g.edgeCount())
            continue;
        const int32_t u = g.edgeFrom[e], v = g.edgeTo[e];
        if (g.nodeEvent[u] == g.nodeEvent[v])
            continue; // an op's own start -> end: the box itself is highlighted
        TimelineEdge edge;
        edge.kind = EdgeKind::CriticalPath;
        edge.from = static_cast<uint32_t>(g.nodeEvent[u]);
        edge.to = static_cast<uint32_t>(g.nodeEvent[v]);
        edge.fromNs = timeOf(u);
        edge.toNs = timeOf(v);
        edge.detail = static_cast<uint8_t>(g.edgeType[e]);
        edge.valueUs = static_cast<float>(g.edgeWeight[e]);
        out.push_back(edge);
    }
    return out;
}

EdgeIndex buildEdgeIndex(const TimelineModel &model, const Analysis &a, const CriticalPathResult *cp)
{
    EdgeIndex index;
    for (EdgeKind k : {EdgeKind::Launch})
        for (const TimelineEdge &e : model.edges.edges(k))
            index.add(e);
    for (const SyncEdge &s : a.syncEdges) {
        TimelineEdge e;
        e.kind = EdgeKind::Sync;
        e.from = s.src;
        e.to = s.dst;
        e.fromNs = model.endNs(s.src);
        // The waiting call returns once the work is done; a waiting stream starts its next work.
        e.toNs = s.gpuToGpu ? model.startNs(s.dst) : model.endNs(s.dst);
        e.detail = static_cast<uint8_t>(s.kind);
        e.inferred = s.inferred;
        e.valueUs = static_cast<float>(s.waitUs);
        index.add(e);
    }
    if (cp)
        for (const TimelineEdge &e : criticalPathEdges(model, *cp))
            index.add(e);
    if (a.link)
        for (const EventDep &d : a.link->interThreadDeps) {
            TimelineEdge e;
            e.kind = EdgeKind::InterThread;
            e.from = d.from;
            e.to = d.to;
            e.fromNs = model.endNs(d.from);
            e.toNs = model.startNs(d.to);
            index.add(e);
        }
    index.finish();
    return index;
}

} // namespace syncscope::ui
