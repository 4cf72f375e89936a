// SPDX-License-Identifier: MIT
// The timeline model built from real core results: lanes, categories, and the
// launch / sync / critical-path / inter-thread edges.
#include "timeline/timelinemodel.h"

#include "analysis/criticalpath.h"
#include "session/analysis.h"
#include "testutil.h"
#include "tracebuilder.h"
#include "uitestutil.h"

#include <QTest>

#include <algorithm>
#include <map>
#include <unordered_map>

using namespace syncscope;
using namespace syncscope::ui;

class TestTimelineModel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void lanesAndCategories();
    void sampleEdges();
    void sampleKeepsEveryTimedEvent();
    void criticalPathEdgeTimes();
    void inferredSyncEdgesAreMarked();
    void blockingCopyIsCriticalAtItsEnd();
    void graphReplayLaunchEdges();
};

void TestTimelineModel::lanesAndCategories()
{
    testutil::KinetoBuilder b;
    b.raw(R"({"name": "thread_name", "ph": "M", "ts": 0, "pid": 100, "tid": 1, "args": {"name": "main"}})")
        // Real traces name the GPU's process after the Python binary; the lane says "GPU 0".
        .raw(R"({"name": "process_name", "ph": "M", "ts": 0, "pid": 0, "tid": 0, "args": {"name": "python3.10"}})")
        .annotation("ProfilerStep#0", 1, 1000, 100)
        .cpu("aten::mm", 1, 1010, 50, 1, 1)
        .runtime("cudaLaunchKernel", 1, 1020, 5, 7)
        .kernel("gemm", 7, 1030, 20, 7)
        .runtime("cudaLaunchKernel", 2, 1021, 4, 8)
        .kernel("ncclDevKernel_AllReduce_Sum_f32", 20, 1040, 10, 8)
        .runtime("cudaStreamSynchronize", 2, 1060, 30, 9);
    const auto trace = uitest::loadKineto(b.json());
    QVERIFY(trace);
    const auto model = buildTimelineModel(trace);
    const LaneLayout &l = model->layout;
    QCOMPARE(model->originNs, int64_t(1000) * 1000);
    QCOMPARE(l.groups.size(), size_t(4));
    QCOMPARE(QString::fromStdString(l.groups[0].name), QStringLiteral("main"));
    QCOMPARE(QString::fromStdString(l.groups[1].name), QStringLiteral("thread 2"));
    QCOMPARE(QString::fromStdString(l.groups[1].process), QStringLiteral("pid 100"));
    QCOMPARE(QString::fromStdString(l.groups[2].name), QStringLiteral("stream 7 (compute)"));
    QCOMPARE(QString::fromStdString(l.groups[2].process), QStringLiteral("GPU 0"));
    QCOMPARE(QString::fromStdString(l.groups[3].name), QStringLiteral("stream 20 (NCCL)"));
    QVERIFY(!l.groups[0].gpu && l.groups[2].gpu && l.groups[3].gpu);
    // ProfilerStep on top, aten::mm below, the launch below that.
    QCOMPARE(l.rows[l.pos(2).row].depth, uint16_t(0));
    QCOMPARE(l.rows[l.pos(3).row].depth, uint16_t(1));
    QCOMPARE(l.rows[l.pos(4).row].depth, uint16_t(2));
    QCOMPARE(int(model->category(2)), int(Category::Annotation));
    QCOMPARE(int(model->category(3)), int(Category::CpuOp));
    QCOMPARE(int(model->category(4)), int(Category::Runtime));
    QCOMPARE(int(model->category(5)), int(Category::Kernel));
    QCOMPARE(int(model->category(7)), int(Category::Communication));
    QCOMPARE(int(model->category(8)), int(Category::Sync));
    QCOMPARE(model->startNs(3), 10000.0);
    QCOMPARE(model->endNs(3), 60000.0);
    QCOMPARE(QString::fromStdString(model->laneName(5)), QStringLiteral("GPU 0 \u00b7 stream 7 (compute)"));
    // Launch edges by correlation: runtime start -> kernel start.
    const auto &launch = model->edges.edges(EdgeKind::Launch);
    QCOMPARE(launch.size(), size_t(2));
    QCOMPARE(launch[0].from, 4u);
    QCOMPARE(launch[0].to, 5u);
    QCOMPARE(launch[0].fromNs, 20000.0);
    QCOMPARE(launch[0].toNs, 30000.0);
    QCOMPARE(launch[1].from, 6u);
    QCOMPARE(launch[1].to, 7u);
}

void TestTimelineModel::sampleEdges()
{
    const auto a = uitest::sampleAnalysis();
    QVERIFY(a->inputsOk);
    QVERIFY(a->link && a->criticalPath && a->criticalPath->success);
    const auto model = buildTimelineModel(a->device);
    const EdgeIndex index = buildEdgeIndex(*model, *a, &*a->criticalPath);
    // Launch: GPU activities whose correlation names a runtime call.
    std::unordered_map<int64_t, int> runtimeByCorr;
    for (const KinetoEvent &e : a->device->events)
        if ((e.kind == EventKind::Runtime || e.kind == EventKind::Driver) && e.correlation > 0)
            ++runtimeByCorr[e.correlation];
    size_t launched = 0;
    for (const KinetoEvent &e : a->device->events)
        if (isGpuActivity(e.kind) && runtimeByCorr.count(e.correlation))
            ++launched;
    QVERIFY(launched > 50);
    QCOMPARE(index.count(EdgeKind::Launch), launched);
    QCOMPARE(index.count(EdgeKind::Sync), a->syncEdges.size());
    QVERIFY(index.count(EdgeKind::Sync) > 0);
    QCOMPARE(index.count(EdgeKind::InterThread), a->link->interThreadDeps.size());
    size_t cpEdges = 0;
    const CpGraph &g = a->criticalPath->graph;
    for (int32_t e : a->criticalPath->pathEdges)
        cpEdges += g.nodeEvent[g.edgeFrom[e]] != g.nodeEvent[g.edgeTo[e]];
    QCOMPARE(index.count(EdgeKind::CriticalPath), cpEdges);
    QVERIFY(cpEdges > 10);
    // Every sync edge is reachable from both of its ends.
    for (const SyncEdge &s : a->syncEdges) {
        bool found = false;
        for (const EdgeRef &r : index.edgesOf(s.dst))
            found |= r.kind == EdgeKind::Sync && index.edges(r.kind)[r.id].from == s.src;
        QVERIFY(found);
    }
}

void TestTimelineModel::sampleKeepsEveryTimedEvent()
{
    const auto a = uitest::sampleAnalysis();
    const auto model = buildTimelineModel(a->device);
    size_t timed = 0;
    for (uint32_t i = 0; i < a->device->events.size(); ++i) {
        const KinetoEvent &e = a->device->events[i];
        const bool drawn = e.has(KinetoEvent::HasTs) && e.kind != EventKind::Flow && e.kind != EventKind::Metadata &&
                           e.kind != EventKind::TraceSpan && e.kind != EventKind::Instant;
        timed += drawn;
        QCOMPARE(model->layout.pos(i).row >= 0, drawn);
    }
    QCOMPARE(model->layout.itemCount, timed);
    QCOMPARE(timed, size_t(440)); // 441 timed X events minus the profiler's own "Trace" span
}

void TestTimelineModel::criticalPathEdgeTimes()
{
    const auto a = uitest::sampleAnalysis();
    const auto model = buildTimelineModel(a->device);
    const auto edges = criticalPathEdges(*model, *a->criticalPath);
    const CpGraph &g = a->criticalPath->graph;
    size_t k = 0;
    for (int32_t e : a->criticalPath->pathEdges) {
        const int32_t u = g.edgeFrom[e], v = g.edgeTo[e];
        if (g.nodeEvent[u] == g.nodeEvent[v])
            continue;
        const TimelineEdge &t = edges[k++];
        QCOMPARE(t.from, uint32_t(g.nodeEvent[u]));
        QCOMPARE(t.to, uint32_t(g.nodeEvent[v]));
        QCOMPARE(t.fromNs, g.nodeIsStart[u] ? model->startNs(t.from) : model->endNs(t.from));
        QCOMPARE(t.toNs, g.nodeIsStart[v] ? model->startNs(t.to) : model->endNs(t.to));
        QCOMPARE(double(t.valueUs), double(float(g.edgeWeight[e])));
    }
    QCOMPARE(k, edges.size());
}

// Issue 28: each sync edge keeps its source (a cuda_sync row or inferred) on the
// timeline, so the inferred ones can be drawn dashed; --hta-exact infers none.
void TestTimelineModel::inferredSyncEdgesAreMarked()
{
    const auto a = uitest::analyseKineto(uitest::inferredSyncTrace());
    QVERIFY(a->inputsOk);
    const auto model = buildTimelineModel(a->device);
    const EdgeIndex index = buildEdgeIndex(*model, *a, a->criticalPath ? &*a->criticalPath : nullptr);
    const auto &sync = index.edges(EdgeKind::Sync);
    QCOMPARE(sync.size(), size_t(3));
    std::map<std::pair<uint32_t, uint32_t>, const TimelineEdge *> byEnds;
    for (const TimelineEdge &e : sync)
        byEnds[{e.from, e.to}] = &e;
    QCOMPARE(byEnds.size(), size_t(3));
    const TimelineEdge *streamSync = byEnds[{1u, 2u}], *copy = byEnds[{5u, 6u}], *recorded = byEnds[{12u, 13u}];
    QVERIFY(streamSync && copy && recorded);
    QVERIFY(streamSync->inferred);
    QVERIFY(copy->inferred);
    QVERIFY(!recorded->inferred);
    QCOMPARE(int(streamSync->detail), int(SyncKind::StreamSync));
    QCOMPARE(int(copy->detail), int(SyncKind::BlockingCopy));
    QCOMPARE(int(recorded->detail), int(SyncKind::StreamSync));
    QCOMPARE(double(copy->valueUs), 50.0); // the call waited from 160 µs until its copy ended at 210 µs
    // The flag is the analysis' own, edge for edge.
    for (const SyncEdge &s : a->syncEdges) {
        const TimelineEdge *e = byEnds[std::make_pair(s.src, s.dst)];
        QVERIFY(e);
        QCOMPARE(e->inferred, s.inferred);
    }

    // HTA-exact: the cuda_sync row's edge only.
    const auto exact = uitest::analyseKineto(uitest::inferredSyncTrace(), true);
    const auto exactModel = buildTimelineModel(exact->device);
    const EdgeIndex exactIndex = buildEdgeIndex(*exactModel, *exact, nullptr);
    QCOMPARE(exactIndex.count(EdgeKind::Sync), size_t(1));
    QCOMPARE(exactIndex.edges(EdgeKind::Sync)[0].from, 12u);
    QVERIFY(!exactIndex.edges(EdgeKind::Sync)[0].inferred);
}

// Issue 28: one cudaGraphLaunch, three replayed kernels with its correlation: a launch
// arrow from the graph launch to each of them.
void TestTimelineModel::graphReplayLaunchEdges()
{
    const auto trace = uitest::loadKineto(uitest::inferredSyncTrace());
    QVERIFY(trace);
    const auto model = buildTimelineModel(trace);
    QCOMPARE(model->name(7), std::string_view("cudaGraphLaunch"));
    std::vector<uint32_t> fromGraph;
    for (const TimelineEdge &e : model->edges.edges(EdgeKind::Launch))
        if (e.from == 7)
            fromGraph.push_back(e.to);
    std::sort(fromGraph.begin(), fromGraph.end());
    QCOMPARE(fromGraph, (std::vector<uint32_t>{8, 9, 10}));
    // Each replayed kernel finds its launch among its own edges (what a selection draws).
    for (uint32_t k : {8u, 9u, 10u}) {
        size_t launches = 0;
        for (const EdgeRef &r : model->edges.edgesOf(k)) {
            const TimelineEdge &e = model->edges.edges(r.kind)[r.id];
            if (r.kind == EdgeKind::Launch && e.to == k) {
                ++launches;
                QCOMPARE(e.from, 7u);
                QCOMPARE(e.fromNs, model->startNs(7));
                QCOMPARE(e.toNs, model->startNs(k));
            }
        }
        QCOMPARE(launches, size_t(1));
    }
    // Ordinary launches (three kernels and the copy) stay one to one.
    QCOMPARE(model->edges.count(EdgeKind::Launch), size_t(4 + 3));
}

// Issue 41, item 10: the real TraceLens H100 step (deep Python stacks) waits 126 ms in a
// blocking DtoH cudaMemcpyAsync. The path reaches the call at its end (from the GPU copy,
// through the inferred edge), not at its start: the call is red at its end only.
void TestTimelineModel::blockingCopyIsCriticalAtItsEnd()
{
    AnalysisRequest r;
    r.devicePath = testutil::sharedData("device_only/tracelens_h100_timesformer_memory.kineto.json.gz");
    r.keepRawEvents = true;
    const auto a = runAnalysis(r);
    QVERIFY(a->inputsOk && a->criticalPath && a->criticalPath->success);
    const KinetoTrace &t = *a->device;
    int64_t copy = -1;
    for (const SyncEdge &e : a->syncEdges)
        if (e.kind == SyncKind::BlockingCopy && e.waitUs > 100'000)
            copy = e.dst;
    QVERIFY(copy >= 0);
    QCOMPARE(std::string(t.str(t.events[size_t(copy)].name)), std::string("cudaMemcpyAsync"));
    const auto &critical = a->criticalPath->criticalEvents;
    QVERIFY(std::binary_search(critical.begin(), critical.end(), uint32_t(copy)));
    const auto parts = criticalParts(*a->criticalPath);
    const auto it = parts.find(uint32_t(copy));
    QVERIFY2(it != parts.end(), "the 126 ms call is drawn critical along its whole length");
    QCOMPARE(it->second, std::make_pair(1.0f, 1.0f));
    // Ops the path runs through from start to end are not listed.
    size_t whole = 0;
    for (uint32_t ev : critical)
        whole += parts.count(ev) == 0;
    QVERIFY(whole > parts.size());
}

QTEST_GUILESS_MAIN(TestTimelineModel)
#include "tst_timelinemodel.moc"
