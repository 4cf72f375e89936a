// SPDX-License-Identifier: MIT
// The real-trace conformance suite (issue 38): every real trace under
// ../shared/data and tests/data/real through the batch pipeline, checking the
// invariants of conformance.h. Traces are found by content, so a trace added
// there is checked without a code change. A violation still open is listed in
// kOpen with the reason; a listed violation that no longer occurs fails too, so
// the list never hides a fix or a regression (docs/conformance.md).
#include "conformance.h"
#include "testutil.h"
#include "tracegen.h"

#include <QtTest>

#include <filesystem>
#include <map>
#include <set>

Q_DECLARE_METATYPE(std::string)

using namespace realtraces;

namespace {

// (case name, invariant) -> why it is still open. The case name is the device
// trace's path under its root.
const char *const kNoEdges = "HTA's graph gets no edge when no op is nested and no launch links to a GPU op "
                             "(Kineto's unit-test output): the whole-trace critical path fails instead of falling "
                             "back to the CPU chain";
const char *const kGpuBehind = "a step whose GPU work runs behind its CPU side (the GPU behind the CPU): the "
                               "window's graph holds that work, but the step's path leaves part of its extent out "
                               "(not analysed yet)";
const char *const kUnweightedIdle = "HTA weighs no idle time: the step's longest path (4.6 ms of a 12.5 ms step, "
                                    "79 % CPU) goes around the step's idle stretches instead of spanning its GPU work";
const std::map<std::pair<std::string, std::string>, const char *> kOpen = {
    {{"device_only/hta_amd_mi250_rocm6.2.kineto.json.gz", "step_path"}, kGpuBehind},
    {{"device_only/kineto_cuda_sync_out_of_order_after_fix.json", "whole_path"}, kNoEdges},
    {{"device_only/kineto_cuda_sync_out_of_order_before_fix.json", "whole_path"}, kNoEdges},
    {{"pairs/param_dlrm_8rank/rank7.kineto.json.gz", "step_path"}, kUnweightedIdle},
    {{"hta_trace_diff_4streams_waits.kineto.json.gz", "step_path"}, kGpuBehind},
};

std::vector<std::string> roots()
{
    return {testutil::sharedData(""), testutil::fixture("real")};
}

Corpus &corpus()
{
    static Corpus c = discoverCorpus(roots());
    return c;
}

// Fails on a violation not in kOpen, and on a kOpen entry of this case that did not occur.
void judge(const std::string &name, const std::vector<Violation> &found)
{
    std::set<std::string> seen;
    QStringList unexpected;
    for (const Violation &v : found) {
        seen.insert(v.invariant);
        const auto open = kOpen.find({name, v.invariant});
        if (open != kOpen.end())
            qInfo("%s: open (%s): %s", name.c_str(), open->second, v.detail.c_str());
        else
            unexpected << QString::fromStdString(v.invariant + ": " + v.detail);
    }
    for (const auto &[key, why] : kOpen)
        if (key.first == name && !seen.count(key.second))
            unexpected << QString::fromStdString(key.second + " holds now; remove it from kOpen (" + why + ")");
    if (!unexpected.isEmpty())
        QFAIL(qPrintable(QString::fromStdString(name) + ":\n  " + unexpected.join("\n  ")));
}

// One data row per path, named by it.
void addRows(const char *column, const std::vector<std::string> &paths)
{
    QTest::addColumn<std::string>(column);
    for (const std::string &p : paths)
        QTest::newRow(p.c_str()) << p;
}

} // namespace

class TestRealTraces : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void discovery();
    void pairs_data();
    void pairs();
    void jobs_data();
    void jobs();
    void hangFolders_data();
    void hangFolders();
    void hostOnly_data();
    void hostOnly();
    void htaExact_data();
    void htaExact();
    void generatedShapes_data();
    void generatedShapes();
};

void TestRealTraces::initTestCase()
{
    REQUIRE_SHARED_DATA();
}

// The corpus is found by content: the kinds the issue names are all there, and a
// trace copied into a new folder is picked up.
void TestRealTraces::discovery()
{
    const Corpus &c = corpus();
    QVERIFY2(c.pairs.size() >= 20, qPrintable(QString::number(c.pairs.size())));
    size_t withHost = 0;
    for (const PairCase &p : c.pairs)
        withHost += p.host.empty() ? 0 : 1;
    QVERIFY(withHost >= 3);
    QVERIFY(!c.jobs.empty());
    QVERIFY(c.hangFolders.size() >= 2);
    for (const std::string &h : c.hangFolders) // the dumps' own folders, not the ones above them
        for (const std::string &other : c.hangFolders)
            QVERIFY2(other.rfind(h + "/", 0) != 0, qPrintable(QString::fromStdString(h + " is above " + other)));
    QVERIFY(c.hostOnly.size() >= 5);
    QVERIFY(!c.htaGoldens.empty());
    QCOMPARE(traceStem("rank6.kineto.json.gz"), std::string("rank6"));
    QCOMPARE(traceStem("rank6.et.json.gz"), std::string("rank6"));
    QCOMPARE(traceStem("device.0.json"), std::string("0"));
    QCOMPARE(traceStem("host.0.json"), std::string("0"));

    const std::string dir = testutil::tempDir() + "/new/sub";
    std::filesystem::create_directories(dir);
    std::filesystem::copy_file(testutil::sharedData("device_only/hta_cuda_event_sync.kineto.json.gz"),
                               dir + "/added.kineto.json.gz");
    const Corpus added = discoverCorpus({dir.substr(0, dir.size() - 4)});
    QCOMPARE(added.pairs.size(), size_t(1));
    QCOMPARE(added.pairs[0].name, std::string("sub/added.kineto.json.gz"));
}

void TestRealTraces::pairs_data()
{
    QTest::addColumn<int>("index");
    for (size_t i = 0; i < corpus().pairs.size(); ++i)
        QTest::newRow(corpus().pairs[i].name.c_str()) << static_cast<int>(i);
}

void TestRealTraces::pairs()
{
    QFETCH(int, index);
    const PairCase &c = corpus().pairs[static_cast<size_t>(index)];
    judge(c.name, checkPair(c, testutil::tempDir()));
}

void TestRealTraces::jobs_data()
{
    addRows("dir", corpus().jobs);
}

void TestRealTraces::jobs()
{
    QFETCH(std::string, dir);
    judge("job " + dir, checkJob(dir));
}

void TestRealTraces::hangFolders_data()
{
    addRows("dir", corpus().hangFolders);
}

void TestRealTraces::hangFolders()
{
    QFETCH(std::string, dir);
    judge("hang " + dir, checkHangFolder(dir));
}

void TestRealTraces::hostOnly_data()
{
    addRows("path", corpus().hostOnly);
}

void TestRealTraces::hostOnly()
{
    QFETCH(std::string, path);
    judge("host " + path, checkHostOnly(path));
}

void TestRealTraces::htaExact_data()
{
    addRows("golden", corpus().htaGoldens);
}

void TestRealTraces::htaExact()
{
    QFETCH(std::string, golden);
    judge("hta " + golden, checkHtaGolden(golden));
}

// The shapes of the real traces, written by the generator (host ET and Kineto): the same
// invariants hold on them, with nothing open.
void TestRealTraces::generatedShapes_data()
{
    QTest::addColumn<QString>("shape");
    for (const char *shape : {"gpu behind", "late gpu start", "old categories", "unresolved rows", "bare sync item"})
        QTest::newRow(shape) << QString::fromLatin1(shape);
}

void TestRealTraces::generatedShapes()
{
    QFETCH(QString, shape);
    tracegen::Options o;
    o.prefix = testutil::tempDir() + "/shape";
    o.steps = 5;
    o.layers = 4;
    o.streams = 2;
    o.seed = 3;
    if (shape == "gpu behind") {
        o.gpuBehindScale = 4; // compute kernels 4x longer, nothing waits: the GPU falls steps behind
        o.noCudaSync = true;
    } else if (shape == "late gpu start") {
        o.gpuClockSkewUs = 30000;
    } else if (shape == "old categories") {
        o.oldCategories = true;
    } else if (shape == "unresolved rows") {
        o.unresolvedSyncRows = true;
    } else {
        o.bareSyncItem = true;
        o.noCudaSync = true;
    }
    const tracegen::Result r = tracegen::generate(o);
    PairCase c;
    c.name = "generated " + shape.toStdString();
    c.device = r.devicePath;
    // (A clock skew between CPU and GPU leaves no step an .et can replay: that shape, like the
    // real vLLM traces, is checked as the device trace alone.)
    c.host = shape == "late gpu start" ? std::string() : r.hostPath;
    judge(c.name, checkPair(c, testutil::tempDir()));
}

QTEST_GUILESS_MAIN(TestRealTraces)
#include "tst_realtraces.moc"
