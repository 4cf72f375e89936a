// SPDX-License-Identifier: MIT
// Job mode end to end (syncscope --batch --job, syncscope-mpi): the per-rank
// files under --output-dir, the job report's keys, the exit code of a job with
// a broken rank (the healthy ranks are still analysed, nothing is written
// half), the usage errors of job mode, and MPI writing the same report.
#include "export/chakrapatch.h"
#include "export/chakrareader.h"
#include "testutil.h"

#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <cmath>

namespace fs = std::filesystem;

namespace {

struct Run {
    int code = -1;
    QString err;
    QString out;
};

Run execute(const QString &program, const QStringList &args, int timeoutMs = 300000)
{
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("DISPLAY"));
    // Under ASan (scripts/test.sh --asan): Open MPI's plugins are unloaded before
    // LeakSanitizer runs, so their lifetime allocations show up as leaks from an
    // "<unknown module>" that no suppression can name; they are not ours.
    if (program.endsWith(QLatin1String("mpirun"))) {
        const QString asan = env.value(QStringLiteral("ASAN_OPTIONS"));
        env.insert(QStringLiteral("ASAN_OPTIONS"),
                   (asan.isEmpty() ? QString() : asan + QLatin1Char(':')) + QStringLiteral("detect_leaks=0"));
    }
    p.setProcessEnvironment(env);
    p.start(program, args);
    if (!p.waitForFinished(timeoutMs))
        return {};
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2, QString::fromUtf8(p.readAllStandardError()),
            QString::fromUtf8(p.readAllStandardOutput())};
}

Run runSyncscope(const QStringList &args)
{
    return execute(QStringLiteral(SYNCSCOPE_BINARY), args);
}

QString q(const std::string &s)
{
    return QString::fromStdString(s);
}

// A 2-rank job from tests/data (real PARAM DLRM ranks 0 and 1 of a world of 8).
std::string twoRankJob()
{
    const std::string dir = testutil::tempDir() + "/job";
    fs::create_directories(dir);
    for (const char *rank : {"0", "1"})
        for (const char *kind : {"et", "kineto"}) {
            const std::string name = std::string("rank") + rank + "." + kind + ".json.gz";
            fs::copy_file(testutil::fixture(std::string("pairs/param_dlrm_rank") + rank + "/" + name), dir + "/" + name);
        }
    return dir;
}

nlohmann::json readJson(const std::string &path)
{
    return nlohmann::json::parse(testutil::readText(path));
}

std::vector<std::string> listDir(const std::string &dir)
{
    std::vector<std::string> names;
    for (const auto &e : fs::directory_iterator(dir))
        names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

const nlohmann::json *rankRow(const nlohmann::json &report, int rank)
{
    for (const auto &row : report["ranks"])
        if (row["rank"] == rank)
            return &row;
    return nullptr;
}

} // namespace

class TestBatchJob : public QObject
{
    Q_OBJECT
private slots:
    void usageErrors_data();
    void usageErrors();
    void helpListsJobOptions();
    void twoRankJobEndToEnd();
    void realEightRankJob();
    void brokenRankDoesNotStopTheOthers();
    void directoryWithoutTraces();
    void reportNeverOverwritesAnInput();
    void mpiWritesTheSameReport();
};

void TestBatchJob::usageErrors_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    const QString dir = QStringLiteral("/tmp");
    QTest::newRow("job without batch") << QStringList{"--job", dir} << "--job needs --batch";
    QTest::newRow("with --host") << QStringList{"--batch", "--job", dir, "--host", "x.json"} << "--host cannot";
    QTest::newRow("with a file") << QStringList{"--batch", "--job", dir, "x.json"} << "unexpected argument";
    QTest::newRow("with --output") << QStringList{"--batch", "--job", dir, "--output", "o.json"} << "--output-dir";
    QTest::newRow("per-rank FILE") << QStringList{"--batch", "--job", dir, "--output-dir", "o", "--chakra-et", "x.et"}
                                   << "takes no FILE in job mode";
    QTest::newRow("no output dir") << QStringList{"--batch", "--job", dir, "--critical-path"}
                                   << "--critical-path in job mode needs --output-dir";
    QTest::newRow("jobs 0") << QStringList{"--batch", "--job", dir, "--jobs", "0"} << "--jobs takes";
    QTest::newRow("jobs text") << QStringList{"--batch", "--job", dir, "--jobs", "many"} << "--jobs takes";
    QTest::newRow("prefix with slash") << QStringList{"--batch", "--job", dir, "--prefix", "a/b"} << "--prefix";
    QTest::newRow("single mode needs FILE") << QStringList{"--batch", "--device", "d.json", "--chakra-et"}
                                            << "--chakra-et needs a value";
}

void TestBatchJob::usageErrors()
{
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    const Run r = runSyncscope(args);
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains(message), qPrintable(r.err));
}

void TestBatchJob::helpListsJobOptions()
{
    const Run r = runSyncscope({"--help"});
    QCOMPARE(r.code, 0);
    for (const char *opt : {"--job DIR|LIST", "--jobs N", "--output-dir OUT", "--prefix NAME", "--chakra-et [FILE]"})
        QVERIFY2(r.out.contains(opt), opt);
}

void TestBatchJob::twoRankJobEndToEnd()
{
    const std::string job = twoRankJob();
    const std::string out = testutil::tempDir() + "/out";
    const std::string report = testutil::tempDir() + "/job.json";
    const Run r = runSyncscope({"--batch", "--job", q(job), "--jobs", "2", "--output-dir", q(out), "--prefix", "dlrm",
                             "--chakra-et", "--critical-path", "--report", q(report)});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QCOMPARE(listDir(out), (std::vector<std::string>{"dlrm.0.critical_path.json", "dlrm.0.et", "dlrm.0.json",
                                                     "dlrm.1.critical_path.json", "dlrm.1.et", "dlrm.1.json"}));
    QVERIFY(readJson(out + "/dlrm.1.json").contains("nodes")); // ET+

    const nlohmann::json j = readJson(report);
    std::vector<std::string> keys;
    for (const auto &[k, v] : j.items())
        keys.push_back(k);
    std::sort(keys.begin(), keys.end());
    QCOMPARE(keys, (std::vector<std::string>{"collectives", "delay_costs", "job", "job_critical_path", "ranks",
                                             "start_skew", "stragglers", "timing"}));
    for (const char *k : {"world_size", "ranks_found", "ranks", "clock_reference_rank", "exit_code", "diagnostics"})
        QVERIFY2(j["job"].contains(k), k);
    QCOMPARE(j["job"]["world_size"], 8);
    QCOMPARE(j["job"]["ranks_found"], 2);
    QCOMPARE(j["job"]["ranks"], nlohmann::json::array({0, 1}));
    QCOMPARE(j["job"]["missing_ranks"].size(), size_t(6));
    QCOMPARE(j["job"]["clock_reference_rank"], 0);
    QCOMPARE(j["ranks"].size(), size_t(2));
    for (const auto &row : j["ranks"]) {
        for (const char *k : {"rank", "host", "device", "exit_code", "link", "clock_offset_us", "critical_path",
                              "collective_wait_us", "collective_wait_caused_us", "last_arrivals", "diagnostics"})
            QVERIFY2(row.contains(k), k);
        QCOMPARE(row["exit_code"], 0);
        QVERIFY(row["link"]["coverage_percent"].get<double>() > 50);
        QVERIFY(row["critical_path"]["weight_us"].get<double>() > 0);
        QCOMPARE(row["outputs"].size(), size_t(3));
    }
    QVERIFY(rankRow(j, 1)->at("device").get<std::string>().find("rank1.kineto.json.gz") != std::string::npos);
    QVERIFY(j["timing"].contains("total_s"));
    // The text summary: the per-rank table and the job's problems.
    QVERIFY2(r.err.contains("crit path ms") && r.err.contains("missing: 2, 3, 4, 5, 6, 7"), qPrintable(r.err));
}

void TestBatchJob::realEightRankJob()
{
    REQUIRE_SHARED_DATA();
    const std::string out = testutil::tempDir() + "/out";
    const std::string report = out + "/job.json";
    const Run r = runSyncscope({"--batch", "--job", q(testutil::sharedData("pairs/param_dlrm_8rank")), "--output-dir",
                             q(out), "--chakra-et", "--report", q(report), "--quiet"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY(r.err.isEmpty());
    const nlohmann::json j = readJson(report);
    QCOMPARE(j["job"]["ranks_found"], 8);
    QCOMPARE(j["job"]["missing_ranks"].size(), size_t(0));
    double latest = 0;
    for (int rank = 0; rank < 8; ++rank) {
        QVERIFY(fs::exists(out + "/trace." + std::to_string(rank) + ".json"));
        QCOMPARE(rankRow(j, rank)->at("exit_code"), 0);
        // Issue 21: each rank's .et says when the rank started in the job (ASTRA-sim
        // starts all at 0; DLRM's ranks started up to 7.5 ms apart), as the report does.
        const double offset = rankRow(j, rank)->at("start_offset_us").get<double>();
        QVERIFY(offset >= 0);
        latest = std::max(latest, offset);
        syncscope::ChakraEtReader et(out + "/trace." + std::to_string(rank) + ".et");
        ChakraProtoMsg::Node first;
        QVERIFY(et.next(first));
        int64_t found = -1, count = 0;
        for (const auto &a : first.attr())
            if (a.name() == syncscope::kRankStartOffsetAttr) {
                found = a.int64_val();
                ++count;
            }
        QCOMPARE(count, int64_t(1));
        QCOMPARE(found, int64_t(std::llround(offset)));
        for (ChakraProtoMsg::Node n; et.next(n);) // the rest of the file is intact
            for (const auto &a : n.attr())
                QVERIFY(a.name() != syncscope::kRankStartOffsetAttr);
    }
    QVERIFY2(latest > 7000, qPrintable(QString::number(latest))); // rank 7's late start
    // Rank 0's collectives carry the message its Kineto trace records ("Input Dims" x
    // element size of its nccl:* ops: 394241 / 112 / 226960 floats all-reduced, all-to-alls
    // of 6144 floats twice, 24 longs, 384 and 3392 ints), in launch order (issue 21).
    {
        syncscope::ChakraEtReader et(out + "/trace.0.et");
        std::vector<int64_t> sizes;
        for (ChakraProtoMsg::Node n; et.next(n);)
            for (const auto &a : n.attr())
                if (a.name() == "comm_size")
                    sizes.push_back(a.int64_val());
        std::sort(sizes.begin(), sizes.end());
        QCOMPARE(sizes, (std::vector<int64_t>{192, 448, 1536, 13568, 24576, 24576, 907840, 1576964}));
    }
    // The set replayed as a job: every rank from its offset, the job within 5 %.
    const Run inspect = runSyncscope({"--batch", "--inspect", q(out), "--replay"});
    QVERIFY2(inspect.code == 0, qPrintable(inspect.err));
    const QStringList lines = inspect.out.split('\n');
    QCOMPARE(lines.filter(QRegularExpression("^  rank \\d+ ")).size(), 8);
    const QStringList job = lines.filter(QRegularExpression("^  job "));
    QCOMPARE(job.size(), 1);
    const QRegularExpressionMatch m = QRegularExpression("\\(([-+][0-9.]+) %\\)").match(job.front());
    QVERIFY2(m.hasMatch() && std::abs(m.captured(1).toDouble()) <= 5.0, qPrintable(job.front()));
    // A folder without --replay is a usage error, not a crash.
    QCOMPARE(runSyncscope({"--batch", "--inspect", q(out)}).code, 2);
}

void TestBatchJob::brokenRankDoesNotStopTheOthers()
{
    const std::string job = twoRankJob();
    // Rank 2: the first half of a gzip'd trace (a crash mid-write).
    const std::string whole = testutil::readText(testutil::fixture("pairs/param_dlrm_rank1/rank1.kineto.json.gz"));
    const std::string gz = testutil::gzipped(whole);
    testutil::writeText(job + "/rank2.kineto.json.gz", gz.substr(0, gz.size() / 2));
    const std::string out = testutil::tempDir() + "/out";
    const std::string report = testutil::tempDir() + "/job.json";
    const Run r = runSyncscope({"--batch", "--job", q(job), "--output-dir", q(out), "--report", q(report)});
    QCOMPARE(r.code, 3);
    QVERIFY2(r.err.contains("rank 2: ") && r.err.contains("rank2.kineto.json.gz"), qPrintable(r.err));
    const nlohmann::json j = readJson(report);
    QCOMPARE(j["job"]["exit_code"], 3);
    QCOMPARE(rankRow(j, 0)->at("exit_code"), 0);
    QCOMPARE(rankRow(j, 1)->at("exit_code"), 0);
    const nlohmann::json &broken = *rankRow(j, 2);
    QCOMPARE(broken["exit_code"], 3);
    QVERIFY(!broken["diagnostics"].empty());
    QVERIFY(broken["diagnostics"][0]["message"].get<std::string>().find("rank2.kineto.json.gz") != std::string::npos);
    // The healthy ranks' files, nothing for the broken one, no temporary leftovers.
    QCOMPARE(listDir(out), (std::vector<std::string>{"trace.0.json", "trace.1.json"}));
}

void TestBatchJob::directoryWithoutTraces()
{
    const std::string dir = testutil::tempDir();
    testutil::writeText(dir + "/readme.txt", "no traces here");
    const std::string report = testutil::tempDir() + "/job.json";
    const Run r = runSyncscope({"--batch", "--job", q(dir), "--report", q(report)});
    QCOMPARE(r.code, 3);
    QVERIFY2(r.err.contains("no .json or .json.gz files were found"), qPrintable(r.err));
    QCOMPARE(readJson(report)["job"]["ranks_found"], 0);
}

void TestBatchJob::reportNeverOverwritesAnInput()
{
    const std::string job = twoRankJob();
    const std::string input = job + "/rank0.et.json.gz";
    const std::string before = testutil::readText(input);
    const Run r = runSyncscope({"--batch", "--job", q(job), "--report", q(input), "--quiet"});
    QCOMPARE(r.code, 5);
    QVERIFY2(r.err.contains("refusing to overwrite an input"), qPrintable(r.err));
    QCOMPARE(testutil::readText(input), before);
}

void TestBatchJob::mpiWritesTheSameReport()
{
#ifndef SYNCSCOPE_MPI_BINARY
    QSKIP("syncscope-mpi was not built (CMake found no MPI)");
#else
    const QString mpirun = QStandardPaths::findExecutable(QStringLiteral("mpirun"));
    if (mpirun.isEmpty())
        QSKIP("mpirun is not installed");
    const std::string job = twoRankJob();
    const std::string one = testutil::tempDir() + "/one";
    const std::string two = testutil::tempDir() + "/two";
    const Run single = runSyncscope({"--batch", "--job", q(job), "--output-dir", q(one), "--critical-path", "--report",
                                  q(one + "/job.json"), "--quiet"});
    QVERIFY2(single.code == 0, qPrintable(single.err));
    const Run mpi = execute(mpirun, {"--oversubscribe", "--allow-run-as-root", "-np", "2",
                                     QStringLiteral(SYNCSCOPE_MPI_BINARY), "--job", q(job), "--output-dir", q(two),
                                     "--critical-path", "--report", q(two + "/job.json"), "--quiet"});
    QVERIFY2(mpi.code == 0, qPrintable(mpi.err + mpi.out));
    nlohmann::json a = readJson(one + "/job.json"), b = readJson(two + "/job.json");
    QCOMPARE(b["timing"]["processes"], 2);
    a.erase("timing");
    b.erase("timing");
    // The per-rank files are named after the output directory: compare without it.
    const std::string dumpA = a.dump(1), dumpB = b.dump(1);
    QString textA = q(dumpA).replace(q(one), "OUT"), textB = q(dumpB).replace(q(two), "OUT");
    QCOMPARE(textB, textA);
    QCOMPARE(listDir(two), listDir(one));
#endif
}

QTEST_GUILESS_MAIN(TestBatchJob)
#include "tst_batchjob.moc"
