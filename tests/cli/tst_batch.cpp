// SPDX-License-Identifier: MIT
// The batch command line end to end: exit codes, messages, report, outputs.
#include "testutil.h"
#include "tracebuilder.h"

#include <QProcess>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <QRegularExpression>

#include <filesystem>

namespace {

struct Run {
    int code = -1;
    QString err;
    QString out;
};

Run syncscope(const QStringList &args)
{
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("DISPLAY"));
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(SYNCSCOPE_BINARY), args);
    if (!p.waitForFinished(120000))
        return {};
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2, QString::fromUtf8(p.readAllStandardError()),
            QString::fromUtf8(p.readAllStandardOutput())};
}

QString fixture(const char *rel)
{
    return QString::fromStdString(testutil::fixture(rel));
}

QString temp(const std::string &name, const std::string &content)
{
    const std::string path = testutil::tempDir() + "/" + name;
    testutil::writeText(path, content);
    return QString::fromStdString(path);
}


const QString kHost = QStringLiteral("golden/trace_link/host.0.json");
const QString kDevice = QStringLiteral("golden/trace_link/device.0.json");

} // namespace

class TestBatch : public QObject
{
    Q_OBJECT
private slots:
    void helpAndVersion();
    void usageErrors_data();
    void usageErrors();
    void badInput_data();
    void badInput();
    void reportHasTheKeys();
    void compatGoldenThroughTheCli();
    void swappedPairIsDetected();
    void linkedNothingHasItsExitCode();
    void neverOverwritesAnInput();
    void outputIsAtomic();
    void deviceOnlyCriticalPath();
    void samplePair();
    void stepsAreProfilerSteps();
    void wrongPairIsFlagged();
};

void TestBatch::helpAndVersion()
{
    const Run help = syncscope({"--help"});
    QCOMPARE(help.code, 0);
    QVERIFY(help.out.contains("--batch") && help.out.contains("Exit status"));
    const Run version = syncscope({"--version"});
    QCOMPARE(version.code, 0);
    QVERIFY(version.out.startsWith("syncscope "));
}

void TestBatch::usageErrors_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::newRow("unknown option") << QStringList{"--batch", "--frobnicate"};
    QTest::newRow("missing value") << QStringList{"--batch", "--host"};
    QTest::newRow("no input") << QStringList{"--batch"};
    QTest::newRow("bad compat") << QStringList{"--batch", "--device", fixture(kDevice.toUtf8()), "--compat", "nope"};
    QTest::newRow("bad rank") << QStringList{"--batch", "--device", fixture(kDevice.toUtf8()), "--rank", "x"};
    QTest::newRow("bad instance") << QStringList{"--batch", "--device", fixture(kDevice.toUtf8()), "--instance", "-3"};
    QTest::newRow("output without host") << QStringList{"--batch", "--device", fixture(kDevice.toUtf8()), "--output",
                                                        "x.json"};
}

void TestBatch::usageErrors()
{
    QFETCH(QStringList, args);
    const Run r = syncscope(args);
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("syncscope:"), qPrintable(r.err));
}

void TestBatch::badInput_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("code");
    QTest::addColumn<QString>("message"); // a fragment of the error text
    const QString host = fixture(kHost.toUtf8());
    const QString device = fixture(kDevice.toUtf8());
    const QString missing = QString::fromStdString(testutil::tempDir() + "/missing.json");
    const QString dir = QString::fromStdString(testutil::tempDir());
    QTest::newRow("missing file") << QStringList{"--batch", "--host", host, "--device", missing} << 3 << "no such file";
    QTest::newRow("directory") << QStringList{"--batch", "--host", host, "--device", dir} << 3 << "is a directory";
    QTest::newRow("empty file") << QStringList{"--batch", "--host", host, "--device", temp("e.json", "")} << 3
                                << "is empty";
    QTest::newRow("not JSON") << QStringList{"--batch", "--host", host, "--device", temp("n.json", "hello")} << 3
                              << "is not JSON";
    QTest::newRow("truncated JSON") << QStringList{"--batch", "--host", host, "--device",
                                                   temp("t.json", testutil::readText(kDevice.isEmpty() ? "" : device.toStdString()).substr(0, 900))}
                                    << 3 << "truncated";
    const std::string gz = testutil::gzipped(testutil::readText(device.toStdString()));
    QTest::newRow("truncated gzip") << QStringList{"--batch", "--host", host, "--device",
                                                   temp("t.json.gz", gz.substr(0, gz.size() / 2))}
                                    << 3 << "gzip stream is truncated";
    QTest::newRow("ET given as device trace") << QStringList{"--batch", "--device", host} << 3
                                              << "is a host execution trace, not a Kineto device trace";
    QTest::newRow("Kineto given as host trace") << QStringList{"--batch", "--host", device, "--device", device} << 3
                                                << "is a Kineto device trace, not a host execution trace";
    QTest::newRow("Kineto without traceEvents")
        << QStringList{"--batch", "--host", host, "--device", temp("k.json", R"({"schemaVersion": 1})")} << 3
        << "neither a host execution trace";
    testutil::HostBuilder noRoot;
    noRoot.thread(2, 1).op(3, "aten::mm", 2, 5);
    std::string noRootText = noRoot.json();
    noRootText.replace(noRootText.find("\"id\": 1,"), 8, "\"id\": 9,");
    QTest::newRow("ET without the root node") << QStringList{"--batch", "--host", temp("r.json", noRootText), "--device",
                                                             device}
                                              << 3 << "has no root node";
    testutil::HostBuilder unknown;
    unknown.schema("9999.9999.9999-chakra.0.0.4").thread(2, 1);
    QTest::newRow("unknown schema version") << QStringList{"--batch", "--host", temp("u.json", unknown.json()),
                                                           "--device", device}
                                            << 3 << "unsupported execution trace schema";
    QTest::newRow("wrong value types") << QStringList{"--batch", "--host", host, "--device",
                                                      temp("w.json", R"({"traceEvents": {"ph": "X"}})")}
                                       << 3 << "\"traceEvents\" is an object, expected an array";
    // All rf_id zero: a warning, and linking falls back to names and order.
    testutil::HostBuilder zero;
    zero.thread(2, 1).op(3, "aten::mm", 2, 0).op(4, "aten::add", 2, 0);
    testutil::KinetoBuilder k;
    k.cpu("aten::mm", 1, 10, 5, 7, 7).cpu("aten::add", 1, 20, 5, 8, 8);
    QTest::newRow("all rf_id zero") << QStringList{"--batch", "--host", temp("z.json", zero.json()), "--device",
                                                   temp("zk.json", k.json())}
                                    << 0 << "no node has a non-zero rf_id";
}

void TestBatch::badInput()
{
    QFETCH(QStringList, args);
    QFETCH(int, code);
    QFETCH(QString, message);
    const Run r = syncscope(args);
    QVERIFY2(r.code == code, qPrintable(QStringLiteral("exit %1, stderr:\n%2").arg(r.code).arg(r.err)));
    QVERIFY2(r.err.contains(message), qPrintable(r.err));
    if (code == 3) // the message names the offending file
        QVERIFY2(r.err.contains(args.last()) || r.err.contains(args.at(args.indexOf("--host") + 1)), qPrintable(r.err));
}

void TestBatch::reportHasTheKeys()
{
    const QString report = QString::fromStdString(testutil::tempDir() + "/r.json");
    const Run r = syncscope({"--batch", "--host", fixture(kHost.toUtf8()), "--device", fixture(kDevice.toUtf8()),
                             "--report", report, "--quiet"});
    QCOMPARE(r.code, 0);
    QVERIFY(r.err.isEmpty());
    const auto j = nlohmann::json::parse(testutil::readText(report.toStdString()));
    for (const char *key : {"host_ops", "host_ops_linked", "kineto_cpu_ops", "kineto_cpu_ops_linked", "gpu_ops",
                            "gpu_ops_linked"})
        QVERIFY2(j["link"][key].is_number_integer(), key);
    QCOMPARE(j["link"]["host_ops_linked"].get<int>(), 10);
    QCOMPARE(j["link"]["gpu_ops_linked"].get<int>(), 4);
    QCOMPARE(j["inputs"]["host"]["schema"].get<std::string>(), std::string("1.0.3-chakra.0.0.4"));
    QCOMPARE(j["inputs"]["pid"].get<int>(), 4242);
    QCOMPARE(j["inputs"]["rank"].get<int>(), 0);
    QVERIFY(j["diagnostics"].is_array());
    QCOMPARE(j["exit_code"].get<int>(), 0);
}

void TestBatch::compatGoldenThroughTheCli()
{
    const std::string out = testutil::tempDir() + "/linked.json";
    const Run r = syncscope({"--batch", "--compat", "chakra", "--host", fixture(kHost.toUtf8()), "--device",
                             fixture(kDevice.toUtf8()), "--output", QString::fromStdString(out), "--quiet"});
    QCOMPARE(r.code, 0);
    QVERIFY(testutil::matchesReference(testutil::readText(out), testutil::fixture("golden/trace_link/linked.0.json")));
}

void TestBatch::swappedPairIsDetected()
{
    const std::string out = testutil::tempDir() + "/linked.json";
    const Run r = syncscope({"--batch", "--host", fixture(kDevice.toUtf8()), "--device", fixture(kHost.toUtf8()),
                             "--output", QString::fromStdString(out)});
    QCOMPARE(r.code, 0);
    QVERIFY2(r.err.contains("other way round"), qPrintable(r.err));
    QVERIFY(testutil::matchesGolden(testutil::readText(out), testutil::fixture("golden/etplus_default.0.json")));
}

void TestBatch::linkedNothingHasItsExitCode()
{
    // The reference links none of this 2023 pair (no Record function id) and exits 0.
    const Run r = syncscope({"--batch", "--compat", "chakra", "--host",
                             fixture("pairs/hta_simple_add/simple_add.et.json.gz"), "--device",
                             fixture("pairs/hta_simple_add/simple_add.kineto.json.gz")});
    QVERIFY2(r.code == 6 || r.code == 4, qPrintable(r.err)); // no ProfilerStep: the reference crashes (chakra#162)
    QVERIFY(r.err.contains("chakra#162"));
    testutil::HostBuilder h;
    h.thread(2, 1).op(3, "aten::mm", 2, 5);
    testutil::KinetoBuilder k;
    k.annotation("ProfilerStep#1", 1, 0, 100).cpu("aten::bmm", 1, 10, 5, 70, 70);
    const Run nothing = syncscope({"--batch", "--host", temp("h.json", h.json()), "--device", temp("k.json", k.json())});
    QCOMPARE(nothing.code, 4);
    QVERIFY2(nothing.err.contains("LINKED NOTHING"), qPrintable(nothing.err));
}

void TestBatch::neverOverwritesAnInput()
{
    const std::string dir = testutil::tempDir();
    const std::string host = dir + "/host.json";
    std::filesystem::copy_file(testutil::fixture(kHost.toStdString()), host);
    const std::string before = testutil::readText(host);
    const Run r = syncscope({"--batch", "--host", QString::fromStdString(host), "--device", fixture(kDevice.toUtf8()),
                             "--output", QString::fromStdString(host)});
    QCOMPARE(r.code, 5);
    QVERIFY2(r.err.contains("refusing to overwrite an input"), qPrintable(r.err));
    QCOMPARE(testutil::readText(host), before);
}

void TestBatch::outputIsAtomic()
{
    // An output into a missing directory fails cleanly and leaves no temporary file behind.
    const std::string dir = testutil::tempDir();
    const Run r = syncscope({"--batch", "--host", fixture(kHost.toUtf8()), "--device", fixture(kDevice.toUtf8()),
                             "--output", QString::fromStdString(dir + "/no/such/dir/out.json")});
    QCOMPARE(r.code, 5);
    QVERIFY(std::filesystem::is_empty(dir));
    // A successful write replaces an existing file completely.
    const std::string out = dir + "/out.json";
    testutil::writeText(out, std::string(1 << 20, 'x'));
    QCOMPARE(syncscope({"--batch", "--host", fixture(kHost.toUtf8()), "--device", fixture(kDevice.toUtf8()), "--output",
                        QString::fromStdString(out), "--quiet"})
                 .code,
             0);
    QVERIFY(testutil::matchesGolden(testutil::readText(out), testutil::fixture("golden/etplus_default.0.json")));
    int entries = 0;
    for ([[maybe_unused]] const auto &e : std::filesystem::directory_iterator(dir))
        ++entries;
    QCOMPARE(entries, 1);
}

void TestBatch::deviceOnlyCriticalPath()
{
    const std::string cp = testutil::tempDir() + "/cp.json";
    const Run r = syncscope({"--batch", "--device", fixture("device/hta_cuda_event_sync.kineto.json.gz"),
                             "--critical-path", QString::fromStdString(cp)});
    QCOMPARE(r.code, 0);
    QVERIFY2(r.err.contains("critical path  2.411 ms"), qPrintable(r.err));
    const auto j = nlohmann::json::parse(testutil::readText(cp));
    QCOMPARE(j["critical_path"]["weight_us"].get<double>(), 2411.0);
}

void TestBatch::samplePair()
{
    const Run r = syncscope({"--batch", "--sample", "--instance", "all"});
    QCOMPARE(r.code, 0);
    QVERIFY(r.err.contains("ProfilerStep#2"));
    QVERIFY(r.err.contains("Stream Wait Event"));
}

// Issue 13: one notion of step. The report's steps[k] is ProfilerStep#k, the HTA
// instance of --instance is labelled and resolved, no bound-by key is "", and the
// summary prints durations a person reads in ms.
void TestBatch::stepsAreProfilerSteps()
{
    const QString report = QString::fromStdString(testutil::tempDir() + "/steps.json");
    const Run r = syncscope({"--batch", "--sample", "--instance", "all", "--report", report});
    QCOMPARE(r.code, 0);
    const auto j = nlohmann::json::parse(testutil::readText(report.toStdString()));
    const auto &cp = j["critical_path"];
    QCOMPARE(cp["instance_numbering"].get<std::string>(), std::string("hta"));
    QCOMPARE(cp["instance_row"].get<std::string>(), std::string("ProfilerStep#0"));
    QVERIFY(!cp["summary"].contains(""));
    QVERIFY(cp["summary"].contains("dependency"));
    QCOMPARE(cp["steps"].size(), size_t(3));
    for (size_t k = 0; k < 3; ++k) {
        QCOMPARE(cp["steps"][k]["step"].get<size_t>(), k);
        QCOMPARE(cp["steps"][k]["name"].get<std::string>(), "ProfilerStep#" + std::to_string(k));
        QVERIFY(!cp["steps"][k]["summary"].contains(""));
    }
    QVERIFY2(r.err.contains("HTA instance 0 = ProfilerStep#0"), qPrintable(r.err));
    QVERIFY2(!r.err.contains(QRegularExpression(QStringLiteral("\\d{4,}\\.\\d us"))), qPrintable(r.err));
}

void TestBatch::wrongPairIsFlagged()
{
    REQUIRE_SHARED_DATA();
    // PARAM's resnet ET and resnet Kineto trace come from different runs (pids 1734239 and 23442).
    const Run r = syncscope(
        {"--batch", "--host",
         QString::fromStdString(testutil::sharedData("host_only/param_resnet_1.1.0-chakra.0.0.4.et.json.gz")),
         "--device", QString::fromStdString(testutil::sharedData("device_only/param_resnet.kineto.json.gz"))});
    QVERIFY2(r.err.contains("look like different runs"), qPrintable(r.err));
    QVERIFY2(r.err.contains("1734239") && r.err.contains("23442"), qPrintable(r.err));
}

QTEST_GUILESS_MAIN(TestBatch)
#include "tst_batch.moc"
