// SPDX-License-Identifier: MIT
// Issue 23 item 8, steps on the command line: --step N is ProfilerStep#N by the number
// in its name, the whole step (the per-step table's figure), and the default of batch,
// job and what-if runs; --instance keeps HTA's numbering; HTA-exact output keeps HTA's
// instance 0; every report says which window it used.
#include "testutil.h"
#include "tracegen.h"

#include "cliargs.h"
#include "session/analysis.h"
#include "analysis/stepwindow.h"

#include <QProcess>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>

using nlohmann::json;

class TestStepWindow : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void stepIsThePerStepFigure();
    void defaultIsTheFirstStep();
    void htaExactKeepsInstanceZero();
    void stepNumbersAreNamesNotPositions();
    void missingStepIsAUsageError();
    void usageErrors();
    void traceWithoutStepsIsWholeTrace();
    void whatIfUsesTheStep();
    void jobUsesStepByDefault();
    void diffWindow();
    void sessionDefaultIsTheStep();
    void helpAndManPage();

private:
    std::string m_dir;
    QString m_renumbered; // steps named ProfilerStep#10..#12
    QString m_noSteps;    // no ProfilerStep anywhere
    QString m_job;
};

namespace {

struct Run {
    int code = -1;
    QString err;
};

Run runSyncscope(const QStringList &args)
{
    QProcess p;
    p.start(QStringLiteral(SYNCSCOPE_BINARY), args);
    if (!p.waitForFinished(300000)) {
        p.kill();
        p.waitForFinished(5000);
        return {-3, QStringLiteral("(timed out)")};
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2, QString::fromUtf8(p.readAllStandardError())};
}

// Runs with --report FILE (or the report option given) and returns the report.
json report(QStringList args, int expectedCode = 0, const char *option = "--report")
{
    static int n = 0;
    const QString path = QString::fromStdString(testutil::tempDir()) + QStringLiteral("/r%1.json").arg(n++);
    args << QString::fromLatin1(option) << path;
    const Run r = runSyncscope(args);
    if (r.code != expectedCode) {
        qWarning("exit %d (want %d) for %s:\n%s", r.code, expectedCode, qPrintable(args.join(' ')), qPrintable(r.err));
        return json();
    }
    return json::parse(testutil::readText(path.toStdString()));
}

// The per-step table's figure of position k (--instance all).
double perStepFigure(const QStringList &input, size_t k)
{
    const json j = report(QStringList(input) << "--instance" << "all");
    return j.at("critical_path").at("steps").at(k).at("weight_us").get<double>();
}

const QStringList kSample = {"--batch", "--sample"};

void replaceAll(std::string &s, const std::string &from, const std::string &to)
{
    for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
        s.replace(at, from.size(), to);
}

} // namespace

void TestStepWindow::initTestCase()
{
    m_dir = testutil::tempDir() + "/stepwindow";
    std::filesystem::create_directories(m_dir);
    tracegen::Options o;
    o.prefix = m_dir + "/gen";
    o.steps = 3;
    o.layers = 2;
    const tracegen::Result gen = tracegen::generate(o);
    std::string text = testutil::readText(gen.devicePath);
    std::string renumbered = text, none = text;
    for (int k = 2; k >= 0; --k) // as a run that started profiling at step 10
        replaceAll(renumbered, "ProfilerStep#" + std::to_string(k) + "\"", "ProfilerStep#1" + std::to_string(k) + "\"");
    replaceAll(none, "ProfilerStep#", "Iteration#");
    QVERIFY(none.find("ProfilerStep") == std::string::npos);
    m_renumbered = QString::fromStdString(m_dir + "/renumbered.kineto.json");
    m_noSteps = QString::fromStdString(m_dir + "/nosteps.kineto.json");
    testutil::writeText(m_renumbered.toStdString(), renumbered);
    testutil::writeText(m_noSteps.toStdString(), none);

    tracegen::JobOptions jo;
    jo.dir = m_dir + "/job";
    jo.ranks = 2;
    jo.steps = 3;
    jo.layers = 2;
    jo.gzip = false;
    tracegen::generateJob(jo);
    m_job = QString::fromStdString(jo.dir);
}

// The issue's example: --instance 4 on the sample is HTA's row 4, "ProfilerStep#2" cut
// short (HTA drops the last step's events); --step 2 is the whole step, the figure of
// the per-step table.
void TestStepWindow::stepIsThePerStepFigure()
{
    const double table = perStepFigure(kSample, 2);
    const json step = report(QStringList(kSample) << "--step" << "2");
    const json &cp = step.at("critical_path");
    QCOMPARE(cp.at("weight_us").get<double>(), table);
    const json &w = cp.at("window");
    QCOMPARE(w.at("kind").get<std::string>(), std::string("step"));
    QCOMPARE(w.at("default").get<bool>(), false);
    QCOMPARE(w.at("step").get<int>(), 2);
    QCOMPARE(w.at("index").get<int>(), 2);
    QCOMPARE(w.at("name").get<std::string>(), std::string("ProfilerStep#2"));
    QVERIFY(w.at("duration_us").get<double>() > table);
    // The fields that were there are kept; their numbering says which it is.
    QCOMPARE(cp.at("instance").get<int>(), 2);
    QCOMPARE(cp.at("instance_numbering").get<std::string>(), std::string("profiler_steps"));
    QCOMPARE(cp.at("instance_row").get<std::string>(), std::string("ProfilerStep#2"));

    const json hta = report(QStringList(kSample) << "--instance" << "4");
    const json &hw = hta.at("critical_path").at("window");
    QCOMPARE(hw.at("kind").get<std::string>(), std::string("hta_instance"));
    QCOMPARE(hw.at("default").get<bool>(), false);
    QCOMPARE(hw.at("instance").get<int>(), 4);
    QCOMPARE(hw.at("name").get<std::string>(), std::string("ProfilerStep#2"));
    QCOMPARE(hta.at("critical_path").at("instance_numbering").get<std::string>(), std::string("hta"));
    const double htaUs = hta.at("critical_path").at("weight_us").get<double>();
    QVERIFY2(htaUs < 0.1 * table, qPrintable(QStringLiteral("%1 vs %2").arg(htaUs).arg(table)));
    QCOMPARE(htaUs, 18.0); // the figures README "Steps and HTA instances" quotes
    QCOMPARE(table, 669.0);

    const Run r = runSyncscope(QStringList(kSample) << "--step" << "2");
    QCOMPARE(r.code, 0);
    QVERIFY2(r.err.contains("(ProfilerStep#2, whole step, --step 2)"), qPrintable(r.err));
}

void TestStepWindow::defaultIsTheFirstStep()
{
    const double table = perStepFigure(kSample, 0);
    const json j = report(kSample);
    const json &cp = j.at("critical_path");
    QCOMPARE(cp.at("weight_us").get<double>(), table);
    const json &w = cp.at("window");
    QCOMPARE(w.at("kind").get<std::string>(), std::string("step"));
    QCOMPARE(w.at("default").get<bool>(), true);
    QCOMPARE(w.at("step").get<int>(), 0);
    QCOMPARE(w.at("name").get<std::string>(), std::string("ProfilerStep#0"));
    const Run r = runSyncscope(kSample);
    QCOMPARE(r.code, 0);
    QVERIFY2(r.err.contains("(ProfilerStep#0, whole step, default --step 0)"), qPrintable(r.err));
    // --step all: the same window plus the per-step table, step numbers included.
    const json all = report(QStringList(kSample) << "--step" << "all");
    QCOMPARE(all.at("critical_path").at("weight_us").get<double>(), table);
    QCOMPARE(all.at("critical_path").at("window").at("kind").get<std::string>(), std::string("step"));
    QCOMPARE(all.at("critical_path").at("steps").size(), size_t(3));
    QCOMPARE(all.at("critical_path").at("steps").at(2).at("number").get<int>(), 2);
}

// The conformance modes keep HTA's instance 0 by default (their outputs stay byte-equal).
void TestStepWindow::htaExactKeepsInstanceZero()
{
    for (const QStringList &extra : {QStringList{"--hta-exact"}, QStringList{"--hta-version", "d731cc2e"},
                                     QStringList{"--compat", "chakra"}}) {
        const json j = report(QStringList(kSample) << extra);
        const json &cp = j.at("critical_path");
        QCOMPARE(cp.at("instance_numbering").get<std::string>(), std::string("hta"));
        const json &w = cp.at("window");
        QCOMPARE(w.at("kind").get<std::string>(), std::string("hta_instance"));
        QCOMPARE(w.at("default").get<bool>(), true);
        QCOMPARE(w.at("instance").get<int>(), 0);
        QCOMPARE(w.at("name").get<std::string>(), std::string("ProfilerStep#0"));
        const Run r = runSyncscope(QStringList(kSample) << extra);
        QVERIFY2(r.err.contains("\"ProfilerStep\" HTA instance 0 = ProfilerStep#0"), qPrintable(r.err));
    }
    // An annotation alone is HTA's window too.
    const json ann = report(QStringList(kSample) << "--annotation" << "ProfilerStep");
    QCOMPARE(ann.at("critical_path").at("window").at("kind").get<std::string>(), std::string("hta_instance"));
    QCOMPARE(ann.at("critical_path").at("window").at("default").get<bool>(), false);
    // --step is still there when asked for, with HTA-exact rules.
    const json j = report(QStringList(kSample) << "--hta-exact" << "--step" << "1");
    QCOMPARE(j.at("critical_path").at("window").at("kind").get<std::string>(), std::string("step"));
    QCOMPARE(j.at("critical_path").at("hta_exact").get<bool>(), true);
}

void TestStepWindow::stepNumbersAreNamesNotPositions()
{
    const QStringList in = {"--batch", m_renumbered};
    const json j = report(QStringList(in) << "--step" << "11");
    const json &w = j.at("critical_path").at("window");
    QCOMPARE(w.at("step").get<int>(), 11);
    QCOMPARE(w.at("index").get<int>(), 1);
    QCOMPARE(w.at("name").get<std::string>(), std::string("ProfilerStep#11"));
    QCOMPARE(j.at("critical_path").at("weight_us").get<double>(), perStepFigure(in, 1));
    // The default is the first step in time, whatever its number.
    QCOMPARE(report(in).at("critical_path").at("window").at("step").get<int>(), 10);
    // A range by name numbers.
    const json range = report(QStringList(in) << "--step" << "10,12");
    const json &rw = range.at("critical_path").at("window");
    QCOMPARE(rw.at("index").get<int>(), 0);
    QCOMPARE(rw.at("index_last").get<int>(), 2);
    QCOMPARE(rw.at("name_last").get<std::string>(), std::string("ProfilerStep#12"));
}

void TestStepWindow::missingStepIsAUsageError()
{
    const Run r = runSyncscope(QStringList(kSample) << "--step" << "7");
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("--step 7") && r.err.contains("no ProfilerStep#7") &&
                 r.err.contains("ProfilerStep#0, ProfilerStep#1, ProfilerStep#2"),
             qPrintable(r.err));
    // The report still says what was asked for; outputs that need the path are skipped.
    const json j = report(QStringList(kSample) << "--step" << "7", 2);
    QCOMPARE(j.at("exit_code").get<int>(), 2);
    QCOMPARE(j.at("critical_path").at("window").at("step").get<int>(), 7);
    const QString cp = QString::fromStdString(testutil::tempDir() + "/missing.cp.json");
    QCOMPARE(runSyncscope(QStringList(kSample) << "--step" << "7" << "--critical-path" << cp).code, 2);
    // Positions are not names: the renumbered run has no ProfilerStep#1.
    const Run renumbered = runSyncscope({"--batch", m_renumbered, "--step", "1"});
    QCOMPARE(renumbered.code, 2);
    QVERIFY2(renumbered.err.contains("ProfilerStep#10, ProfilerStep#11, ProfilerStep#12"), qPrintable(renumbered.err));
    QCOMPARE(runSyncscope({"--batch", m_renumbered, "--step", "12,10"}).code, 2);
}

void TestStepWindow::usageErrors()
{
    for (const QStringList &args :
         {QStringList{"--step", "1", "--instance", "2"}, QStringList{"--step", "1", "--annotation", "X"},
          QStringList{"--step", "x"}, QStringList{"--step", "-1"}, QStringList{"--step", "2,1"},
          QStringList{"--step", "3000000000"}}) {
        const Run r = runSyncscope(QStringList(kSample) << args);
        QVERIFY2(r.code == 2, qPrintable(args.join(' ') + ": " + r.err));
        QVERIFY2(r.err.contains("--step"), qPrintable(r.err));
    }
}

// Without ProfilerStep the default is what it was: the whole trace.
void TestStepWindow::traceWithoutStepsIsWholeTrace()
{
    const json j = report({"--batch", m_noSteps});
    const json &w = j.at("critical_path").at("window");
    QCOMPARE(w.at("kind").get<std::string>(), std::string("whole_trace"));
    QCOMPARE(w.at("default").get<bool>(), true);
    QCOMPARE(j.at("critical_path").at("whole_trace").get<bool>(), true);
    const Run r = runSyncscope({"--batch", m_noSteps, "--step", "0"});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("none"), qPrintable(r.err));
}

void TestStepWindow::whatIfUsesTheStep()
{
    const double table = perStepFigure(kSample, 2);
    const json j = report(QStringList(kSample) << "--step" << "2" << "--what-if" << "cat=kernel*0.5");
    const json &w = j.at("what_if");
    QCOMPARE(w.at("baseline_us").get<double>(), table);
    QCOMPARE(w.at("window").at("name").get<std::string>(), std::string("ProfilerStep#2"));
    const json d = report(QStringList(kSample) << "--what-if" << "cat=kernel*0.5");
    QCOMPARE(d.at("what_if").at("window").at("kind").get<std::string>(), std::string("step"));
    QCOMPARE(d.at("what_if").at("window").at("default").get<bool>(), true);
    QCOMPARE(d.at("what_if").at("baseline_us").get<double>(), perStepFigure(kSample, 0));
    QCOMPARE(runSyncscope(QStringList(kSample) << "--step" << "9" << "--what-if" << "cat=kernel*0.5").code, 2);
}

void TestStepWindow::jobUsesStepByDefault()
{
    const QStringList job = {"--batch", "--job", m_job, "--jobs", "1"};
    const json d = report(job);
    const json &w = d.at("job").at("window");
    QCOMPARE(w.at("kind").get<std::string>(), std::string("step"));
    QCOMPARE(w.at("default").get<bool>(), true);
    QCOMPARE(w.at("step").get<int>(), 0);
    QCOMPARE(w.at("ranks_on_step").get<int>(), 2);
    for (const json &r : d.at("ranks"))
        QCOMPARE(r.at("critical_path").at("step").get<int>(), 0);

    const json s = report(QStringList(job) << "--step" << "2");
    QCOMPARE(s.at("job").at("window").at("step").get<int>(), 2);
    QCOMPARE(s.at("job").at("window").at("default").get<bool>(), false);
    for (const json &r : s.at("ranks")) {
        QCOMPARE(r.at("critical_path").at("step").get<int>(), 2);
        // The rank's step time is its ProfilerStep#2's.
        const json single = report({"--batch", QString::fromStdString(r.at("device").get<std::string>()), "--step",
                                    "2"});
        // (The window's duration is in HTA's rounded µs, the step time in the trace's ns.)
        QVERIFY(std::abs(r.at("step_time_us").get<double>() -
                         single.at("critical_path").at("window").at("duration_us").get<double>()) <= 1.0);
        QCOMPARE(r.at("critical_path").at("weight_us").get<double>(),
                 single.at("critical_path").at("weight_us").get<double>());
    }
    const Run summary = runSyncscope(QStringList(job) << "--step" << "2");
    QVERIFY2(summary.err.contains("window ProfilerStep#2 on 2 rank(s), whole step, --step"),
             qPrintable(summary.err));

    const json hta = report(QStringList(job) << "--hta-exact");
    QCOMPARE(hta.at("job").at("window").at("kind").get<std::string>(), std::string("hta_instance"));
    QCOMPARE(runSyncscope(QStringList(job) << "--step" << "9").code, 2);
    QCOMPARE(runSyncscope(QStringList(job) << "--step" << "0,1").code, 2);
}

// A diff compares the whole runs by default (its step rows are --step's steps); --step
// narrows both runs to ProfilerStep#N.
void TestStepWindow::diffWindow()
{
    const QString device = QStringLiteral(SYNCSCOPE_SAMPLE_DIR "/sample.kineto.json.gz");
    const QStringList diff = {"--batch", "--diff", device, device, "--quiet"};
    const json whole = report(diff, 0, "--diff-report");
    QCOMPARE(whole.at("window").at("kind").get<std::string>(), std::string("whole_trace"));
    QCOMPARE(whole.at("steps").size(), size_t(3));
    const json step = report(QStringList(diff) << "--step" << "1", 0, "--diff-report");
    QCOMPARE(step.at("window").at("kind").get<std::string>(), std::string("step"));
    QCOMPARE(step.at("window").at("baseline").at("name").get<std::string>(), std::string("ProfilerStep#1"));
    QCOMPARE(step.at("critical_path").at("baseline_us").get<double>(), perStepFigure({"--batch", device}, 1));
    const json all = report(QStringList(diff) << "--step" << "all", 0, "--diff-report");
    QCOMPARE(all.at("window").at("kind").get<std::string>(), std::string("whole_trace"));
    const json hta = report(QStringList(diff) << "--instance" << "1", 0, "--diff-report");
    QCOMPARE(hta.at("window").at("kind").get<std::string>(), std::string("hta_instance"));
    QCOMPARE(runSyncscope(QStringList(diff) << "--step" << "9").code, 2);
}

// The GUI and every library caller get the same default: runAnalysis follows --step's rule.
void TestStepWindow::sessionDefaultIsTheStep()
{
    using namespace syncscope;
    AnalysisRequest request;
    request.devicePath = m_renumbered.toStdString();
    request.allSteps = true;
    const auto a = runAnalysis(request);
    QVERIFY(a->criticalPath && a->criticalPath->success);
    QVERIFY(a->criticalPath->window.profilerSteps);
    QCOMPARE(a->window, WindowKind::Step);
    QVERIFY(a->windowByDefault);
    QCOMPARE(a->criticalPath->weightUs, a->steps.at(0).weightUs);
    request.cpa.htaExact = true;
    const auto exact = runAnalysis(request);
    QVERIFY(!exact->criticalPath->window.profilerSteps);
    QCOMPARE(exact->window, WindowKind::HtaInstance);
    QCOMPARE(profilerStepNumber("ProfilerStep#12"), int64_t(12));
    QCOMPARE(profilerStepNumber("ProfilerStep#"), int64_t(-1));
    QCOMPARE(profilerStepNumber("ProfilerStep#1x"), int64_t(-1));
    QCOMPARE(profilerStepNumber("ProfilerStep"), int64_t(-1));
}

void TestStepWindow::helpAndManPage()
{
    QProcess p;
    p.start(QStringLiteral(SYNCSCOPE_BINARY), {"--help"});
    QVERIFY(p.waitForFinished(30000));
    const QString help = QString::fromUtf8(p.readAllStandardOutput());
    QVERIFY(help.contains("--step N|A,B|all"));
    QVERIFY(help.contains("--instance N|A,B|all"));
    const std::string man = syncscope::manPage(); // the man page comes from the same table
    QVERIFY(man.find(".B \\-\\-step") != std::string::npos);
}

QTEST_GUILESS_MAIN(TestStepWindow)
#include "tst_stepwindow.moc"
