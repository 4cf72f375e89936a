// SPDX-License-Identifier: MIT
// Bad device traces give clear diagnostics and sensible results, never a crash
// (issue 3 "Bad input"). Tiny inline traces; expected paths worked out by hand.
#include "analysis/syncedges.h"
#include "cptestutil.h"
#include "export/overlaywriter.h"

#include <nlohmann/json.hpp>

using namespace syncscope;

namespace {

// Three events, no args anywhere: ProfilerStep#1 [0,100] > aten::a [10,40], aten::b [50,70].
const char *kCpuOnly = R"({"traceEvents":[
 {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100},
 {"ph":"X","cat":"cpu_op","name":"aten::a","pid":1,"tid":1,"ts":10,"dur":30},
 {"ph":"X","cat":"cpu_op","name":"aten::b","pid":1,"tid":1,"ts":50,"dur":20}
]})";

std::string pathText(const CriticalPathResult &r)
{
    std::string s;
    for (int32_t n : r.pathNodes)
        s += (s.empty() ? "" : " ") + std::to_string(r.graph.nodeEvent[n]) + (r.graph.nodeIsStart[n] ? "S" : "E");
    return s;
}

bool has(const Diagnostics &d, const char *code, Severity s)
{
    const Diagnostic *x = d.find(code);
    return x && x->severity == s;
}

} // namespace

class TestCpBadInput : public QObject
{
    Q_OBJECT
private slots:
    void noGpuEvents();
    void noCpuEvents();
    void unknownAnnotation();
    void eventsWithoutArgs();
    void negativeAndMissingDurations();
    void flowsWithoutStartOrEnd();
    void correlationsPointingNowhere();
    void instanceOutOfRange();
    void graphWithoutEdges();
    void noRowsAtAll();
};

void TestCpBadInput::noGpuEvents()
{
    Diagnostics diag;
    auto t = cptest::loadInline(kCpuOnly, diag);
    QVERIFY(t);
    const CriticalPathResult r = analyzeCriticalPath(*t, {}, diag);
    QVERIFY(r.success);
    QCOMPARE(pathText(r), std::string("1S 1E 2S 2E"));
    QCOMPARE(r.weightUs, 50.0);
    QCOMPARE(cptest::counts(r.edgeCountsByType()), std::string("2/1/0/0/0"));
    QCOMPARE(r.percent("cpu_bound"), 100.0);
    QVERIFY(has(diag, "cpa.no_gpu_events", Severity::Warning));
    QVERIFY(has(diag, "kineto.no_cuda_sync", Severity::Warning));
    QVERIFY(!diag.hasErrors());
}

void TestCpBadInput::noCpuEvents()
{
    Diagnostics diag;
    auto t = cptest::loadInline(R"({"traceEvents":[
 {"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":10,"dur":5,"args":{"stream":7,"correlation":1}},
 {"ph":"X","cat":"kernel","name":"k2","pid":0,"tid":7,"ts":20,"dur":5,"args":{"stream":7,"correlation":2}}
]})",
                                diag);
    QVERIFY(t);
    const CriticalPathResult r = analyzeCriticalPath(*t, {}, diag);
    QVERIFY(!r.success);
    QCOMPARE(r.reason, std::string("the graph has no edges"));
    QVERIFY(r.window.wholeTrace);
    QCOMPARE(r.graph.nodeCount(), 0);
    QVERIFY(has(diag, "cpa.no_cpu_events", Severity::Warning));
    QVERIFY(has(diag, "cpa.unlinked_gpu", Severity::Warning));
    QVERIFY(diag.find("cpa.unlinked_gpu")->message.find("2 GPU activities") != std::string::npos);
    QVERIFY(has(diag, "cpa.failed", Severity::Error));
    // Nothing to overlay, and that is an error too, not a crash.
    Diagnostics d2;
    QVERIFY(!writeOverlay(testutil::tempDir() + "/o.json", *t, r, {}, d2));
    QVERIFY(has(d2, "export.overlay", Severity::Error));
}

void TestCpBadInput::unknownAnnotation()
{
    Diagnostics diag;
    auto t = cptest::load(testutil::fixture("golden/critical_path/mini_trace.json"), diag);
    QVERIFY(t);
    CriticalPathOptions o;
    o.annotation = "NoSuchStep";
    const CriticalPathResult r = analyzeCriticalPath(*t, o, diag);
    QVERIFY(r.success);
    QVERIFY(r.window.wholeTrace);
    QVERIFY(!r.window.annotationFound);
    QCOMPARE(r.window.instanceCount, 0);
    QVERIFY(std::isinf(r.window.endUs));
    // The step covers the whole mini trace: HTA's 14 nodes, then the trace's last op (a
    // cudaEventSynchronize no edge reaches, weight 0) joined in time order (default mode).
    QCOMPARE(r.pathNodes.size(), size_t(16));
    QCOMPARE(r.stitchJoins, 1);
    QCOMPARE(r.weightUs, 112.0);
    QVERIFY(has(diag, "cpa.annotation_not_found", Severity::Warning));
    QVERIFY(diag.find("cpa.annotation_not_found")->message.find("NoSuchStep") != std::string::npos);
}

void TestCpBadInput::eventsWithoutArgs()
{
    // Without args there are no correlations or streams: the kernel is a stream -1
    // row and cannot be linked; "args": 5 is ignored by the parser with a warning.
    Diagnostics diag;
    auto t = cptest::loadInline(R"({"traceEvents":[
 {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":10,"dur":30},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":15,"dur":10,"args":5},
 {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":30,"dur":40}
]})",
                                diag);
    QVERIFY(t);
    CriticalPathOptions o;
    o.annotation = "";
    const CriticalPathResult r = analyzeCriticalPath(*t, o, diag);
    QVERIFY(r.success);
    QCOMPARE(pathText(r), std::string("0S 1S 1E 0E"));
    QCOMPARE(r.weightUs, 30.0);
    QCOMPARE(r.summary.size(), size_t(1));
    QCOMPARE(r.percent("cpu_bound"), 100.0);
    QVERIFY(has(diag, "cpa.unlinked_gpu", Severity::Warning));
    QVERIFY(has(diag, "kineto.args_not_object", Severity::Warning));
}

void TestCpBadInput::negativeAndMissingDurations()
{
    const char *json = R"({"traceEvents":[
 {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":200},
 {"ph":"X","cat":"cpu_op","name":"aten::neg","pid":1,"tid":1,"ts":10,"dur":-5},
 {"ph":"X","cat":"cpu_op","name":"aten::nodur","pid":1,"tid":1,"ts":20},
 {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":30,"dur":30},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":35,"dur":10,"args":{"correlation":1}},
 {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":50,"dur":-3,"args":{"stream":7,"correlation":1}}
]})";
    Diagnostics diag;
    auto t = cptest::loadInline(json, diag);
    QVERIFY(t);
    const CriticalPathResult r = analyzeCriticalPath(*t, {}, diag);
    QVERIFY(r.success);
    QCOMPARE(r.loadedRows, size_t(5));  // the event without dur is not a row
    QCOMPARE(r.clippedRows, size_t(4)); // the negative CPU op is not clipped (HTA #116)
    // gemm's own edge weighs -3: it is counted as 0; the launch path (5 + 15 = 20) loses to mm (30).
    QCOMPARE(pathText(r), std::string("3S 4S 4E 3E"));
    QCOMPARE(r.weightUs, 30.0);
    bool sawNegative = false;
    for (int32_t e = 0; e < r.graph.edgeCount(); ++e)
        sawNegative |= r.graph.edgeWeight[e] == -3.0 && r.graph.edgeType[e] == CpEdgeType::OperatorKernel;
    QVERIFY(sawNegative);
    QVERIFY(has(diag, "cpa.negative_weight", Severity::Warning));
    QVERIFY(has(diag, "cpa.missing_dur", Severity::Warning));
    QVERIFY(has(diag, "kineto.negative_dur", Severity::Warning));
    // With HTA's strict check the graph is rejected.
    CriticalPathOptions strict;
    strict.strictNegativeWeights = true;
    Diagnostics d2;
    const CriticalPathResult s = analyzeCriticalPath(*t, strict, d2);
    QVERIFY(!s.success);
    QCOMPARE(s.reason, std::string("1 edges have a weight below -1 µs (strict check)"));
    QVERIFY(has(d2, "cpa.failed", Severity::Error));
}

void TestCpBadInput::flowsWithoutStartOrEnd()
{
    // Dangling ac2g flow events are not rows: the result equals the flow-free trace's,
    // and the overlay keeps them (non-X events are always kept).
    std::string json = kCpuOnly;
    json.insert(json.rfind(']'), R"(,
 {"ph":"s","id":5,"pid":1,"tid":1,"ts":12,"cat":"ac2g","name":"ac2g"},
 {"ph":"f","id":9,"pid":0,"tid":7,"ts":60,"cat":"ac2g","name":"ac2g","bp":"e"})");
    Diagnostics diag;
    auto t = cptest::loadInline(json, diag);
    QVERIFY(t);
    QCOMPARE(t->events.size(), size_t(5));
    const CriticalPathResult r = analyzeCriticalPath(*t, {}, diag);
    QVERIFY(r.success);
    QCOMPARE(pathText(r), std::string("1S 1E 2S 2E"));
    QCOMPARE(r.weightUs, 50.0);
    const std::string out = testutil::tempDir() + "/o.json";
    QVERIFY(writeOverlay(out, *t, r, {}, diag));
    const auto doc = nlohmann::json::parse(testutil::readText(out));
    // ProfilerStep + 2 critical ops + 2 dangling flows + 1 dependency flow pair.
    QCOMPARE(doc["traceEvents"].size(), size_t(7));
    QCOMPARE(doc["traceEvents"][1]["args"]["critical"].get<int>(), 1);
    QVERIFY(!doc["traceEvents"][0].contains("args"));
}

void TestCpBadInput::correlationsPointingNowhere()
{
    const char *json = R"({"traceEvents":[
 {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":200},
 {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":10,"dur":90},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":20,"dur":10,"args":{"correlation":99}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaStreamSynchronize","pid":1,"tid":1,"ts":40,"dur":20,"args":{"correlation":55}},
 {"ph":"X","cat":"cuda_sync","name":"Stream Sync","pid":0,"tid":7,"ts":41,"dur":18,"args":{"stream":7,"correlation":56}},
 {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":50,"dur":10,"args":{"stream":7,"correlation":77}}
]})";
    Diagnostics diag;
    auto t = cptest::loadInline(json, diag);
    QVERIFY(t);
    const CriticalPathResult r = analyzeCriticalPath(*t, {}, diag);
    QVERIFY(r.success);
    // mm > launch (10) > stream sync (blocking: 0) > back to mm (40).
    QCOMPARE(pathText(r), std::string("1S 2S 2E 3S 3E 1E"));
    QCOMPARE(r.weightUs, 70.0);
    QVERIFY(r.syncEdges.empty());
    QVERIFY(has(diag, "cpa.unlinked_gpu", Severity::Warning));
    Diagnostics d2;
    // The row links to no call (no recorded edge); the call itself blocked until the kernel
    // ended, and a kernel whose launch is not in the trace counts as queued before it
    // (issue 38: ops queued before the profiler started), so the wait is inferred.
    const std::vector<SyncEdge> edges = findAllSyncEdges(*t, d2);
    QCOMPARE(edges.size(), size_t(1));
    QVERIFY(edges[0].inferred && !edges[0].gpuToGpu);
    QCOMPARE(edges[0].src, 5u);
    QCOMPARE(edges[0].dst, 3u);
    QVERIFY(has(d2, "sync.unlinked_call", Severity::Warning));
}

void TestCpBadInput::instanceOutOfRange()
{
    Diagnostics diag;
    auto t = cptest::load(testutil::fixture("golden/critical_path/mini_trace.json"), diag);
    QVERIFY(t);
    CriticalPathOptions o;
    o.instanceFirst = o.instanceLast = 3;
    const CriticalPathResult r = analyzeCriticalPath(*t, o, diag);
    QVERIFY(!r.success);
    QCOMPARE(r.reason, std::string("instance 3 is out of range: \"ProfilerStep\" has 1 instances (0..0)"));
    QVERIFY(has(diag, "cpa.instance_out_of_range", Severity::Error));
    QCOMPARE(r.graph.nodeCount(), 0);
    // A range running past the end is clamped (HTA slices), with a warning.
    Diagnostics d2;
    o.instanceFirst = 0;
    o.instanceLast = 5;
    const CriticalPathResult c = analyzeCriticalPath(*t, o, d2);
    QVERIFY(c.success);
    QCOMPARE(c.window.instanceLast, 0);
    QCOMPARE(c.weightUs, 112.0);
    QVERIFY(has(d2, "cpa.instance_clamped", Severity::Warning));
}

void TestCpBadInput::graphWithoutEdges()
{
    Diagnostics diag;
    auto t = cptest::loadInline(
        R"({"traceEvents":[{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":10}]})",
        diag);
    QVERIFY(t);
    const CriticalPathResult r = analyzeCriticalPath(*t, {}, diag);
    QVERIFY(!r.success);
    QCOMPARE(r.reason, std::string("the graph has no edges"));
    QCOMPARE(r.clippedRows, size_t(1));
    QVERIFY(r.pathNodes.empty());
    QVERIFY(has(diag, "cpa.failed", Severity::Error));
}

void TestCpBadInput::noRowsAtAll()
{
    Diagnostics diag;
    auto t = cptest::loadInline(R"({"traceEvents":[{"ph":"M","name":"process_name","pid":1,"args":{"name":"x"}},
 {"ph":"X","cat":"cpu_op","name":"no_ts","pid":1,"tid":1,"dur":5}]})",
                                diag);
    QVERIFY(t);
    const CriticalPathResult r = analyzeCriticalPath(*t, {}, diag);
    QVERIFY(!r.success);
    QCOMPARE(r.reason, std::string("the trace has no events with ts, dur and cat"));
    QVERIFY(has(diag, "cpa.missing_ts", Severity::Warning));
    QVERIFY(analyzeAllSteps(*t, {}, diag).empty());
    QVERIFY(has(diag, "cpa.no_steps", Severity::Warning));
}

QTEST_GUILESS_MAIN(TestCpBadInput)
#include "tst_cpbadinput.moc"
