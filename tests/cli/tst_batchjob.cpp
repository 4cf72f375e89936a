// SPDX-License-Identifier: MIT
// Job mode end to end (syncscope --batch --job, syncscope-mpi): the per-rank
// files under --output-dir, the job report's keys, the exit code of a job with
// a broken rank (the healthy ranks are still analysed, nothing is written
// half), the usage errors of job mode, and MPI writing the same report.
// Issue 22: no output of a run names an input or another output (checked before
// anything is written, exit 2), a rerun never takes the earlier outputs as
// traces, hostile headers stay small and fast, odd file names still give a valid
// report, and an MPI usage error on any process ends every process.
#include "export/chakrapatch.h"
#include "export/chakrareader.h"
#include "export/chakrareplay.h"
#include "testutil.h"

#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <cmath>
#include <map>

namespace fs = std::filesystem;

namespace {

#ifdef SYNCSCOPE_MPI_BINARY
const char *const kMpiBinary = SYNCSCOPE_MPI_BINARY;
#else
const char *const kMpiBinary = nullptr;
#endif

// The mpirun that starts syncscope-mpi; empty, with the reason, where the MPI tests cannot run.
QString mpirunOrWhyNot(QString &whyNot)
{
    if (!kMpiBinary) {
        whyNot = QStringLiteral("syncscope-mpi was not built (CMake found no MPI)");
        return {};
    }
    const QString mpirun = QStandardPaths::findExecutable(QStringLiteral("mpirun"));
    if (mpirun.isEmpty())
        whyNot = QStringLiteral("mpirun is not installed");
    return mpirun;
}

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

// The files of a folder and their bytes, to show nothing was written or replaced.
std::map<std::string, std::string> snapshot(const std::string &dir)
{
    std::map<std::string, std::string> files;
    for (const auto &e : fs::recursive_directory_iterator(dir))
        if (e.is_regular_file())
            files[e.path().string()] = testutil::readText(e.path().string());
    return files;
}

// Removes a folder whose file names QTemporaryDir cannot (non-UTF-8 bytes).
struct RemoveWhenDone {
    std::string dir;
    ~RemoveWhenDone()
    {
        std::error_code ec;
        fs::remove_all(dir, ec);
    }
};

// A small Kineto trace of `rank` whose distributedInfo.world_size is the raw JSON `world`.
std::string tinyDevice(int rank, const std::string &world)
{
    return R"({"distributedInfo": {"backend": "nccl", "rank": )" + std::to_string(rank) + R"(, "world_size": )" +
           world + R"(}, "traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": )" +
           std::to_string(100 + rank) + R"(, "tid": 1, "ts": 1700000000000000, "dur": 10}, {"ph": "X", "cat": )"
           R"("kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1700000000000002, "dur": 3, "args": {"stream": 7, )"
           R"("correlation": 1}}]})";
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
    void outputNeverReplacesAnotherRanksInput();
    void reportNeverReplacesARankOutput();
    void rerunIgnoresEarlierOutputs();
    void hostileHeadersStaySmall();
    void nonUtf8FileNames();
    void mpiUsageErrorOnOneProcess();
    void mpiRefusesAnOutputOverAnInput();
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
    const std::vector<std::string> files = {"dlrm.0.critical_path.json", "dlrm.0.et", "dlrm.0.json",
                                            "dlrm.1.critical_path.json", "dlrm.1.et", "dlrm.1.json"};
    std::vector<std::string> withList = files;
    withList.insert(withList.begin(), ".syncscope-outputs");
    QCOMPARE(listDir(out), withList);
    // The output list names every file the run wrote there (a later --job skips them).
    const std::string list = testutil::readText(out + "/.syncscope-outputs");
    for (const auto &f : files)
        QVERIFY2(list.find("\n" + f + "\n") != std::string::npos, f.c_str());
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
    QCOMPARE(j["job"]["missing_ranks"], nlohmann::json::parse("[[2, 7]]")); // ranges, first and last
    QCOMPARE(j["job"]["missing_rank_count"], 6);
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
        QVERIFY(row["breakdown"]["temporal"]["kernel_time_us"].get<double>() > 0); // --report: breakdowns
    }
    QVERIFY(rankRow(j, 1)->at("device").get<std::string>().find("rank1.kineto.json.gz") != std::string::npos);
    QVERIFY(j["timing"].contains("total_s"));
    // The text summary: the per-rank table and the job's problems.
    QVERIFY2(r.err.contains("crit path ms") && r.err.contains("missing: 2-7 (6 rank(s))"), qPrintable(r.err));
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
    QCOMPARE(j["job"]["missing_rank_count"], 0);
    double latest = 0, simulatedEnd = 0;
    for (int rank = 0; rank < 8; ++rank) {
        QVERIFY(fs::exists(out + "/trace." + std::to_string(rank) + ".json"));
        QCOMPARE(rankRow(j, rank)->at("exit_code"), 0);
        // Issue 21: each rank's .et says when the rank started in the job (ASTRA-sim
        // starts all at 0; DLRM's ranks started up to 7.5 ms apart), as the report does.
        const double offset = rankRow(j, rank)->at("start_offset_us").get<double>();
        QVERIFY(offset >= 0);
        latest = std::max(latest, offset);
        // Issue 38: the offset is a leading delay node every root depends on, so a
        // simulator that starts all ranks at 0 and reads no attribute (ASTRA-sim) still
        // starts the rank late; the node carries the attribute.
        syncscope::ChakraEtReader et(out + "/trace." + std::to_string(rank) + ".et");
        ChakraProtoMsg::Node first;
        QVERIFY(et.next(first));
        const int64_t micros = std::llround(offset);
        int64_t found = -1, count = 0;
        for (const auto &a : first.attr())
            if (a.name() == syncscope::kRankStartOffsetAttr) {
                found = a.int64_val();
                ++count;
            }
        if (micros > 0) {
            QCOMPARE(QString::fromStdString(first.name()), QString(syncscope::kRankStartDelayName));
            QCOMPARE(int64_t(first.duration_micros()), micros);
            QCOMPARE(count, int64_t(1));
            QCOMPARE(found, micros);
        } else {
            QVERIFY(first.name() != syncscope::kRankStartDelayName);
            QCOMPARE(count, int64_t(0));
        }
        int64_t roots = 0, onDelay = 0;
        for (ChakraProtoMsg::Node n; et.next(n);) { // the rest of the file is intact
            for (const auto &a : n.attr())
                QVERIFY(a.name() != syncscope::kRankStartOffsetAttr);
            roots += n.data_deps_size() == 0 ? 1 : 0;
            onDelay += micros > 0 && n.data_deps_size() == 1 && n.data_deps(0) == first.id() ? 1 : 0;
        }
        if (micros > 0) {
            QCOMPARE(roots, int64_t(0)); // nothing starts before the delay
            QVERIFY(onDelay > 0);
        }
        // The rank as a simulator replays it, from 0: its work ends after its offset.
        simulatedEnd = std::max(simulatedEnd, syncscope::replayChakraEt(out + "/trace." + std::to_string(rank) + ".et").makespanUs);
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
    // Every rank started at 0 as ASTRA-sim does, the delay nodes alone put the job's end
    // where it was measured: within 2 % of the job span.
    const QRegularExpressionMatch measured = QRegularExpression("measured +([0-9.]+) ms").match(job.front());
    QVERIFY(measured.hasMatch());
    const double jobUs = measured.captured(1).toDouble() * 1000.0;
    QVERIFY2(std::abs(simulatedEnd - jobUs) <= 0.02 * jobUs,
             qPrintable(QString("simulated %1 us, measured %2 us").arg(simulatedEnd).arg(jobUs)));
    // A folder without --replay is a usage error, not a crash.
    QCOMPARE(runSyncscope({"--batch", "--inspect", q(out)}).code, 2);
}

void TestBatchJob::brokenRankDoesNotStopTheOthers()
{
    const std::string job = twoRankJob();
    // Rank 2: the first half of a gzip'd trace (a crash mid-write), rank 1's made rank 2's (its
    // header, which discovery reads, says rank 2: the trace's own rank wins over its name).
    std::string whole = testutil::readText(testutil::fixture("pairs/param_dlrm_rank1/rank1.kineto.json.gz"));
    const std::string info = R"("distributedInfo": {"backend": "nccl", "rank": 1,)";
    QVERIFY(whole.find(info) != std::string::npos);
    whole.replace(whole.find(info), info.size(), R"("distributedInfo": {"backend": "nccl", "rank": 2,)");
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
    QCOMPARE(listDir(out), (std::vector<std::string>{".syncscope-outputs", "trace.0.json", "trace.1.json"}));
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
    // Checked before anything is written, as a usage error naming both roles (issue 22).
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("the --report (" + q(input) + ") would replace rank 0's host execution trace"),
             qPrintable(r.err));
    QCOMPARE(testutil::readText(input), before);
}

void TestBatchJob::mpiWritesTheSameReport()
{
    QString whyNot;
    const QString mpirun = mpirunOrWhyNot(whyNot);
    if (mpirun.isEmpty())
        QSKIP(qPrintable(whyNot));
    const std::string job = twoRankJob();
    const std::string one = testutil::tempDir() + "/one";
    const std::string two = testutil::tempDir() + "/two";
    // With the straggler what-if: the GPU timelines travel in the summaries MPI gathers.
    const Run single = runSyncscope({"--batch", "--job", q(job), "--output-dir", q(one), "--critical-path",
                                     "--straggler-whatif", "--report", q(one + "/job.json"), "--quiet"});
    QVERIFY2(single.code == 0, qPrintable(single.err));
    const Run mpi = execute(mpirun, {"--oversubscribe", "--allow-run-as-root", "-np", "2",
                                     QString::fromUtf8(kMpiBinary), "--job", q(job), "--output-dir", q(two),
                                     "--critical-path", "--straggler-whatif", "--report", q(two + "/job.json"),
                                     "--quiet"});
    QVERIFY2(mpi.code == 0, qPrintable(mpi.err + mpi.out));
    nlohmann::json a = readJson(one + "/job.json"), b = readJson(two + "/job.json");
    QCOMPARE(b["timing"]["processes"], 2);
    QVERIFY2(b["straggler_whatif"]["ok"].get<bool>(), b["straggler_whatif"].dump().c_str());
    QVERIFY(b["straggler_whatif"]["ops"].get<int64_t>() > 0);
    a.erase("timing");
    b.erase("timing");
    // The per-rank files are named after the output directory: compare without it.
    const std::string dumpA = a.dump(1), dumpB = b.dump(1);
    QString textA = q(dumpA).replace(q(one), "OUT"), textB = q(dumpB).replace(q(two), "OUT");
    QCOMPARE(textB, textA);
    QCOMPARE(listDir(two), listDir(one));
}

void TestBatchJob::outputNeverReplacesAnotherRanksInput()
{
    // --output-dir is the job folder and rank 1's device trace is named x.0.json: with
    // --prefix x, rank 0's ET+ would be x.0.json. It once replaced rank 1's input (exit 0;
    // with --jobs 2 it raced with rank 1's read). Now nothing is written at all.
    const std::string job = twoRankJob();
    testutil::writeText(job + "/x.0.json", testutil::readText(job + "/rank1.kineto.json.gz"));
    fs::remove(job + "/rank1.kineto.json.gz");
    const auto before = snapshot(job);
    const Run r = runSyncscope({"--batch", "--job", q(job), "--output-dir", q(job), "--prefix", "x", "--jobs", "2",
                                "--chakra-et", "--critical-path", "--overlay", "--report", q(job + "/job.json")});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("rank 0's ET+ output (" + q(job) + "/x.0.json) would replace rank 1's device trace"),
             qPrintable(r.err));
    QVERIFY(snapshot(job) == before); // no output, no output list, the input intact
    // Another spelling of the same folder (a symlink, "..", ".") is the same folder.
    const std::string tmp = testutil::tempDir();
    fs::create_directory_symlink(job, tmp + "/alias");
    fs::create_directories(tmp + "/sub");
    const std::string alias = tmp + "/sub/../alias/.";
    QCOMPARE(runSyncscope({"--batch", "--job", q(job), "--output-dir", q(alias), "--prefix", "x", "--quiet"}).code, 2);
    QVERIFY(snapshot(job) == before);
}

void TestBatchJob::reportNeverReplacesARankOutput()
{
    // Pair mode refuses two outputs naming one file; job mode once let --report replace a rank's ET+.
    const std::string job = twoRankJob();
    const std::string out = testutil::tempDir() + "/out";
    const Run r = runSyncscope({"--batch", "--job", q(job), "--output-dir", q(out), "--report",
                                q(out + "/../out/./trace.1.json")});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("rank 1's ET+ output (" + q(out) + "/trace.1.json) and the --report") &&
                 r.err.contains("name the same file"),
             qPrintable(r.err));
    QVERIFY(!fs::exists(out)); // checked before the folder was even created
    // The output list of the folder is an output too.
    QCOMPARE(runSyncscope({"--batch", "--job", q(job), "--output-dir", q(out), "--report", q(out + "/.syncscope-outputs")})
                 .code,
             2);
}

void TestBatchJob::rerunIgnoresEarlierOutputs()
{
    // A second run with another --output-dir inside the job folder once took the first run's
    // ET+ and overlays as traces (a second host and device per rank) and dropped the real ones.
    const std::string job = twoRankJob();
    const Run first = runSyncscope({"--batch", "--job", q(job), "--output-dir", q(job + "/out1"), "--critical-path",
                                    "--overlay", "--report", q(job + "/out1/job.json"), "--quiet"});
    QVERIFY2(first.code == 0, qPrintable(first.err));
    QVERIFY(fs::exists(job + "/out1/trace.1.overlay.json") && fs::exists(job + "/out1/.syncscope-outputs"));
    const std::string report = testutil::tempDir() + "/second.json";
    const Run second = runSyncscope({"--batch", "--job", q(job), "--output-dir", q(job + "/out2"), "--report",
                                     q(report), "--quiet"});
    QVERIFY2(second.code == 0, qPrintable(second.err));
    const nlohmann::json j = readJson(report);
    QCOMPARE(j["ranks"].size(), size_t(2));
    for (int rank : {0, 1}) {
        const std::string dev = rankRow(j, rank)->at("device").get<std::string>();
        const std::string host = rankRow(j, rank)->at("host").get<std::string>();
        QCOMPARE(dev, job + "/rank" + std::to_string(rank) + ".kineto.json.gz");
        QCOMPARE(host, job + "/rank" + std::to_string(rank) + ".et.json.gz");
    }
    bool said = false;
    for (const auto &d : j["job"]["diagnostics"]) {
        QVERIFY2(d["code"] != "job.duplicate_rank", qPrintable(q(d.dump())));
        said |= d["code"] == "job.own_output" && d["message"].get<std::string>().find("out1") != std::string::npos;
    }
    QVERIFY(said);
    // --output-dir the job folder itself, twice: the second run is as clean as the first.
    for (int run = 0; run < 2; ++run) {
        const Run r = runSyncscope({"--batch", "--job", q(job), "--output-dir", q(job), "--report", q(report), "--quiet"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QCOMPARE(readJson(report)["ranks"].size(), size_t(2));
    }
}

void TestBatchJob::hostileHeadersStaySmall()
{
    // world_size 1e18 in a 3 KB trace once took a minute, 1.5 GB and wrote a 257 MB report.
    const std::string job = testutil::tempDir() + "/job";
    fs::create_directories(job);
    testutil::writeText(job + "/rank0.json", tinyDevice(0, "1e18"));
    testutil::writeText(job + "/rank1.json", tinyDevice(1, "1e18"));
    const std::string report = testutil::tempDir() + "/job.json";
    Run r = runSyncscope({"--batch", "--job", q(job), "--report", q(report), "--quiet"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    nlohmann::json j = readJson(report);
    QVERIFY(j["job"]["world_size"].is_null());
    QCOMPARE(j["job"]["missing_rank_count"], 0);
    QVERIFY(fs::file_size(report) < 64 * 1024);
    // The largest world_size taken, two ranks found: the missing ones are one range.
    testutil::writeText(job + "/rank0.json", tinyDevice(0, "1048576"));
    testutil::writeText(job + "/rank1.json", tinyDevice(1, "1048576"));
    r = runSyncscope({"--batch", "--job", q(job), "--report", q(report)});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    j = readJson(report);
    QCOMPARE(j["job"]["missing_ranks"], nlohmann::json::parse("[[2, 1048575]]"));
    QCOMPARE(j["job"]["missing_rank_count"], 1048574);
    QVERIFY(fs::file_size(report) < 64 * 1024);
    QVERIFY2(r.err.size() < 4000 && r.err.contains("missing: 2-1048575 (1048574 rank(s))"), qPrintable(r.err));
}

void TestBatchJob::nonUtf8FileNames()
{
    // File names are bytes: one that is not UTF-8 once made the report fail with "internal error".
    const std::string job = twoRankJob();
    const RemoveWhenDone cleanup{job};
    const std::string odd = job + "/rank1\xff.kineto.json.gz";
    fs::rename(job + "/rank1.kineto.json.gz", odd);
    fs::rename(job + "/rank1.et.json.gz", job + "/r\xfe\xc3" "ank1.et.json.gz");
    const std::string report = testutil::tempDir() + "/job.json";
    const Run r = runSyncscope({"--batch", "--job", q(job), "--report", q(report), "--quiet"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const nlohmann::json j = readJson(report); // parses: valid UTF-8
    QCOMPARE(rankRow(j, 1)->at("device").get<std::string>(), job + "/rank1\xef\xbf\xbd.kineto.json.gz");
    QCOMPARE(rankRow(j, 1)->at("host").get<std::string>(), job + "/r\xef\xbf\xbd\xef\xbf\xbd" "ank1.et.json.gz");
}

void TestBatchJob::mpiUsageErrorOnOneProcess()
{
    QString whyNot;
    const QString mpirun = mpirunOrWhyNot(whyNot);
    if (mpirun.isEmpty())
        QSKIP(qPrintable(whyNot));
    // Process 1 gets a bad --jobs (mpirun A : B). It once left process 0 waiting in a broadcast
    // for ever, printing nothing; now every process exits 2 and process 0 prints process 1's message.
    const std::string job = twoRankJob();
    const std::string report = testutil::tempDir() + "/job.json";
    const QString mpi = QString::fromUtf8(kMpiBinary);
    const Run r = execute(mpirun, {"--oversubscribe", "--allow-run-as-root", "-np", "1", mpi, "--job", q(job),
                                   "--report", q(report), ":", "-np", "1", mpi, "--job", q(job), "--report", q(report),
                                   "--jobs", "0"},
                          60000);
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("(MPI process 1) --jobs takes a number of workers"), qPrintable(r.err));
    QVERIFY(!fs::exists(report));
    // The same error on every process: one message, exit 2.
    const Run all = execute(mpirun, {"--oversubscribe", "--allow-run-as-root", "-np", "2", mpi, "--job", q(job),
                                     "--jobs", "0"},
                            60000);
    QCOMPARE(all.code, 2);
    QCOMPARE(all.err.count("--jobs takes a number of workers"), 1);
}

void TestBatchJob::mpiRefusesAnOutputOverAnInput()
{
    QString whyNot;
    const QString mpirun = mpirunOrWhyNot(whyNot);
    if (mpirun.isEmpty())
        QSKIP(qPrintable(whyNot));
    const std::string job = twoRankJob();
    const std::string input = job + "/rank1.kineto.json.gz";
    const auto before = snapshot(job);
    const Run r = execute(mpirun, {"--oversubscribe", "--allow-run-as-root", "-np", "2",
                                   QString::fromUtf8(kMpiBinary), "--job", q(job), "--report", q(input)},
                          60000);
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("would replace rank 1's device trace"), qPrintable(r.err));
    QVERIFY(snapshot(job) == before);
    // Odd file names: the report is still written (it once aborted every process).
    const RemoveWhenDone cleanup{job};
    fs::rename(job + "/rank1.et.json.gz", job + "/rank1\xff.et.json.gz");
    const std::string report = testutil::tempDir() + "/job.json";
    const Run odd = execute(mpirun, {"--oversubscribe", "--allow-run-as-root", "-np", "2",
                                     QString::fromUtf8(kMpiBinary), "--job", q(job), "--report", q(report),
                                     "--quiet"},
                            120000);
    QVERIFY2(odd.code == 0, qPrintable(odd.err));
    QCOMPARE(readJson(report)["ranks"].size(), size_t(2));
}

QTEST_GUILESS_MAIN(TestBatchJob)
#include "tst_batchjob.moc"
