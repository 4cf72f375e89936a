// SPDX-License-Identifier: MIT
// Sync edges inferred from runtime calls (syncinfer.h) on tiny inline traces
// recorded without cuda_sync rows, and the critical path's departures from HTA
// in the default mode (graph replays, inferred waits, every launch API) against
// --hta-exact.
#include "analysis/syncinfer.h"
#include "cptestutil.h"
#include "tracebuilder.h"

#include <algorithm>
#include <chrono>
#include <future>
#include <thread>

using namespace syncscope;
using testutil::KinetoBuilder;

namespace {

std::string describe(const std::vector<SyncEdge> &edges)
{
    return cptest::syncEdgeList(edges);
}

std::vector<SyncEdge> edgesOf(const std::string &json, bool htaExact = false)
{
    Diagnostics diag;
    auto t = cptest::loadInline(json, diag);
    if (!t)
        return {};
    SyncOptions o;
    o.htaExact = htaExact;
    return findAllSyncEdges(*t, diag, o);
}

CriticalPathResult wholePath(const KinetoTrace &t, bool htaExact)
{
    CriticalPathOptions o;
    o.annotation = "";
    o.htaExact = htaExact;
    Diagnostics diag;
    return analyzeCriticalPath(t, o, diag);
}

bool onPath(const CriticalPathResult &r, uint32_t ev)
{
    return std::binary_search(r.criticalEvents.begin(), r.criticalEvents.end(), ev);
}

} // namespace

class TestSyncInfer : public QObject
{
    Q_OBJECT
private slots:
    void runtimeApiNames();
    void copyDirections();
    void blockingCopyWaitsForItsOwnCopy();
    void stagedAndPinnedCopiesDoNotWait();
    void streamSyncWaitsForTheOpItsReturnExplains();
    void callThatReturnedBeforeAnyEndWaitedForNothing();
    void workLaunchedDuringTheCallIsNotAwaited();
    void deviceSyncWaitsForEveryStream();
    void recordedRowsWinAndRowsWithoutEdgeAreFilled();
    void streamWaitNeedsAnOrderingCall();
    void htaExactInfersNothing();
    void criticalPathFollowsInferredWait();
    void edgesGivenLaterFromAnotherThread();
    void graphReplayIsOnThePath();
    void everyLaunchApiLaunches();
    void bundledGraphTrace();
};

void TestSyncInfer::runtimeApiNames()
{
    QCOMPARE(runtimeBaseName("cudaLaunchKernel_v7000"), std::string_view("cudaLaunchKernel"));
    QCOMPARE(runtimeBaseName("cudaMemcpyAsync_ptsz"), std::string_view("cudaMemcpyAsync"));
    QCOMPARE(runtimeBaseName("cudaMemcpy2D"), std::string_view("cudaMemcpy2D"));
    QVERIFY(classifyRuntimeApi("cudaGraphLaunch") == RuntimeApi::GraphLaunch);
    QVERIFY(classifyRuntimeApi("hipGraphLaunch") == RuntimeApi::GraphLaunch);
    QVERIFY(classifyRuntimeApi("cuGraphLaunch") == RuntimeApi::GraphLaunch);
    QVERIFY(classifyRuntimeApi("hipExtLaunchKernel") == RuntimeApi::KernelLaunch);
    QVERIFY(classifyRuntimeApi("hipModuleLaunchKernel") == RuntimeApi::KernelLaunch);
    QVERIFY(classifyRuntimeApi("cudaLaunchCooperativeKernel") == RuntimeApi::KernelLaunch);
    QVERIFY(classifyRuntimeApi("cudaLaunchKernelExC_v11060") == RuntimeApi::KernelLaunch);
    QVERIFY(classifyRuntimeApi("cudaStreamSynchronize") == RuntimeApi::StreamSync);
    QVERIFY(classifyRuntimeApi("hipStreamSynchronize") == RuntimeApi::StreamSync);
    QVERIFY(classifyRuntimeApi("cuCtxSynchronize") == RuntimeApi::DeviceSync);
    QVERIFY(classifyRuntimeApi("hipEventSynchronize") == RuntimeApi::EventSync);
    QVERIFY(classifyRuntimeApi("cudaMemcpy") == RuntimeApi::Copy);
    QVERIFY(classifyRuntimeApi("hipMemcpyWithStream") == RuntimeApi::CopyAsync);
    QVERIFY(classifyRuntimeApi("cudaMemcpyAsync_v3020") == RuntimeApi::CopyAsync);
    QVERIFY(classifyRuntimeApi("cudaStreamWaitEvent") == RuntimeApi::StreamWaitEvent);
    QVERIFY(classifyRuntimeApi("hipEventRecord") == RuntimeApi::EventRecord);
    QVERIFY(classifyRuntimeApi("cudaFuncGetAttributes") == RuntimeApi::Other);
    QVERIFY(classifyRuntimeApi("aten::copy_") == RuntimeApi::Other);
}

void TestSyncInfer::copyDirections()
{
    QVERIFY(copyBlocksHost("Memcpy DtoH (Device -> Pageable)"));
    QVERIFY(copyBlocksHost("Memcpy DtoH (Device -> Pinned)"));
    QVERIFY(copyBlocksHost("Memcpy HtoD (Pageable -> Device)"));
    QVERIFY(copyBlocksHost("Memcpy HtoD (Host -> Device)")); // HIP: any host memory
    QVERIFY(!copyBlocksHost("Memcpy HtoD (Pinned -> Device)"));
    QVERIFY(!copyBlocksHost("Memcpy DtoD (Device -> Device)"));
    QVERIFY(copyIsDeviceToDevice("Memcpy PtoP (Device -> Device)"));
}

void TestSyncInfer::blockingCopyWaitsForItsOwnCopy()
{
    // .item(): the DtoH copy (ev 2) queues behind a kernel (ev 1) and the call
    // (ev 3) returns 3 µs after the copy ends; the stream sync after it is instant.
    const std::string json = KinetoBuilder()
                                 .runtime("cudaLaunchKernel", 1, 100, 5, 1)                         // 0
                                 .kernel("gemm", 7, 106, 50, 1)                                     // 1
                                 .gpu("gpu_memcpy", "Memcpy DtoH (Device -> Pageable)", 7, 156, 4, 2) // 2
                                 .runtime("cudaMemcpyAsync", 1, 110, 53, 2)                         // 3
                                 .runtime("cudaStreamSynchronize", 1, 164, 1, 3)                    // 4
                                 .json();
    QCOMPARE(describe(edgesOf(json)), std::string("2->3 Blocking Copy inferred 50"));
}

void TestSyncInfer::stagedAndPinnedCopiesDoNotWait()
{
    const std::string json = KinetoBuilder()
                                 // pageable HtoD staged: returns before its copy ends
                                 .runtime("cudaMemcpyAsync", 1, 100, 6, 1)
                                 .gpu("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 7, 104, 20, 1)
                                 // pinned HtoD: asynchronous
                                 .runtime("cudaMemcpyAsync", 1, 200, 4, 2)
                                 .gpu("gpu_memcpy", "Memcpy HtoD (Pinned -> Device)", 7, 201, 2, 2)
                                 // device to device, even synchronous: the host does not wait
                                 .runtime("cudaMemcpy", 1, 300, 10, 3)
                                 .gpu("gpu_memcpy", "Memcpy DtoD (Device -> Device)", 7, 302, 5, 3)
                                 .json();
    QCOMPARE(describe(edgesOf(json)), std::string());
}

void TestSyncInfer::streamSyncWaitsForTheOpItsReturnExplains()
{
    const std::string json = KinetoBuilder()
                                 .runtime("cudaLaunchKernel", 1, 100, 5, 1) // 0
                                 .kernel("a", 7, 106, 30, 1)                // 1: ends 136
                                 .runtime("cudaLaunchKernel", 1, 110, 5, 2) // 2
                                 .kernel("b", 7, 136, 40, 2)                // 3: ends 176
                                 .runtime("cudaStreamSynchronize", 1, 120, 59, 3) // 4: returns at 179
                                 .json();
    QCOMPARE(describe(edgesOf(json)), std::string("3->4 Stream Sync inferred 56"));
}

void TestSyncInfer::callThatReturnedBeforeAnyEndWaitedForNothing()
{
    const std::string json = KinetoBuilder()
                                 .runtime("cudaLaunchKernel", 1, 100, 5, 1)
                                 .kernel("a", 7, 106, 30, 1) // ends 136
                                 .runtime("cudaStreamSynchronize", 1, 140, 2, 2)
                                 .runtime("cudaDeviceSynchronize", 1, 150, 2, 3)
                                 .json();
    QCOMPARE(describe(edgesOf(json)), std::string());
}

void TestSyncInfer::workLaunchedDuringTheCallIsNotAwaited()
{
    // Another thread launches c while thread 1 syncs: c cannot be what it waited for.
    const std::string json = KinetoBuilder()
                                 .runtime("cudaLaunchKernel", 1, 100, 5, 1)       // 0
                                 .kernel("a", 7, 106, 30, 1)                      // 1: ends 136
                                 .runtime("cudaStreamSynchronize", 1, 110, 29, 2) // 2: 110-139
                                 .runtime("cudaLaunchKernel", 2, 115, 3, 3)       // 3
                                 .kernel("c", 9, 120, 18, 3)                      // 4: ends 138
                                 .json();
    QCOMPARE(describe(edgesOf(json)), std::string("1->2 Stream Sync inferred 26"));
}

void TestSyncInfer::deviceSyncWaitsForEveryStream()
{
    const std::string json = KinetoBuilder()
                                 .runtime("cudaLaunchKernel", 1, 100, 5, 1)       // 0
                                 .kernel("a", 7, 106, 30, 1)                      // 1: ends 136
                                 .runtime("cudaLaunchKernel", 1, 110, 5, 2)       // 2
                                 .kernel("b", 9, 116, 40, 2)                      // 3: ends 156
                                 .runtime("cudaDeviceSynchronize", 1, 120, 39, 3) // 4: returns 159
                                 .json();
    QCOMPARE(describe(edgesOf(json)), std::string("1->4 Context Sync inferred 16; 3->4 Context Sync inferred 36"));
}

void TestSyncInfer::recordedRowsWinAndRowsWithoutEdgeAreFilled()
{
    // Call 2 has a Stream Sync row (recorded edge): nothing inferred for it.
    // Call 4 has an Event Sync row whose record is unknown (HTA links nothing) but
    // it blocked 40 µs until kernel b ended: inferred.
    const std::string json = KinetoBuilder()
                                 .runtime("cudaLaunchKernel", 1, 100, 5, 1)          // 0
                                 .kernel("a", 7, 106, 30, 1)                         // 1: ends 136
                                 .runtime("cudaStreamSynchronize", 1, 110, 29, 2)    // 2
                                 .sync("Stream Sync", 7, 110, 29, 2)                 // 3
                                 .runtime("cudaEventSynchronize", 1, 150, 44, 4)     // 4: 150-194
                                 .sync("Event Sync", -1, 150, 44, 4, 7, 999)         // 5
                                 .runtime("cudaLaunchKernel", 1, 140, 5, 6)          // 6
                                 .kernel("b", 7, 146, 44, 6)                         // 7: ends 190
                                 .json();
    QCOMPARE(describe(edgesOf(json)),
             std::string("1->2 Stream Sync 26; 7->4 Event Sync inferred 40"));
}

void TestSyncInfer::streamWaitNeedsAnOrderingCall()
{
    // b (stream 9) was launched at 112 but started at 168, 2 µs after a (stream 7)
    // ended: with the cudaStreamWaitEvent between the two launches it waited for a.
    auto trace = [](bool waitCall) {
        KinetoBuilder k;
        k.runtime("cudaLaunchKernel", 1, 100, 5, 1) // 0
            .kernel("a", 7, 106, 60, 1);            // 1: ends 166
        if (waitCall)
            k.runtime("cudaStreamWaitEvent", 1, 106, 2, 2);
        else
            k.runtime("cudaFuncGetAttributes", 1, 106, 2, 2);
        k.runtime("cudaLaunchKernel", 1, 112, 5, 3) // 3
            .kernel("b", 9, 168, 10, 3);            // 4
        return k.json();
    };
    QCOMPARE(describe(edgesOf(trace(true))), std::string("1->4 Stream Wait Event gpu inferred 54"));
    QCOMPARE(describe(edgesOf(trace(false))), std::string());
}

void TestSyncInfer::htaExactInfersNothing()
{
    const std::string json = KinetoBuilder()
                                 .runtime("cudaLaunchKernel", 1, 100, 5, 1)
                                 .kernel("a", 7, 106, 30, 1)
                                 .runtime("cudaStreamSynchronize", 1, 110, 29, 2)
                                 .json();
    QCOMPARE(edgesOf(json).size(), size_t(1));
    QCOMPARE(describe(edgesOf(json, /*htaExact=*/true)), std::string());
}

void TestSyncInfer::criticalPathFollowsInferredWait()
{
    // A step launches a 400 µs kernel, waits for it, then runs 300 µs of CPU work.
    // Without the inferred edge HTA's path ends with the kernel (the sync's own time
    // counts 0, and nothing says the CPU work came after the kernel); with it the
    // path runs through the kernel and on into the CPU work.
    const std::string json = KinetoBuilder()
                                 .cpu("aten::mm", 1, 100, 10)
                                 .runtime("cudaLaunchKernel", 1, 102, 5, 1) // 1
                                 .kernel("gemm", 7, 108, 400, 1)            // 2: ends 508
                                 .cpu("aten::item", 1, 112, 400)            // 3: 112-512
                                 .runtime("cudaStreamSynchronize", 1, 114, 397, 2) // 4: returns 511
                                 .cpu("optimizer", 1, 513, 300)             // 5
                                 .json();
    Diagnostics diag;
    auto t = cptest::loadInline(json, diag);
    QVERIFY(t);
    const CriticalPathResult exact = wholePath(*t, true);
    const CriticalPathResult def = wholePath(*t, false);
    QVERIFY(exact.success && def.success);
    QVERIFY(!onPath(exact, 5));
    QVERIFY(onPath(def, 2) && onPath(def, 5));
    QVERIFY2(def.weightUs > exact.weightUs + 250, qPrintable(QString("%1 vs %2").arg(def.weightUs).arg(exact.weightUs)));
    QCOMPARE(def.syncEdgesInferred.size(), size_t(1));
    QVERIFY(exact.syncEdgesInferred.empty());
    QVERIFY(def.percent("gpu_compute_bound") > 50);
}

// The session finds the sync edges on one thread while the critical path builds what does
// not depend on them on another (issue 40, class 11): edges handed over later through
// syncEdgesLater give the same path as edges given up front, and an exception from the
// finder reaches the waiting analysis instead of hanging it.
void TestSyncInfer::edgesGivenLaterFromAnotherThread()
{
    const std::string json = KinetoBuilder()
                                 .cpu("aten::mm", 1, 100, 10)
                                 .runtime("cudaLaunchKernel", 1, 102, 5, 1)
                                 .kernel("gemm", 7, 108, 400, 1)
                                 .cpu("aten::item", 1, 112, 400)
                                 .runtime("cudaStreamSynchronize", 1, 114, 397, 2)
                                 .cpu("optimizer", 1, 513, 300)
                                 .json();
    Diagnostics diag;
    auto t = cptest::loadInline(json, diag);
    QVERIFY(t);
    const CriticalPathResult upFront = wholePath(*t, false);
    std::promise<std::shared_ptr<const std::vector<SyncEdge>>> found;
    CriticalPathOptions o;
    o.annotation = "";
    o.syncEdgesLater = found.get_future().share();
    auto later = std::async(std::launch::async, [&] {
        Diagnostics d;
        return analyzeCriticalPath(*t, o, d);
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    Diagnostics syncDiag;
    found.set_value(std::make_shared<const std::vector<SyncEdge>>(findAllSyncEdges(*t, syncDiag, SyncOptions())));
    const CriticalPathResult r = later.get();
    QVERIFY(r.success);
    QCOMPARE(r.criticalEvents, upFront.criticalEvents);
    QCOMPARE(r.syncEdgesInferred, upFront.syncEdgesInferred);
    QCOMPARE(r.syncEdgesInferred.size(), size_t(1));

    std::promise<std::shared_ptr<const std::vector<SyncEdge>>> failed;
    o.syncEdgesLater = failed.get_future().share();
    auto stopped = std::async(std::launch::async, [&] {
        Diagnostics d;
        return analyzeCriticalPath(*t, o, d);
    });
    failed.set_exception(std::make_exception_ptr(std::bad_alloc()));
    QVERIFY_THROWS_EXCEPTION(std::bad_alloc, stopped.get());
}

void TestSyncInfer::graphReplayIsOnThePath()
{
    // One cudaGraphLaunch replays 4 kernels on two streams; the CPU returns long
    // before the GPU ends (an async decode step).
    const std::string json = KinetoBuilder()
                                 .cpu("decode_step", 1, 100, 30)
                                 .runtime("cudaGraphLaunch", 1, 105, 10, 1) // 1
                                 .kernel("k0", 7, 120, 100, 1)              // 2
                                 .kernel("k1", 7, 221, 100, 1)              // 3
                                 .kernel("k2", 9, 322, 100, 1)              // 4 (waits for k1 inside the graph)
                                 .kernel("k3", 9, 423, 100, 1)              // 5: the last end, 523
                                 .json();
    Diagnostics diag;
    auto t = cptest::loadInline(json, diag);
    QVERIFY(t);
    const CriticalPathResult def = wholePath(*t, false);
    QVERIFY(def.success);
    for (uint32_t k : {2u, 3u, 4u, 5u})
        QVERIFY2(onPath(def, k), qPrintable(QString("kernel %1 off the path").arg(k)));
    const int32_t last = def.pathNodes.back();
    QCOMPARE(def.graph.nodeEvent[last], 5);
    QCOMPARE(def.graph.nodeTime[last] + 100.0, 523.0); // HTA-relative (0 = ts 100)
    QVERIFY(def.percent("gpu_compute_bound") > 90);
    // HTA: the graph launch is no launch, one kernel per correlation, a CPU-only path.
    const CriticalPathResult exact = wholePath(*t, true);
    QVERIFY(exact.success);
    QVERIFY(exact.weightUs < def.weightUs / 2);
}

void TestSyncInfer::everyLaunchApiLaunches()
{
    // hipExtLaunchKernel is not in HTA's list: only the default mode gives its
    // kernel a launch edge.
    const std::string json = KinetoBuilder()
                                 .cpu("nccl:all_reduce", 1, 100, 20)
                                 .runtime("hipExtLaunchKernel", 1, 102, 10, 1)
                                 .kernel("ncclDevKernel_AllReduce", 7, 150, 300, 1)
                                 .json();
    Diagnostics diag;
    auto t = cptest::loadInline(json, diag);
    QVERIFY(t);
    const CriticalPathResult def = wholePath(*t, false);
    const CriticalPathResult exact = wholePath(*t, true);
    QVERIFY(def.success && exact.success);
    QCOMPARE(def.edgeCountsByType()[size_t(CpEdgeType::KernelLaunchDelay)], size_t(1));
    QCOMPARE(exact.edgeCountsByType()[size_t(CpEdgeType::KernelLaunchDelay)], size_t(0));
    QVERIFY(def.weightUs >= 350 - 1e-9); // 100 -> 102 in the op, 102 -> 150 launch, 300 kernel
    QVERIFY(exact.weightUs < 301);         // the kernel alone
}

void TestSyncInfer::bundledGraphTrace()
{
    // tests/data/device/tracegen_graphs_no_sync: no cuda_sync rows, a graph replay per
    // step over 3 streams, blocking copies. By default the replayed kernels are on the
    // whole-trace path and it ends at the last GPU op; HTA keeps at most one kernel
    // of each replay and no sync edge.
    Diagnostics diag;
    auto t = cptest::load(testutil::fixture("device/tracegen_graphs_no_sync.kineto.json.gz"), diag);
    QVERIFY(t);
    std::vector<int64_t> graphCorr;
    double gpuEnd = 0;
    for (const KinetoEvent &e : t->events) {
        if (e.kind == EventKind::Runtime && classifyRuntimeApi(t->str(e.name)) == RuntimeApi::GraphLaunch)
            graphCorr.push_back(e.correlation);
        if (isGpuActivity(e.kind))
            gpuEnd = std::max(gpuEnd, e.end());
    }
    QCOMPARE(graphCorr.size(), size_t(2));
    auto replayedOnPath = [&](const CriticalPathResult &r) {
        size_t n = 0;
        for (uint32_t ev : r.criticalEvents)
            n += isGpuActivity(t->events[ev].kind) &&
                         std::count(graphCorr.begin(), graphCorr.end(), t->events[ev].correlation)
                     ? 1
                     : 0;
        return n;
    };
    const std::vector<SyncEdge> edges = findAllSyncEdges(*t, diag);
    const SyncWaitTotals totals = syncWaitTotals(edges);
    QVERIFY(totals.byKind[size_t(SyncKind::BlockingCopy)].inferred > 0);
    QVERIFY(totals.byKind[size_t(SyncKind::StreamWaitEvent)].inferred > 0);
    QCOMPARE(totals.inferredEdges(), edges.size());
    const CriticalPathResult def = wholePath(*t, false);
    const CriticalPathResult exact = wholePath(*t, true);
    QVERIFY(def.success && exact.success);
    QVERIFY2(replayedOnPath(def) >= 10, qPrintable(QString::number(replayedOnPath(def))));
    QVERIFY(replayedOnPath(exact) <= 2);
    const int32_t last = def.pathNodes.back();
    QVERIFY(std::abs(def.graph.nodeTime[last] + def.window.startAbsUs - gpuEnd) <= 1.0);
    QVERIFY(exact.syncEdges.empty());
}

QTEST_GUILESS_MAIN(TestSyncInfer)
#include "tst_syncinfer.moc"
