// SPDX-License-Identifier: MIT
// The Breakdown dock (issue 25, docs/breakdowns.md "In the inspector"): the
// whole-trace numbers are computeReportBreakdown's, one bar per ProfilerStep whose
// parts add up to 100 %, the step picked (combo, chart click, the critical path's
// step selector) fills the tables, a trace without GPU work shows an empty state,
// and the stacked split of a hand-computed inline trace.
#include "document/pairdocument.h"
#include "mainwindow.h"
#include "panels/breakdownchart.h"
#include "panels/breakdownpanel.h"
#include "panels/copyrows.h"
#include "panels/criticalpathmodel.h"
#include "panels/criticalpathpanel.h"
#include "testutil.h"
#include "theme.h"
#include "timeline/gapoverlay.h"
#include "timeline/gaplayer.h"
#include "tracebuilder.h"
#include "uitestutil.h"

#include "analysis/criticalpath.h"

#include <cmath>

#include <QComboBox>
#include <QDockWidget>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTest>

using namespace syncscope;
using namespace syncscope::ui;

class TestBreakdownDock : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanup();
    void dockIsRegistered();
    void splitOfAnInlineTrace();
    void hipLaunchesAreCountedBeside();
    void chartSpeaksTheTimelinesColours();
    void wholeTraceIsTheReportsBreakdown();
    void everyStepHasABarSummingTo100();
    void pickingAStepChangesTheTables();
    void traceWithoutGpuEventsIsEmpty();
    void usesThePipelinesBreakdown();
    void realPairMatchesTheReport();

private:
    bool open(const QString &first = {}, const QString &second = {});
    BreakdownPanel *panel() const;
    std::unique_ptr<MainWindow> m_w;
};

namespace {

// compute 0-100 on stream 7, an all-reduce 50-150 on stream 20, idle 150-200, a
// memcpy 200-210: span 210, compute 100 (50 of it hiding communication), exposed
// communication 50, memcpy 10, idle 50 µs.
std::string overlapTrace()
{
    return testutil::KinetoBuilder()
        .runtime("cudaLaunchKernel", 1, 990, 5, 1)
        .kernel("gemm", 7, 1000, 100, 1)
        .runtime("cudaLaunchKernel", 1, 995, 5, 2)
        .kernel("ncclKernel_AllReduce_RING_LL_Sum_float", 20, 1050, 100, 2)
        .runtime("cudaMemcpyAsync", 1, 1100, 5, 3)
        .gpu("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 7, 1200, 10, 3)
        .json();
}

double sortValue(const QTableView *view, int row, int column)
{
    return view->model()->index(row, column).data(SortRole).toDouble();
}

QString tableText(const QTableView *view)
{
    QStringList cells;
    for (int r = 0; r < view->model()->rowCount(); ++r)
        for (int c = 0; c < view->model()->columnCount(); ++c)
            cells << view->model()->index(r, c).data().toString();
    return cells.join(QLatin1Char('|'));
}

// The chart's value of `part` for bar `key` (-1 when it has none).
double barValue(const BreakdownChart *chart, int part, int key)
{
    const auto data = chart->part(part)->data();
    for (auto it = data->constBegin(); it != data->constEnd(); ++it)
        if (int(it->key) == key)
            return it->value;
    return -1;
}

} // namespace

void TestBreakdownDock::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
}

void TestBreakdownDock::cleanup()
{
    m_w.reset();
    applyTheme(ThemeChoice::System, false);
}

bool TestBreakdownDock::open(const QString &first, const QString &second)
{
    m_w = std::make_unique<MainWindow>();
    m_w->setInteractive(false);
    m_w->setRecordRecent(false);
    m_w->setSamplePair(QString::fromStdString(uitest::sampleHost()), QString::fromStdString(uitest::sampleDevice()));
    m_w->resize(1280, 720);
    m_w->show();
    if (!QTest::qWaitForWindowExposed(m_w.get()))
        return false;
    m_w->dock(QStringLiteral("breakdown"))->raise();
    QSignalSpy done(m_w.get(), &MainWindow::loadFinished);
    if (first.isEmpty())
        m_w->openSample();
    else
        m_w->openFiles(first, second);
    if (!done.wait(60000) || !done.front().front().toBool())
        return false;
    // Computed off the GUI thread after the load: wait for it.
    for (int i = 0; i < 600 && !panel()->isReady(); ++i)
        QTest::qWait(50);
    return panel()->isReady();
}

BreakdownPanel *TestBreakdownDock::panel() const
{
    QDockWidget *d = m_w->dock(QStringLiteral("breakdown"));
    return d ? qobject_cast<BreakdownPanel *>(d->widget()) : nullptr;
}

// A bottom tab beside Search (the timeline keeps its width), in View > Docks, back after Reset layout.
void TestBreakdownDock::dockIsRegistered()
{
    QVERIFY(open());
    QDockWidget *d = m_w->dock(QStringLiteral("breakdown"));
    QCOMPARE(m_w->dockWidgetArea(d), Qt::BottomDockWidgetArea);
    QVERIFY(m_w->tabifiedDockWidgets(m_w->dock(QStringLiteral("search"))).contains(d));
    QAction *toggle = nullptr;
    for (QMenu *menu : m_w->findChildren<QMenu *>())
        if (menu->title() == QStringLiteral("&Docks"))
            for (QAction *a : menu->actions())
                if (a == d->toggleViewAction())
                    toggle = a;
    QVERIFY(toggle);
    toggle->trigger();
    QVERIFY(d->isHidden());
    m_w->resetLayout();
    QVERIFY(!d->isHidden());
    QVERIFY(m_w->tabifiedDockWidgets(m_w->dock(QStringLiteral("search"))).contains(d));
    // View > Theme: the chart's text follows the palette.
    BreakdownChart *chart = panel()->chart();
    QList<QColor> seen;
    for (ThemeChoice theme : {ThemeChoice::Dark, ThemeChoice::Light}) {
        applyTheme(theme, false);
        QCoreApplication::processEvents();
        QCOMPARE(chart->xAxis->tickLabelColor(), chart->palette().text().color());
        seen << chart->xAxis->tickLabelColor();
    }
    QVERIFY(seen[0] != seen[1]);
}

void TestBreakdownDock::splitOfAnInlineTrace()
{
    const auto a = uitest::analyseKineto(overlapTrace());
    QVERIFY(a->inputsOk);
    const ReportBreakdown r = computeReportBreakdown(*a);
    QVERIFY(r.whole.hta.temporal.valid);
    const BreakdownSplit s = breakdownSplit(r.whole);
    QVERIFY(s.valid);
    QCOMPARE(s.spanUs, 210.0);
    QCOMPARE(s.us[BreakdownSplit::Compute], 50.0);
    QCOMPARE(s.us[BreakdownSplit::OverlappedComm], 50.0);
    QCOMPARE(s.us[BreakdownSplit::ExposedComm], 50.0);
    QCOMPARE(s.us[BreakdownSplit::MemoryOther], 10.0);
    QCOMPARE(s.us[BreakdownSplit::Idle], 50.0);
    QVERIFY(qAbs(s.pct(BreakdownSplit::MemoryOther) - 100.0 * 10 / 210) < 1e-9);

    // The same trace in the window: one bar (no steps), the same values.
    const QString path = QString::fromStdString(uitest::writeKineto(overlapTrace(), "breakdown_overlap"));
    QVERIFY(open(path));
    BreakdownChart *chart = panel()->chart();
    QCOMPARE(chart->barCount(), 1);
    for (int p = 0; p < BreakdownSplit::PartCount; ++p)
        QCOMPARE(barValue(chart, p, 0), s.pct(p));
    QVERIFY2(panel()->summaryLabel()->text().contains(QStringLiteral("exposed comm 23.8 %")),
             qPrintable(panel()->summaryLabel()->text()));
    // The NCCL stream has one kernel: its idle ratio is 0/0 (NaN in HTA), shown as a dash.
    const BreakdownTableModel *idle = panel()->tableModel(IdleTable);
    bool dash = false;
    for (int r = 0; r < idle->rowCount(); ++r)
        dash |= idle->cell(r, 3).text == QStringLiteral("\u2014");
    QVERIFY(dash);
}

// Issue 41, item 5: HTA's launch statistics pair only cudaLaunchKernel-class calls, so a HIP
// trace showed "Launches 0" beside its kernels. The table says whose count it is and gives
// the GPU ops beside it; the top kernels have a count (mean = min = max read as one run).
void TestBreakdownDock::hipLaunchesAreCountedBeside()
{
    testutil::KinetoBuilder b;
    for (int i = 0; i < 3; ++i) {
        b.runtime("hipLaunchKernel", 1, 990 + 200 * i, 5, i + 1);
        b.kernel("gemm", 7, 1000 + 200 * i, 100, i + 1);
    }
    const QString path = QString::fromStdString(uitest::writeKineto(b.json(), "breakdown_hip"));
    QVERIFY(open(path));
    const BreakdownTableModel *launch = panel()->tableModel(LaunchTable);
    QVERIFY(launch->cell(0, 0).text.contains(QStringLiteral("as HTA counts them")));
    QCOMPARE(launch->cell(0, 1).sort.toULongLong(), qulonglong(0));
    QVERIFY(launch->cell(1, 0).text.contains(QStringLiteral("any launch API")));
    QCOMPARE(launch->cell(1, 1).sort.toULongLong(), qulonglong(3));
    const BreakdownTableModel *top = panel()->tableModel(TopKernelsTable);
    QCOMPARE(top->rowCount(), 1);
    QCOMPARE(top->cell(0, 3).sort.toULongLong(), qulonglong(3)); // Type, Kernel, Total, Count
    QCOMPARE(top->cell(0, 2).sort.toDouble(), 300.0);
}

// Issue 41, item 6: one colour vocabulary. The chart's compute is the timeline's kernel
// colour, communication its communication colour, exposed communication the orange of the
// timeline's exposed-comm band, copies the memcpy colour; its "Compute only" is named apart
// from HTA's "Compute (HTA)" of the Temporal table; the legend is never cut in a narrow dock.
void TestBreakdownDock::chartSpeaksTheTimelinesColours()
{
    const QString path = QString::fromStdString(uitest::writeKineto(overlapTrace(), "breakdown_colours"));
    QVERIFY(open(path));
    BreakdownChart *chart = panel()->chart();
    const TimelineColors c = timelineColors(false);
    applyTheme(ThemeChoice::Light, false);
    QCOMPARE(chart->part(BreakdownSplit::Compute)->brush().color(), c.category[int(Category::Kernel)]);
    QCOMPARE(chart->part(BreakdownSplit::OverlappedComm)->brush().color(), c.category[int(Category::Communication)]);
    QCOMPARE(chart->part(BreakdownSplit::ExposedComm)->brush().color(), overlayColor(OverlayKind::ExposedComm, false));
    QCOMPARE(chart->part(BreakdownSplit::MemoryOther)->brush().color(), c.category[int(Category::Memcpy)]);
    QCOMPARE(chart->part(BreakdownSplit::Compute)->name(), QStringLiteral("Compute only"));
    QCOMPARE(panel()->tableModel(TemporalTable)->cell(1, 0).text, QStringLiteral("Compute (HTA)"));
    // 320 px wide: the five names wrap onto rows, each shown whole.
    chart->resize(320, 220);
    chart->show();
    QVERIFY(QTest::qWaitForWindowExposed(chart));
    chart->replot();
    for (int p = 0; p < BreakdownSplit::PartCount; ++p) {
        QCPAbstractLegendItem *item = chart->legend->itemWithPlottable(chart->part(p));
        QVERIFY(item);
        const int need = chart->fontMetrics().horizontalAdvance(chart->part(p)->name());
        QVERIFY2(item->outerRect().width() >= need && item->outerRect().right() <= chart->width(),
                 qPrintable(QStringLiteral("%1: %2 px for %3").arg(chart->part(p)->name()).arg(item->outerRect().width()).arg(need)));
    }
    applyTheme(ThemeChoice::System, false);
}

void TestBreakdownDock::wholeTraceIsTheReportsBreakdown()
{
    QVERIFY(open());
    BreakdownPanel *p = panel();
    QCOMPARE(p->scope(), 0);
    QCOMPARE(p->scopeBox()->currentText(), QStringLiteral("Whole trace"));
    const ReportBreakdown expected = computeReportBreakdown(*m_w->pair()->analysis());
    const HtaTemporalBreakdown &t = expected.whole.hta.temporal;
    QVERIFY(t.valid);
    // Temporal: idle, compute, non-compute, kernel time, then comm and exposed comm (µs as sort values).
    const QTableView *temporal = p->table(TemporalTable);
    QCOMPARE(sortValue(temporal, 0, 1), t.idle_time_us);
    QCOMPARE(sortValue(temporal, 1, 1), t.compute_time_us);
    QCOMPARE(sortValue(temporal, 2, 1), t.non_compute_time_us);
    QCOMPARE(sortValue(temporal, 3, 1), t.kernel_time_us);
    QCOMPARE(sortValue(temporal, 0, 2), t.idle_time_pct);
    QCOMPARE(sortValue(temporal, 1, 2), t.compute_time_pct);
    QCOMPARE(sortValue(temporal, 4, 1), expected.whole.comm.comm_us);
    QCOMPARE(sortValue(temporal, 5, 1), expected.whole.comm.exposed_us);
    QVERIFY(expected.whole.comm.comm_us > 0); // the sample has an NCCL all-reduce
    QCOMPARE(p->tableModel(IdleTable)->rowCount(), int(expected.whole.hta.idle_time.size()));
    QCOMPARE(p->tableModel(KernelTypeTable)->rowCount(), int(expected.whole.hta.kernels_by_type.size()));
    QCOMPARE(p->tableModel(TopKernelsTable)->rowCount(), int(expected.whole.hta.kernels_by_kernel.size()));
    QCOMPARE(p->tableModel(QueueTable)->rowCount(), int(expected.whole.queue.summary.size()));
    QCOMPARE(p->tableModel(LaunchTable)->cell(0, 1).sort.toULongLong(), qulonglong(expected.whole.launch.rows.size()));
    // The GPU ops beside HTA's launches: every kernel, copy and memset of the top-kernels rows.
    qulonglong counted = 0;
    for (const HtaKernelRow &r : expected.whole.hta.kernels_by_kernel)
        counted += qulonglong(std::llround(r.sum_us / r.mean_us));
    QCOMPARE(p->tableModel(LaunchTable)->cell(1, 1).sort.toULongLong(), counted);
    QCOMPARE(p->tableModel(TopKernelsTable)->cell(0, 3).sort.toULongLong(),
             qulonglong(std::llround(p->tableModel(TopKernelsTable)->cell(0, 2).sort.toDouble() /
                                     p->tableModel(TopKernelsTable)->cell(0, 4).sort.toDouble())));
    // Top kernels: sorted by total, the longest first; the full name in the tooltip.
    const QTableView *top = p->table(TopKernelsTable);
    QVERIFY(top->model()->rowCount() > 1);
    QVERIFY(sortValue(top, 0, 2) >= sortValue(top, 1, 2));
    const QModelIndex name = top->model()->index(0, kTopKernelsNameColumn);
    QCOMPARE(name.data(Qt::ToolTipRole).toString(), name.data().toString());
    // The bar is the split of those numbers; its parts are HTA's compute / non-compute / idle.
    const BreakdownSplit s = breakdownSplit(expected.whole);
    for (int part = 0; part < BreakdownSplit::PartCount; ++part)
        QCOMPARE(barValue(p->chart(), part, 0), s.pct(part));
    QVERIFY(qAbs(s.us[BreakdownSplit::Compute] + s.us[BreakdownSplit::OverlappedComm] - t.compute_time_us) < 1e-6);
    QVERIFY(qAbs(s.us[BreakdownSplit::ExposedComm] + s.us[BreakdownSplit::MemoryOther] - t.non_compute_time_us) < 1e-6);
    QCOMPARE(s.us[BreakdownSplit::Idle], t.idle_time_us);
    // One GPU: the clamps do not bind; the parts are the exposed and the hidden communication.
    QVERIFY(qAbs(s.us[BreakdownSplit::ExposedComm] - expected.whole.comm.exposed_us) < 1e-9);
    QVERIFY(qAbs(s.us[BreakdownSplit::OverlappedComm] - (expected.whole.comm.comm_us - expected.whole.comm.exposed_us)) < 1e-9);
    // Number columns sized to their content, the name column takes the rest.
    const QHeaderView *header = p->table(TopKernelsTable)->horizontalHeader();
    QCOMPARE(header->sectionResizeMode(2), QHeaderView::ResizeToContents);
    QCOMPARE(header->sectionResizeMode(kTopKernelsNameColumn), QHeaderView::Stretch);
    // Ctrl+C copies the selected rows with their headers.
    p->tabs()->setCurrentIndex(TemporalTable);
    p->table(TemporalTable)->selectRow(1);
    const QString copied = copiedRows(p->table(TemporalTable));
    QVERIFY2(copied.startsWith(QStringLiteral("Part\t")) && copied.contains(QStringLiteral("Compute")), qPrintable(copied));
}

void TestBreakdownDock::everyStepHasABarSummingTo100()
{
    QVERIFY(open());
    BreakdownPanel *p = panel();
    const std::vector<uint32_t> steps = profilerStepEvents(*m_w->pair()->analysis()->device);
    QCOMPARE(steps.size(), size_t(3)); // the sample's ProfilerStep#0..2
    QCOMPARE(p->chart()->barCount(), 4);
    QCOMPARE(p->scopeBox()->count(), 4);
    for (int k = 0; k < 4; ++k) {
        double sum = 0;
        for (int part = 0; part < BreakdownSplit::PartCount; ++part) {
            const double v = barValue(p->chart(), part, k);
            QVERIFY2(v >= 0, qPrintable(QStringLiteral("bar %1 has no part %2").arg(k).arg(part)));
            sum += v;
        }
        QVERIFY2(qAbs(sum - 100.0) <= 0.1, qPrintable(QStringLiteral("bar %1 sums to %2").arg(k).arg(sum)));
        if (k > 0)
            QCOMPARE(p->scopeBox()->itemText(k), QStringLiteral("ProfilerStep#%1").arg(k - 1));
    }
    // The steps' numbers are the report's over the same windows (--step all).
    const KinetoTrace &device = *m_w->pair()->analysis()->device;
    ReportBreakdown expected;
    computeStepBreakdowns(device, profilerStepSpans(device), expected);
    QCOMPARE(expected.steps.size(), size_t(3));
    for (size_t i = 0; i < expected.steps.size(); ++i) {
        const BreakdownSet *shown = p->set(int(i) + 1);
        QVERIFY(shown);
        QCOMPARE(shown->hta.temporal.kernel_time_us, expected.steps[i].set.hta.temporal.kernel_time_us);
        QCOMPARE(shown->hta.temporal.idle_time_us, expected.steps[i].set.hta.temporal.idle_time_us);
        QCOMPARE(shown->comm.exposed_us, expected.steps[i].set.comm.exposed_us);
        const BreakdownSplit s = breakdownSplit(expected.steps[i].set);
        for (int part = 0; part < BreakdownSplit::PartCount; ++part)
            QCOMPARE(barValue(p->chart(), part, int(i) + 1), s.pct(part));
    }
}

void TestBreakdownDock::pickingAStepChangesTheTables()
{
    QVERIFY(open());
    BreakdownPanel *p = panel();
    const QString whole = tableText(p->table(TemporalTable));
    const QString wholeKernels = tableText(p->table(TopKernelsTable));
    // The combo.
    p->scopeBox()->setCurrentIndex(2);
    QCOMPARE(p->scope(), 2);
    QCOMPARE(p->chart()->current(), 2);
    QVERIFY(tableText(p->table(TemporalTable)) != whole);
    QVERIFY(tableText(p->table(TopKernelsTable)) != wholeKernels);
    QCOMPARE(sortValue(p->table(TemporalTable), 3, 1), p->set(2)->hta.temporal.kernel_time_us);
    QVERIFY(p->summaryLabel()->text().startsWith(QStringLiteral("ProfilerStep#1")));
    // A click on a bar's row.
    BreakdownChart *chart = p->chart();
    chart->replot();
    const int y = int(chart->yAxis->coordToPixel(1));
    QTest::mouseClick(chart, Qt::LeftButton, {}, QPoint(int(chart->xAxis->coordToPixel(50)), y));
    QCOMPARE(p->scope(), 1);
    QCOMPARE(p->scopeBox()->currentIndex(), 1);
    // The critical path's step selector: the dock follows it ("All steps" is the whole trace).
    QComboBox *cpSteps = m_w->criticalPathPanel()->stepBox();
    const int step2 = cpSteps->findText(QStringLiteral("ProfilerStep#2"));
    QVERIFY(step2 >= 0);
    cpSteps->setCurrentIndex(step2);
    QCOMPARE(p->scope(), 3);
    QCOMPARE(p->chart()->current(), 3);
    cpSteps->setCurrentIndex(cpSteps->count() - 1);
    QCOMPARE(p->scope(), 0);
    QCOMPARE(tableText(p->table(TemporalTable)), whole);
    // Reload drops the result and computes it again, starting on the whole trace.
    p->setScope(2);
    QSignalSpy done(m_w.get(), &MainWindow::loadFinished);
    m_w->reload();
    QVERIFY(!p->isReady());
    QVERIFY2(p->messageLabel()->text().contains(QStringLiteral("analysed")), qPrintable(p->messageLabel()->text()));
    QVERIFY(done.wait(60000));
    QTRY_VERIFY_WITH_TIMEOUT(p->isReady(), 30000);
    QCOMPARE(p->scope(), 0);
}

void TestBreakdownDock::traceWithoutGpuEventsIsEmpty()
{
    const std::string json = testutil::KinetoBuilder()
                                 .annotation("ProfilerStep#0", 1, 90, 100)
                                 .cpu("aten::add", 1, 100, 50)
                                 .cpu("aten::mul", 1, 160, 20)
                                 .json();
    const QString path = QString::fromStdString(uitest::writeKineto(json, "breakdown_cpu_only"));
    QVERIFY(open(path));
    BreakdownPanel *p = panel();
    QVERIFY2(p->messageLabel()->isVisible(), "the empty state is shown");
    QVERIFY2(p->messageLabel()->text().contains(QStringLiteral("No GPU events")), qPrintable(p->messageLabel()->text()));
    QVERIFY(!p->chart()->isVisible());
    QCOMPARE(p->chart()->barCount(), 0);
    QCOMPARE(p->tableModel(TemporalTable)->rowCount(), 0);
    QVERIFY(!p->scopeBox()->isEnabled());
    // Closing the pair (nothing loaded) says so.
    p->setAnalysis(nullptr);
    QVERIFY(p->messageLabel()->text().contains(QStringLiteral("Open a trace pair")));
}

// A load that computed the breakdowns in the pipeline (AnalysisRequest::breakdowns): shown as they are.
void TestBreakdownDock::usesThePipelinesBreakdown()
{
    auto a = uitest::analyseKineto(overlapTrace());
    auto withBreakdown = std::make_shared<Analysis>(*a);
    auto b = std::make_shared<ReportBreakdown>(computeReportBreakdown(*a));
    b->whole.comm.exposed_us = 7; // a marker: this object, not a new computation
    withBreakdown->breakdown = b;
    BreakdownPanel p(nullptr);
    QSignalSpy ready(&p, &BreakdownPanel::ready);
    p.setAnalysis(withBreakdown);
    QVERIFY(!p.isReady());
    QVERIFY(p.messageLabel()->text().contains(QStringLiteral("Computing")));
    QVERIFY(ready.wait(10000));
    QCOMPARE(p.result().get(), b.get());
    QCOMPARE(sortValue(p.table(TemporalTable), 5, 1), 7.0);
    // A newer analysis while one is computing: only the newer one is shown.
    p.setAnalysis(withBreakdown);
    p.setAnalysis(a);
    QVERIFY(ready.wait(10000));
    QTest::qWait(50);
    QCOMPARE(sortValue(p.table(TemporalTable), 5, 1), 50.0);
}

// A real trace (PARAM DLRM rank 0, one ProfilerStep): the dock's whole trace equals the report's.
void TestBreakdownDock::realPairMatchesTheReport()
{
    const QString dir = QString::fromStdString(testutil::fixture("pairs/param_dlrm_rank0/"));
    QVERIFY(open(dir + QStringLiteral("rank0.et.json.gz"), dir + QStringLiteral("rank0.kineto.json.gz")));
    BreakdownPanel *p = panel();
    const ReportBreakdown expected = computeReportBreakdown(*m_w->pair()->analysis());
    QVERIFY(expected.whole.hta.temporal.valid);
    QCOMPARE(sortValue(p->table(TemporalTable), 0, 1), expected.whole.hta.temporal.idle_time_us);
    QCOMPARE(sortValue(p->table(TemporalTable), 3, 1), expected.whole.hta.temporal.kernel_time_us);
    QCOMPARE(sortValue(p->table(TemporalTable), 5, 1), expected.whole.comm.exposed_us);
    QCOMPARE(p->chart()->barCount(), 2); // the whole trace and ProfilerStep#10
    const BreakdownSplit s = breakdownSplit(expected.whole);
    for (int part = 0; part < BreakdownSplit::PartCount; ++part)
        QCOMPARE(barValue(p->chart(), part, 0), s.pct(part));
    QVERIFY(s.us[BreakdownSplit::ExposedComm] > 0); // DLRM's all-to-all is partly exposed
}

QTEST_MAIN(TestBreakdownDock)
#include "tst_breakdowndock.moc"
