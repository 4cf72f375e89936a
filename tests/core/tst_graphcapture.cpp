// SPDX-License-Identifier: MIT
// CUDA/HIP graph capture <-> replay (issue 38): a replayed kernel takes the CPU op,
// input shapes and Python stack of its captured launch. The real SGLang decode pair
// (HIP on MI300X: 544 launches captured, one hipGraphLaunch replaying 544 kernels)
// and small inline pairs for the refusals.
#include "analysis/graphcapture.h"
#include "cptestutil.h"
#include "session/analysis.h"

#include <QtTest>

using namespace syncscope;

namespace {

// A capture of `names` (with or without the kernel arg) and a replay of `replayed`.
std::string captureJson(const std::vector<std::string> &names, bool namedRows)
{
    std::string s = R"({"traceEvents": [
      {"ph": "X", "cat": "python_function", "name": "model.py(10): forward", "pid": 1, "tid": 1, "ts": 0, "dur": 1000},
      {"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamBeginCapture", "pid": 1, "tid": 1, "ts": 1, "dur": 1, "args": {"correlation": 1}})";
    double ts = 10;
    for (size_t k = 0; k < names.size(); ++k, ts += 20) {
        const std::string ext = std::to_string(100 + k), corr = std::to_string(10 + k);
        s += R"(, {"ph": "X", "cat": "cpu_op", "name": "aten::op)" + std::to_string(k) + R"(", "pid": 1, "tid": 1, "ts": )" +
             std::to_string(ts) + R"(, "dur": 15, "args": {"External id": )" + ext + R"(, "Input Dims": [[4, 8]]}})";
        s += R"(, {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": )" +
             std::to_string(ts + 2) + R"(, "dur": 5, "args": {"External id": )" + ext + R"(, "correlation": )" + corr +
             (namedRows ? R"(, "kernel": ")" + names[k] + "\"" : std::string()) + "}}";
    }
    s += R"(, {"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamEndCapture", "pid": 1, "tid": 1, "ts": )" +
         std::to_string(ts) + R"(, "dur": 1, "args": {"correlation": 2}}]})";
    return s;
}

std::string replayJson(const std::vector<std::string> &names)
{
    std::string s = R"({"traceEvents": [
      {"ph": "X", "cat": "cpu_op", "name": "decode_step", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
      {"ph": "X", "cat": "cuda_runtime", "name": "cudaGraphLaunch", "pid": 1, "tid": 1, "ts": 5, "dur": 10, "args": {"correlation": 77}})";
    double ts = 20;
    for (const std::string &n : names) {
        s += R"(, {"ph": "X", "cat": "kernel", "name": ")" + n + R"(", "pid": 0, "tid": 7, "ts": )" + std::to_string(ts) +
             R"(, "dur": 8, "args": {"stream": 7, "correlation": 77}})";
        ts += 10;
    }
    return s + "]}";
}

std::shared_ptr<KinetoTrace> loadRaw(const std::string &json, const std::string &name)
{
    const std::string path = testutil::tempDir() + "/" + name;
    testutil::writeText(path, json);
    Diagnostics diag;
    LoadOptions o;
    o.keepRawEvents = true;
    LoadedTrace t = loadTrace(path, diag, o);
    return t.device;
}

} // namespace

class TestGraphCapture : public QObject
{
    Q_OBJECT
private slots:
    void realSglangPair();
    void foundBesideTheReplay();
    void orderAndNames();
    void otherSizeIsRefused();
    void otherKernelsAreRefused();
    void unnamedRowsMatchByOrder();
};

void TestGraphCapture::realSglangPair()
{
    REQUIRE_SHARED_DATA();
    AnalysisRequest r;
    r.devicePath = testutil::sharedData("device_only/tracelens_sglang_decode_replay.kineto.json.gz");
    r.graphCapturePath = testutil::sharedData("device_only/tracelens_sglang_decode_capture.kineto.json.gz");
    const auto a = runAnalysis(r);
    QVERIFY(a->inputsOk);
    QVERIFY(a->graphCapture);
    const GraphCaptureLink &g = *a->graphCapture;
    QCOMPARE(g.captures, size_t(1));
    QCOMPARE(g.capturedLaunches, size_t(544));
    QCOMPARE(g.graphLaunches, size_t(1));
    QCOMPARE(g.replayedOps, size_t(544));
    QCOMPARE(g.matched, size_t(544));
    QCOMPARE(g.verified, size_t(544)); // HIP's launch rows name their kernel: every pair agrees
    QCOMPARE(g.nameMismatches, size_t(0));
    size_t withOp = 0, withStack = 0, withDims = 0;
    for (const CapturedOrigin &o : g.origins) {
        withOp += o.opName.empty() ? 0 : 1;
        withStack += o.pythonStack.empty() ? 0 : 1;
        withDims += o.inputDims.empty() ? 0 : 1;
    }
    QVERIFY2(withOp >= 540, qPrintable(QString::number(withOp)));
    QVERIFY2(withStack >= 540, qPrintable(QString::number(withStack)));
    QVERIFY2(withDims >= 500, qPrintable(QString::number(withDims)));
    // The first replayed kernel (a gather) was captured in an aten op with its shapes.
    uint32_t first = ~0u;
    for (const auto &[ev, k] : g.originOf)
        first = std::min(first, ev);
    const CapturedOrigin *o = g.find(first);
    QVERIFY(o);
    QVERIFY2(o->opName.rfind("aten::", 0) == 0, o->opName.c_str());
    QCOMPARE(o->kernel, std::string(a->device->str(a->device->events[first].name)));
    QVERIFY(a->diagnostics.find("graph_capture.linked"));
}

// Without --graph-capture the file beside the replay with "capture" in its name is read.
void TestGraphCapture::foundBesideTheReplay()
{
    REQUIRE_SHARED_DATA();
    const std::string replay = testutil::sharedData("device_only/tracelens_sglang_decode_replay.kineto.json.gz");
    QVERIFY(findGraphCaptureBeside(replay).find("tracelens_sglang_decode_capture") != std::string::npos);
    AnalysisRequest r;
    r.devicePath = replay;
    const auto a = runAnalysis(r);
    QVERIFY(a->graphCapture);
    QCOMPARE(a->graphCapture->matched, size_t(544));
    AnalysisRequest off = r;
    off.findGraphCapture = false;
    QVERIFY(!runAnalysis(off)->graphCapture);
    // A trace that replays no graph does not look for one.
    AnalysisRequest capture;
    capture.devicePath = testutil::sharedData("device_only/tracelens_sglang_decode_capture.kineto.json.gz");
    QVERIFY(!runAnalysis(capture)->graphCapture);
}

void TestGraphCapture::orderAndNames()
{
    const auto cap = loadRaw(captureJson({"gemm", "relu", "add"}, true), "cap.json");
    const auto rep = loadRaw(replayJson({"gemm", "relu", "add"}), "rep.json");
    QVERIFY(cap && rep);
    Diagnostics diag;
    const GraphCaptureLink g = linkGraphCapture(*cap, *rep, diag);
    QCOMPARE(g.matched, size_t(3));
    QCOMPARE(g.verified, size_t(3));
    for (const auto &[ev, k] : g.originOf) {
        const std::string kernel(rep->str(rep->events[ev].name));
        const CapturedOrigin &o = g.origins[k];
        QCOMPARE(o.kernel, kernel);
        QCOMPARE(o.opName, std::string("aten::op") + (kernel == "gemm" ? "0" : kernel == "relu" ? "1" : "2"));
        QCOMPARE(o.inputDims, std::string("[[4,8]]"));
        QCOMPARE(o.pythonStack, std::string("model.py(10): forward"));
    }
}

void TestGraphCapture::otherSizeIsRefused()
{
    const auto cap = loadRaw(captureJson({"gemm", "relu"}, true), "cap2.json");
    const auto rep = loadRaw(replayJson({"gemm", "relu", "add"}), "rep2.json");
    Diagnostics diag;
    const GraphCaptureLink g = linkGraphCapture(*cap, *rep, diag);
    QCOMPARE(g.matched, size_t(0));
    const Diagnostic *d = diag.find("graph_capture.unmatched");
    QVERIFY(d);
    QVERIFY(d->message.find("3 replayed graph ops") != std::string::npos);
}

void TestGraphCapture::otherKernelsAreRefused()
{
    const auto cap = loadRaw(captureJson({"a", "b", "c", "d"}, true), "cap3.json");
    const auto rep = loadRaw(replayJson({"w", "x", "y", "z"}), "rep3.json");
    Diagnostics diag;
    const GraphCaptureLink g = linkGraphCapture(*cap, *rep, diag);
    QCOMPARE(g.matched, size_t(0));
    QVERIFY(diag.find("graph_capture.unmatched")->message.find("name other kernels") != std::string::npos);
}

// CUDA's launch rows name no kernel: matched by order, said to be unverified.
void TestGraphCapture::unnamedRowsMatchByOrder()
{
    const auto cap = loadRaw(captureJson({"gemm", "relu"}, false), "cap4.json");
    const auto rep = loadRaw(replayJson({"gemm", "relu"}), "rep4.json");
    Diagnostics diag;
    const GraphCaptureLink g = linkGraphCapture(*cap, *rep, diag);
    QCOMPARE(g.matched, size_t(2));
    QCOMPARE(g.verified, size_t(0));
    QVERIFY(diag.find("graph_capture.linked")->message.find("unverified") != std::string::npos);
}

QTEST_GUILESS_MAIN(TestGraphCapture)
#include "tst_graphcapture.moc"
