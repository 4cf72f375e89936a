// SPDX-License-Identifier: MIT
// One rank's tables of the SQLite export (docs/sqlite.md): the trace (events,
// threads, streams, host nodes), the link, the sync edges and the critical path,
// read from the Analysis the batch report is built from.
#include "sqliteinternal.h"

#include "analysis/criticalpath.h"
#include "analysis/rankanalysis.h"
#include "analysis/stepwindow.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <tuple>

namespace syncscope {

SqliteNames::SqliteNames(SqliteConnection &db) : m_insert(db, "INSERT INTO names (id, name) VALUES (?1, ?2)") {}

int64_t SqliteNames::id(std::string_view name)
{
    auto [it, fresh] = m_ids.try_emplace(std::string(name), int64_t(m_ids.size()));
    if (fresh)
        m_insert.i64(1, it->second).text(2, it->first).step();
    return it->second;
}

namespace {

// The report's name of a bound-by bucket: HTA's "" (dependency and sync edges) is "dependency".
std::string_view boundByName(std::string_view name)
{
    return name.empty() ? std::string_view("dependency") : name;
}

// Per-trace StrId -> global name id, looked up once per distinct string.
class TraceNames
{
public:
    TraceNames(SqliteNames &names, const StringTable &strings) : m_names(names), m_strings(strings), m_ids(strings.size(), -1) {}
    int64_t operator()(StrId s)
    {
        if (s >= m_ids.size())
            return -1;
        int64_t &v = m_ids[s];
        if (v < 0)
            v = m_names.id(m_strings.view(s));
        return v;
    }

private:
    SqliteNames &m_names;
    const StringTable &m_strings;
    std::vector<int64_t> m_ids;
};

bool containsNoCase(std::string_view text, std::string_view word)
{
    return std::search(text.begin(), text.end(), word.begin(), word.end(), [](char a, char b) {
               return std::tolower(static_cast<unsigned char>(a)) == b;
           }) != text.end();
}

// A pid or tid as written: a number, or the text of a string id.
void bindPidTid(SqliteStatement &st, int col, const KinetoTrace &t, int64_t v, bool isString)
{
    if (isString)
        st.text(col, t.str(static_cast<StrId>(v)));
    else
        st.i64(col, v);
}

void writeEvents(SqliteConnection &db, TraceNames &names, const Analysis &a, int64_t rank)
{
    const KinetoTrace &t = *a.device;
    const LinkResult *link = a.link ? &*a.link : nullptr;
    SqliteStatement st(db, "INSERT INTO events VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18,?19)");
    for (uint32_t i = 0; i < t.events.size(); ++i) {
        const KinetoEvent &e = t.events[i];
        const char ph[2] = {e.ph, 0};
        st.i64(1, rank).i64(2, i).id(3, names(e.name)).id(4, names(e.cat)).text(5, eventKindName(e.kind));
        if (e.ph)
            st.text(6, std::string_view(ph, 1));
        else
            st.null(6);
        bindPidTid(st, 7, t, e.pid, e.has(KinetoEvent::PidIsString));
        if (e.has(KinetoEvent::HasTid))
            bindPidTid(st, 8, t, e.tid, e.has(KinetoEvent::TidIsString));
        else
            st.null(8);
        if (e.streamForm == StreamForm::Integer)
            st.i64(9, e.stream);
        else
            st.null(9);
        st.id(10, e.device);
        if (e.has(KinetoEvent::HasTs))
            st.f64(11, e.ts).i64(13, e.tsNs);
        else
            st.null(11).null(13);
        if (e.has(KinetoEvent::HasDur))
            st.f64(12, e.dur).i64(14, e.durNs);
        else
            st.null(12).null(14);
        st.id(15, e.correlation).id(16, e.externalId);
        const int32_t host = link && i < link->eventHost.size() ? link->eventHost[i] : -1;
        if (host >= 0 && a.host)
            st.i64(17, a.host->nodes[size_t(host)].id);
        else
            st.null(17);
        st.id(18, link && i < link->gpuParent.size() ? link->gpuParent[i] : -1);
        st.id(19, link && i < link->gpuLauncher.size() ? link->gpuLauncher[i] : -1);
        st.step();
    }
}

void writeThreadsAndStreams(SqliteConnection &db, const Analysis &a, int64_t rank)
{
    const KinetoTrace &t = *a.device;
    // Threads: every (pid, tid) of a CPU-side event, named by its thread_name metadata row.
    struct Thread {
        std::string_view name;
        int64_t events = 0;
    };
    std::map<std::tuple<bool, int64_t, bool, int64_t>, Thread> threads;
    struct Stream {
        std::array<int64_t, 4> counts{}; // comm, compute, copy, memset
        int64_t busyNs = 0;
    };
    std::map<std::pair<int64_t, int64_t>, Stream> streams;
    std::vector<int8_t> commName(t.strings.size(), -1); // per name: a NCCL/RCCL kernel? (-1 not yet known)
    for (const KinetoEvent &e : t.events) {
        if (isGpuActivity(e.kind)) {
            Stream &s = streams[{e.pid, e.htaStream()}];
            int8_t &comm = commName[e.name];
            if (comm < 0)
                comm = containsNoCase(t.str(e.name), "nccl") || containsNoCase(t.str(e.name), "rccl");
            const bool isComm = e.kind == EventKind::Kernel && comm > 0;
            ++s.counts[isComm ? 0 : e.kind == EventKind::Kernel ? 1 : e.kind == EventKind::Memcpy ? 2 : 3];
            s.busyNs += std::max<int64_t>(0, e.durNs);
            continue;
        }
        // CPU threads only: the GPU lanes' flows, sync rows and annotations live on device pids.
        const bool cpuSide = e.kind == EventKind::CpuOp || e.kind == EventKind::UserAnnotation ||
                             e.kind == EventKind::PythonFunction || e.kind == EventKind::Runtime ||
                             e.kind == EventKind::Driver || e.kind == EventKind::Metadata;
        if (!e.has(KinetoEvent::HasTid) || !cpuSide)
            continue;
        const auto key = std::tuple{e.has(KinetoEvent::PidIsString), e.pid, e.has(KinetoEvent::TidIsString), e.tid};
        if (e.kind == EventKind::Metadata) {
            if (t.str(e.name) == "thread_name")
                threads[key].name = t.str(e.label);
            continue;
        }
        ++threads[key].events;
    }
    SqliteStatement th(db, "INSERT INTO threads VALUES (?1,?2,?3,?4,?5)");
    for (const auto &[key, thread] : threads) {
        if (thread.events == 0)
            continue; // a name row of a thread without events (GPU lanes are named this way too)
        th.i64(1, rank);
        bindPidTid(th, 2, t, std::get<1>(key), std::get<0>(key));
        bindPidTid(th, 3, t, std::get<3>(key), std::get<2>(key));
        if (thread.name.empty())
            th.null(4);
        else
            th.text(4, thread.name);
        th.i64(5, thread.events).step();
    }
    SqliteStatement ss(db, "INSERT INTO streams VALUES (?1,?2,?3,?4,?5,?6,?7,?8)");
    for (const auto &[key, s] : streams) {
        // As the timeline titles a stream: what it mostly runs.
        const int64_t comm = s.counts[0], compute = s.counts[1], copy = s.counts[2] + s.counts[3];
        const char *role = comm >= compute && comm >= copy ? "NCCL" : compute >= copy ? "compute" : "copy";
        ss.i64(1, rank).i64(2, key.first).i64(3, key.second).text(4, role).i64(5, comm + compute);
        ss.i64(6, s.counts[2]).i64(7, s.counts[3]).f64(8, double(s.busyNs) / 1e3).step();
    }
}

void writeHostAndLinks(SqliteConnection &db, SqliteNames &names, const Analysis &a, int64_t rank)
{
    if (!a.host)
        return;
    const HostTrace &h = *a.host;
    const LinkResult *link = a.link ? &*a.link : nullptr;
    // New ids of the ET+ document: host nodes and the GPU nodes made from Kineto events.
    std::vector<int64_t> etPlusHost(h.nodes.size(), -1);
    std::unordered_map<uint32_t, int64_t> etPlusGpu;
    if (link)
        for (const EtPlusNode &n : link->plan.nodes) {
            if (n.gpuEvent >= 0)
                etPlusGpu[uint32_t(n.gpuEvent)] = n.id;
            else if (n.host < etPlusHost.size())
                etPlusHost[n.host] = n.id;
        }
    TraceNames hostNames(names, h.strings);
    SqliteStatement hn(db, "INSERT INTO host_nodes VALUES (?1,?2,?3,?4,?5,?6,?7,?8)");
    for (size_t k = 0; k < h.nodes.size(); ++k) {
        const HostNode &n = h.nodes[k];
        hn.i64(1, rank).i64(2, n.id).id(3, hostNames(n.name));
        if (n.has(HostNode::HasParent))
            hn.i64(4, n.parent);
        else
            hn.null(4);
        if (n.has(HostNode::HasRfId))
            hn.i64(5, n.rfId);
        else
            hn.null(5);
        if (n.has(HostNode::HasTid))
            hn.i64(6, n.tid);
        else
            hn.null(6);
        hn.id(7, link && k < link->hostEvent.size() ? link->hostEvent[k] : -1).id(8, etPlusHost[k]).step();
    }
    if (!link)
        return;
    const KinetoTrace &t = *a.device;
    SqliteStatement ln(db, "INSERT INTO links VALUES (?1,?2,?3,?4,?5,?6)");
    // A host node and its Kineto CPU op.
    for (size_t k = 0; k < link->hostEvent.size() && k < h.nodes.size(); ++k)
        if (link->hostEvent[k] >= 0)
            ln.i64(1, rank).i64(2, h.nodes[k].id).i64(3, link->hostEvent[k]).null(4).null(5).id(6, etPlusHost[k]).step();
    // A GPU op and the CPU op that launched it (and that op's host node when linked).
    for (uint32_t i = 0; i < t.events.size() && i < link->gpuParent.size(); ++i) {
        const int32_t parent = link->gpuParent[i];
        if (!isGpuActivity(t.events[i].kind) || parent < 0)
            continue;
        const int32_t host = size_t(parent) < link->eventHost.size() ? link->eventHost[size_t(parent)] : -1;
        const auto gpuNode = etPlusGpu.find(i);
        ln.i64(1, rank).id(2, host >= 0 ? h.nodes[size_t(host)].id : -1).i64(3, parent).i64(4, i);
        ln.id(5, link->gpuLauncher[i]).id(6, gpuNode == etPlusGpu.end() ? -1 : gpuNode->second).step();
    }
    SqliteStatement dep(db, "INSERT INTO link_deps VALUES (?1,?2,?3,?4)");
    for (const auto &[kind, deps] : {std::pair{"sync", &link->syncDeps}, std::pair{"inter_thread", &link->interThreadDeps},
                                     std::pair{"blocking_wait", &link->blockingWaits}})
        for (const EventDep &d : *deps)
            dep.i64(1, rank).text(2, kind).i64(3, d.from).i64(4, d.to).step();
}

void writeSyncEdges(SqliteConnection &db, const Analysis &a, int64_t rank)
{
    SqliteStatement st(db, "INSERT INTO sync_edges VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9)");
    for (size_t k = 0; k < a.syncEdges.size(); ++k) {
        const SyncEdge &e = a.syncEdges[k];
        st.i64(1, rank).i64(2, int64_t(k)).text(3, syncKindName(e.kind)).text(4, e.inferred ? "inferred" : "cuda_sync");
        st.i64(5, e.src).i64(6, e.dst).i64(7, e.syncEvent).boolean(8, e.gpuToGpu).f64(9, e.waitUs).step();
    }
}

// N of the ProfilerStep#N the critical path's window is (one step), -1 otherwise.
int64_t windowStep(const Analysis &a)
{
    if (!a.criticalPath || !a.criticalPath->success)
        return -1;
    const nlohmann::ordered_json w = windowJson(a);
    if (!w.is_object() || w.value("kind", "") != "step" || w.contains("step_last") || !w["step"].is_number_integer())
        return -1;
    return w["step"].get<int64_t>();
}

void writeBreakdown(SqliteStatement &st, int64_t rank, int64_t step, const char *source,
                    const std::vector<CpSummaryRow> &summary)
{
    for (const CpSummaryRow &row : summary) {
        st.i64(1, rank).id(2, step).text(3, source).text(4, boundByName(row.boundBy));
        st.f64(5, row.durationUs).f64(6, row.percent).step();
    }
}

void writeCriticalPath(SqliteConnection &db, const Analysis &a, int64_t rank)
{
    const KinetoTrace &t = *a.device;
    const int64_t step = windowStep(a);
    SqliteStatement bd(db, "INSERT INTO breakdown_bound_by VALUES (?1,?2,?3,?4,?5,?6)");
    if (a.criticalPath && a.criticalPath->success) {
        const CriticalPathResult &cp = *a.criticalPath;
        const CpGraph &g = cp.graph;
        SqliteStatement st(db, "INSERT INTO critical_path VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11)");
        for (size_t k = 0; k < cp.breakdown.size(); ++k) {
            const CpBreakdownRow &r = cp.breakdown[k];
            const int32_t from = g.edgeFrom[r.edge], to = g.edgeTo[r.edge];
            st.i64(1, rank).id(2, step).i64(3, int64_t(k)).text(4, cpEdgeTypeValue(r.type)).id(5, r.event);
            st.i64(6, g.nodeEvent[from]).boolean(7, g.nodeIsStart[from]).i64(8, g.nodeEvent[to]);
            st.boolean(9, g.nodeIsStart[to]).f64(10, r.duration).text(11, boundByName(cpBoundName(r.bound))).step();
        }
        writeBreakdown(bd, rank, step, "window", cp.summary);
    }
    // The steps: the per-step table when it was computed (--step all), else every
    // ProfilerStep#N with the critical path of the one that is the window.
    SqliteStatement ss(db, "INSERT INTO steps VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10)");
    if (!a.steps.empty()) {
        for (const StepResult &s : a.steps) {
            const int64_t n = profilerStepNumber(s.name);
            ss.i64(1, rank).i64(2, s.instance).id(3, n).text(4, s.name).i64(5, s.event).f64(6, s.startUs);
            ss.f64(7, s.endUs - s.startUs);
            if (s.success)
                ss.f64(8, s.weightUs).i64(9, int64_t(s.pathNodes));
            else
                ss.null(8).null(9);
            ss.boolean(10, n >= 0 && n == step).step();
            if (s.success)
                writeBreakdown(bd, rank, n, "steps", s.summary);
        }
        return;
    }
    const std::vector<uint32_t> events = profilerStepEvents(t);
    for (size_t k = 0; k < events.size(); ++k) {
        const KinetoEvent &e = t.events[events[k]];
        const std::string_view name = t.str(e.name);
        const int64_t n = profilerStepNumber(name);
        const bool window = n >= 0 && n == step;
        ss.i64(1, rank).i64(2, int64_t(k)).id(3, n).text(4, name).i64(5, events[k]).f64(6, e.ts).f64(7, e.dur);
        if (window)
            ss.f64(8, a.criticalPath->weightUs).i64(9, int64_t(a.criticalPath->pathNodes.size()));
        else
            ss.null(8).null(9);
        ss.boolean(10, window).step();
    }
}

void writeRankRow(SqliteConnection &db, const Analysis &a, int64_t rank, int exitCode)
{
    SqliteStatement st(db, "INSERT INTO ranks (rank, host, device, exit_code, pid, world_size, events, host_nodes, "
                           "trace_start_ns, trace_end_ns, step_time_us, critical_path_us, critical_path_step, link_mode, "
                           "link_strategy, host_ops, host_ops_linked, host_ops_with_twin, link_coverage_pct, "
                           "kineto_cpu_ops, kineto_cpu_ops_linked, gpu_ops, gpu_ops_linked, sync_edges, "
                           "sync_edges_inferred, sync_wait_us) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,"
                           "?14,?15,?16,?17,?18,?19,?20,?21,?22,?23,?24,?25,?26)");
    const KinetoTrace &t = *a.device;
    st.i64(1, rank);
    if (a.hostPath.empty())
        st.null(2);
    else
        st.text(2, a.hostPath);
    st.text(3, a.devicePath).id(4, exitCode).id(5, a.devicePid).opt(6, t.distributed.worldSize);
    st.i64(7, int64_t(t.events.size())).i64(8, a.host ? int64_t(a.host->nodes.size()) : 0);
    st.i64(9, t.minTsNs).i64(10, t.maxEndNs);
    // The window's duration (the report's critical_path.window.duration_us).
    const nlohmann::ordered_json w = windowJson(a);
    if (w.is_object() && w.contains("duration_us") && w["duration_us"].is_number())
        st.f64(11, w["duration_us"].get<double>());
    else
        st.null(11);
    if (a.criticalPath && a.criticalPath->success)
        st.f64(12, a.criticalPath->weightUs);
    else
        st.null(12);
    st.id(13, windowStep(a));
    if (a.link) {
        const LinkCounts &c = a.link->counts;
        st.text(14, a.link->mode == LinkMode::Chakra ? "chakra" : "default").text(15, matchStrategyName(a.link->strategy));
        st.i64(16, c.hostOps).i64(17, c.hostOpsLinked).i64(18, c.hostOpsWithTwin).f64(19, 100.0 * a.link->coverage());
        st.i64(20, c.kinetoCpuOps).i64(21, c.kinetoCpuOpsLinked).i64(22, c.gpuOps).i64(23, c.gpuOpsLinked);
    } else {
        for (int col = 14; col <= 23; ++col)
            st.null(col);
    }
    const SyncWaitTotals totals = syncWaitTotals(a.syncEdges);
    st.i64(24, int64_t(a.syncEdges.size())).i64(25, int64_t(totals.inferredEdges())).f64(26, totals.totalWaitUs());
    st.step();
}

} // namespace

void writeSqliteRank(SqliteConnection &db, SqliteNames &names, const Analysis &a, int64_t rank, int exitCode)
{
    if (!a.device)
        return;
    writeRankRow(db, a, rank, exitCode);
    TraceNames deviceNames(names, a.device->strings);
    writeEvents(db, deviceNames, a, rank);
    writeThreadsAndStreams(db, a, rank);
    writeHostAndLinks(db, names, a, rank);
    writeSyncEdges(db, a, rank);
    writeCriticalPath(db, a, rank);
}

} // namespace syncscope
