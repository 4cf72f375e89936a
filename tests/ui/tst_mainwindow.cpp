// SPDX-License-Identifier: MIT
// The whole window, offscreen: load in the background, search jumps, panel
// clicks jump, step selector, exports equal to --batch, bad input, drag and
// drop, recent pairs, cancel, and the headless --screenshot command.
#include "document/jobdocument.h"
#include "document/pairdocument.h"
#include "mainwindow.h"
#include "panels/criticalpathpanel.h"
#include "panels/detailspanel.h"
#include "panels/diagnosticspanel.h"
#include "panels/aggregatepanel.h"
#include "panels/searchpanel.h"
#include "panels/syncwaitspanel.h"
#include "recentpairs.h"
#include "shortcuts.h"
#include "startpage.h"
#include "timeline/timelineview.h"
#include "tracegen.h"
#include "testutil.h"
#include "uitestutil.h"

#include "analysis/criticalpath.h"

#include <QComboBox>
#include <QElapsedTimer>
#include <QFile>
#include <QLabel>
#include <QPushButton>
#include <QLineEdit>
#include <QMessageBox>
#include <QStatusBar>
#include <QDir>
#include <QFileInfo>
#include <QApplication>
#include <QMimeData>
#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QCheckBox>
#include <QSet>
#include <QTableWidget>
#include <QTest>
#include <QTimer>
#include <QTreeView>

#include <chrono>
#include <thread>

using namespace syncscope;
using namespace syncscope::ui;

namespace {

QByteArray readAll(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return f.readAll();
}

// Runs the syncscope binary; returns its exit code (-1 if it did not finish).
int runSyncscope(const QStringList &args, QByteArray *err = nullptr)
{
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(SYNCSCOPE_BIN), args);
    if (!p.waitForFinished(120000))
        return -1;
    if (err)
        *err = p.readAllStandardError();
    return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
}

} // namespace

class TestMainWindow : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();
    void loadsSampleInTheBackground();
    void searchJumpsToMatches();
    void detailsRowJumps();
    void criticalPathRowJumps();
    void stepSelectorRecomputes();
    void lastStepHasItsEvents();
    void keyboardRowFollowsSelection();
    void exportNotifiesWithoutModalBox();
    void criticalPathTableFeatures();
    void syncWaitsTable();
    void htaExactSetting();
    void lateGpuStartInTheStatus();
    void areaSelectionAggregates();
    void exportsEqualBatch_data();
    void exportsEqualBatch();
    void badInputGoesToDiagnostics();
    void dropOpensPairInEitherOrder();
    void recentPairs();
    void startPageOpensFolders();
    void cancelStopsLoading();
    void windowKeysWorkAnywhere();
    void shortcutsDialogListsKeys();
    void headlessScreenshot();

private:
    bool loadSample();
    std::unique_ptr<MainWindow> m_w;
    QString m_tmp;
};

void TestMainWindow::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    clearRecentPairs();
    m_tmp = QString::fromStdString(testutil::tempDir());
}

void TestMainWindow::init()
{
    m_w = std::make_unique<MainWindow>();
    m_w->setInteractive(false);
    m_w->setSamplePair(QString::fromStdString(uitest::sampleHost()), QString::fromStdString(uitest::sampleDevice()));
    m_w->resize(1400, 900);
    m_w->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_w.get()));
}

void TestMainWindow::cleanup()
{
    m_w.reset();
}

bool TestMainWindow::loadSample()
{
    QSignalSpy done(m_w.get(), &MainWindow::loadFinished);
    m_w->openSample();
    if (!done.wait(60000))
        return false;
    return done.first().first().toBool();
}

void TestMainWindow::loadsSampleInTheBackground()
{
    QSignalSpy shown(m_w.get(), &MainWindow::timelineShown);
    QSignalSpy done(m_w.get(), &MainWindow::loadFinished);
    // The timeline shows as soon as the traces are read (issue 41, item 10): the link and
    // the analyses are not done when it appears.
    bool loadingWhenShown = false, linkedWhenShown = true;
    connect(m_w.get(), &MainWindow::timelineShown, this, [&] {
        loadingWhenShown = m_w->isLoading();
        linkedWhenShown = m_w->statusSummary().contains(QStringLiteral("host ops linked"));
    });
    m_w->openSample();
    QVERIFY(m_w->isLoading()); // returns at once: the work is on another thread
    QVERIFY(done.wait(60000));
    QCOMPARE(shown.count(), 1);
    QVERIFY(loadingWhenShown);
    QVERIFY(!linkedWhenShown);
    QVERIFY(done.first().first().toBool());
    QVERIFY(!m_w->isLoading());
    const QString status = m_w->statusSummary();
    // The same counts as batch prints (issue 13: it said 201 / 201 where batch says 201 / 204).
    QVERIFY2(status.contains(QStringLiteral("201 / 204 host ops linked (100.0 % of 201 with a Kineto twin)")),
             qPrintable(status));
    QVERIFY2(status.contains(QStringLiteral("628 events, 440 on the timeline, 90 GPU ops")), qPrintable(status));
    QVERIFY2(status.contains(QStringLiteral("Critical path 674 \u00b5s (51 ops)")), qPrintable(status));
    QVERIFY(m_w->exportAction(ExportKind::EtPlusJson)->isEnabled());
    QVERIFY(m_w->exportAction(ExportKind::PerfettoOverlay)->isEnabled());
    QCOMPARE(m_w->timeline()->plot()->model()->layout.itemCount, size_t(440));
}

void TestMainWindow::searchJumpsToMatches()
{
    QVERIFY(loadSample());
    SearchPanel *search = m_w->search();
    QTest::keyClicks(search->queryEdit(), QStringLiteral("aten::mm"));
    QTest::keyClick(search->queryEdit(), Qt::Key_Return);
    const SearchModel *model = search->model();
    QVERIFY(model->matchCount() > 3);
    TimelinePlot *plot = m_w->timeline()->plot();
    const uint32_t first = model->eventAt(0);
    QCOMPARE(plot->selection()->event(), qint64(first));
    QCOMPARE(search->countLabel()->text(), QStringLiteral("1 / %1").arg(model->matchCount()));
    const TimeRange r = plot->range();
    QVERIFY(r.t0 <= plot->model()->startNs(first) && r.t1 >= plot->model()->endNs(first));
    QVERIFY(plot->eventPoint(first).x() >= 0);
    QTest::keyClick(search->queryEdit(), Qt::Key_Return);
    QCOMPARE(plot->selection()->event(), qint64(model->eventAt(1)));
    search->previous();
    search->previous(); // wraps to the last match
    QCOMPARE(plot->selection()->event(), qint64(model->eventAt(model->matchCount() - 1)));
    // The details panel follows the selection.
    QCOMPARE(m_w->details()->model()->event(), qint64(model->eventAt(model->matchCount() - 1)));
}

void TestMainWindow::detailsRowJumps()
{
    QVERIFY(loadSample());
    TimelinePlot *plot = m_w->timeline()->plot();
    QVERIFY(m_w->selectByName(QStringLiteral("aten::mm")));
    const qint64 mm = plot->selection()->event();
    DetailsModel *details = m_w->details()->model();
    QCOMPARE(details->event(), mm);
    const TreeNode *gpu = details->section(DetailsModel::gpuSection());
    QVERIFY(gpu && !gpu->children.empty());
    const qint64 target = gpu->children[0]->target;
    QTreeView *view = m_w->details()->view();
    const QModelIndex idx = details->index(0, 1, details->index(gpu->row, 0));
    view->scrollTo(idx);
    QTest::mouseClick(view->viewport(), Qt::LeftButton, Qt::NoModifier, view->visualRect(idx).center());
    QCOMPARE(plot->selection()->event(), target);
    QVERIFY(plot->eventPoint(uint32_t(target)).x() >= 0); // brought into view
}

void TestMainWindow::criticalPathRowJumps()
{
    QVERIFY(loadSample());
    CriticalPathPanel *panel = m_w->criticalPathPanel();
    const CriticalOpsModel *ops = panel->opsModel();
    int row = -1;
    for (int r = ops->rowCount() - 1; r >= 0 && row < 0; --r)
        if (ops->row(r).event >= 0)
            row = r;
    QVERIFY(row >= 0);
    QTableView *view = panel->opsView();
    const QModelIndex idx = panel->viewIndex(row, CriticalOpsModel::OpColumn);
    view->scrollTo(idx);
    QTest::mouseClick(view->viewport(), Qt::LeftButton, Qt::NoModifier, view->visualRect(idx).center());
    TimelinePlot *plot = m_w->timeline()->plot();
    QCOMPARE(plot->selection()->event(), ops->row(row).event);
    QVERIFY(plot->model()->layout.isCritical(uint32_t(ops->row(row).event)));
    QVERIFY(plot->eventPoint(uint32_t(ops->row(row).event)).x() >= 0);
}

void TestMainWindow::stepSelectorRecomputes()
{
    QVERIFY(loadSample());
    // Issue 13: one notion of step, ProfilerStep#N as the user sees it: 3 steps (not the
    // 5 HTA rows that include the GPU copies) and "All".
    CriticalPathPanel *panel = m_w->criticalPathPanel();
    QComboBox *steps = panel->stepBox();
    QCOMPARE(m_w->pair()->steps().size(), size_t(3));
    QCOMPARE(steps->count(), 4);
    for (int k = 0; k < 3; ++k)
        QCOMPARE(steps->itemText(k), QStringLiteral("ProfilerStep#%1").arg(k));
    QCOMPARE(steps->currentIndex(), 0); // HTA instance 0 is ProfilerStep#0
    QVERIFY2(panel->summaryLabel()->text().contains(QStringLiteral("(ProfilerStep#0)")),
             qPrintable(panel->summaryLabel()->text()));
    const auto before = m_w->pair()->criticalPath();
    QSignalSpy changed(m_w.get(), &MainWindow::criticalPathChanged);
    steps->setCurrentIndex(1);
    QVERIFY(changed.wait(30000));
    const auto cp = m_w->pair()->criticalPath();
    QVERIFY(cp && cp->success);
    QVERIFY(cp->window.profilerSteps);
    QCOMPARE(cp->window.instanceFirst, 1);
    QCOMPARE(cp->window.firstEvent, int32_t(m_w->pair()->steps()[1]));
    QVERIFY2(panel->summaryLabel()->text().contains(QStringLiteral("(ProfilerStep#1)")),
             qPrintable(panel->summaryLabel()->text()));
    QVERIFY(cp->criticalEvents != before->criticalEvents);
    const TimelineModel &model = *m_w->timeline()->plot()->model();
    QCOMPARE(model.criticalEvents, cp->criticalEvents);
    QVERIFY(model.layout.isCritical(cp->criticalEvents.front()));
    QCOMPARE(model.edges.count(EdgeKind::CriticalPath), criticalPathEdges(model, *cp).size());
    QCOMPARE(steps->currentIndex(), 1);
    // The "All" entry spans every step.
    steps->setCurrentIndex(3);
    QVERIFY(changed.wait(30000));
    QCOMPARE(m_w->pair()->criticalPath()->window.instanceFirst, 0);
    QCOMPARE(m_w->pair()->criticalPath()->window.instanceLast, 2);
}

// Issue 13: the last step's path was HTA's, computed without the last step's events
// (a few µs for a step of hundreds); outside --compat it is the same as batch's per-step table.
void TestMainWindow::lastStepHasItsEvents()
{
    QVERIFY(loadSample());
    QComboBox *steps = m_w->criticalPathPanel()->stepBox();
    QSignalSpy changed(m_w.get(), &MainWindow::criticalPathChanged);
    steps->setCurrentIndex(2);
    QVERIFY(changed.wait(30000));
    const auto cp = m_w->pair()->criticalPath();
    QVERIFY(cp && cp->success);
    Diagnostics diag;
    const auto all = analyzeAllSteps(*m_w->pair()->analysis()->device, m_w->pair()->analysis()->request.cpa, diag);
    QCOMPARE(all.size(), size_t(3));
    QCOMPARE(cp->weightUs, all[2].weightUs);
    QVERIFY2(cp->weightUs > 0.5 * (all[2].endUs - all[2].startUs), qPrintable(QString::number(cp->weightUs)));
}

// Issue 13: arrow keys in a table moved the row highlight but not the selection.
void TestMainWindow::keyboardRowFollowsSelection()
{
    QVERIFY(loadSample());
    TimelinePlot *plot = m_w->timeline()->plot();
    // The critical-path table.
    CriticalPathPanel *panel = m_w->criticalPathPanel();
    const CriticalOpsModel *ops = panel->opsModel();
    int a = -1, b = -1;
    for (int r = 0; r < ops->rowCount() && b < 0; ++r)
        if (ops->row(r).event >= 0 && r + 1 < ops->rowCount() && ops->row(r + 1).event >= 0 &&
            ops->row(r + 1).event != ops->row(r).event) {
            a = r;
            b = r + 1;
        }
    QVERIFY(a >= 0);
    QTableView *view = panel->opsView();
    const QModelIndex idx = panel->viewIndex(a, CriticalOpsModel::OpColumn);
    view->scrollTo(idx);
    QTest::mouseClick(view->viewport(), Qt::LeftButton, Qt::NoModifier, view->visualRect(idx).center());
    QCOMPARE(plot->selection()->event(), ops->row(a).event);
    QTest::keyClick(view, Qt::Key_Down);
    QCOMPARE(view->currentIndex().row(), panel->viewIndex(b, 0).row());
    QCOMPARE(plot->selection()->event(), ops->row(b).event);
    QCOMPARE(m_w->details()->model()->event(), ops->row(b).event);
    // The search results.
    SearchPanel *search = m_w->search();
    search->setQueryText(QStringLiteral("aten::mm"));
    search->next();
    const qint64 first = plot->selection()->event();
    QCOMPARE(first, qint64(search->model()->eventAt(0)));
    QTableView *results = search->findChild<QTableView *>();
    QVERIFY(results);
    results->setFocus();
    QTest::keyClick(results, Qt::Key_Down);
    QCOMPARE(plot->selection()->event(), qint64(search->model()->eventAt(1)));
    QCOMPARE(search->countLabel()->text(), QStringLiteral("2 / %1").arg(search->model()->matchCount()));
}

// Issue 13: the critical-path table sorts by any column, groups by op name, a bound-by
// row highlights its parts of the path, and ] / [ step along the path.
void TestMainWindow::criticalPathTableFeatures()
{
    QVERIFY(loadSample());
    CriticalPathPanel *panel = m_w->criticalPathPanel();
    const CriticalOpsModel *ops = panel->opsModel();
    QTableView *view = panel->opsView();
    // No "(dependency) 0 ns" rows unless asked for.
    const int shown = ops->rowCount();
    for (int r = 0; r < shown; ++r)
        QVERIFY(ops->row(r).event >= 0 || ops->row(r).durationUs > 0);
    panel->zeroRowsBox()->setChecked(true);
    QVERIFY(ops->rowCount() > shown);
    panel->zeroRowsBox()->setChecked(false);
    QCOMPARE(ops->rowCount(), shown);
    // Sorted by time on the path, longest first.
    view->sortByColumn(CriticalOpsModel::TimeColumn, Qt::DescendingOrder);
    auto viewTime = [&](int r) { return view->model()->index(r, CriticalOpsModel::TimeColumn).data(SortRole).toDouble(); };
    for (int r = 1; r < view->model()->rowCount(); ++r)
        QVERIFY(viewTime(r - 1) >= viewTime(r));
    // Grouped by name: fewer rows, counts add up, shares still sum to 100 %.
    panel->groupBox()->setChecked(true);
    QVERIFY(ops->grouped());
    QVERIFY(ops->rowCount() < shown);
    int count = 0;
    double share = 0;
    QSet<QString> names;
    for (int r = 0; r < ops->rowCount(); ++r) {
        count += ops->groupCount(r);
        share += ops->index(r, 0).data(Qt::UserRole).toDouble();
        const QString name = ops->index(r, CriticalOpsModel::OpColumn).data().toString();
        QVERIFY(!names.contains(name));
        names.insert(name);
    }
    QCOMPARE(count, shown);
    QVERIFY2(qAbs(share - 100.0) < 1e-6, qPrintable(QString::number(share)));
    QCOMPARE(ops->headerData(CriticalOpsModel::LaneColumn, Qt::Horizontal).toString(), QStringLiteral("Count"));
    panel->groupBox()->setChecked(false);
    view->sortByColumn(CriticalOpsModel::IndexColumn, Qt::AscendingOrder);
    // A bound-by row highlights only its ops; clicking it again restores the whole path.
    QTableView *bv = panel->breakdownView();
    int gpuRow = -1;
    for (int r = 0; r < panel->breakdownModel()->rowCount(); ++r)
        if (panel->breakdownModel()->boundBy(r) == "gpu_compute_bound")
            gpuRow = r;
    QVERIFY(gpuRow >= 0);
    const QModelIndex b = panel->breakdownModel()->index(gpuRow, 0);
    QTest::mouseClick(bv->viewport(), Qt::LeftButton, Qt::NoModifier, bv->visualRect(b).center());
    QCOMPARE(m_w->pair()->highlightedBoundBy(), QStringLiteral("gpu_compute_bound"));
    const TimelineModel &model = *m_w->timeline()->plot()->model();
    size_t lit = 0;
    for (uint32_t ev : model.criticalEvents)
        lit += model.layout.isCritical(ev);
    QVERIFY(lit > 0 && lit < model.criticalEvents.size());
    for (uint32_t ev : model.criticalEvents)
        if (model.layout.isCritical(ev))
            QVERIFY(model.category(ev) == Category::Kernel || model.category(ev) == Category::Memcpy ||
                    model.category(ev) == Category::Memset || model.category(ev) == Category::Communication);
    QTest::mouseClick(bv->viewport(), Qt::LeftButton, Qt::NoModifier, bv->visualRect(b).center());
    QVERIFY(m_w->pair()->highlightedBoundBy().isEmpty());
    for (uint32_t ev : model.criticalEvents)
        QVERIFY(model.layout.isCritical(ev));
    // ] and [ step along the path from anywhere in the window.
    TimelinePlot *plot = m_w->timeline()->plot();
    plot->setFocus();
    QTest::keyClick(m_w.get(), Qt::Key_BracketRight);
    QCOMPARE(view->currentIndex().row(), 0);
    QTest::keyClick(m_w.get(), Qt::Key_BracketRight);
    QCOMPARE(view->currentIndex().row(), 1);
    if (ops->row(1).event >= 0)
        QCOMPARE(plot->selection()->event(), ops->row(1).event);
    QTest::keyClick(m_w.get(), Qt::Key_BracketLeft);
    QCOMPARE(view->currentIndex().row(), 0);
    if (ops->row(0).event >= 0)
        QCOMPARE(plot->selection()->event(), ops->row(0).event);
}

// Issue 13: the GUI only showed a count of sync waits; now a sortable, clickable table with per-kind totals.
void TestMainWindow::syncWaitsTable()
{
    QVERIFY(loadSample());
    SyncWaitsPanel *panel = m_w->syncWaits();
    const auto &edges = m_w->pair()->analysis()->syncEdges;
    QVERIFY(!edges.empty());
    QCOMPARE(size_t(panel->model()->rowCount()), edges.size());
    QVERIFY2(panel->totalsLabel()->text().contains(QStringLiteral("Stream Wait Event")),
             qPrintable(panel->totalsLabel()->text()));
    QTableView *view = panel->view();
    QAbstractItemModel *shown = view->model();
    // Longest wait first by default; any column sorts.
    double longest = 0;
    for (const SyncEdge &e : edges)
        longest = std::max(longest, e.waitUs);
    QCOMPARE(shown->index(0, SyncWaitsModel::WaitColumn).data(SortRole).toDouble(), longest);
    view->sortByColumn(SyncWaitsModel::KindColumn, Qt::AscendingOrder);
    for (int r = 1; r < shown->rowCount(); ++r)
        QVERIFY(shown->index(r - 1, 0).data().toString() <= shown->index(r, 0).data().toString());
    // A click on the waiting op selects it; on the GPU op, that one.
    const QModelIndex waiting = shown->index(0, SyncWaitsModel::WaitingColumn);
    QTest::mouseClick(view->viewport(), Qt::LeftButton, Qt::NoModifier, view->visualRect(waiting).center());
    TimelinePlot *plot = m_w->timeline()->plot();
    QCOMPARE(plot->selection()->event(), waiting.data(TargetEventRole).toLongLong());
    const QModelIndex gpu = shown->index(0, SyncWaitsModel::WaitedForColumn);
    QTest::mouseClick(view->viewport(), Qt::LeftButton, Qt::NoModifier, view->visualRect(gpu).center());
    QCOMPARE(plot->selection()->event(), gpu.data(TargetEventRole).toLongLong());
    QVERIFY(isGpuActivity(m_w->pair()->analysis()->device->events[size_t(gpu.data(TargetEventRole).toLongLong())].kind));
    QVERIFY(shown->index(0, SyncWaitsModel::StreamColumn).data().toString().startsWith(QStringLiteral("GPU ")));
}

// Issue 28: Analysis > HTA-exact (as --hta-exact) analyses the open trace again with the
// cuda_sync rows' edges only; the status bar and the Sync waits dock say how many
// edges were inferred.
// Issue 38: a real vLLM trace whose GPU starts 7.8 ms after its launches says so in the
// status bar and in Diagnostics; the critical path runs from the first event through it.
void TestMainWindow::lateGpuStartInTheStatus()
{
    QSignalSpy done(m_w.get(), &MainWindow::loadFinished);
    m_w->openFiles(QString::fromStdString(testutil::fixture("real/tracelens_vllm_rocm_late_gpu_1.kineto.json.gz")));
    QVERIFY(done.wait(30000));
    QVERIFY(done.takeFirst().first().toBool());
    const QString status = m_w->statusSummary();
    QVERIFY2(status.contains(QStringLiteral("GPU starts 7.83 ms after its launch (41 % of the trace")), qPrintable(status));
    const Analysis &a = *m_w->pair()->analysis();
    QVERIFY(a.diagnostics.find("trace.gpu_start_hole"));
    QVERIFY(m_w->pair()->criticalPath() && m_w->pair()->criticalPath()->success);
    QVERIFY2(m_w->pair()->criticalPath()->weightUs > 18000, qPrintable(QString::number(m_w->pair()->criticalPath()->weightUs)));
}

void TestMainWindow::htaExactSetting()
{
    QAction *exact = m_w->htaExactAction();
    QVERIFY(exact && exact->isCheckable() && exact->isEnabled() && !exact->isChecked());
    QCOMPARE(exact->objectName(), QStringLiteral("htaExact"));
    const QString path = QString::fromStdString(uitest::writeKineto(uitest::inferredSyncTrace(), "mixed"));
    QSignalSpy done(m_w.get(), &MainWindow::loadFinished);
    m_w->openFiles(path);
    QVERIFY(done.wait(30000));
    QVERIFY(done.takeFirst().first().toBool());
    auto check = [&](bool htaExact) {
        const Analysis &a = *m_w->pair()->analysis();
        QCOMPARE(a.request.cpa.htaExact, htaExact);
        QVERIFY(m_w->pair()->criticalPath());
        QCOMPARE(m_w->pair()->criticalPath()->htaExact, htaExact);
        size_t inferred = 0;
        for (const SyncEdge &e : a.syncEdges)
            inferred += e.inferred;
        QCOMPARE(a.syncEdges.size(), size_t(htaExact ? 1 : 3));
        QCOMPARE(inferred, size_t(htaExact ? 0 : 2));
        QCOMPARE(m_w->timeline()->plot()->model()->edges.count(EdgeKind::Sync), a.syncEdges.size());
        const QString status = m_w->statusSummary();
        QVERIFY2(status.contains(htaExact ? QStringLiteral("1 sync edge (HTA-exact: cuda_sync rows only)")
                                          : QStringLiteral("3 sync edges (2 inferred)")),
                 qPrintable(status));
        const QString totals = m_w->syncWaits()->totalsLabel()->text();
        QVERIFY2(totals.startsWith(htaExact ? QStringLiteral("1 sync edge (1 from cuda_sync)")
                                            : QStringLiteral("3 sync edges (2 inferred, 1 from cuda_sync)")),
                 qPrintable(totals));
        QCOMPARE(m_w->syncWaits()->model()->rowCount(), int(a.syncEdges.size()));
    };
    check(false);
    if (QTest::currentTestFailed())
        return;
    exact->trigger(); // on: the open trace is analysed again
    QVERIFY(exact->isChecked());
    QVERIFY(m_w->requestTemplate().cpa.htaExact);
    QVERIFY(m_w->isLoading());
    QVERIFY(done.wait(30000));
    QVERIFY(done.takeFirst().first().toBool());
    check(true);
    if (QTest::currentTestFailed())
        return;
    // Reload keeps the setting.
    m_w->reload();
    QVERIFY(done.wait(30000));
    done.clear();
    check(true);
    if (QTest::currentTestFailed())
        return;
    exact->trigger(); // off again
    QVERIFY(!exact->isChecked());
    QVERIFY(done.wait(30000));
    done.clear();
    check(false);
    if (QTest::currentTestFailed())
        return;
    // From the command line (--hta-exact, --hta-version d731cc2e: the GUI's request template).
    AnalysisRequest r;
    r.cpa.htaExact = true;
    m_w->setRequestTemplate(r);
    QVERIFY(exact->isChecked() && exact->isEnabled());
    r.cpa.htaExact = false;
    r.cpa.htaVersion = HtaVersion::D731cc2e;
    m_w->setRequestTemplate(r);
    QVERIFY(m_w->htaExact());
    QVERIFY(exact->isChecked() && !exact->isEnabled());
    r.cpa.htaVersion = HtaVersion::F4d0062;
    m_w->setRequestTemplate(r);
    QVERIFY(!exact->isChecked() && exact->isEnabled());
    QVERIFY(!m_w->isLoading()); // setting the template opens nothing
}

// Issue 13: Shift-drag selects an area; the aggregate table lists what ran there per name.
void TestMainWindow::areaSelectionAggregates()
{
    QVERIFY(loadSample());
    TimelinePlot *plot = m_w->timeline()->plot();
    plot->fitAll();
    const QRect r = plot->plotRect();
    // A flat drag over the middle half: every lane.
    const QPoint a(r.left() + r.width() / 4, r.top() + 30), b(r.left() + 3 * r.width() / 4, r.top() + 30);
    QTest::mousePress(plot, Qt::LeftButton, Qt::ShiftModifier, a);
    QTest::mouseMove(plot, b);
    QTest::mouseRelease(plot, Qt::LeftButton, Qt::ShiftModifier, b);
    const auto m = plot->measurement();
    QVERIFY(m);
    AggregatePanel *area = m_w->areaPanel();
    QTRY_VERIFY(area->model()->rowCount() > 0);
    // The counts are the ops of every row that meet the range, but for a GPU stream's
    // annotations (the GPU copy of ProfilerStep#N is not GPU work).
    const TimelineModel &model = *plot->model();
    size_t expected = 0, gpuSteps = 0;
    for (const LaneRow &row : model.layout.rows)
        for (size_t i = 0; i < row.size(); ++i) {
            const bool meets = double(row.end[i]) > m->t0 && double(row.start[i]) < m->t1;
            const bool gpuStep = model.layout.groups[row.group].gpu && model.category(row.event[i]) == Category::Annotation;
            expected += meets && !gpuStep;
            gpuSteps += meets && gpuStep;
        }
    QVERIFY(gpuSteps > 0); // the sample has them in the range
    size_t counted = 0;
    double share = 0;
    for (int k = 0; k < area->model()->rowCount(); ++k) {
        counted += area->model()->row(k).count;
        share += area->model()->row(k).totalNs / area->model()->totalNs();
    }
    QCOMPARE(counted, expected);
    QVERIFY(qAbs(share - 1.0) < 1e-9);
    // Sorted by total, longest first; sortable by count; a click selects that name's longest op.
    QTableView *view = area->view();
    QAbstractItemModel *shown = view->model();
    for (int k = 1; k < shown->rowCount(); ++k)
        QVERIFY(shown->index(k - 1, AggregateModel::TotalColumn).data(SortRole).toDouble() >=
                shown->index(k, AggregateModel::TotalColumn).data(SortRole).toDouble());
    view->sortByColumn(AggregateModel::CountColumn, Qt::DescendingOrder);
    for (int k = 1; k < shown->rowCount(); ++k)
        QVERIFY(shown->index(k - 1, AggregateModel::CountColumn).data(SortRole).toULongLong() >=
                shown->index(k, AggregateModel::CountColumn).data(SortRole).toULongLong());
    const QModelIndex first = shown->index(0, AggregateModel::NameColumn);
    QTest::mouseClick(view->viewport(), Qt::LeftButton, Qt::NoModifier, view->visualRect(first).center());
    QCOMPARE(plot->selection()->event(), first.data(TargetEventRole).toLongLong());
    QCOMPARE(QString::fromStdString(std::string(model.name(uint32_t(plot->selection()->event())))),
             first.data().toString());
}

// Issue 13: an export popped a modal box; the save dialog forgot the folder.
void TestMainWindow::exportNotifiesWithoutModalBox()
{
    QVERIFY(loadSample());
    const QString dir = m_tmp + QStringLiteral("/exports");
    QVERIFY(QDir().mkpath(dir));
    const QString path = dir + QStringLiteral("/et_plus.json");
    m_w->setInteractive(true);
    bool sawBox = false;
    QTimer watcher;
    connect(&watcher, &QTimer::timeout, this, [&] {
        if (auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget())) {
            sawBox = true;
            box->close();
        }
    });
    watcher.start(20);
    QSignalSpy done(m_w.get(), &MainWindow::exportFinished);
    m_w->pair()->exportTo(ExportKind::EtPlusJson, path);
    QVERIFY(done.wait(60000));
    QTest::qWait(100);
    m_w->setInteractive(false);
    QVERIFY(done.first().first().toBool());
    QVERIFY(!sawBox);
    QVERIFY2(m_w->statusBar()->findChildren<QLabel *>().size() > 0, "status bar");
    bool said = false;
    for (QLabel *l : m_w->statusBar()->findChildren<QLabel *>())
        said |= l->text().contains(path);
    QVERIFY(said);
    // The next save dialog starts in that folder.
    QCOMPARE(QFileInfo(m_w->pair()->exportStartPath(ExportKind::PerfettoOverlay)).absolutePath(), dir);
}

void TestMainWindow::exportsEqualBatch_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("flag");
    QTest::addColumn<QString>("name");
    QTest::newRow("ET+ JSON") << int(ExportKind::EtPlusJson) << QStringLiteral("--output") << QStringLiteral("et_plus.json");
    QTest::newRow("Perfetto overlay") << int(ExportKind::PerfettoOverlay) << QStringLiteral("--overlay")
                                      << QStringLiteral("overlay.json");
    QTest::newRow("Perfetto overlay gz") << int(ExportKind::PerfettoOverlay) << QStringLiteral("--overlay")
                                         << QStringLiteral("overlay.json.gz");
    QTest::newRow("SQLite database") << int(ExportKind::Sqlite) << QStringLiteral("--sqlite") << QStringLiteral("run.db");
#ifdef SYNCSCOPE_HAVE_CHAKRA_ET
    QTest::newRow("Chakra protobuf") << int(ExportKind::ChakraProtobuf) << QStringLiteral("--chakra-et")
                                     << QStringLiteral("trace.0.et");
#endif
}

void TestMainWindow::exportsEqualBatch()
{
    QFETCH(int, kind);
    QFETCH(QString, flag);
    QFETCH(QString, name);
    QVERIFY(loadSample());
    const QString gui = m_tmp + QStringLiteral("/gui.") + name;
    const QString batch = m_tmp + QStringLiteral("/batch.") + name;
    QSignalSpy done(m_w.get(), &MainWindow::exportFinished);
    m_w->pair()->exportTo(ExportKind(kind), gui);
    QVERIFY(done.wait(60000));
    QVERIFY2(done.first().first().toBool(), qPrintable(done.first().at(1).toString()));
    QVERIFY(done.first().at(1).toString().contains(gui));
    if (ExportKind(kind) == ExportKind::ChakraProtobuf) // the GUI reports the replay check too
        QVERIFY2(done.first().at(1).toString().contains(QStringLiteral("replayed vs measured: ProfilerStep#0")),
                 qPrintable(done.first().at(1).toString()));
    QByteArray err;
    QCOMPARE(runSyncscope({QStringLiteral("--batch"), QStringLiteral("--sample"), QStringLiteral("--quiet"), flag, batch},
                          &err),
             0);
    const QByteArray a = readAll(gui), b = readAll(batch);
    QVERIFY(a.size() > 1000);
    QCOMPARE(a.size(), b.size());
    QVERIFY(a == b);
}

void TestMainWindow::badInputGoesToDiagnostics()
{
    const QString bad = m_tmp + QStringLiteral("/broken.kineto.json");
    {
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"traceEvents\": [ {\"ph\": \"X\", \"name\": \"a\", \"ts\": 1, ");
    }
    QSignalSpy done(m_w.get(), &MainWindow::loadFinished);
    m_w->openFiles(bad);
    QVERIFY(done.wait(30000));
    QVERIFY(!done.first().first().toBool());
    QVERIFY(!m_w->pair()->analysis());
    const DiagnosticsModel *diag = m_w->diagnostics()->model();
    QVERIFY(diag->count(Severity::Error) >= 1);
    QCOMPARE(diag->item(0).severity, Severity::Error);
    // The same sentence as batch mode prints.
    QByteArray err;
    QCOMPARE(runSyncscope({QStringLiteral("--batch"), bad}, &err), 3);
    QVERIFY2(err.contains(QByteArray::fromStdString(diag->item(0).message)), err.constData());
    // The window still works: the sample opens afterwards.
    QVERIFY(loadSample());
}

void TestMainWindow::dropOpensPairInEitherOrder()
{
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(QString::fromStdString(uitest::sampleDevice())),
                  QUrl::fromLocalFile(QString::fromStdString(uitest::sampleHost()))});
    QSignalSpy done(m_w.get(), &MainWindow::loadFinished);
    QDragEnterEvent enter(QPoint(50, 50), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(m_w.get(), &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(QPointF(50, 50), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(m_w.get(), &drop);
    QVERIFY(done.wait(60000));
    QVERIFY(done.first().first().toBool());
    QCOMPARE(m_w->pair()->analysis()->hostPath, uitest::sampleHost()); // detected and put right
    QVERIFY(m_w->pair()->analysis()->swapped);
    QVERIFY(m_w->pair()->analysis()->diagnostics.find("pair.detected"));
}

void TestMainWindow::recentPairs()
{
    clearRecentPairs();
    QVERIFY(loadSample());
    const auto recent = syncscope::ui::recentPairs();
    QCOMPARE(recent.size(), size_t(1));
    QCOMPARE(recent[0].host, QString::fromStdString(uitest::sampleHost()));
    QCOMPARE(recent[0].device, QString::fromStdString(uitest::sampleDevice()));
    QCOMPARE(recent[0].label(), QStringLiteral("sample.et.json.gz + sample.kineto.json.gz"));
}

void TestMainWindow::cancelStopsLoading()
{
    tracegen::Options o;
    o.prefix = (m_tmp + QStringLiteral("/big")).toStdString();
    o.targetMb = 80;
    o.steps = 0;
    const tracegen::Result g = tracegen::generate(o);
    QVERIFY2(g.hostBytes + g.deviceBytes > 70'000'000, qPrintable(QString::number(g.hostBytes + g.deviceBytes)));
    const QString host = QString::fromStdString(g.hostPath), device = QString::fromStdString(g.devicePath);

    // Cancel right after the start: the load stops with load.cancelled.
    QSignalSpy done(m_w.get(), &MainWindow::loadFinished);
    m_w->openFiles(host, device);
    QPushButton *cancel = nullptr;
    for (QPushButton *b : m_w->findChildren<QPushButton *>())
        if (b->text() == QStringLiteral("Cancel") && b->isVisible())
            cancel = b;
    QVERIFY(cancel);
    QTest::mouseClick(cancel, Qt::LeftButton);
    QVERIFY(done.wait(60000));
    QVERIFY(!done.first().first().toBool());
    bool cancelled = false;
    for (int r = 0; r < m_w->diagnostics()->model()->rowCount(); ++r)
        cancelled |= m_w->diagnostics()->model()->item(r).code == "load.cancelled";
    QVERIFY(cancelled);
    QVERIFY(!cancel->isVisible());

    // Issue 13: Cancel once the timeline shows (the analysis running): the critical-path
    // panel said "Computing..." forever and nothing offered to resume. The hook holds the
    // worker after loading until Cancel has landed, so the analysis is certainly running.
    m_w->pair()->loader()->setAfterLoadedHook([](const std::atomic<bool> &cancelled) {
        for (int i = 0; i < 6000 && !cancelled; ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
    });
    done.clear();
    auto conn = connect(m_w.get(), &MainWindow::timelineShown, cancel, [cancel] { cancel->click(); });
    m_w->openFiles(host, device);
    QVERIFY(done.wait(120000));
    disconnect(conn);
    m_w->pair()->loader()->setAfterLoadedHook({});
    QVERIFY(!done.first().first().toBool());
    QVERIFY(m_w->timeline()->plot()->model()); // the timeline stays
    const QString cpText = m_w->criticalPathPanel()->summaryLabel()->text();
    QVERIFY2(!cpText.contains(QStringLiteral("Computing")) && cpText.contains(QStringLiteral("cancelled")),
             qPrintable(cpText));
    QVERIFY(m_w->reloadAction()->isEnabled());

    // A full load (File > Reload resumes): the timeline shows before the analysis ends, and the GUI thread keeps turning.
    QElapsedTimer clock;
    clock.start();
    qint64 last = 0, worstGap = 0, shownAt = -1;
    QTimer ticker;
    connect(&ticker, &QTimer::timeout, this, [&] {
        worstGap = std::max(worstGap, clock.elapsed() - last);
        last = clock.elapsed();
    });
    connect(m_w.get(), &MainWindow::timelineShown, this, [&] { shownAt = clock.elapsed(); });
    ticker.start(5);
    done.clear();
    m_w->reloadAction()->trigger();
    QVERIFY(done.wait(120000));
    const qint64 finishedAt = clock.elapsed();
    QVERIFY(done.first().first().toBool());
    QVERIFY(shownAt >= 0 && shownAt <= finishedAt);
    QVERIFY2(worstGap < 500, qPrintable(QStringLiteral("the GUI thread stalled for %1 ms").arg(worstGap)));
    qInfo("%.0f MB pair: timeline after %lld ms, analysis done after %lld ms, longest GUI stall %lld ms",
          (g.hostBytes + g.deviceBytes) / 1e6, shownAt, finishedAt, worstGap);
}

void TestMainWindow::windowKeysWorkAnywhere()
{
    QVERIFY(loadSample());
    m_w->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(m_w.get()));
    TimelinePlot *plot = m_w->timeline()->plot();
    const TimeRange all = plot->range();
    // W with the focus in the details tree zooms the timeline.
    QTreeView *tree = m_w->details()->view();
    tree->setFocus();
    QTest::keyClick(tree, Qt::Key_W);
    QVERIFY2(qAbs((all.t1 - all.t0) / (plot->range().t1 - plot->range().t0) - 1.5) < 1e-9, "W from the details panel");
    QTest::keyClick(tree, Qt::Key_0);
    QCOMPARE(plot->range().t1, all.t1);
    // In the search field, letters are text.
    QLineEdit *query = m_w->search()->queryEdit();
    query->setFocus();
    QTest::keyClicks(query, QStringLiteral("wsad0f"));
    QCOMPARE(query->text(), QStringLiteral("wsad0f"));
    QCOMPARE(plot->range().t0, all.t0);
    QCOMPARE(plot->range().t1, all.t1);
}

void TestMainWindow::shortcutsDialogListsKeys()
{
    ShortcutsDialog dialog;
    auto *table = dialog.findChild<QTableWidget *>();
    QVERIFY(table);
    QCOMPARE(size_t(table->rowCount()), shortcutTable().size());
    QStringList keys;
    for (int r = 0; r < table->rowCount(); ++r)
        keys << table->item(r, 0)->text();
    for (const char *k : {"W / S, Ctrl + wheel", "0", "F", "Shift + drag", "Ctrl + F"})
        QVERIFY2(keys.contains(QString::fromUtf8(k)), k);
}

void TestMainWindow::headlessScreenshot()
{
    const QString png = m_tmp + QStringLiteral("/shot.png");
    QByteArray err;
    QCOMPARE(runSyncscope({QStringLiteral("--sample"), QStringLiteral("--screenshot"), png, QStringLiteral("--size"),
                           QStringLiteral("1000x700"), QStringLiteral("--select"), QStringLiteral("aten::mm")},
                          &err),
             0);
    QImage img(png);
    QCOMPARE(img.size(), QSize(1000, 700));
    // The critical path's red and the selection's blue are both on it.
    const QRgb red = timelineColors(false).critical.rgb() & 0xffffff, blue = timelineColors(false).selection.rgb() & 0xffffff;
    int reds = 0, blues = 0;
    for (int y = 0; y < img.height(); ++y)
        for (int x = 0; x < img.width(); ++x) {
            reds += (img.pixel(x, y) & 0xffffff) == red;
            blues += (img.pixel(x, y) & 0xffffff) == blue;
        }
    QVERIFY2(reds > 200, qPrintable(QString::number(reds)));
    QVERIFY2(blues > 20, qPrintable(QString::number(blues)));
    // Bad input: exit 3, and the picture (with the diagnostics) is still written.
    const QString png2 = m_tmp + QStringLiteral("/shot2.png");
    QCOMPARE(runSyncscope({m_tmp + QStringLiteral("/missing.json"), QStringLiteral("--screenshot"), png2}, &err), 3);
    QVERIFY(QImage(png2).width() == 1600);
    // Usage errors.
    QCOMPARE(runSyncscope({QStringLiteral("--sample"), QStringLiteral("--screenshot"), png, QStringLiteral("--size"),
                           QStringLiteral("big")}, &err), 2);
    QVERIFY(err.contains("--size"));
}

// Issue 41: the start page offers a job or hang dumps folder next to Open pair.
void TestMainWindow::startPageOpensFolders()
{
    MainWindow w;
    const auto *page = w.findChild<StartPage *>();
    QVERIFY(page && page->openFolderButton());
    QVERIFY(page->openFolderButton()->text().contains(QStringLiteral("hang dumps folder")));
    StartPage alone; // not connected to a window: no dialog opens
    QSignalSpy asked(&alone, &StartPage::openFolderRequested);
    QTest::mouseClick(alone.openFolderButton(), Qt::LeftButton);
    QCOMPARE(asked.count(), 1);
}

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
