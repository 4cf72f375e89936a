// SPDX-License-Identifier: MIT
// Issue 15's fidelity target: the default-mode .et of every test pair replays
// within 5 % of the measured step time (each ProfilerStep#N; the whole trace
// when the pair has no step in its ET). The figures are in docs/chakra_et.md.
#include "testutil.h"
#include "tracegen.h"

#include <QFileInfo>
#include <QProcess>
#include <QtTest>

#include <nlohmann/json.hpp>

class TestReplayFidelity : public QObject
{
    Q_OBJECT
private slots:
    void bundledPairs_data();
    void bundledPairs();
    void sharedPairs_data();
    void sharedPairs();
    void generatedGrid_data();
    void generatedGrid();
    void traceCausesTheMiss();
};

namespace {

constexpr double kTargetPct = 5.0;

// Exports the pair's default-mode .et and returns the report's replay windows.
nlohmann::json replayOf(const std::string &host, const std::string &device)
{
    const std::string dir = testutil::tempDir();
    const QString et = QString::fromStdString(dir + "/fid.et"), report = QString::fromStdString(dir + "/fid.json");
    QProcess p;
    p.start(QStringLiteral(SYNCSCOPE_BINARY), {"--batch", "--host", QString::fromStdString(host), "--device",
                                                QString::fromStdString(device), "--chakra-et", et, "--report", report});
    if (!p.waitForFinished(120000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0)
        return nullptr;
    const auto j = nlohmann::json::parse(testutil::readText(report.toStdString()));
    for (const auto &o : j.at("outputs"))
        if (o.at("kind") == "chakra_et")
            return o.at("replay");
    return nullptr;
}

void checkFidelity(const std::string &host, const std::string &device, int expectSteps = -1)
{
    const nlohmann::json windows = replayOf(host, device);
    QVERIFY2(windows.is_array() && !windows.empty(), "no replay in the report");
    int steps = 0;
    for (const auto &w : windows)
        if (w.at("window").get<std::string>().rfind("ProfilerStep#", 0) == 0) {
            ++steps;
            QVERIFY(w.at("measured_us").get<double>() > 0);
            QVERIFY2(std::abs(w.at("error_pct").get<double>()) <= kTargetPct, w.dump().c_str());
        }
    if (expectSteps >= 0)
        QCOMPARE(steps, expectSteps);
    if (steps == 0) { // no step in the ET: the whole trace
        const auto &overall = windows.back();
        QCOMPARE(overall.at("window").get<std::string>(), std::string("overall"));
        QVERIFY2(std::abs(overall.at("error_pct").get<double>()) <= kTargetPct, overall.dump().c_str());
    }
}

} // namespace

void TestReplayFidelity::bundledPairs_data()
{
    QTest::addColumn<QString>("host");
    QTest::addColumn<QString>("device");
    const QString sample = QStringLiteral(SYNCSCOPE_SAMPLE_DIR);
    QTest::newRow("sample") << sample + "/sample.et.json.gz" << sample + "/sample.kineto.json.gz";
    QTest::newRow("sample real simple_add") << sample + "/real/simple_add.et.json.gz"
                                            << sample + "/real/simple_add.kineto.json.gz";
    auto fixture = [](const char *rel) { return QString::fromStdString(testutil::fixture(rel)); };
    QTest::newRow("golden trace_link") << fixture("golden/trace_link/host.0.json")
                                       << fixture("golden/trace_link/device.0.json");
    QTest::newRow("dlrm rank0") << fixture("pairs/param_dlrm_rank0/rank0.et.json.gz")
                                << fixture("pairs/param_dlrm_rank0/rank0.kineto.json.gz");
    QTest::newRow("dlrm rank1") << fixture("pairs/param_dlrm_rank1/rank1.et.json.gz")
                                << fixture("pairs/param_dlrm_rank1/rank1.kineto.json.gz");
}

void TestReplayFidelity::bundledPairs()
{
    QFETCH(QString, host);
    QFETCH(QString, device);
    checkFidelity(host.toStdString(), device.toStdString());
}

void TestReplayFidelity::sharedPairs_data()
{
    QTest::addColumn<QString>("host");
    QTest::addColumn<QString>("device");
    QTest::newRow("hta simple_add") << "pairs/hta_simple_add/simple_add.et.json.gz"
                                    << "pairs/hta_simple_add/simple_add.kineto.json.gz";
    for (int r = 0; r < 8; ++r) {
        const QString base = QStringLiteral("pairs/param_dlrm_8rank/rank%1").arg(r);
        QTest::newRow(qPrintable(QStringLiteral("dlrm rank%1").arg(r))) << base + ".et.json.gz"
                                                                         << base + ".kineto.json.gz";
    }
    // Real pairs whose steps replayed +10 ... +84 % before issue 38: a 23.5 ms
    // cudaEventSynchronize outside every op, carried into the next aten::item as idle time.
    for (const char *pair : {"fwd_bwd_merge", "event_query_endpoint", "memcpy_async_weight"}) {
        const QString base = QStringLiteral("golden/trace_link_d731/%1/").arg(pair);
        QTest::newRow(pair) << base + "host.json.gz" << base + "device.json.gz";
    }
    // pairs/param_linear is left out on purpose: its ET holds 1 of the 40
    // iterations in its Kineto trace (docs/chakra_et.md).
}

void TestReplayFidelity::sharedPairs()
{
    if (!testutil::sharedDataAvailable())
        QSKIP("the shared data set (SYNCSCOPE_SHARED_DATA) is not available");
    QFETCH(QString, host);
    QFETCH(QString, device);
    checkFidelity(testutil::sharedData(host.toStdString()), testutil::sharedData(device.toStdString()));
}

// Issue 21: every step of generated pairs over the sync-inference grid (streams,
// NCCL and side streams, event waits, every blocking kind, .item() loops, CUDA-graph
// replays, an unsynchronised last step, HIP names, with and without cuda_sync rows,
// 1-12 steps): the structures that made whole steps replay 45-95 % long.
void TestReplayFidelity::generatedGrid_data()
{
    QTest::addColumn<int>("steps");
    QTest::addColumn<int>("layers");
    QTest::addColumn<int>("streams");
    QTest::addColumn<QString>("flags"); // b: blocking copies, p: pageable, i: item loop, g: CUDA graphs,
                                        // t: async tail, h: HIP, n: no cuda_sync rows,
                                        // s: loss.item() after an event sync outside every op on even steps
    QTest::newRow("1 step, 1 stream") << 1 << 2 << 0 << "";
    QTest::newRow("4 steps, default") << 4 << 6 << 0 << "";
    QTest::newRow("12 steps, 2 streams") << 12 << 2 << 2 << "";
    QTest::newRow("3 streams, no cuda_sync") << 5 << 4 << 3 << "n";
    QTest::newRow("6 streams, blocking copies") << 5 << 4 << 6 << "b";
    QTest::newRow("item loop, pageable") << 5 << 4 << 0 << "bpi";
    QTest::newRow("CUDA graphs") << 4 << 4 << 0 << "g";
    QTest::newRow("CUDA graphs, 3 streams, no cuda_sync") << 5 << 4 << 3 << "gn";
    QTest::newRow("async tail, 2 streams") << 3 << 4 << 2 << "t";
    QTest::newRow("HIP, 3 streams, item loop") << 4 << 4 << 3 << "hi";
    QTest::newRow("everything") << 6 << 4 << 4 << "bigtn";
    QTest::newRow("item after a bare event sync, every other step") << 6 << 4 << 2 << "s";
    QTest::newRow("item after a bare event sync, no cuda_sync rows") << 6 << 4 << 0 << "sn";
    QTest::newRow("~8 MB, every step (0: until the size)") << 0 << 8 << 2 << "bi";
}

void TestReplayFidelity::generatedGrid()
{
    QFETCH(int, steps);
    QFETCH(int, layers);
    QFETCH(int, streams);
    QFETCH(QString, flags);
    tracegen::Options o;
    o.prefix = testutil::tempDir() + "/grid";
    o.steps = steps;
    o.targetMb = steps == 0 ? 8 : 0;
    o.layers = layers;
    o.streams = streams;
    o.blockingCopies = flags.contains('b');
    o.pageable = flags.contains('p');
    o.itemLoop = flags.contains('i') ? 3 : 0;
    o.cudaGraphs = flags.contains('g');
    o.asyncTail = flags.contains('t');
    o.hip = flags.contains('h');
    o.noCudaSync = flags.contains('n');
    o.bareSyncItem = flags.contains('s');
    const tracegen::Result r = tracegen::generate(o);
    QVERIFY(r.steps > 0);
    checkFidelity(r.hostPath, r.devicePath, r.steps);
}

// Where 5 % cannot be reached the report says why, per window: PARAM linear's ET holds
// 1 of the 40 iterations its Kineto trace has (issue 21). Full coverage gets no note.
void TestReplayFidelity::traceCausesTheMiss()
{
    const std::string dir = testutil::sharedData("pairs/param_linear");
    if (!QFileInfo::exists(QString::fromStdString(dir)))
        QSKIP("shared data not available");
    const nlohmann::json linear = replayOf(dir + "/linear.et.json.gz", dir + "/linear.kineto.json.gz");
    QVERIFY(linear.is_array() && !linear.empty());
    const auto &overall = linear.back();
    QVERIFY(std::abs(overall.at("error_pct").get<double>()) > kTargetPct);
    QVERIFY2(overall.at("et_coverage_pct").get<double>() < 10.0, overall.dump().c_str());
    QVERIFY2(overall.contains("note") && overall.at("note").get<std::string>().find("cannot be replayed") != std::string::npos,
             overall.dump().c_str());
    const QString sample = QStringLiteral(SYNCSCOPE_SAMPLE_DIR);
    const nlohmann::json full =
        replayOf((sample + "/sample.et.json.gz").toStdString(), (sample + "/sample.kineto.json.gz").toStdString());
    for (const auto &w : full) {
        QCOMPARE(w.at("et_coverage_pct").get<double>(), 100.0);
        QVERIFY(!w.contains("note"));
    }
}

QTEST_GUILESS_MAIN(TestReplayFidelity)
#include "tst_replayfidelity.moc"
