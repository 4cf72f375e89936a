// SPDX-License-Identifier: MIT
// Whole-trace sync edges (findAllSyncEdges): the edges of every sync kind, the
// measured waits (hand-computed from the traces), per-kind totals, and the
// "no cuda_sync events" diagnostic.
#include "analysis/syncedges.h"
#include "cptestutil.h"
#include "tracegen.h"

#include <map>

using namespace syncscope;

namespace {

// "src->dst kind wait" per edge, in sweep order.
std::string describe(const std::vector<SyncEdge> &edges)
{
    return cptest::syncEdgeList(edges);
}

} // namespace

class TestSyncEdges : public QObject
{
    Q_OBJECT
private slots:
    void miniTrace();
    void eventSyncTrace();
    void multiStreamTrace();
    void joinOfSeveralStreams_data();
    void joinOfSeveralStreams();
    void matchesCriticalPathSyncEdges();
    void noCudaSyncDiagnostic();
};

void TestSyncEdges::miniTrace()
{
    // mini_trace.json: gemm_a (1030-1070, stream 7) is awaited by add_b's stream 8
    // (add_b launched at 1058, ran at 1075: 12 µs waiting for gemm_a); cudaDeviceSynchronize
    // (1130-1155) waits 20 µs for relu_c (ends 1150); the other calls return at once.
    Diagnostics diag;
    auto t = cptest::load(testutil::fixture("golden/critical_path/mini_trace.json"), diag);
    QVERIFY(t);
    const std::vector<SyncEdge> edges = findAllSyncEdges(*t, diag);
    QCOMPARE(describe(edges), std::string("3->9 Stream Wait Event gpu 12; 9->10 Stream Sync 0; "
                                          "14->15 Context Sync 20; 9->15 Context Sync 0; 14->18 Event Sync 0"));
    QCOMPARE(edges[0].syncEvent, 6u);
    QCOMPARE(edges[2].syncEvent, 16u);
    const SyncWaitTotals totals = syncWaitTotals(edges);
    const auto &ctx = totals.byKind[size_t(SyncKind::ContextSync)];
    QCOMPARE(ctx.edges, size_t(2));
    QCOMPARE(ctx.calls, size_t(1));
    QCOMPARE(ctx.waitUs, 20.0);
    QCOMPARE(totals.byKind[size_t(SyncKind::StreamWaitEvent)].waitUs, 12.0);
    QCOMPARE(totals.byKind[size_t(SyncKind::EventSync)].calls, size_t(1));
    QCOMPARE(totals.totalWaitUs(), 32.0);
    QVERIFY(!diag.find("kineto.no_cuda_sync"));
}

void TestSyncEdges::eventSyncTrace()
{
    // cudaEventSynchronize (ts ...382) waits for spin_kernel (372 + 36 = 408): 26 µs;
    // cudaEventQuery, cudaStreamSynchronize and cudaDeviceSynchronize find the work done.
    Diagnostics diag;
    auto t = cptest::load(testutil::fixture("device/hta_cuda_event_sync.kineto.json.gz"), diag);
    QVERIFY(t);
    const std::vector<SyncEdge> edges = findAllSyncEdges(*t, diag, SyncOptions{true});
    QCOMPARE(describe(edges), std::string("23->29 Stream Sync 0; 33->41 Event Sync 26; 33->45 Event Sync 0; "
                                          "33->51 Context Sync 0"));
    // By default also the .item() copy (cudaMemcpyAsync 25, ...252 + 29) that waited
    // 20 µs for its own DtoH copy (ev 23, ends ...272): Kineto writes no row for it.
    const std::vector<SyncEdge> all = findAllSyncEdges(*t, diag);
    QCOMPARE(describe(all), describe(edges) + "; 23->25 Blocking Copy inferred 20");
    QVERIFY(all.back().inferred && !all.front().inferred);
    QCOMPARE(syncWaitTotals(all).inferredEdges(), size_t(1));
    QCOMPARE(syncWaitTotals(all).byKind[size_t(SyncKind::EventSync)].recorded, size_t(2));
    const SyncWaitTotals totals = syncWaitTotals(edges);
    QCOMPARE(totals.byKind[size_t(SyncKind::EventSync)].edges, size_t(2));
    QCOMPARE(totals.byKind[size_t(SyncKind::EventSync)].calls, size_t(2));
    QCOMPARE(totals.byKind[size_t(SyncKind::EventSync)].waitUs, 26.0);
    QCOMPARE(totals.totalWaitUs(), 26.0);
}

void TestSyncEdges::multiStreamTrace()
{
    // HTA #117: the record waited on by the Stream Wait Event (corr 1385) maps to the
    // launch of kernel 24 on stream 20, not to the later kernel 54 on stream 28.
    // cudaDeviceSynchronize (...166, 20 µs) waits 7 µs for kernel 90 (ends ...173).
    Diagnostics diag;
    auto t = cptest::load(testutil::fixture("device/hta_cuda_event_sync_multi_stream.kineto.json.gz"), diag);
    QVERIFY(t);
    const std::vector<SyncEdge> edges = findAllSyncEdges(*t, diag);
    QCOMPARE(describe(edges), std::string("24->46 Event Sync 0; 54->82 Event Sync 0; 24->84 Stream Wait Event gpu 0; "
                                          "24->104 Context Sync 0; 54->104 Context Sync 0; 90->104 Context Sync 7"));
    const SyncWaitTotals totals = syncWaitTotals(edges);
    QCOMPARE(totals.byKind[size_t(SyncKind::ContextSync)].edges, size_t(3));
    QCOMPARE(totals.byKind[size_t(SyncKind::ContextSync)].calls, size_t(1));
    QCOMPARE(totals.byKind[size_t(SyncKind::ContextSync)].waitUs, 7.0);
    QCOMPARE(totals.byKind[size_t(SyncKind::StreamWaitEvent)].edges, size_t(1));
}

void TestSyncEdges::joinOfSeveralStreams_data()
{
    QTest::addColumn<int>("streams");
    QTest::addColumn<bool>("reverse");
    QTest::newRow("3 streams") << 3 << false;
    QTest::newRow("3 streams, joined last to first") << 3 << true;
    QTest::newRow("5 streams, joined last to first") << 5 << true;
}

// A kernel after a join waits on every branch (one Stream Wait Event each). HTA keeps the
// last one recorded; by default every one is a sync edge, the waits adding up to the one
// gap, and the critical path follows the branch that ended last (recorded last or not).
void TestSyncEdges::joinOfSeveralStreams()
{
    QFETCH(int, streams);
    QFETCH(bool, reverse);
    tracegen::Options g;
    g.prefix = testutil::tempDir() + "/join" + std::to_string(streams) + (reverse ? "r" : "");
    g.steps = 3;
    g.layers = 2;
    g.seed = 5;
    g.streams = streams;
    g.reverseJoins = reverse;
    const tracegen::Result pair = tracegen::generate(g);
    Diagnostics diag;
    auto t = cptest::load(pair.devicePath, diag);
    QVERIFY(t);
    const std::vector<SyncEdge> every = findAllSyncEdges(*t, diag), hta = findAllSyncEdges(*t, diag, SyncOptions{true});
    std::map<uint32_t, std::vector<const SyncEdge *>> byDst, htaByDst;
    for (const SyncEdge &e : every)
        if (e.kind == SyncKind::StreamWaitEvent && !e.inferred) // the rows' edges, not those inferred besides
            byDst[e.dst].push_back(&e);
    for (const SyncEdge &e : hta)
        if (e.kind == SyncKind::StreamWaitEvent)
            htaByDst[e.dst].push_back(&e);
    QCOMPARE(byDst.size(), htaByDst.size()); // the same kernels wait; only how many edges each
    CriticalPathOptions o;
    o.annotation = "";
    const CriticalPathResult path = analyzeCriticalPath(*t, o, diag);
    o.htaExact = true;
    const CriticalPathResult htaPath = analyzeCriticalPath(*t, o, diag);
    QVERIFY(path.success && htaPath.success);
    auto has = [](const CriticalPathResult &r, uint32_t src, uint32_t dst) {
        return std::find(r.syncEdges.begin(), r.syncEdges.end(), std::make_pair(src, dst)) != r.syncEdges.end();
    };
    size_t joins = 0, lastNotLatest = 0;
    for (const auto &[dst, edges] : byDst) {
        QCOMPARE(htaByDst[dst].size(), size_t(1));
        const SyncEdge &h = *htaByDst[dst].front();
        if (edges.size() < 2) {
            QCOMPARE(edges.front()->src, h.src);
            continue;
        }
        ++joins;
        const SyncEdge *latest = edges.front();
        double sum = 0;
        for (const SyncEdge *e : edges) {
            sum += e->waitUs;
            if (t->events[e->src].end() > t->events[latest->src].end())
                latest = e;
        }
        QVERIFY(std::any_of(edges.begin(), edges.end(), [&](const SyncEdge *e) { return e->src == h.src; }));
        if (latest->src == h.src) {
            QVERIFY2(std::fabs(sum - h.waitUs) < 1e-6, qPrintable(QString("%1 vs %2").arg(sum).arg(h.waitUs)));
        } else {
            ++lastNotLatest;
            QVERIFY(sum >= h.waitUs - 1e-6);
        }
        if (has(htaPath, h.src, dst)) { // in both windows: HTA's last recorded, ours the latest ending
            QVERIFY(has(path, latest->src, dst));
            QVERIFY(latest->src == h.src || !has(path, h.src, dst));
        }
    }
    QVERIFY(joins >= 3);
    if (reverse)
        QVERIFY(lastNotLatest > 0);
    else
        QCOMPARE(lastNotLatest, size_t(0));
}

void TestSyncEdges::matchesCriticalPathSyncEdges()
{
    // On a whole-trace window the sweep gives the same edges as HTA's analysis
    // (spec 4.3 e2e: 16 Stream Syncs, 1 + 4 + 4 Context Sync edges).
    Diagnostics diag;
    auto t = cptest::load(testutil::fixture("device/hta_cpa_simple_add.kineto.json.gz"), diag);
    QVERIFY(t);
    const std::vector<SyncEdge> edges = findAllSyncEdges(*t, diag, SyncOptions{true});
    QCOMPARE(edges.size(), size_t(25));
    CriticalPathOptions o;
    o.annotation = "";
    o.htaExact = true;
    const CriticalPathResult r = analyzeCriticalPath(*t, o, diag);
    QVERIFY(r.success);
    std::vector<std::pair<uint32_t, uint32_t>> pairs;
    for (const SyncEdge &e : edges)
        pairs.emplace_back(e.src, e.dst);
    QCOMPARE(cptest::syncList(pairs), cptest::syncList(r.syncEdges));
    const SyncWaitTotals totals = syncWaitTotals(edges);
    QCOMPARE(totals.byKind[size_t(SyncKind::StreamSync)].edges, size_t(16));
    QCOMPARE(totals.byKind[size_t(SyncKind::ContextSync)].edges, size_t(9));
    QCOMPARE(totals.byKind[size_t(SyncKind::ContextSync)].calls, size_t(5));
    QCOMPARE(totals.byKind[size_t(SyncKind::StreamWaitEvent)].edges, size_t(0)); // no record ids (old trace)

    // The default mode: the same recorded edges, plus inferred ones, in both places.
    const std::vector<SyncEdge> all = findAllSyncEdges(*t, diag);
    QVERIFY(all.size() > edges.size());
    o.htaExact = false;
    const CriticalPathResult d = analyzeCriticalPath(*t, o, diag);
    QVERIFY(d.success);
    std::vector<std::pair<uint32_t, uint32_t>> allPairs, inferredPairs;
    for (const SyncEdge &e : all) {
        allPairs.emplace_back(e.src, e.dst);
        if (e.inferred)
            inferredPairs.emplace_back(e.src, e.dst);
    }
    QCOMPARE(cptest::syncList(allPairs), cptest::syncList(d.syncEdges));
    QCOMPARE(cptest::syncList(inferredPairs), cptest::syncList(d.syncEdgesInferred));
}

void TestSyncEdges::noCudaSyncDiagnostic()
{
    Diagnostics diag;
    auto t = cptest::load(testutil::fixture("device/hta_amd_mi250_rocm6.2.kineto.json.gz"), diag);
    QVERIFY(t);
    QVERIFY(!diag.find("kineto.no_cuda_sync"));
    QVERIFY(findAllSyncEdges(*t, diag, SyncOptions{true}).empty());
    const Diagnostic *d = diag.find("kineto.no_cuda_sync");
    QVERIFY(d);
    QCOMPARE(d->severity, Severity::Warning);
    QVERIFY(d->message.find("enable_cuda_sync_events=True") != std::string::npos);
    QVERIFY(d->message.find("_ExperimentalConfig") != std::string::npos);
    QVERIFY(d->message.find("--hta-exact") != std::string::npos);
    // The critical-path analysis says the same.
    Diagnostics diag2;
    analyzeCriticalPath(*t, {}, diag2);
    QVERIFY(diag2.find("kineto.no_cuda_sync"));
    // By default the two hipMemcpyWithStream copies that blocked are inferred, and
    // the diagnostics say so and why.
    Diagnostics diag3;
    const std::vector<SyncEdge> inferred = findAllSyncEdges(*t, diag3);
    QCOMPARE(inferred.size(), size_t(2));
    QCOMPARE(syncWaitTotals(inferred).byKind[size_t(SyncKind::BlockingCopy)].inferred, size_t(2));
    const Diagnostic *w = diag3.find("kineto.no_cuda_sync");
    QVERIFY(w && w->message.find("inferred from the runtime calls") != std::string::npos);
    const Diagnostic *i = diag3.find("sync.inferred");
    QVERIFY(i && i->message.find("2 sync edges inferred") != std::string::npos);
    QVERIFY(i->message.find("2 from blocking copies") != std::string::npos);
}

QTEST_GUILESS_MAIN(TestSyncEdges)
#include "tst_syncedges.moc"
