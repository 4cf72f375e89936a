// SPDX-License-Identifier: MIT
// Shapes of real traces the generator now writes too (issue 38): Kineto's
// category names before late 2022, cuda_sync rows that do not name their event
// record (CUDA >= 12.9 before kineto#1552), and a GPU that starts long after its
// launch. Each is checked on the real trace that shows it and on a generated one,
// against the same trace written the usual way.
#include "analysis/syncedges.h"
#include "analysis/syncinfer.h"
#include "analysis/traceshape.h"
#include "cptestutil.h"
#include "tracebuilder.h"
#include "session/analysis.h"
#include "tracegen.h"

#include <nlohmann/json.hpp>

#include <QtTest>

#include <map>
#include <set>

using namespace syncscope;

namespace {

tracegen::Result generate(const std::string &name, void (*shape)(tracegen::Options &))
{
    tracegen::Options g;
    g.prefix = testutil::tempDir() + "/" + name;
    g.steps = 3;
    g.layers = 2;
    g.seed = 11;
    g.streams = 3;
    g.blockingCopies = true;
    if (shape)
        shape(g);
    return tracegen::generate(g);
}

std::shared_ptr<Analysis> analyse(const std::string &device)
{
    AnalysisRequest r;
    r.devicePath = device;
    return runAnalysis(r);
}

std::map<EventKind, int> kinds(const KinetoTrace &t)
{
    std::map<EventKind, int> n;
    for (const KinetoEvent &e : t.events)
        ++n[e.kind];
    return n;
}

bool hasCode(const Diagnostics &d, const std::string &code)
{
    return d.find(code) != nullptr;
}

} // namespace

class TestRealShapes : public QObject
{
    Q_OBJECT
private slots:
    void oldCategoriesReadAsToday();
    void oldCategoriesOnTheRealTrace();
    void unknownGpuCategoryIsNamed();
    void unresolvedRowsAreInferred();
    void unresolvedRowsOnTheRealTrace();
    void syncRowsOnAnotherTid();
    void lateGpuStartIsNamed();
    void unconnectedWorkIsJoined();
    void sharedCorrelationFanOut();
    void crowdedStreamWaitWindow();
};

// The same trace with the old spellings: every kind, edge and the critical path the same.
void TestRealShapes::oldCategoriesReadAsToday()
{
    const auto today = analyse(generate("today", nullptr).devicePath);
    const auto old = analyse(generate("old", [](tracegen::Options &g) { g.oldCategories = true; }).devicePath);
    QVERIFY(today->inputsOk && old->inputsOk);
    QVERIFY(testutil::readText(old->devicePath).find("\"cat\": \"Kernel\"") != std::string::npos);
    QVERIFY(testutil::readText(old->devicePath).find("\"cat\": \"kernel\"") == std::string::npos);
    QVERIFY(kinds(*today->device) == kinds(*old->device));
    QVERIFY(kinds(*old->device)[EventKind::Kernel] > 20);
    QCOMPARE(old->syncEdges.size(), today->syncEdges.size());
    QVERIFY(old->criticalPath && today->criticalPath);
    QCOMPARE(old->criticalPath->weightUs, today->criticalPath->weightUs);
    QCOMPARE(old->criticalPath->criticalEvents, today->criticalPath->criticalEvents);
    QVERIFY(!hasCode(old->diagnostics, "kineto.unknown_gpu_category"));
    QVERIFY(!hasCode(old->diagnostics, "kineto.bad_flow"));
}

// GPUPuzzlers' PyTorch 1.13-era trace: its 62 `Kernel` rows are GPU ops and the
// path runs through them.
void TestRealShapes::oldCategoriesOnTheRealTrace()
{
    REQUIRE_SHARED_DATA();
    const auto a = analyse(testutil::sharedData("device_only/gpupuzzlers_more_small_kernels.kineto.json.gz"));
    QVERIFY(a->inputsOk);
    QCOMPARE(kinds(*a->device)[EventKind::Kernel], 62);
    QVERIFY(!hasCode(a->diagnostics, "kineto.unknown_gpu_category"));
    QVERIFY(!a->syncEdges.empty()); // its cudaDeviceSynchronize waits for a kernel
    CriticalPathOptions o;
    o.annotation = "";
    Diagnostics diag;
    const CriticalPathResult r = analyzeCriticalPath(*a->device, o, diag);
    QVERIFY(r.success);
    int gpu = 0;
    for (uint32_t e : r.criticalEvents)
        gpu += isGpuActivity(a->device->events[e].kind) ? 1 : 0;
    QVERIFY2(gpu > 0, "the path holds no kernel");
}

// A GPU-looking category nobody reads is named, with its count; CPU-side ones are not.
void TestRealShapes::unknownGpuCategoryIsNamed()
{
    const std::string json = R"({"traceEvents": [
      {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 0, "dur": 10},
      {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 1, "dur": 3, "args": {"correlation": 5}},
      {"ph": "X", "cat": "mtia_kernel", "name": "k0", "pid": 0, "tid": 7, "ts": 5, "dur": 4, "args": {"stream": 7, "correlation": 5}},
      {"ph": "X", "cat": "mtia_kernel", "name": "k1", "pid": 0, "tid": 7, "ts": 9, "dur": 4, "args": {"stream": 7}},
      {"ph": "X", "cat": "gpu_op_new", "name": "x", "pid": 0, "tid": 7, "ts": 9, "dur": 4},
      {"ph": "X", "cat": "overhead", "name": "Buffer flush", "pid": 1, "tid": 1, "ts": 20, "dur": 4, "args": {"device": 0}},
      {"ph": "X", "cat": "python_function", "name": "f", "pid": 1, "tid": 1, "ts": 0, "dur": 30}
    ]})";
    Diagnostics diag;
    const auto t = cptest::loadInline(json, diag);
    QVERIFY(t);
    const auto unknown = unknownGpuCategories(*t);
    QCOMPARE(unknown.size(), size_t(2));
    QCOMPARE(unknown[0].category, std::string("mtia_kernel"));
    QCOMPARE(unknown[0].events, int64_t(2));
    QCOMPARE(unknown[1].category, std::string("gpu_op_new"));
    Diagnostics shape;
    checkTraceShape(*t, shape);
    QCOMPARE(shape.count(Severity::Warning), 1);
    QVERIFY2(shape.items()[0].message.find("\"mtia_kernel\" (2), \"gpu_op_new\" (1)") != std::string::npos,
             shape.items()[0].message.c_str());
}

// Rows that do not name their record give no recorded edge: their calls are inferred
// like calls without a row, counted in a warning and the report.
void TestRealShapes::unresolvedRowsAreInferred()
{
    const auto resolved = analyse(generate("resolved", nullptr).devicePath);
    const auto unresolved =
        analyse(generate("unresolved", [](tracegen::Options &g) { g.unresolvedSyncRows = true; }).devicePath);
    QVERIFY(resolved->inputsOk && unresolved->inputsOk);
    QCOMPARE(unresolvedCudaSyncRows(*resolved->device), size_t(0));
    const size_t rows = unresolvedCudaSyncRows(*unresolved->device);
    QVERIFY(rows > 5);
    const Diagnostic *d = unresolved->diagnostics.find("sync.unresolved_row");
    QVERIFY(d);
    QVERIFY(d->message.find(std::to_string(rows) + " Stream Wait Event") != std::string::npos);
    QVERIFY(!resolved->diagnostics.find("sync.unresolved_row"));
    // Every op and call the rows showed waiting (> 1 us) still ends an edge, now inferred,
    // and the waits add up to about the same.
    std::set<uint32_t> waited, stillWaited;
    for (const SyncEdge &e : resolved->syncEdges)
        if (e.waitUs > 1.0)
            waited.insert(e.dst);
    for (const SyncEdge &e : unresolved->syncEdges)
        stillWaited.insert(e.dst);
    QVERIFY(waited.size() > 5);
    for (uint32_t dst : waited)
        QVERIFY2(stillWaited.count(dst), qPrintable(QString("event %1 waited but has no edge").arg(dst)));
    const double before = syncWaitTotals(resolved->syncEdges).totalWaitUs(),
                 after = syncWaitTotals(unresolved->syncEdges).totalWaitUs();
    QVERIFY2(std::abs(after - before) <= 0.05 * before, qPrintable(QString("%1 us vs %2 us").arg(after).arg(before)));
    size_t gpuInferred = 0;
    for (const SyncEdge &e : unresolved->syncEdges)
        gpuInferred += e.gpuToGpu && e.inferred ? 1 : 0;
    QVERIFY(gpuInferred > 0); // the stream waits are inferred too
}

// Kineto's own before/after pair (CUDA driver 13.0): 2 unresolved rows before the fix, none after.
void TestRealShapes::unresolvedRowsOnTheRealTrace()
{
    REQUIRE_SHARED_DATA();
    const auto before = analyse(testutil::sharedData("device_only/kineto_cuda_sync_out_of_order_before_fix.json"));
    const auto after = analyse(testutil::sharedData("device_only/kineto_cuda_sync_out_of_order_after_fix.json"));
    QVERIFY(before->inputsOk && after->inputsOk);
    QCOMPARE(unresolvedCudaSyncRows(*before->device), size_t(2));
    QCOMPARE(unresolvedCudaSyncRows(*after->device), size_t(0));
    QVERIFY(before->diagnostics.find("sync.unresolved_row"));
    QVERIFY(!after->diagnostics.find("sync.unresolved_row"));
    for (const Diagnostic &d : before->diagnostics.items()) // (the unit test's four ops have no edge for a path)
        QVERIFY2(d.severity != Severity::Error || d.code == "cpa.failed", d.message.c_str());
}

// cuda_sync rows moved to a row of their own (kineto#1356): the edges do not change.
void TestRealShapes::syncRowsOnAnotherTid()
{
    const tracegen::Result pair = generate("tid", nullptr);
    nlohmann::json j = nlohmann::json::parse(testutil::readText(pair.devicePath));
    int moved = 0;
    for (auto &e : j["traceEvents"])
        if (e.value("cat", "") == "cuda_sync") {
            e["tid"] = "Stream Sync";
            ++moved;
        }
    QVERIFY(moved > 5);
    const std::string path = testutil::tempDir() + "/moved.kineto.json";
    testutil::writeText(path, j.dump());
    const auto a = analyse(pair.devicePath), b = analyse(path);
    QVERIFY(a->inputsOk && b->inputsOk);
    QCOMPARE(cptest::syncEdgeList(b->syncEdges), cptest::syncEdgeList(a->syncEdges));
    QCOMPARE(b->criticalPath->weightUs, a->criticalPath->weightUs);
}

// A GPU whose first op starts 30 ms after its launch: a warning with the hole's size
// and both causes; the whole-trace path still starts at the first event.
void TestRealShapes::lateGpuStartIsNamed()
{
    const auto plain = analyse(generate("plain", nullptr).devicePath);
    const auto late = analyse(generate("late", [](tracegen::Options &g) { g.gpuClockSkewUs = 30000; }).devicePath);
    QVERIFY(plain->inputsOk && late->inputsOk);
    QVERIFY(!plain->diagnostics.find("trace.gpu_start_hole"));
    const Diagnostic *d = late->diagnostics.find("trace.gpu_start_hole");
    QVERIFY(d);
    QVERIFY2(d->message.find("before the profiler started") != std::string::npos &&
                 d->message.find("clocks are out of step") != std::string::npos,
             d->message.c_str());
    const GpuStartHole hole = findGpuStartHole(*late->device);
    QVERIFY(hole.found);
    QVERIFY2(std::abs(hole.lengthUs() - 30000) < 100, qPrintable(QString::number(hole.lengthUs())));
    CriticalPathOptions o;
    o.annotation = "";
    o.syncEdges = std::make_shared<const std::vector<SyncEdge>>(late->syncEdges);
    Diagnostics diag;
    const CriticalPathResult r = analyzeCriticalPath(*late->device, o, diag);
    QVERIFY(r.success);
    double first = 1e300, pathFirst = 1e300;
    for (const KinetoEvent &e : late->device->events)
        if (e.ph == 'X' && (e.kind == EventKind::CpuOp || e.kind == EventKind::Runtime || isGpuActivity(e.kind)))
            first = std::min(first, e.ts);
    for (uint32_t e : r.criticalEvents)
        pathFirst = std::min(pathFirst, late->device->events[e].ts);
    QVERIFY2(pathFirst - first < 50, qPrintable(QString("path starts %1 us after the first event").arg(pathFirst - first)));
}

// The shape of the real traces whose longest chain starts late or ends early (DLRM rank 7,
// HTA's 4-stream trace, MI210, MI250, MI300X, PARAM ResNet): work on another thread before the
// first launch and after the last GPU op, connected to nothing. The default whole-trace path
// is joined to it in time order and spans the trace; --hta-exact keeps HTA's path.
void TestRealShapes::unconnectedWorkIsJoined()
{
    testutil::KinetoBuilder b;
    b.cpu("dataloader::next", 2, 0, 3000)
        .cpu("aten::mm", 1, 3000, 100, 1)
        .runtime("cudaLaunchKernel", 1, 3010, 10, 1, 1)
        .kernel("gemm", 7, 3030, 5970, 1, 1)
        .cpu("aten::add", 1, 3100, 100, 2)
        .runtime("cudaLaunchKernel", 1, 3110, 10, 2, 2)
        .kernel("add", 7, 9000, 500, 2, 2)
        .cpu("log::write", 2, 9600, 1000);
    Diagnostics loadDiag;
    const auto trace = cptest::loadInline(b.json(), loadDiag);
    QVERIFY(trace);
    auto span = [&](const CriticalPathResult &r) {
        double first = 1e300, last = -1e300;
        for (uint32_t e : r.criticalEvents) {
            first = std::min(first, trace->events[e].ts);
            last = std::max(last, trace->events[e].ts + trace->events[e].dur);
        }
        return std::make_pair(first, last);
    };
    CriticalPathOptions o;
    o.annotation = "";
    Diagnostics diag;
    const CriticalPathResult joined = analyzeCriticalPath(*trace, o, diag);
    QVERIFY(joined.success);
    QCOMPARE(joined.stitchJoins, 2);
    QVERIFY(diag.find("cpa.stitched"));
    const auto [first, last] = span(joined);
    QCOMPARE(first, 0.0);
    QCOMPARE(last, 10600.0);
    o.htaExact = true;
    Diagnostics exactDiag;
    const CriticalPathResult hta = analyzeCriticalPath(*trace, o, exactDiag);
    QVERIFY(hta.success);
    QCOMPARE(hta.stitchJoins, 0);
    QVERIFY(!exactDiag.find("cpa.stitched"));
    const auto [htaFirst, htaLast] = span(hta);
    QCOMPARE(htaFirst, 3000.0); // HTA's longest chain: the main thread and its GPU work
    QCOMPARE(htaLast, 9500.0);
    QVERIFY(joined.weightUs > hta.weightUs);
}

// Issue 40, class 6: 20,000 copy calls and 20,000 copies sharing one correlation. Each call's
// copy is worked out once per correlation (sync inference), each correlation's GPU rows are
// added once to a window (critical path), and the launch statistics find a correlation's rows
// by binary search: linear now (bench/fanout_benchmark.sh prints the ratios; this was 168 s
// and 10 GB at 40,000). Every call is judged, and the path is found.
void TestRealShapes::sharedCorrelationFanOut()
{
    constexpr int kN = 20000;
    testutil::KinetoBuilder b;
    for (int i = 0; i < kN; ++i) {
        b.runtime("cudaMemcpyAsync", 1, 3.0 * i, 2, 7);
        b.gpu("gpu_memcpy", "Memcpy DtoH (Device -> Pageable)", 7, 3.0 * i + 1, 1, 7);
    }
    Diagnostics diag;
    const auto trace = cptest::loadInline(b.json(), diag);
    QVERIFY(trace);
    SyncInferenceStats stats;
    inferSyncEdges(*trace, {}, SyncInferenceOptions(), &stats);
    QCOMPARE(stats.blockingCopies + stats.stagedCopies, size_t(kN));
    QCOMPARE(stats.blockingCopies, size_t(1)); // the last call: the others returned before the last copy
    CriticalPathOptions o;
    o.annotation = "";
    Diagnostics cpDiag;
    const CriticalPathResult r = analyzeCriticalPath(*trace, o, cpDiag);
    QVERIFY2(r.success, r.reason.c_str());
}

// Issue 40, class 6: 20,000 kernels, each on its own stream, launched early and started
// together: every one was queued, and the other 19,999 end inside its stream-wait window. The
// scan examines the 256 that ended last (it was every one: 40,000 took 10 s), says so once,
// and the path is found. bench/fanout_benchmark.sh `streamwaits` prints the ratios.
void TestRealShapes::crowdedStreamWaitWindow()
{
    constexpr int kN = 20000;
    testutil::KinetoBuilder b;
    for (int i = 0; i < kN; ++i) {
        b.runtime("cudaLaunchKernel", 1, 2.0 * i, 1, i + 1);
        b.kernel("k", 7 + i, 2.0 * kN + 100, 1, i + 1);
    }
    Diagnostics diag;
    const auto trace = cptest::loadInline(b.json(), diag);
    QVERIFY(trace);
    SyncInferenceStats stats;
    inferSyncEdges(*trace, {}, SyncInferenceOptions(), &stats);
    QCOMPARE(stats.waitScansCut, size_t(kN));
    CriticalPathOptions o;
    o.annotation = "";
    Diagnostics cpDiag;
    const CriticalPathResult r = analyzeCriticalPath(*trace, o, cpDiag);
    QVERIFY2(r.success, r.reason.c_str());
    Diagnostics syncDiag;
    findAllSyncEdges(*trace, syncDiag, SyncOptions());
    const Diagnostic *cut = syncDiag.find("sync.wait_scan_cut");
    QVERIFY(cut);
    QVERIFY2(cut->message.find("20000 queued GPU ops") != std::string::npos, cut->message.c_str());
}

QTEST_GUILESS_MAIN(TestRealShapes)
#include "tst_realshapes.moc"
