// SPDX-License-Identifier: MIT
// The Stragglers dock of a job (ui/panels/stragglerpanel.h): a generated job whose
// straggler is known, loaded as the GUI loads it (JobLoader, which now keeps each
// rank's GPU timeline), its straggler what-if computed off the GUI thread and
// checked against analyzeJob's over the same ranks; a parallelism given by hand,
// one that does not parse, a job the what-if cannot run on, Ctrl+C of the rows
// and the dock in the main window, a tab beside What-if.
#include "document/jobdocument.h"
#include "job/jobbuild.h"
#include "job/jobdocument.h"
#include "job/jobloader.h"
#include "mainwindow.h"
#include "panels/copyrows.h"
#include "panels/criticalpathmodel.h" // SortRole
#include "panels/stragglerpanel.h"
#include "testutil.h"
#include "timeline/timelineplot.h"
#include "timeline/timelineview.h"
#include "tracegen.h"

#include <QDockWidget>
#include <QElapsedTimer>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QtTest>

#include <filesystem>

using namespace syncscope;
using namespace syncscope::ui;

class TestStragglerPanel : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void loaderKeepsGpuTimelines();
    void computedAsAnalyzeJob();
    void parallelismByHand();
    void badParallelismComputesNothing();
    void errorShown();
    void staleResultDropped();
    void copyRows();
    void dockBesideWhatIf();

private:
    static constexpr int kStraggler = 2;
    static constexpr int kRanks = 4;
    std::string m_dir;
    std::shared_ptr<const JobData> m_job;
    double m_loadSeconds = 0;
};

namespace {

StragglerWhatIf expected(const JobData &job, const ParallelismSpec &spec = {})
{
    JobOptions options;
    options.stragglerWhatIf = true;
    options.straggler.parallelism = spec;
    const JobAnalysis a = analyzeJob(analysableRanks(jobRankSummaries(job)), options);
    return a.straggler ? *a.straggler : StragglerWhatIf{};
}

QString cellText(QTableView *view, int row, int column)
{
    return view->model()->index(row, column).data().toString();
}

bool waitResult(StragglerPanel &p)
{
    return QTest::qWaitFor([&] { return !p.busy() && p.result() != nullptr; }, 60000);
}

} // namespace

void TestStragglerPanel::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    m_dir = (std::filesystem::path(testutil::tempDir()) / "job").string();
    tracegen::JobOptions o;
    o.dir = m_dir;
    o.ranks = kRanks;
    o.steps = 3;
    o.layers = 2;
    o.straggler = kStraggler;
    o.gzip = false;
    tracegen::generateJob(o);

    JobLoader loader;
    std::shared_ptr<JobLoadResult> result;
    QObject::connect(&loader, &JobLoader::finished, [&](std::shared_ptr<JobLoadResult> r) { result = std::move(r); });
    loader.start({m_dir}, AnalysisRequest{});
    QVERIFY(QTest::qWaitFor([&] { return result != nullptr; }, 120000));
    QVERIFY(result->job);
    m_loadSeconds = result->seconds;
    m_job = result->job;
    QCOMPARE(m_job->ranks.size(), size_t(kRanks));
}

// The loader asks every rank for its GPU timeline (what batch --straggler-whatif gets
// from JobRunOptions::gpuTimelines), and what that costs against the whole load.
void TestStragglerPanel::loaderKeepsGpuTimelines()
{
    double seconds = 0;
    size_t bytes = 0, ops = 0;
    for (const JobRankData &r : m_job->ranks) {
        QVERIFY(r.analysis);
        QVERIFY2(r.summary.gpu.present, qPrintable(QStringLiteral("rank %1").arg(r.rank)));
        QVERIFY(!r.summary.gpu.ops.empty());
        RankSummary copy = r.summary;
        QElapsedTimer t;
        t.start();
        addRankGpuTimeline(*r.analysis, copy);
        seconds += double(t.nsecsElapsed()) / 1e9;
        QCOMPARE(copy.gpu.ops.size(), r.summary.gpu.ops.size());
        ops += copy.gpu.ops.size();
        bytes += copy.gpu.ops.capacity() * sizeof(RankGpuOp) + copy.gpu.deps.capacity() * sizeof(RankGpuDep);
        for (const std::string &n : copy.gpu.names)
            bytes += sizeof(std::string) + n.capacity();
    }
    qInfo("GPU timelines: %zu ops, %.1f KB, %.2f ms of %.1f ms load (%.2f %%)", ops, double(bytes) / 1024,
          seconds * 1e3, m_loadSeconds * 1e3, m_loadSeconds > 0 ? 100 * seconds / m_loadSeconds : 0.0);
}

// The dock's S and tables are analyzeJob's; the dp-rank table has a row per dp rank,
// the generator's straggler first.
void TestStragglerPanel::computedAsAnalyzeJob()
{
    const StragglerWhatIf want = expected(*m_job);
    QVERIFY2(want.ok, want.error.c_str());
    StragglerPanel p;
    p.resize(900, 600);
    p.setJob(m_job);
    QVERIFY(!p.result());
    QVERIFY(p.computeButton()->isEnabled());
    p.show(); // the first show computes
    QVERIFY(QTest::qWaitForWindowExposed(&p));
    QVERIFY(waitResult(p));
    const StragglerWhatIf &got = p.result()->whatIf;
    QVERIFY2(got.ok, got.error.c_str());
    QCOMPARE(p.result()->gpuTimelinesBuilt, 0); // the loader's were there
    QCOMPARE(got.slowdown, want.slowdown);
    QVERIFY(want.slowdown > 1.2); // the straggler slows the job
    QVERIFY2(p.summaryLabel()->text().contains(QStringLiteral("S = %1").arg(QString::number(want.slowdown, 'f', 3))),
             qPrintable(p.summaryLabel()->text()));
    QVERIFY(p.summaryLabel()->text().contains(QString::number(want.measuredStepUs / 1e3, 'f', 3)));
    QVERIFY(p.summaryLabel()->text().contains(QString::number(want.idealStepUs / 1e3, 'f', 3)));
    QVERIFY(p.summaryLabel()->text().contains(QString::number(want.noDelayStepUs / 1e3, 'f', 3)));
    QVERIFY(p.summaryLabel()->text().contains(QStringLiteral("Layout inferred: dp %1, pp 1, tp 1").arg(kRanks)));
    QVERIFY(p.summaryLabel()->text().contains(QLatin1String("M_W")));
    // What S means here is said with it (issue 41: "S = 0.969" beside a named straggler).
    const QString meaning = want.slowdown > 1.001 ? QStringLiteral("S > 1: with every op at its ideal duration")
                            : want.slowdown < 0.999 ? QStringLiteral("S < 1: replayed without launch delays")
                                                    : QStringLiteral("S = 1: op durations do not slow the step");
    QVERIFY2(p.summaryLabel()->text().contains(meaning), qPrintable(p.summaryLabel()->text()));
    QVERIFY(p.errorLabel()->isHidden());

    QTableView *dp = p.view(StragglerTableModel::DpRanks);
    QCOMPARE(dp->model()->rowCount(), kRanks);
    QCOMPARE(dp->model()->rowCount(), int(want.layout.dpSize));
    QCOMPARE(cellText(dp, 0, 0), QString::number(kStraggler));
    QCOMPARE(cellText(dp, 0, 1), QString::number(want.byDpRank.front().second, 'f', 3));
    QCOMPARE(cellText(dp, 0, 2), QString::number(kStraggler)); // dp rank w is rank w here
    for (int row = 1; row < kRanks; ++row)
        QVERIFY(dp->model()->index(row, 1).data(SortRole).toDouble() <
                dp->model()->index(0, 1).data(SortRole).toDouble());

    QTableView *steps = p.view(StragglerTableModel::Steps);
    QCOMPARE(steps->model()->rowCount(), int(want.steps.size()));
    QCOMPARE(steps->model()->rowCount(), 3);
    for (int row = 0; row < 3; ++row) {
        QCOMPARE(cellText(steps, row, 0), QString::number(want.steps[size_t(row)].number));
        QCOMPARE(cellText(steps, row, 2), QString::number(want.steps[size_t(row)].noDelayUs / 1e3, 'f', 3));
        QCOMPARE(cellText(steps, row, 4), QString::number(want.steps[size_t(row)].slowdown, 'f', 3));
    }
    QTableView *types = p.view(StragglerTableModel::OpTypes);
    QCOMPARE(types->model()->rowCount(), int(want.byOpType.size()));
    QCOMPARE(cellText(types, 0, 0), QString::fromStdString(want.byOpType.front().type));
    // Sorting by another column: numbers as numbers.
    types->sortByColumn(2, Qt::AscendingOrder);
    for (int row = 1; row < types->model()->rowCount(); ++row)
        QVERIFY(types->model()->index(row - 1, 2).data(SortRole).toLongLong() <=
                types->model()->index(row, 2).data(SortRole).toLongLong());
    // One stage: no stage table.
    QCOMPARE(p.view(StragglerTableModel::Stages)->model()->rowCount(), 0);
    QVERIFY(!p.tabs()->isTabEnabled(StragglerTableModel::Stages));

    // A dp-rank row asks for its rank's lanes.
    QSignalSpy activated(&p, &StragglerPanel::rankActivated);
    p.tabs()->setCurrentIndex(StragglerTableModel::DpRanks);
    QTest::mouseClick(dp->viewport(), Qt::LeftButton, {}, dp->visualRect(dp->model()->index(0, 0)).center());
    QCOMPARE(activated.count(), 1);
    QCOMPARE(activated.first().first().toLongLong(), qint64(kStraggler));
}

// dp=2,pp=2 by hand: Megatron order puts rank 2 at dp rank 0 of stage 1, as batch says.
void TestStragglerPanel::parallelismByHand()
{
    ParallelismSpec spec;
    std::string error;
    QVERIFY(parseParallelism("dp=2,pp=2", spec, error));
    const StragglerWhatIf want = expected(*m_job, spec);
    QVERIFY2(want.ok, want.error.c_str());
    StragglerPanel p;
    p.setJob(m_job);
    p.parallelismEdit()->setText(QStringLiteral("dp=2,pp=2"));
    QVERIFY(p.errorLabel()->isHidden());
    QTest::mouseClick(p.computeButton(), Qt::LeftButton);
    QVERIFY(p.busy());
    QVERIFY(waitResult(p));
    const StragglerWhatIf &got = p.result()->whatIf;
    QCOMPARE(got.layout.source, std::string("parallelism"));
    QCOMPARE(got.slowdown, want.slowdown);
    QVERIFY(p.summaryLabel()->text().contains(QLatin1String("Layout parallelism: dp 2, pp 2, tp 1")));
    QTableView *dp = p.view(StragglerTableModel::DpRanks);
    QCOMPARE(dp->model()->rowCount(), 2);
    QCOMPARE(cellText(dp, 0, 0), QStringLiteral("0"));
    QCOMPARE(cellText(dp, 0, 2), QStringLiteral("0, 2"));
    QTableView *stages = p.view(StragglerTableModel::Stages);
    QCOMPARE(stages->model()->rowCount(), 2);
    QCOMPARE(cellText(stages, 0, 0), QStringLiteral("1"));
    QCOMPARE(cellText(stages, 0, 1), QString::number(want.byStage.front().second, 'f', 3));
    QVERIFY(p.tabs()->isTabEnabled(StragglerTableModel::Stages));
    QVERIFY(p.summaryLabel()->text().contains(QStringLiteral("M_S %1 %").arg(QString::number(*want.mS * 100, 'f', 1))));
}

void TestStragglerPanel::badParallelismComputesNothing()
{
    StragglerPanel p;
    p.setJob(m_job);
    QSignalSpy changed(&p, &StragglerPanel::resultChanged);
    p.parallelismEdit()->setText(QStringLiteral("dp=0,zz=3"));
    QVERIFY(!p.errorLabel()->isHidden()); // said as it is typed
    QVERIFY(p.errorLabel()->text().startsWith(QLatin1String("Parallelism:")));
    QVERIFY(p.errorLabel()->text().size() > 14);
    QTest::mouseClick(p.computeButton(), Qt::LeftButton);
    QVERIFY(!p.busy());
    QVERIFY(!p.compute());
    QTest::qWait(300);
    QVERIFY(!p.result());
    QCOMPARE(changed.count(), 0);
    QCOMPARE(p.view(StragglerTableModel::DpRanks)->model()->rowCount(), 0);
    // Fixed: the error goes, Enter computes.
    p.parallelismEdit()->setText(QStringLiteral("dp=4"));
    QVERIFY(p.errorLabel()->isHidden());
    QTest::keyClick(p.parallelismEdit(), Qt::Key_Return);
    QVERIFY(waitResult(p));
    QVERIFY(p.result()->whatIf.ok);
    QCOMPARE(p.view(StragglerTableModel::DpRanks)->model()->rowCount(), 4);
}

// A job the what-if cannot run on (no rank has a GPU timeline nor an analysis to make
// one from): its error in the panel, no rows.
void TestStragglerPanel::errorShown()
{
    auto bare = std::make_shared<JobData>(*m_job);
    for (JobRankData &r : bare->ranks) {
        r.analysis.reset();
        r.summary.gpu = {};
    }
    const StragglerWhatIf want = expected(*bare);
    QVERIFY(!want.ok);
    QVERIFY(!want.error.empty());
    StragglerPanel p;
    p.setJob(bare);
    QVERIFY(p.compute());
    QVERIFY(waitResult(p));
    QVERIFY(!p.result()->whatIf.ok);
    const QString text = p.summaryLabel()->text();
    QVERIFY2(text.contains(QLatin1String("could not run")), qPrintable(text));
    QVERIFY2(text.contains(QString::fromStdString(want.error).toHtmlEscaped()), qPrintable(text));
    for (int t = 0; t < 4; ++t)
        QCOMPARE(p.view(StragglerTableModel::Table(t))->model()->rowCount(), 0);

    // Summaries without their GPU timeline but with the rank's analysis (a job shown on
    // another step): the panel builds them.
    auto stepped = std::make_shared<JobData>(*m_job);
    for (JobRankData &r : stepped->ranks)
        r.summary.gpu = {};
    p.setJob(stepped);
    QVERIFY(!p.result());
    QVERIFY(p.compute());
    QVERIFY(waitResult(p));
    QVERIFY(p.result()->whatIf.ok);
    QCOMPARE(p.result()->gpuTimelinesBuilt, kRanks);
    QCOMPARE(p.result()->whatIf.slowdown, expected(*m_job).slowdown);
}

// A computation still running when the job changes is dropped.
void TestStragglerPanel::staleResultDropped()
{
    StragglerPanel p;
    p.setJob(m_job);
    QVERIFY(p.compute());
    p.setJob(nullptr);
    QVERIFY(!p.computeButton()->isEnabled());
    QVERIFY(!p.compute());
    QTest::qWait(500);
    QThreadPool::globalInstance()->waitForDone(60000);
    QCoreApplication::processEvents();
    QVERIFY(!p.result());
    QCOMPARE(p.view(StragglerTableModel::Steps)->model()->rowCount(), 0);
}

void TestStragglerPanel::copyRows()
{
    StragglerPanel p;
    p.setJob(m_job);
    QVERIFY(p.compute());
    QVERIFY(waitResult(p));
    QTableView *dp = p.view(StragglerTableModel::DpRanks);
    dp->selectRow(0);
    const QString copied = copiedRows(dp);
    const QStringList lines = copied.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QVERIFY2(lines.size() >= 2, qPrintable(copied));
    QCOMPARE(lines[0], QStringLiteral("DP rank\tS_w\tRanks"));
    QCOMPARE(lines[1].section(QLatin1Char('\t'), 0, 0), QString::number(kStraggler));
}

// In the main window: a dock tabified with What-if, shown once a job is open; raised,
// it computes, and a dp-rank row expands that rank's lanes.
void TestStragglerPanel::dockBesideWhatIf()
{
    MainWindow w;
    w.setInteractive(false);
    w.setRecordRecent(false);
    w.resize(1400, 900);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QDockWidget *dock = w.dock(QStringLiteral("stragglers"));
    QVERIFY(dock);
    QDockWidget *whatIf = w.dock(QStringLiteral("whatif"));
    QVERIFY(whatIf);
    QVERIFY(w.tabifiedDockWidgets(whatIf).contains(dock));
    QVERIFY(dock->isHidden()); // no job yet
    QSignalSpy done(&w, &MainWindow::loadFinished);
    w.openJob(QString::fromStdString(m_dir));
    QVERIFY(done.wait(120000));
    QVERIFY(done.first().first().toBool());
    QVERIFY(!dock->isHidden());
    auto *panel = qobject_cast<StragglerPanel *>(dock->widget());
    QVERIFY(panel);
    QCOMPARE(panel, w.job()->stragglerPanel());
    // Behind the critical path's tab (still the front one): nothing computed until raised.
    QTest::qWait(50);
    QVERIFY(panel->visibleRegion().isEmpty());
    QVERIFY(!w.dock(QStringLiteral("criticalpath"))->visibleRegion().isEmpty());
    QVERIFY(!panel->busy() && !panel->result());
    dock->raise();
    QVERIFY(QTest::qWaitFor([&] { return panel->result() != nullptr && !panel->busy(); }, 60000));
    QVERIFY(panel->result()->whatIf.ok);
    QCOMPARE(panel->result()->whatIf.slowdown, expected(*w.job()->data()).slowdown);
    TimelinePlot *plot = w.timeline()->plot();
    plot->setRankExpanded(kStraggler, false);
    QVERIFY(!plot->rankExpanded(kStraggler));
    QTableView *dp = panel->view(StragglerTableModel::DpRanks);
    panel->tabs()->setCurrentIndex(StragglerTableModel::DpRanks);
    QTest::mouseClick(dp->viewport(), Qt::LeftButton, {}, dp->visualRect(dp->model()->index(0, 0)).center());
    QVERIFY(plot->rankExpanded(kStraggler));
    // Closing the job empties it.
    w.job()->close();
    QVERIFY(!panel->result());
}

QTEST_MAIN(TestStragglerPanel)
#include "tst_stragglerpanel.moc"
