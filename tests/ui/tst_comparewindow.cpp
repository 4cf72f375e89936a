// SPDX-License-Identifier: MIT
// The compare window (ui/diff) offscreen: aligned steps, synchronised zoom and
// cursor, matched ops linked on selection, colour by delta, the sortable diff
// table and its rows shown on both sides, and the asynchronous compare().
#include "testutil.h"

#include "diff/comparewindow.h"
#include "diff/difftablemodel.h"
#include "document/jobdocument.h"
#include "document/pairdocument.h"
#include "mainwindow.h"
#include "panels/elidedname.h"
#include "timeline/timelineplot.h"
#include "tracegen.h"

#include <QAction>
#include <QComboBox>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QToolTip>
#include <QtTest>

#include <cmath>

using namespace syncscope;
using namespace syncscope::ui;

class TestCompareWindow : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void stepsAlignAndZoomIsSynchronised();
    void namesStepsAndHasALegend();
    void cursorIsSynchronised();
    void selectionLinksMatchedOps();
    void colouredByDelta();
    void tableSortsByDeltaAndShowsBothSides();
    void tableRowZoomsBothTimelines();
    void tooltipsGiveBothDurations();
    void topChangeIsElidedToWhatTellsItApart();
    void compareRunsAsynchronously();
    void compareReportsABadInput();
    void mainWindowHasCompareWith();

private:
    std::string m_dir;
    tracegen::Result m_a, m_b;
    std::shared_ptr<const TraceDiff> m_diff;
};

namespace {

const char *const kSlow = "threshold_kernel_impl";

std::shared_ptr<const Analysis> analyse(const tracegen::Result &g)
{
    return runAnalysis(diffRunRequest({}, g.devicePath, g.hostPath, false));
}

} // namespace

void TestCompareWindow::initTestCase()
{
    m_dir = testutil::tempDir();
    tracegen::Options o;
    o.steps = 3;
    o.layers = 4;
    o.seed = 4;
    o.prefix = m_dir + "/a";
    m_a = tracegen::generate(o);
    o.prefix = m_dir + "/b";
    o.slowKernel = kSlow;
    o.slowKernelScale = 3;
    o.extraSync = true;
    m_b = tracegen::generate(o);
    m_diff = diffRuns(analyse(m_a), analyse(m_b));
    QVERIFY(m_diff->baseline->inputsOk && m_diff->candidate->inputsOk);
}

void TestCompareWindow::stepsAlignAndZoomIsSynchronised()
{
    CompareWindow w;
    w.resize(1400, 900);
    w.show();
    w.setDiff(m_diff);
    QCOMPARE(w.stepBox()->count(), 3);
    w.showStep(2);
    QCOMPARE(w.stepBox()->currentIndex(), 2);
    const TimeRange a = w.baselinePlot()->range(), b = w.candidatePlot()->range();
    // Step 2 starts at the same x in both: the ranges differ by the steps' offset.
    QVERIFY(w.stepOffsetNs(2) != 0);
    QVERIFY(std::fabs((b.t0 - a.t0) - w.stepOffsetNs(2)) < 1.0);
    QVERIFY(std::fabs((b.t1 - b.t0) - (a.t1 - a.t0)) < 1.0);
    // Zooming one zooms the other.
    w.candidatePlot()->zoomBy(4);
    const TimeRange a2 = w.baselinePlot()->range(), b2 = w.candidatePlot()->range();
    QVERIFY(std::fabs((a2.t1 - a2.t0) - (b2.t1 - b2.t0)) < 1.0);
    QVERIFY((a2.t1 - a2.t0) < (a.t1 - a.t0) / 2);
}

// Issue 41, item 9: the step box names the steps as every other view does (ProfilerStep#N,
// not "Step 0"), both runs open at one scale, and a legend says what the tints mean.
void TestCompareWindow::namesStepsAndHasALegend()
{
    CompareWindow w;
    w.resize(1400, 900);
    w.show();
    w.setDiff(m_diff);
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    const StepDiff &first = m_diff->steps.front();
    QVERIFY(!first.baselineName.empty());
    QVERIFY2(w.stepBox()->itemText(0).startsWith(QString::fromStdString(first.baselineName) + QStringLiteral(": ")),
             qPrintable(w.stepBox()->itemText(0)));
    QVERIFY(!w.stepBox()->itemText(0).startsWith(QStringLiteral("Step ")));
    const TimeRange a = w.baselinePlot()->range(), b = w.candidatePlot()->range();
    QVERIFY2(std::fabs((a.t1 - a.t0) - (b.t1 - b.t0)) < 1.0, "the runs open at different scales");
    const QString legend = w.legendLabel()->text();
    for (const char *part : {"slower in the candidate", "faster", "only in the candidate", "only in the baseline"})
        QVERIFY2(legend.contains(QLatin1String(part)), part);
    QVERIFY(w.legendLabel()->isVisible());
}

void TestCompareWindow::cursorIsSynchronised()
{
    CompareWindow w;
    w.resize(1400, 900);
    w.show();
    w.setDiff(m_diff);
    w.showStep(1);
    QVERIFY(std::isnan(w.candidatePlot()->cursorNs()));
    TimelinePlot *p = w.baselinePlot();
    const QPoint pos(p->plotRect().left() + p->plotRect().width() / 2, p->plotRect().top() + 2); // a header: no op
    QCOMPARE(p->eventAt(pos), qint64(-1));
    QMouseEvent move(QEvent::MouseMove, pos, p->mapToGlobal(pos), Qt::NoButton, Qt::NoButton, Qt::NoModifier);
    QApplication::sendEvent(p, &move);
    const double a = p->cursorNs(), b = w.candidatePlot()->cursorNs();
    QVERIFY(!std::isnan(a) && !std::isnan(b));
    QVERIFY(std::fabs((b - a) - w.stepOffsetNs(w.stepAt(true, a))) < 1.0);
    // Hovering a matched op puts the other cursor on its match's start.
    const auto &m = m_diff->matches;
    const uint32_t a0 = m_diff->baselineOps.event[m[3].first], b0 = m_diff->candidateOps.event[m[3].second];
    Q_EMIT p->eventHovered(a0);
    QCOMPARE(w.candidatePlot()->cursorNs(), w.candidatePlot()->model()->startNs(b0));
    QEvent leave(QEvent::Leave);
    QApplication::sendEvent(p, &leave);
    QVERIFY(std::isnan(w.candidatePlot()->cursorNs()));
}

void TestCompareWindow::selectionLinksMatchedOps()
{
    CompareWindow w;
    w.show();
    w.setDiff(m_diff);
    // The first matched op of the baseline selects its match in the candidate, and back.
    const auto &m = m_diff->matches;
    QVERIFY(!m.empty());
    const uint32_t a = m_diff->baselineOps.event[m[5].first], b = m_diff->candidateOps.event[m[5].second];
    w.baselinePlot()->selection()->setEvent(a);
    QCOMPARE(w.candidatePlot()->selection()->event(), qint64(b));
    QVERIFY(w.statusText().contains(QStringLiteral("baseline")));
    w.candidatePlot()->selection()->setEvent(qint64(m_diff->candidateOps.event[m[7].second]));
    QCOMPARE(w.baselinePlot()->selection()->event(), qint64(m_diff->baselineOps.event[m[7].first]));
    // An added op has no counterpart.
    for (uint32_t n = 0; n < m_diff->candidateOps.size(); ++n)
        if (m_diff->candidateMatch[n] < 0) {
            QCOMPARE(w.counterpart(false, m_diff->candidateOps.event[n]), qint64(-1));
            break;
        }
}

void TestCompareWindow::colouredByDelta()
{
    CompareWindow w;
    w.setDiff(m_diff);
    const KinetoTrace &cand = *m_diff->candidate->device;
    int slowKernels = 0, added = 0;
    for (uint32_t i = 0; i < cand.events.size(); ++i) {
        const auto &e = cand.events[i];
        if (e.kind == EventKind::Kernel && cand.str(e.name).find(kSlow) != std::string_view::npos) {
            QCOMPARE(w.tintOf(false, i), QColor(229, 57, 53)); // slower: red
            ++slowKernels;
        }
    }
    for (uint32_t n = 0; n < m_diff->candidateOps.size(); ++n)
        if (m_diff->candidateMatch[n] < 0) {
            QCOMPARE(w.tintOf(false, m_diff->candidateOps.event[n]), QColor(251, 140, 0)); // added: orange
            ++added;
        }
    QVERIFY(slowKernels > 0);
    QCOMPARE(added, 6); // aten::item + aten::_local_scalar_dense per step
}

void TestCompareWindow::tableSortsByDeltaAndShowsBothSides()
{
    CompareWindow w;
    w.resize(1400, 900);
    w.show();
    w.setDiff(m_diff);
    QSortFilterProxyModel *sorted = w.sortedTable();
    QVERIFY(sorted->rowCount() > 3);
    w.table()->sortByColumn(DiffTableModel::Delta, Qt::DescendingOrder);
    for (int r = 1; r < sorted->rowCount(); ++r)
        QVERIFY(sorted->index(r - 1, DiffTableModel::Delta).data(Qt::UserRole).toDouble() >=
                sorted->index(r, DiffTableModel::Delta).data(Qt::UserRole).toDouble());
    w.table()->sortByColumn(DiffTableModel::Delta, Qt::AscendingOrder);
    QVERIFY(sorted->index(0, DiffTableModel::Delta).data(Qt::UserRole).toDouble() < 0);
    // The slow kernel's row: clicking it selects such a kernel on both sides.
    int row = -1;
    for (int r = 0; r < w.tableModel()->rowCount(); ++r)
        if (w.tableModel()->row(r).category == QLatin1String("kernel") &&
            w.tableModel()->row(r).name.contains(QLatin1String(kSlow)))
            row = r;
    QVERIFY(row >= 0);
    const QModelIndex index = sorted->mapFromSource(w.tableModel()->index(row, DiffTableModel::Name));
    QTest::mouseClick(w.table()->viewport(), Qt::LeftButton, {}, w.table()->visualRect(index).center());
    const qint64 a = w.baselinePlot()->selection()->event(), b = w.candidatePlot()->selection()->event();
    QVERIFY(a >= 0 && b >= 0);
    QVERIFY(m_diff->baseline->device->str(m_diff->baseline->device->events[a].name).find(kSlow) != std::string_view::npos);
    QVERIFY(m_diff->candidate->device->str(m_diff->candidate->device->events[b].name).find(kSlow) != std::string_view::npos);
    // An op row selects the op and its match.
    for (int r = 0; r < w.tableModel()->rowCount(); ++r)
        if (w.tableModel()->row(r).where == QLatin1String("ProfilerStep > aten::item > aten::_local_scalar_dense") &&
            w.tableModel()->row(r).category == QLatin1String("op")) {
            w.showTableRow(r);
            QCOMPARE(w.candidatePlot()->selection()->event(), w.counterpart(true, w.baselinePlot()->selection()->event()));
        }
}

namespace {

// The plot's view holds the op, which takes about a sixth of it (a jump's zoom).
void checkZoomedTo(TimelinePlot *p, qint64 ev)
{
    QVERIFY(ev >= 0);
    const TimeRange r = p->range();
    const double t0 = p->model()->startNs(uint32_t(ev)), t1 = p->model()->endNs(uint32_t(ev));
    QVERIFY2(r.t0 <= t0 && t1 <= r.t1, qPrintable(QStringLiteral("%1-%2 not in %3-%4").arg(t0).arg(t1).arg(r.t0).arg(r.t1)));
    // A sixth, or 1 µs around an op shorter than 167 ns, as the inspector's jump does.
    const double expected = std::min(std::max(6 * (t1 - t0), 1000.0), p->model()->spanNs());
    QVERIFY2(std::fabs((r.t1 - r.t0) - expected) < 1.0, qPrintable(QString::number(r.t1 - r.t0)));
    QVERIFY2((t1 - t0) / (r.t1 - r.t0) > 0.1, qPrintable(QString::number((t1 - t0) / (r.t1 - r.t0))));
}

} // namespace

void TestCompareWindow::tableRowZoomsBothTimelines()
{
    CompareWindow w;
    w.resize(1400, 900);
    w.show();
    w.setDiff(m_diff);
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QSortFilterProxyModel *sorted = w.sortedTable();
    auto rowOf = [&](const QString &category, auto pick) {
        for (int r = 0; r < w.tableModel()->rowCount(); ++r)
            if (w.tableModel()->row(r).category == category && pick(w.tableModel()->row(r)))
                return sorted->mapFromSource(w.tableModel()->index(r, DiffTableModel::Name));
        return QModelIndex();
    };
    // A click on the slow kernel's row: both timelines zoom to it (it was a sliver of a step before).
    const QModelIndex kernel = rowOf(QStringLiteral("kernel"), [](const DiffTableRow &r) { return r.name.contains(QLatin1String(kSlow)); });
    QVERIFY(kernel.isValid());
    w.table()->scrollTo(kernel);
    QTest::mouseClick(w.table()->viewport(), Qt::LeftButton, {}, w.table()->visualRect(kernel).center());
    checkZoomedTo(w.baselinePlot(), w.baselinePlot()->selection()->event());
    checkZoomedTo(w.candidatePlot(), w.candidatePlot()->selection()->event());
    // Zoomed out with the kernel still in view and wide enough to see: a click zooms to it again.
    w.baselinePlot()->zoomBy(1.0 / 8);
    QTest::mouseClick(w.table()->viewport(), Qt::LeftButton, {}, w.table()->visualRect(kernel).center());
    checkZoomedTo(w.baselinePlot(), w.baselinePlot()->selection()->event());
    checkZoomedTo(w.candidatePlot(), w.candidatePlot()->selection()->event());
    // Enter on an op row: the op and its match.
    const QModelIndex op = rowOf(QStringLiteral("op"), [](const DiffTableRow &r) { return r.baselineCount > 0 && r.candidateCount > 0; });
    QVERIFY(op.isValid());
    w.baselinePlot()->fitAll();
    w.table()->setFocus();
    w.table()->selectionModel()->setCurrentIndex(op, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    QTest::keyClick(w.table(), Qt::Key_Return);
    const qint64 a = w.baselinePlot()->selection()->event();
    QCOMPARE(w.candidatePlot()->selection()->event(), w.counterpart(true, a));
    checkZoomedTo(w.baselinePlot(), a);
    checkZoomedTo(w.candidatePlot(), w.candidatePlot()->selection()->event());
}

void TestCompareWindow::tooltipsGiveBothDurations()
{
    CompareWindow w;
    w.resize(1400, 900);
    w.show();
    w.setDiff(m_diff);
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    // Every cell of a row: the full name, both runs' times and the change.
    for (int r = 0; r < w.tableModel()->rowCount(); ++r) {
        const DiffTableRow &row = w.tableModel()->row(r);
        for (int c : {int(DiffTableModel::Name), int(DiffTableModel::Delta)}) {
            const QString tip = w.tableModel()->index(r, c).data(Qt::ToolTipRole).toString();
            QVERIFY2(tip.contains(row.name), qPrintable(tip));
            QVERIFY2(tip.contains(QStringLiteral("baseline %1 \u00b5s").arg(row.baselineUs, 0, 'f', 1)), qPrintable(tip));
            QVERIFY2(tip.contains(QStringLiteral("candidate %1 \u00b5s").arg(row.candidateUs, 0, 'f', 1)), qPrintable(tip));
            QVERIFY2(tip.contains(QStringLiteral("\u0394 ")), qPrintable(tip));
        }
    }
    // Hovering a matched op on a timeline: the tooltip gives this op's and its match's durations.
    const auto &m = m_diff->matches;
    const uint32_t a = m_diff->baselineOps.event[m[5].first], b = m_diff->candidateOps.event[m[5].second];
    w.showStep(0);
    TimelinePlot *p = w.baselinePlot();
    p->revealEvent(a);
    const QPoint pos = p->eventPoint(a);
    QVERIFY(pos.x() >= 0);
    QCOMPARE(p->eventAt(pos), qint64(a));
    QMouseEvent move(QEvent::MouseMove, pos, p->mapToGlobal(pos), Qt::NoButton, Qt::NoButton, Qt::NoModifier);
    QApplication::sendEvent(p, &move);
    const QString tip = QToolTip::text();
    const double da = m_diff->baseline->device->events[a].dur, db = m_diff->candidate->device->events[b].dur;
    QVERIFY2(tip.contains(QStringLiteral("baseline %1 \u00b5s").arg(da, 0, 'f', 1)), qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("candidate %1 \u00b5s").arg(db, 0, 'f', 1)), qPrintable(tip));
    QCOMPARE(w.hoverText(0, a), tip);
    QVERIFY(w.statusText().contains(QStringLiteral("candidate")));
    // GPU work: its key's mean per launch on both sides.
    const KinetoTrace &cand = *m_diff->candidate->device;
    for (uint32_t i = 0; i < cand.events.size(); ++i)
        if (cand.events[i].kind == EventKind::Kernel && cand.str(cand.events[i].name).find(kSlow) != std::string_view::npos) {
            const QString k = w.hoverText(1, i);
            QVERIFY2(k.contains(QLatin1String("baseline")) && k.contains(QLatin1String("candidate")), qPrintable(k));
            break;
        }
}

void TestCompareWindow::topChangeIsElidedToWhatTellsItApart()
{
    CompareWindow w;
    w.setDiff(m_diff);
    QVERIFY(!m_diff->top.empty());
    const QString name = QString::fromStdString(m_diff->top.front().name);
    QVERIFY(w.summaryLabel()->text().contains(elideKernelName(name, 60)));
    const QString tip = w.summaryLabel()->toolTip();
    QVERIFY2(tip.contains(name) && tip.contains(QLatin1String("baseline")) && tip.contains(QLatin1String("candidate")),
             qPrintable(tip));
}

void TestCompareWindow::compareRunsAsynchronously()
{
    CompareWindow w;
    QSignalSpy done(&w, &CompareWindow::loadFinished);
    w.compare(diffRunRequest({}, m_a.devicePath, m_a.hostPath, false),
              diffRunRequest({}, m_b.devicePath, m_b.hostPath, false));
    QVERIFY(done.wait(60000));
    QCOMPARE(done.first().first().toBool(), true);
    QVERIFY(w.diff());
    QCOMPARE(w.diff()->top.size(), m_diff->top.size());
    QVERIFY(w.tableModel()->rowCount() > 0);
}

void TestCompareWindow::compareReportsABadInput()
{
    CompareWindow w;
    QSignalSpy done(&w, &CompareWindow::loadFinished);
    w.compare(diffRunRequest({}, m_a.devicePath, {}, false),
              diffRunRequest({}, m_dir + "/missing.kineto.json", {}, false));
    QVERIFY(done.wait(60000));
    QCOMPARE(done.first().first().toBool(), false);
    QVERIFY2(w.statusText().contains(QStringLiteral("missing.kineto.json")), qPrintable(w.statusText()));
}

void TestCompareWindow::mainWindowHasCompareWith()
{
    MainWindow main;
    main.setInteractive(false);
    QAction *a = main.findChild<QAction *>(QStringLiteral("compareWith"));
    QVERIFY(a);
    QCOMPARE(main.compareWith(QString::fromStdString(m_b.devicePath)), static_cast<QWidget *>(nullptr)); // nothing open
}

QTEST_MAIN(TestCompareWindow)
#include "tst_comparewindow.moc"
