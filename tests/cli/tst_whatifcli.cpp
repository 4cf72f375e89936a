// SPDX-License-Identifier: MIT
// --what-if on the command line: the report section, usage errors and a rule
// that matches nothing.
#include "testutil.h"

#include <QProcess>
#include <QtTest>

#include <nlohmann/json.hpp>

class TestWhatIfCli : public QObject
{
    Q_OBJECT
private slots:
    void reportSection();
    void badRuleIsAUsageError();
    void ruleMatchingNothing();
    void jobMode();
};

namespace {

int run(const QStringList &args, QString *err = nullptr)
{
    QProcess p;
    p.start(QStringLiteral(SYNCSCOPE_BINARY), args);
    if (!p.waitForFinished(120000))
        return -1;
    if (err)
        *err = QString::fromUtf8(p.readAllStandardError());
    return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2;
}

} // namespace

void TestWhatIfCli::reportSection()
{
    const QString report = QString::fromStdString(testutil::tempDir()) + "/r.json";
    QString err;
    QCOMPARE(run({"--batch", "--sample", "--what-if", "cat=kernel*0.5", "--what-if", "sync:cudaStreamSynchronize=drop",
                  "--report", report},
                 &err),
             0);
    QVERIFY2(err.contains("what-if"), qPrintable(err));
    const auto j = nlohmann::json::parse(testutil::readText(report.toStdString()));
    const auto &w = j.at("what_if");
    QVERIFY(w.at("projected_us").get<double>() < w.at("baseline_us").get<double>());
    QCOMPARE(w.at("baseline_us").get<double>(), j.at("critical_path").at("weight_us").get<double>());
    QCOMPARE(w.at("rules").size(), size_t(2));
    QCOMPARE(w.at("rules")[0].at("rule").get<std::string>(), std::string("cat=kernel*0.5"));
    QVERIFY(w.at("rules")[0].at("matched").get<int>() > 0);
    QVERIFY(w.at("top_moved").size() <= 20);
    QVERIFY(w.at("critical_path").at("summary").is_object());
}

void TestWhatIfCli::badRuleIsAUsageError()
{
    QString err;
    QCOMPARE(run({"--batch", "--sample", "--what-if", "cat=kernel*fast"}, &err), 2);
    QVERIFY2(err.contains("cat=kernel*fast"), qPrintable(err));
}

void TestWhatIfCli::ruleMatchingNothing()
{
    QString err;
    QCOMPARE(run({"--batch", "--sample", "--what-if", "name=no_such_kernel*0.5"}, &err), 6);
    QVERIFY2(err.contains("name=no_such_kernel*0.5") && err.contains("matches nothing"), qPrintable(err));
}

void TestWhatIfCli::jobMode()
{
    // The 8 DLRM ranks: halving rank 7's CPU ops (rank 7's work before the first
    // collectives is on the job critical path) shortens the job; a rule for a rank
    // that does not exist is an error.
    const QString job = QString::fromStdString(testutil::fixture("jobs/param_dlrm_8rank"));
    const QString report = QString::fromStdString(testutil::tempDir()) + "/job.json";
    QString err;
    QCOMPARE(run({"--batch", "--job", job, "--quiet", "--what-if", "rank=7&cat=cpu_op*0.5", "--what-if", "comm*1",
                  "--report", report},
                 &err),
             0);
    const auto j = nlohmann::json::parse(testutil::readText(report.toStdString()));
    const auto &w = j.at("what_if");
    QCOMPARE(w.at("baseline_us").get<double>(), j.at("job_critical_path").at("step_time_us").get<double>());
    QVERIFY(w.at("projected_us").get<double>() < w.at("baseline_us").get<double>());
    QCOMPARE(w.at("rules").size(), size_t(2));
    QVERIFY(w.at("rules")[1].at("matched").get<int>() > 0);
    QCOMPARE(w.at("ranks").size(), size_t(8));
    for (const auto &r : w.at("ranks"))
        if (r.at("rank").get<int>() != 7)
            QCOMPARE(r.at("projected_us").get<double>(), r.at("baseline_us").get<double>());

    QCOMPARE(run({"--batch", "--job", job, "--quiet", "--what-if", "rank=99&compute*0.5"}, &err), 6);
    QVERIFY2(err.contains("rank=99&compute*0.5") && err.contains("matches nothing"), qPrintable(err));
}

QTEST_GUILESS_MAIN(TestWhatIfCli)
#include "tst_whatifcli.moc"
