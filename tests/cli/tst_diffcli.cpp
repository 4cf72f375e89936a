// SPDX-License-Identifier: MIT
// --batch --diff on the command line: the run syntax, the report, exit codes.
#include "testutil.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <filesystem>

class TestDiffCli : public QObject
{
    Q_OBJECT
private slots:
    void sampleAgainstItself();
    void deviceTraceAlone();
    void usageErrors();
    void jobFolders();
    void jobFolderAgainstAPairIsAUsageError();
    void missingInput();
    void reportNeverOverAnInput();
    void windowMissingIsAnAnalysisError();
    void windowNarrowsBothRuns();
    void criticalPathFailureIsAnAnalysisError();
    void jobDiffRankThatFailedToLoad();
    void jobDiffNonUtf8FileNames();
};

namespace {

int run(const QStringList &args, QString *out = nullptr, QString *err = nullptr)
{
    QProcess p;
    p.start(QStringLiteral(SYNCSCOPE_BINARY), args);
    if (!p.waitForFinished(120000))
        return -1;
    if (out)
        *out = QString::fromUtf8(p.readAllStandardOutput());
    if (err)
        *err = QString::fromUtf8(p.readAllStandardError());
    return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2;
}

// DLRM ranks 0 and 1 (real traces of one job) in DIR/NAME.
std::string dlrmJob(const std::string &dir, const std::string &name)
{
    const std::string job = dir + "/" + name;
    std::filesystem::create_directories(job);
    for (const char *rank : {"0", "1"})
        for (const char *kind : {"et", "kineto"}) {
            const std::string file = std::string("rank") + rank + "." + kind + ".json.gz";
            std::filesystem::copy_file(testutil::fixture(std::string("pairs/param_dlrm_rank") + rank + "/" + file),
                                       job + "/" + file);
        }
    return job;
}

const QString kDevice = QStringLiteral(SYNCSCOPE_SAMPLE_DIR "/sample.kineto.json.gz");
const QString kHost = QStringLiteral(SYNCSCOPE_SAMPLE_DIR "/sample.et.json.gz");

} // namespace

void TestDiffCli::sampleAgainstItself()
{
    const QString report = QString::fromStdString(testutil::tempDir()) + "/diff.json";
    QString out, err;
    // The host trace first on one side: the two files of a run may come in either order.
    QCOMPARE(run({"--batch", "--diff", kDevice + "," + kHost, kHost + "," + kDevice, "--diff-report", report}, &out,
                 &err),
             0);
    QVERIFY2(out.contains("top changes"), qPrintable(out));
    const auto j = nlohmann::json::parse(testutil::readText(report.toStdString()));
    for (const char *key : {"steps", "ops", "kernels", "sync_waits", "critical_path", "top_changes"})
        QVERIFY2(j.contains(key), key);
    QVERIFY(!j.at("kernels").empty());
    for (const auto &k : j.at("kernels")) {
        QCOMPARE(k.at("delta_us").get<double>(), 0.0);
        QCOMPARE(k.at("baseline").at("count"), k.at("candidate").at("count"));
    }
    QVERIFY(j.at("top_changes").empty());
    QVERIFY(j.at("ops_added").empty() && j.at("ops_removed").empty());
    QCOMPARE(j.at("baseline").at("host").get<std::string>(), kHost.toStdString());
}

void TestDiffCli::deviceTraceAlone()
{
    QString out;
    QCOMPARE(run({"--batch", "--diff", kDevice, kDevice}, &out), 0);
    QVERIFY(out.contains("ops:"));
}

void TestDiffCli::usageErrors()
{
    QString err;
    QCOMPARE(run({"--batch", "--diff", kDevice}, nullptr, &err), 2);
    QVERIFY2(err.contains("exactly one candidate"), qPrintable(err));
    QCOMPARE(run({"--batch", "--diff", kDevice, kDevice, kDevice}, nullptr, &err), 2);
    QCOMPARE(run({"--batch", "--diff-report", "/tmp/x.json", kDevice}, nullptr, &err), 2);
    QVERIFY2(err.contains("--diff-report needs --diff"), qPrintable(err));
    QCOMPARE(run({"--batch", "--diff", kDevice, kDevice, "--output", "/tmp/x.json"}, nullptr, &err), 2);
    QVERIFY2(err.contains("cannot be combined"), qPrintable(err));
    QCOMPARE(run({"--batch", "--diff", "a,b,c", kDevice}, nullptr, &err), 2);
    QVERIFY2(err.contains("DEVICE_TRACE[,HOST_ET]"), qPrintable(err));
}

void TestDiffCli::jobFolders()
{
    // Two job folders holding the sample pair (rank 0): one rank diffed, merged.
    const std::string dir = testutil::tempDir();
    for (const char *side : {"/a", "/b"}) {
        QDir().mkpath(QString::fromStdString(dir + side));
        QVERIFY(QFile::copy(kDevice, QString::fromStdString(dir + side + "/sample.kineto.json.gz")));
        QVERIFY(QFile::copy(kHost, QString::fromStdString(dir + side + "/sample.et.json.gz")));
    }
    const QString report = QString::fromStdString(dir + "/job.json");
    QString out, err;
    QCOMPARE(run({"--batch", "--diff", QString::fromStdString(dir + "/a"), QString::fromStdString(dir + "/b"),
                  "--diff-report", report},
                 &out, &err),
             0);
    QVERIFY2(out.contains("job diff"), qPrintable(out + err));
    const auto j = nlohmann::json::parse(testutil::readText(report.toStdString()));
    QCOMPARE(j.at("job").get<bool>(), true);
    QCOMPARE(j.at("ranks").size(), size_t(1));
    QVERIFY(!j.at("ranks")[0].at("baseline").at("host").get<std::string>().empty());
    QVERIFY(!j.at("kernels").empty());
    for (const auto &k : j.at("kernels"))
        QCOMPARE(k.at("delta_us").get<double>(), 0.0);
    QVERIFY(j.at("top_changes").empty());
}

void TestDiffCli::jobFolderAgainstAPairIsAUsageError()
{
    QString err;
    QCOMPARE(run({"--batch", "--diff", QStringLiteral(SYNCSCOPE_SAMPLE_DIR), kDevice}, nullptr, &err), 2);
    QVERIFY2(err.contains("two job folders or two runs"), qPrintable(err));
}

void TestDiffCli::missingInput()
{
    QString err;
    QCOMPARE(run({"--batch", "--diff", kDevice, "/nonexistent/b.kineto.json"}, nullptr, &err), 3);
    QVERIFY2(err.contains("candidate") && err.contains("/nonexistent/b.kineto.json"), qPrintable(err));
}

void TestDiffCli::reportNeverOverAnInput()
{
    const std::string dir = testutil::tempDir();
    const std::string copy = dir + "/b.kineto.json";
    testutil::writeText(copy, testutil::readText(kDevice.toStdString()));
    const std::string before = testutil::readText(copy);
    QString err;
    QCOMPARE(run({"--batch", "--diff", kDevice, QString::fromStdString(copy), "--diff-report",
                  QString::fromStdString(copy)},
                 nullptr, &err),
             5);
    QCOMPARE(testutil::readText(copy), before);
}

void TestDiffCli::windowMissingIsAnAnalysisError()
{
    QString err;
    // The sample has 2 ProfilerSteps: HTA instance 999 does not exist.
    QCOMPARE(run({"--batch", "--diff", kDevice, kDevice, "--annotation", "ProfilerStep", "--instance", "999"},
                 nullptr, &err),
             6);
    QVERIFY2(err.contains("window"), qPrintable(err));
}

void TestDiffCli::windowNarrowsBothRuns()
{
    const QString dir = QString::fromStdString(testutil::tempDir());
    QCOMPARE(run({"--batch", "--quiet", "--diff", kDevice, kDevice, "--diff-report", dir + "/whole.json"}), 0);
    QCOMPARE(run({"--batch", "--quiet", "--diff", kDevice, kDevice, "--instance", "0", "--diff-report",
                  dir + "/one.json"}),
             0);
    auto kernels = [](const QString &path) {
        int64_t n = 0;
        const auto report = nlohmann::json::parse(testutil::readText(path.toStdString()));
        for (const auto &k : report.at("kernels"))
            n += k.at("baseline").at("count").get<int64_t>();
        return n;
    };
    QVERIFY(kernels(dir + "/one.json") > 0);
    QVERIFY(kernels(dir + "/one.json") < kernels(dir + "/whole.json"));
}

// Issue 22: a run whose critical path fails (here: GPU kernels without launches, a
// graph without edges) made a diff without its critical-path part exit 0.
void TestDiffCli::criticalPathFailureIsAnAnalysisError()
{
    const std::string dir = testutil::tempDir();
    const std::string bad = dir + "/kernels-only.json";
    testutil::writeText(bad, R"({"traceEvents":[
 {"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":10,"dur":5,"args":{"stream":7,"correlation":1}},
 {"ph":"X","cat":"kernel","name":"k2","pid":0,"tid":7,"ts":20,"dur":5,"args":{"stream":7,"correlation":2}}]})");
    const QString report = QString::fromStdString(dir + "/diff.json");
    for (int candidateFails = 0; candidateFails < 2; ++candidateFails) {
        QString err;
        const QString a = candidateFails ? kDevice : QString::fromStdString(bad);
        const QString b = candidateFails ? QString::fromStdString(bad) : kDevice;
        QCOMPARE(run({"--batch", "--quiet", "--diff", a, b, "--diff-report", report}, nullptr, &err), 6);
        QVERIFY2(err.contains(QString(candidateFails ? "candidate" : "baseline") +
                              ": the critical path could not be computed (the graph has no edges)"),
                 qPrintable(err));
        // The rest of the diff is still written.
        const auto doc = nlohmann::json::parse(testutil::readText(report.toStdString()));
        QCOMPARE(doc.at("critical_path").at("available").get<bool>(), false);
        QVERIFY(!doc.at("kernels").empty());
    }
}

void TestDiffCli::jobDiffRankThatFailedToLoad()
{
    // The candidate's rank 1 is a truncated trace whose name states no rank (and no host trace
    // names it): it once counted as "only in baseline" with exit 0. It is a load failure, exit 3.
    const std::string dir = testutil::tempDir();
    const std::string base = dlrmJob(dir, "base"), cand = dlrmJob(dir, "cand");
    const std::string whole = testutil::readText(cand + "/rank1.kineto.json.gz");
    std::filesystem::remove(cand + "/rank1.kineto.json.gz");
    std::filesystem::remove(cand + "/rank1.et.json.gz");
    testutil::writeText(cand + "/gpu_b.json", whole.substr(0, 200)); // cut before its rank is read
    const QString report = QString::fromStdString(dir + "/diff.json");
    QString out, err;
    QCOMPARE(run({"--batch", "--diff", QString::fromStdString(base), QString::fromStdString(cand), "--diff-report",
                  report},
                 &out, &err),
             3);
    QVERIFY2(err.contains("candidate: " + QString::fromStdString(cand) + "/gpu_b.json: cannot be read as a trace"),
             qPrintable(err));
    QVERIFY2(out.contains("load failures"), qPrintable(out));
    const auto j = nlohmann::json::parse(testutil::readText(report.toStdString()));
    QCOMPARE(j.at("ranks").size(), size_t(1)); // rank 0 is still compared
    QCOMPARE(j.at("load_failures").size(), size_t(1));
    const auto &f = j.at("load_failures")[0];
    QCOMPARE(f.at("side").get<std::string>(), std::string("candidate"));
    QCOMPARE(f.at("code").get<std::string>(), std::string("job.unreadable"));
    QCOMPARE(f.at("file").get<std::string>(), cand + "/gpu_b.json");
}

void TestDiffCli::jobDiffNonUtf8FileNames()
{
    // File names that are not UTF-8 once failed the diff report with "internal error" (exit 1).
    const std::string dir = testutil::tempDir();
    const std::string base = dlrmJob(dir, "base"), cand = dlrmJob(dir, "cand");
    struct Cleanup {
        std::string dir;
        ~Cleanup()
        {
            std::error_code ec;
            std::filesystem::remove_all(dir, ec); // QTemporaryDir cannot remove such names
        }
    } cleanup{dir};
    for (const std::string &job : {base, cand})
        std::filesystem::rename(job + "/rank1.kineto.json.gz", job + "/rank1\xff.kineto.json.gz");
    const QString report = QString::fromStdString(dir + "/diff.json");
    QCOMPARE(run({"--batch", "--diff", QString::fromStdString(base), QString::fromStdString(cand), "--diff-report",
                  report, "--quiet"}),
             0);
    const auto j = nlohmann::json::parse(testutil::readText(report.toStdString()));
    QCOMPARE(j.at("ranks").size(), size_t(2));
    QCOMPARE(j.at("ranks")[1].at("baseline").at("device").get<std::string>(),
             base + "/rank1\xef\xbf\xbd.kineto.json.gz");
    // The same for a pair diff: the name reaches argv through the shell (QProcess takes text).
    const std::string pair = dir + "/pair.json";
    QProcess p;
    p.start(QStringLiteral("/bin/sh"),
            {"-c", "odd=\"$1$(printf '\\377').kineto.json.gz\"; exec \"$0\" --batch --diff \"$odd\" \"$odd\" "
                   "--diff-report \"$2\" --quiet",
             QStringLiteral(SYNCSCOPE_BINARY), QString::fromStdString(base + "/rank1"), QString::fromStdString(pair)});
    QVERIFY(p.waitForFinished(120000));
    QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
    const auto k = nlohmann::json::parse(testutil::readText(pair));
    QCOMPARE(k.at("baseline").at("device").get<std::string>(), base + "/rank1\xef\xbf\xbd.kineto.json.gz");
}

QTEST_GUILESS_MAIN(TestDiffCli)
#include "tst_diffcli.moc"
