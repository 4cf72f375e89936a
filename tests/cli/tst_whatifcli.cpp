// SPDX-License-Identifier: MIT
// --what-if on the command line: the report section, usage errors and a rule
// that matches nothing.
#include "testutil.h"
#include "tracebuilder.h"

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
    // Issue 22: hostile rules.
    void hostileRulesAreUsageErrors_data();
    void hostileRulesAreUsageErrors();
    void longNamesAndCatastrophicPatterns();
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

void TestWhatIfCli::hostileRulesAreUsageErrors_data()
{
    QTest::addColumn<QString>("rule");
    QTest::addColumn<QString>("says"); // what the message must contain, besides the rule
    QTest::newRow("double star") << "name~.**x*0.5" << "RE2";
    QTest::newRow("back-reference") << "name~(a)\\99999999*0.5" << "back-references";
    QTest::newRow("look-ahead") << "name~gemm(?=_)*0.5" << "look-ahead";
    QTest::newRow("factor 1e308") << "cat=kernel*1e308" << "[0, 1e6]";
    QTest::newRow("factor nan") << "cat=kernel*nan" << "[0, 1e6]";
    QTest::newRow("duration 1e303 s") << "cat=kernel=1e303s" << "[0, 2^60 ns]";
    QTest::newRow("duration inf") << "cat=kernel=inf" << "[0, 2^60 ns]";
    QTest::newRow("pattern over 1 KiB") << "name~" + QString(1025, 'a') + "*0.5" << "at most 1024 bytes";
    QTest::newRow("20,000 nested parentheses")
        << "name~" + QString(20000, '(') + "gemm" + QString(20000, ')') + "*0.5" << "at most 4096 bytes";
}

void TestWhatIfCli::hostileRulesAreUsageErrors()
{
    // Refused when the command line is read (exit 2, the usage code), in pair and
    // in job mode, which share the rule parser; the message names the rule.
    QFETCH(QString, rule);
    QFETCH(QString, says);
    const QString job = QString::fromStdString(testutil::fixture("jobs/param_dlrm_8rank"));
    for (const QStringList &args : {QStringList{"--batch", "--sample", "--quiet", "--what-if", rule},
                                    QStringList{"--batch", "--job", job, "--quiet", "--what-if", rule}}) {
        QString err;
        QCOMPARE(run(args, &err), 2);
        QVERIFY2(err.contains(says), qPrintable(err));
        QVERIFY2(err.contains(rule.left(60)), qPrintable(err)); // the rule, or its start when long
        QVERIFY2(err.size() < 1000, qPrintable(err.left(300)));  // never the whole 40 KB rule
    }
}

void TestWhatIfCli::longNamesAndCatastrophicPatterns()
{
    // A kernel named by 50,000 characters then "gemm" (std::regex overflowed its stack
    // on .*gemm), and patterns that are exponential for a back-tracking engine. The
    // test asserts the answers; RE2 gives them in linear time.
    testutil::KinetoBuilder b;
    b.runtime("cudaLaunchKernel", 1, 10, 10, 1)
        .kernel(std::string(50000, 'a') + "gemm", 7, 30, 1000, 1)
        .runtime("cudaLaunchKernel", 1, 1030, 10, 2)
        .kernel(std::string(50000, 'b'), 7, 1050, 500, 2);
    const std::string dir = testutil::tempDir();
    const QString device = QString::fromStdString(dir + "/longname.kineto.json");
    testutil::writeText(device.toStdString(), b.json());
    const QString report = QString::fromStdString(dir + "/longname.report.json");
    QString err;
    QCOMPARE(run({"--batch", "--device", device, "--annotation", "", "--quiet", "--what-if", "name~.*gemm*0.5",
                  "--what-if", "name~(.*)*gemm*1", "--what-if", "name~^(a|aa)+gemm$*1", "--what-if", "name~(b+)+$*1",
                  "--report", report},
                 &err),
             0);
    const auto j = nlohmann::json::parse(testutil::readText(report.toStdString()));
    const auto &rules = j.at("what_if").at("rules");
    QCOMPARE(rules.size(), size_t(4));
    for (const auto &r : rules)
        QVERIFY2(r.at("matched").get<int>() == 1, r.dump().c_str());
    QVERIFY(j.at("what_if").at("projected_us").get<double>() < j.at("what_if").at("baseline_us").get<double>());
    // (.*)*x matches neither name: the usual "matches nothing" (exit 6), at once.
    QCOMPARE(run({"--batch", "--device", device, "--annotation", "", "--quiet", "--what-if", "name~(.*)*x*0.5"}, &err),
             6);
    QVERIFY2(err.contains("matches nothing"), qPrintable(err));
}

QTEST_GUILESS_MAIN(TestWhatIfCli)
#include "tst_whatifcli.moc"
