// SPDX-License-Identifier: MIT
// --batch --diff on the command line: the run syntax, the report, exit codes.
#include "testutil.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QtTest>

#include <nlohmann/json.hpp>

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

QTEST_GUILESS_MAIN(TestDiffCli)
#include "tst_diffcli.moc"
