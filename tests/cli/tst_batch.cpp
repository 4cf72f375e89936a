// SPDX-License-Identifier: MIT
// The batch command line end to end: exit codes, messages, report, outputs.
#include "testutil.h"
#include "tracebuilder.h"

#include <QProcess>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <QRegularExpression>

#include <filesystem>
#include <map>
#include <sys/stat.h>
#include <unistd.h>

namespace {

struct Run {
    int code = -1;
    QString err;
    QString out;
};

Run syncscope(const QStringList &args, int timeoutMs = 120000)
{
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("DISPLAY"));
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(SYNCSCOPE_BINARY), args);
    if (!p.waitForFinished(timeoutMs)) {
        p.kill(); // a hang is a failure, never a stuck suite
        p.waitForFinished(5000);
        return {-3, QStringLiteral("(timed out)"), {}};
    }
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

// Runs `script` with sh, $0 being the syncscope binary (for ulimit, umask, odd file names).
Run shell(const QString &script)
{
    QProcess p;
    p.start(QStringLiteral("/bin/sh"), {"-c", script, QStringLiteral(SYNCSCOPE_BINARY)});
    if (!p.waitForFinished(60000)) {
        p.kill();
        p.waitForFinished(5000);
        return {-3, QStringLiteral("(timed out)"), {}};
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2, QString::fromUtf8(p.readAllStandardError()),
            QString::fromUtf8(p.readAllStandardOutput())};
}

// A copy of the pair in a fresh directory (tests that must not touch tests/data).
struct PairCopy {
    std::string dir, host, device;
};

PairCopy copyPair()
{
    PairCopy c;
    c.dir = testutil::tempDir();
    c.host = c.dir + "/host.json";
    c.device = c.dir + "/device.json";
    std::filesystem::copy_file(testutil::fixture(kHost.toStdString()), c.host);
    std::filesystem::copy_file(testutil::fixture(kDevice.toStdString()), c.device);
    return c;
}

QString q(const std::string &s)
{
    return QString::fromStdString(s);
}

std::vector<std::string> leftovers(const std::string &dir)
{
    std::vector<std::string> tmp;
    for (const auto &e : std::filesystem::directory_iterator(dir))
        if (e.path().filename().string().find(".tmp-") != std::string::npos)
            tmp.push_back(e.path().string());
    return tmp;
}

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
    void htaVersionOption();
    void inferredSyncInTheOutputs();
    void samplePair();
    void stepsAreProfilerSteps();
    void wrongPairIsFlagged();
    void nonRegularInputsAreRefused();
    void noOutputOverAnyInput_data();
    void noOutputOverAnyInput();
    void sameOutputTwiceIsAUsageError_data();
    void sameOutputTwiceIsAUsageError();
    void outputsThroughSymlinksFifosAndDevices();
    void outputModes();
    void fileSizeLimitGivesExit5();
    void failedOutputDoesNotSkipTheOthers();
    void outOfRangeOptions();
    void criticalPathFailureIsNeverExit0();
    void reportSurvivesInvalidUtf8();
    void etPlusReadBackAsHost_data();
    void etPlusReadBackAsHost();
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
    QTest::newRow("bad hta version") << QStringList{"--batch", "--device", fixture(kDevice.toUtf8()), "--hta-version",
                                                    "0.2"};
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
    QCOMPARE(j["critical_path"]["hta_version"].get<std::string>(), std::string("f4d0062"));
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
    QCOMPARE(j["options"]["hta_version"].get<std::string>(), std::string("f4d0062"));
}

void TestBatch::htaVersionOption()
{
    // critical_path_spec 8: 2401 µs with HTA d731cc2e, 2411 µs with f4d0062 (the default, above).
    const std::string cp = testutil::tempDir() + "/cp_d731.json";
    const Run r = syncscope({"--batch", "--device", fixture("device/hta_cuda_event_sync.kineto.json.gz"),
                             "--hta-version", "d731cc2e", "--critical-path", QString::fromStdString(cp)});
    QCOMPARE(r.code, 0);
    QVERIFY2(r.err.contains("critical path  2.401 ms") && r.err.contains("HTA d731cc2e)"), qPrintable(r.err));
    const auto j = nlohmann::json::parse(testutil::readText(cp));
    QCOMPARE(j["critical_path"]["weight_us"].get<double>(), 2401.0);
    QCOMPARE(j["critical_path"]["nodes"].get<int>(), 40);
    QCOMPARE(j["options"]["hta_version"].get<std::string>(), std::string("d731cc2e"));
    const Run help = syncscope({"--help"});
    QVERIFY(help.out.contains("--hta-version") && help.out.contains("d731cc2e"));
}

void TestBatch::inferredSyncInTheOutputs()
{
    // DLRM rank 0 has no cuda_sync rows but 10 calls that blocked on the GPU (8 stream
    // syncs, 2 DtoH copies) and 3 queued GPU ops behind a stream wait: by default all
    // are inferred and reach the report, the text summary and the critical-path file;
    // --hta-exact gives HTA's answer (no sync edge at all, a shorter path).
    const QString dev = fixture("pairs/param_dlrm_rank0/rank0.kineto.json.gz");
    const std::string dir = testutil::tempDir();
    const Run r = syncscope({"--batch", "--device", dev, "--report", QString::fromStdString(dir + "/r.json"),
                             "--critical-path", QString::fromStdString(dir + "/cp.json")});
    QCOMPARE(r.code, 0);
    QVERIFY2(r.err.contains("sync     13 edges (13 inferred, 2 from blocking copies)"), qPrintable(r.err));
    QVERIFY2(r.err.contains("top waits") && r.err.contains("cudaStreamSynchronize in aten::copy_ waited for"),
             qPrintable(r.err));
    QVERIFY2(r.err.contains("inferred from the runtime calls"), qPrintable(r.err));
    auto rep = nlohmann::json::parse(testutil::readText(dir + "/r.json"));
    QCOMPARE(rep["sync"]["edges"].get<int>(), 13);
    QCOMPARE(rep["sync"]["inferred_edges"].get<int>(), 13);
    QCOMPARE(rep["sync"]["blocking_copies"].get<int>(), 2);
    QCOMPARE(rep["sync"]["cuda_sync_events"].get<bool>(), false);
    QCOMPARE(rep["sync"]["by_kind"]["Stream Sync"]["inferred"].get<int>(), 8);
    QCOMPARE(rep["sync"]["by_kind"]["Stream Sync"]["recorded"].get<int>(), 0);
    QCOMPARE(rep["critical_path"]["hta_exact"].get<bool>(), false);
    auto cp = nlohmann::json::parse(testutil::readText(dir + "/cp.json"));
    QCOMPARE(cp["options"]["hta_exact"].get<bool>(), false);
    QVERIFY(!cp["sync_edges_inferred"].empty());
    QCOMPARE(cp["sync_edges_inferred"].size(), cp["sync_edges"].size());
    const double weight = cp["critical_path"]["weight_us"].get<double>();

    const Run e = syncscope({"--batch", "--device", dev, "--hta-exact", "--report",
                             QString::fromStdString(dir + "/re.json"), "--critical-path",
                             QString::fromStdString(dir + "/cpe.json")});
    QCOMPARE(e.code, 0);
    rep = nlohmann::json::parse(testutil::readText(dir + "/re.json"));
    QCOMPARE(rep["sync"]["edges"].get<int>(), 0);
    QCOMPARE(rep["sync"]["hta_exact"].get<bool>(), true);
    cp = nlohmann::json::parse(testutil::readText(dir + "/cpe.json"));
    QCOMPARE(cp["options"]["hta_exact"].get<bool>(), true);
    QVERIFY(cp["sync_edges"].empty() && cp["sync_edges_inferred"].empty());
    QVERIFY2(cp["critical_path"]["weight_us"].get<double>() < weight - 1000,
             qPrintable(QString("%1 vs %2").arg(cp["critical_path"]["weight_us"].get<double>()).arg(weight)));
    QVERIFY(syncscope({"--help"}).out.contains("--hta-exact"));
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

void TestBatch::nonRegularInputsAreRefused()
{
    const PairCopy pair = copyPair();
    const std::string fifo = pair.dir + "/fifo.json";
    QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
    // Unfed: it must not block. (The overlay and --inspect re-open their input, so even a fed
    // FIFO used to hang; non-regular inputs are refused before anything is read.)
    for (const QStringList &args :
         {QStringList{"--batch", "--host", q(pair.host), "--device", q(fifo)},
          QStringList{"--batch", "--host", q(fifo), "--device", q(pair.device)},
          QStringList{"--batch", "--device", q(fifo), "--overlay", q(pair.dir + "/o.json")},
          QStringList{"--batch", "--inspect", q(fifo)}, QStringList{"--batch", "--device", "/dev/zero"}}) {
        const Run r = syncscope(args, 20000);
        QVERIFY2(r.code == 3, qPrintable(QStringLiteral("exit %1: %2").arg(r.code).arg(r.err)));
        QVERIFY2(r.err.contains("not a regular file"), qPrintable(r.err));
    }
    QVERIFY(!std::filesystem::exists(pair.dir + "/o.json"));
}

void TestBatch::noOutputOverAnyInput_data()
{
    QTest::addColumn<QString>("option");
    for (const char *option : {"--output", "--chakra-et", "--critical-path", "--overlay", "--report"})
        QTest::newRow(option) << QString(option);
}

void TestBatch::noOutputOverAnyInput()
{
    // Host and device, under their own names, a hard link and a symlink: each refused, each input intact.
    QFETCH(QString, option);
    const PairCopy pair = copyPair();
    std::filesystem::create_hard_link(pair.host, pair.dir + "/host-hard.json");
    std::filesystem::create_symlink("device.json", pair.dir + "/device-link.json");
    const std::string host = testutil::readText(pair.host), device = testutil::readText(pair.device);
    for (const std::string &target : {pair.host, pair.device, pair.dir + "/host-hard.json",
                                      pair.dir + "/device-link.json"}) {
        const Run r = syncscope({"--batch", "--host", q(pair.host), "--device", q(pair.device), option, q(target)});
        QVERIFY2(r.code == 5, qPrintable(QStringLiteral("%1 %2: exit %3\n%4").arg(option, q(target)).arg(r.code).arg(r.err)));
        QVERIFY2(r.err.contains("refusing to overwrite an input"), qPrintable(r.err));
        QCOMPARE(testutil::readText(pair.host), host);
        QCOMPARE(testutil::readText(pair.device), device);
    }
    QVERIFY(std::filesystem::is_symlink(pair.dir + "/device-link.json"));
    QVERIFY(leftovers(pair.dir).empty());
}

void TestBatch::sameOutputTwiceIsAUsageError_data()
{
    QTest::addColumn<QString>("first");
    QTest::addColumn<QString>("second");
    QTest::addColumn<QString>("spelling"); // how the second names the file
    QTest::newRow("--output --chakra-et") << "--output" << "--chakra-et" << "same";
    QTest::newRow("--output --report") << "--output" << "--report" << "dot";
    QTest::newRow("--critical-path --overlay") << "--critical-path" << "--overlay" << "symlink";
    QTest::newRow("--overlay --report") << "--overlay" << "--report" << "hardlink";
}

void TestBatch::sameOutputTwiceIsAUsageError()
{
    QFETCH(QString, first);
    QFETCH(QString, second);
    QFETCH(QString, spelling);
    const std::string dir = testutil::tempDir();
    const std::string out = dir + "/out.json";
    std::string other = out;
    if (spelling == "dot") {
        other = dir + "/./out.json";
    } else if (spelling == "symlink") {
        other = dir + "/link.json";
        std::filesystem::create_symlink("out.json", other); // dangling until written
    } else if (spelling == "hardlink") {
        testutil::writeText(out, "keep");
        other = dir + "/hard.json";
        std::filesystem::create_hard_link(out, other);
    }
    const Run r = syncscope({"--batch", "--host", fixture(kHost.toUtf8()), "--device", fixture(kDevice.toUtf8()), first,
                             q(out), second, q(other)});
    QVERIFY2(r.code == 2, qPrintable(QStringLiteral("exit %1\n%2").arg(r.code).arg(r.err)));
    QVERIFY2(r.err.contains(first + " and " + second + " name the same file"), qPrintable(r.err));
    if (spelling == "hardlink")
        QCOMPARE(testutil::readText(out), std::string("keep"));
    else
        QVERIFY(!std::filesystem::exists(out));
}

void TestBatch::outputsThroughSymlinksFifosAndDevices()
{
    const std::string dir = testutil::tempDir();
    std::filesystem::create_directory(dir + "/real");
    testutil::writeText(dir + "/real/report.json", "old");
    std::filesystem::create_symlink("real/report.json", dir + "/report.json");
    const std::string fifo = dir + "/cp.fifo";
    QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
    const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
    QVERIFY(reader >= 0);
    // Read the FIFO while syncscope writes it (it may hold more than a pipe's buffer).
    QProcess p;
    p.start(QStringLiteral(SYNCSCOPE_BINARY),
            {"--batch", "--host", fixture(kHost.toUtf8()), "--device", fixture(kDevice.toUtf8()), "--report",
             q(dir + "/report.json"), "--critical-path", q(fifo), "--output", "/dev/null", "--quiet"});
    std::string piped;
    char buf[65536];
    QElapsedTimer clock;
    clock.start();
    while (!p.waitForFinished(20) && clock.elapsed() < 60000)
        for (ssize_t n; (n = ::read(reader, buf, sizeof buf)) > 0;)
            piped.append(buf, size_t(n));
    for (ssize_t n; (n = ::read(reader, buf, sizeof buf)) > 0;)
        piped.append(buf, size_t(n));
    ::close(reader);
    const Run r{p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2, QString::fromUtf8(p.readAllStandardError()),
                {}};
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY(std::filesystem::is_symlink(dir + "/report.json"));
    QVERIFY(nlohmann::json::parse(testutil::readText(dir + "/real/report.json"))["exit_code"] == 0);
    QVERIFY(std::filesystem::is_fifo(fifo));
    QVERIFY(nlohmann::json::parse(piped).contains("critical_path"));
    QVERIFY(std::filesystem::is_character_file("/dev/null"));
    // /dev/stdout redirected to a file writes to the shell's descriptor (the file stays, its offset is shared).
    const std::string captured = dir + "/captured.txt";
    const Run viaStdout = shell(QStringLiteral("(echo first; \"$0\" --batch --device '%1' --report /dev/stdout --quiet; "
                                               "echo last) > '%2'")
                                    .arg(fixture(kDevice.toUtf8()), q(captured)));
    QCOMPARE(viaStdout.code, 0);
    const std::string text = testutil::readText(captured);
    QVERIFY2(text.rfind("first\n{", 0) == 0 && text.size() > 20 && text.substr(text.size() - 7) == "}\nlast\n",
             text.c_str());
    QVERIFY(nlohmann::json::parse(text.substr(6, text.size() - 11))["exit_code"] == 0);
    // A FIFO nobody reads fails at once with a message instead of hanging.
    const Run unread = syncscope({"--batch", "--device", fixture(kDevice.toUtf8()), "--critical-path", q(fifo)}, 20000);
    QCOMPARE(unread.code, 5);
    QVERIFY2(unread.err.contains("no process is reading"), qPrintable(unread.err));
}

void TestBatch::outputModes()
{
    const std::string dir = testutil::tempDir();
    const std::string existing = dir + "/existing.json";
    testutil::writeText(existing, "old");
    ::chmod(existing.c_str(), 0640);
    const Run r = shell(QStringLiteral("umask 077; exec \"$0\" --batch --device '%1' --report '%2' --critical-path '%3'")
                            .arg(fixture(kDevice.toUtf8()), q(dir + "/new.json"), q(existing)));
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QCOMPARE(std::filesystem::status(dir + "/new.json").permissions(),
             std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
    QCOMPARE(std::filesystem::status(existing).permissions(), std::filesystem::perms::owner_read |
                                                                  std::filesystem::perms::owner_write |
                                                                  std::filesystem::perms::group_read);
}

void TestBatch::fileSizeLimitGivesExit5()
{
    const std::string dir = testutil::tempDir();
    const Run r = shell(QStringLiteral("ulimit -f 2; exec \"$0\" --batch --host '%1' --device '%2' --output '%3'")
                            .arg(fixture(kHost.toUtf8()), fixture(kDevice.toUtf8()), q(dir + "/big.json")));
    QVERIFY2(r.code == 5, qPrintable(QStringLiteral("exit %1\n%2").arg(r.code).arg(r.err)));
    QVERIFY2(r.err.contains("File too large"), qPrintable(r.err));
    QVERIFY(std::filesystem::is_empty(dir));
}

void TestBatch::failedOutputDoesNotSkipTheOthers()
{
    const std::string dir = testutil::tempDir();
    const std::string bad = dir + "/no/such/dir/linked.json";
    const Run r = syncscope({"--batch", "--host", fixture(kHost.toUtf8()), "--device", fixture(kDevice.toUtf8()),
                             "--output", q(bad), "--chakra-et", q(dir + "/trace.et"), "--critical-path",
                             q(dir + "/cp.json"), "--report", q(dir + "/report.json")});
    QCOMPARE(r.code, 5);
    QVERIFY(std::filesystem::exists(dir + "/trace.et"));
    QVERIFY(std::filesystem::exists(dir + "/cp.json"));
    QVERIFY2(r.err.contains("FAILED   " + q(bad)), qPrintable(r.err));
    const auto report = nlohmann::json::parse(testutil::readText(dir + "/report.json"));
    QCOMPARE(report["exit_code"].get<int>(), 5);
    std::map<std::string, std::string> status;
    for (const auto &o : report["outputs"])
        status[o["kind"]] = o["status"];
    QCOMPARE(status["et_plus"], std::string("failed"));
    QCOMPARE(status["chakra_et"], std::string("written"));
    QCOMPARE(status["critical_path"], std::string("written"));
    bool diagnosed = false;
    for (const auto &d : report["diagnostics"])
        diagnosed |= d["code"] == "output.failed" && d["file"] == bad;
    QVERIFY(diagnosed);
    // Rejected inputs: every output is listed as skipped, with the reason, and none is written.
    const Run rejected = syncscope({"--batch", "--device", temp("bad.json", "{"), "--critical-path",
                                    q(dir + "/cp2.json"), "--report", q(dir + "/report2.json")});
    QCOMPARE(rejected.code, 3);
    QVERIFY2(rejected.err.contains("skipped  " + q(dir + "/cp2.json")), qPrintable(rejected.err));
    QVERIFY(!std::filesystem::exists(dir + "/cp2.json"));
    const auto report2 = nlohmann::json::parse(testutil::readText(dir + "/report2.json"));
    QCOMPARE(report2["outputs"][0]["status"].get<std::string>(), std::string("skipped"));
    QCOMPARE(report2["outputs"][0]["reason"].get<std::string>(), std::string("the inputs could not be loaded"));
}

void TestBatch::outOfRangeOptions()
{
    const Run instance = syncscope({"--batch", "--device", fixture(kDevice.toUtf8()), "--instance", "4294967296"});
    QCOMPARE(instance.code, 2);
    QVERIFY2(instance.err.contains("0 to 2147483647"), qPrintable(instance.err));
    const Run rank = syncscope({"--batch", "--device", fixture(kDevice.toUtf8()), "--rank", "99999999999999999999"});
    QCOMPARE(rank.code, 2);
    QVERIFY2(rank.err.contains("out of range"), qPrintable(rank.err));
    const Run empty = syncscope({"--batch", "--host", fixture(kHost.toUtf8()), "--device", fixture(kDevice.toUtf8()),
                                 "--output", ""});
    QCOMPARE(empty.code, 2);
    QVERIFY2(empty.err.contains("--output needs a file name"), qPrintable(empty.err));
}

void TestBatch::criticalPathFailureIsNeverExit0()
{
    // The trace has one ProfilerStep: instance 5 cannot be analysed.
    const std::string dir = testutil::tempDir();
    const Run asked = syncscope({"--batch", "--device", fixture(kDevice.toUtf8()), "--instance", "5", "--report",
                                 q(dir + "/r.json")});
    QVERIFY2(asked.code == 6, qPrintable(QStringLiteral("exit %1\n%2").arg(asked.code).arg(asked.err)));
    QCOMPARE(nlohmann::json::parse(testutil::readText(dir + "/r.json"))["exit_code"].get<int>(), 6);
    testutil::KinetoBuilder k; // no event has a duration: nothing to analyse
    k.raw(R"({"ph": "i", "name": "marker", "pid": 100, "tid": 1, "ts": 5, "s": "t"})");
    const Run cpOnly = syncscope({"--batch", "--device", temp("k2.json", k.json())});
    QVERIFY2(!cpOnly.err.contains("critical-path analysis failed") || cpOnly.code != 0, qPrintable(cpOnly.err));
}

void TestBatch::reportSurvivesInvalidUtf8()
{
    // A file name that is not UTF-8, and a top-level key that is not either.
    const std::string dir = testutil::tempDir();
    const std::string device = dir + "/dev\xff.json";
    std::filesystem::copy_file(testutil::fixture(kDevice.toStdString()), device);
    std::string text = testutil::readText(testutil::fixture(kDevice.toStdString()));
    text.insert(text.find('{') + 1, "\"bad\xfe\xffkey\": 1, ");
    testutil::writeText(dir + "/badkey.json", text);
    for (const QString &input : {QStringLiteral("$(printf '%1/dev\\377.json')").arg(q(dir)), q(dir + "/badkey.json")}) {
        const std::string report = dir + "/report.json";
        std::filesystem::remove(report);
        const Run r = shell(QStringLiteral("exec \"$0\" --batch --device \"%1\" --report '%2'").arg(input, q(report)));
        QVERIFY2(r.code != 1 && r.code < 128 && r.code >= 0, qPrintable(QStringLiteral("exit %1\n%2").arg(r.code).arg(r.err)));
        QVERIFY2(!r.err.contains("internal error"), qPrintable(r.err));
        const auto j = nlohmann::json::parse(testutil::readText(report)); // valid UTF-8 JSON
        QCOMPARE(j["exit_code"].get<int>(), r.code);
        if (input.contains("printf"))
            QVERIFY(j["inputs"]["device"]["path"].get<std::string>().find("\xEF\xBF\xBD") != std::string::npos);
    }
}

void TestBatch::etPlusReadBackAsHost_data()
{
    QTest::addColumn<QStringList>("mode");
    QTest::newRow("default") << QStringList{};
    QTest::newRow("compat chakra") << QStringList{"--compat", "chakra"};
}

// Issue 22: the ET+ (renumbered from 0, its process node 0 -> 0) was refused as a
// "parent cycle (0 -> 0)" when given back as the host ET. Read back, it links the same
// and writes the same bytes: its GPU nodes are left out and linked again.
void TestBatch::etPlusReadBackAsHost()
{
    QFETCH(QStringList, mode);
    const QString dir = QString::fromStdString(testutil::tempDir());
    const QString host = QStringLiteral(SYNCSCOPE_SAMPLE_DIR "/sample.et.json.gz");
    const QString device = QStringLiteral(SYNCSCOPE_SAMPLE_DIR "/sample.kineto.json.gz");
    const Run first = syncscope(QStringList{"--batch", "--quiet", "--host", host, "--device", device, "--output",
                                            dir + "/a.json"} + mode);
    QCOMPARE(first.code, 0);
    const Run again = syncscope(QStringList{"--batch", "--host", dir + "/a.json", "--device", device, "--output",
                                            dir + "/b.json", "--report", dir + "/b.report.json"} + mode);
    QVERIFY2(again.code == 0, qPrintable(again.err + again.out));
    const QString said = again.out + again.err;
    QVERIFY2(!said.contains("cycle"), qPrintable(said));
    QVERIFY2(said.contains("it is linked again and its"), qPrintable(said));
    QCOMPARE(testutil::readText((dir + "/b.json").toStdString()), testutil::readText((dir + "/a.json").toStdString()));
    const auto report = nlohmann::json::parse(testutil::readText((dir + "/b.report.json").toStdString()));
    bool warned = false;
    for (const auto &d : report.at("diagnostics"))
        warned |= d.at("code") == "host.linked_input";
    QVERIFY(warned);
}

QTEST_GUILESS_MAIN(TestBatch)
#include "tst_batch.moc"
