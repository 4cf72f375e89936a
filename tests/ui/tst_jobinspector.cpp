// SPDX-License-Identifier: MIT
// The job inspector, third pass (issue 23): one time base (the axis title, Details,
// the collectives table and Ctrl+C agree), the dense overview docked above the
// timeline, the toolbar's drop-downs giving the focus back, and the wheel setting.
#include "document/jobdocument.h"
#include "document/pairdocument.h"
#include "job/joboverview.h"
#include "mainwindow.h"
#include "panels/collectivesmodel.h"
#include "panels/collectivespanel.h"
#include "panels/criticalpathmodel.h"
#include "panels/copyrows.h"
#include "panels/criticalpathpanel.h"
#include "panels/detailspanel.h"
#include "timeline/timeformat.h"
#include "timeline/timelineview.h"
#include "tracegen.h"
#include "testutil.h"
#include "uitestutil.h"

#include <QAction>
#include <QComboBox>
#include <QLabel>
#include <QDockWidget>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTest>

#include <filesystem>

using namespace syncscope;
using namespace syncscope::ui;

class TestJobInspector : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();
    void oneTimeBaseInAJob();
    void oneTimeBaseInAPair();
    void overviewDockFollowsTheJob();
    void toolbarDropDownsGiveTheFocusBack();
    void wheelSettingInTheViewMenu();
    void jobPathHasItsBoundByTable();

private:
    bool openJob();
    QString detailsValue(const QString &key) const;
    std::unique_ptr<MainWindow> m_w;
    QString m_job;
};

void TestJobInspector::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    tracegen::JobOptions options;
    options.dir = (std::filesystem::path(testutil::tempDir()) / "job").string();
    options.ranks = 4;
    options.straggler = 2;
    options.gzip = false;
    tracegen::generateJob(options);
    m_job = QString::fromStdString(options.dir);
}

void TestJobInspector::init()
{
    m_w = std::make_unique<MainWindow>();
    m_w->setInteractive(false);
    m_w->setRecordRecent(false);
    m_w->resize(1400, 900);
    m_w->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_w.get()));
}

void TestJobInspector::cleanup()
{
    m_w.reset();
}

bool TestJobInspector::openJob()
{
    QSignalSpy done(m_w.get(), &MainWindow::loadFinished);
    m_w->openJob(m_job);
    return done.wait(120000) && done.first().first().toBool();
}

QString TestJobInspector::detailsValue(const QString &key) const
{
    const TreeNode *sec = m_w->details()->model()->section(DetailsModel::eventSection());
    if (!sec)
        return {};
    for (const auto &c : sec->children)
        if (c->key == key)
            return c->value;
    return {};
}

// The same kernel reads the same time on the axis, in Details, in the collectives
// table and in what Ctrl+C copies: the job's aligned origin.
void TestJobInspector::oneTimeBaseInAJob()
{
    QVERIFY(openJob());
    TimelinePlot *plot = m_w->timeline()->plot();
    const TimelineModel &m = *plot->model();
    QVERIFY(QString::fromStdString(m.timeBase).startsWith(QLatin1String("job time")));
    QCOMPARE(plot->xAxis2->label(), QString::fromStdString(m.timeBase));
    // A collective kernel on a rank that is not the first (its shift is not 0).
    QVERIFY(!m.collectiveEvents.empty());
    uint32_t kernel = UINT32_MAX;
    for (uint32_t ev : m.collectiveEvents[0])
        if (m.parts[size_t(m.partOf(ev))].shiftNs != 0)
            kernel = ev;
    QVERIFY(kernel != UINT32_MAX);
    plot->selection()->setEvent(kernel);
    const QString start = detailsValue(QStringLiteral("Start"));
    QCOMPARE(start, QString::fromStdString(formatDuration(m.startNs(kernel))) + QStringLiteral(" job time"));
    QVERIFY(!detailsValue(QStringLiteral("Timestamp (raw)")).isEmpty());
    // The collectives table's first arrival of that instance is the earliest of its kernels on the axis.
    CollectivesPanel *panel = m_w->job()->collectivesPanel();
    double first = 1e300;
    for (uint32_t ev : m.collectiveEvents[0])
        first = std::min(first, m.startNs(ev));
    QAbstractItemModel *cm = panel->model();
    int row = -1; // within 1 µs: the analysis keeps arrivals in µs
    for (int r = 0; r < cm->rowCount() && row < 0; ++r)
        if (std::abs(cm->index(r, CollectivesModel::StartColumn).data(SortRole).toDouble() * 1000 - first) < 1000)
            row = r;
    QVERIFY2(row >= 0, "an instance whose Start equals its earliest kernel on the axis");
    const QString shown = cm->index(row, CollectivesModel::StartColumn).data().toString();
    // Ctrl+C copies what the table shows.
    QTableView *view = panel->view();
    view->setFocus();
    view->selectRow(0);
    const QString copied = copiedRows(view);
    QVERIFY2(copied.contains(QLatin1Char('\t')) && copied.count(QLatin1Char('\n')) == 1, qPrintable(copied));
    const QString startOfRow0 = view->model()->index(0, CollectivesModel::StartColumn).data().toString();
    QVERIFY2(copied.contains(startOfRow0), qPrintable(copied + QStringLiteral(" / ") + startOfRow0));
    QVERIFY(!shown.isEmpty());
}

void TestJobInspector::oneTimeBaseInAPair()
{
    QSignalSpy done(m_w.get(), &MainWindow::loadFinished);
    m_w->setSamplePair(QString::fromStdString(uitest::sampleHost()), QString::fromStdString(uitest::sampleDevice()));
    m_w->openSample();
    QVERIFY(done.wait(60000));
    TimelinePlot *plot = m_w->timeline()->plot();
    const TimelineModel &m = *plot->model();
    QCOMPARE(plot->xAxis2->label(), QStringLiteral("time from the trace start"));
    QVERIFY(m_w->selectByName(QStringLiteral("aten::mm")));
    const uint32_t ev = uint32_t(plot->selection()->event());
    QCOMPARE(detailsValue(QStringLiteral("Start")),
             QString::fromStdString(formatDuration(m.startNs(ev))) + QStringLiteral(" from the trace start"));
}

void TestJobInspector::overviewDockFollowsTheJob()
{
    QDockWidget *dock = m_w->dock(QStringLiteral("joboverview"));
    QVERIFY(dock);
    QVERIFY(dock->isHidden());
    QVERIFY(openJob());
    QVERIFY(dock->isVisible());
    JobOverview *overview = m_w->job()->overview();
    TimelinePlot *plot = m_w->timeline()->plot();
    QCOMPARE(overview->jobModel(), plot->model() ? m_w->job()->model() : nullptr);
    // The rank order is the timeline's.
    m_w->setRankOrder(RankOrder::ByWaitsCaused);
    QCOMPARE(overview->rankOrder(), plot->partOrder());
    // A click on a rank's row moves the view to that time and scrolls to that rank, folded
    // (issue 41: it unfolded the rank, ~170 px); a double click unfolds it; a drag zooms.
    const qint64 rank = plot->model()->parts[size_t(plot->partOrder().back())].rank;
    QSignalSpy activated(overview, &JobOverview::rankActivated);
    QSignalSpy atTime(overview, &JobOverview::timeActivated);
    const TimeRange before = plot->range();
    plot->setRange({before.t0, before.t0 + (before.t1 - before.t0) / 8}); // zoomed in, at the start
    const double span = plot->range().t1 - plot->range().t0;
    const QPoint onRow(overview->canvas()->width() * 3 / 4, overview->rowTop(rank) + 1);
    QTest::mouseClick(overview->canvas(), Qt::LeftButton, {}, onRow);
    QCOMPARE(activated.size(), 1);
    QCOMPARE(activated.front().front().toLongLong(), rank);
    QVERIFY(!plot->rankExpanded(rank));
    QCOMPARE(atTime.size(), 1);
    const double t = atTime.front().front().toDouble();
    QVERIFY(qAbs((plot->range().t0 + plot->range().t1) / 2 - t) < span / 50 + 1); // centred there
    QVERIFY(qAbs((plot->range().t1 - plot->range().t0) - span) < span / 50 + 1); // the zoom kept
    QTest::mouseDClick(overview->canvas(), Qt::LeftButton, {}, onRow);
    QVERIFY(plot->rankExpanded(rank));
    QSignalSpy ranged(overview, &JobOverview::rangeActivated);
    QTest::mousePress(overview->canvas(), Qt::LeftButton, {}, QPoint(20, 5));
    QTest::mouseRelease(overview->canvas(), Qt::LeftButton, {}, QPoint(120, 5));
    QCOMPARE(ranged.size(), 1);
    QVERIFY(qAbs(plot->range().t0 - ranged.front().at(0).toDouble()) < 2);
    // Opening a pair hides it again.
    QSignalSpy done(m_w.get(), &MainWindow::loadFinished);
    m_w->setSamplePair(QString::fromStdString(uitest::sampleHost()), QString::fromStdString(uitest::sampleDevice()));
    m_w->openSample();
    QVERIFY(done.wait(60000));
    QVERIFY(dock->isHidden());
    QVERIFY(!overview->jobModel());
}

// After a toolbar drop-down the keys act on the timeline: Home fits, and does not
// pick the drop-down's first entry ("Ranks: stragglers first" stays).
void TestJobInspector::toolbarDropDownsGiveTheFocusBack()
{
    QVERIFY(openJob());
    auto *order = m_w->findChild<QComboBox *>(QStringLiteral("rankOrder"));
    QVERIFY(order); // (on a narrow window it is in the toolbar's extension menu)
    order->setFocus();
    const int waits = order->findData(int(RankOrder::ByWaitsCaused));
    order->setCurrentIndex(waits);
    Q_EMIT order->activated(waits);
    TimelinePlot *plot = m_w->timeline()->plot();
    QVERIFY(plot->hasFocus());
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Home);
    QCOMPARE(order->currentIndex(), waits);
    QCOMPARE(m_w->job()->rankOrder(), RankOrder::ByWaitsCaused);
}

void TestJobInspector::wheelSettingInTheViewMenu()
{
    auto *action = m_w->findChild<QAction *>(QStringLiteral("wheelZooms"));
    QVERIFY(action);
    const bool was = TimelinePlot::wheelZooms();
    QCOMPARE(action->isChecked(), was);
    action->setChecked(!was);
    QCOMPARE(TimelinePlot::wheelZooms(), !was);
    action->setChecked(was);
    QCOMPARE(TimelinePlot::wheelZooms(), was);
}

// The job critical path gets a pair's bound-by table: the cross-rank path's buckets.
void TestJobInspector::jobPathHasItsBoundByTable()
{
    QVERIFY(openJob());
    const JobCriticalPath &path = m_w->job()->data()->analysis.criticalPath;
    QVERIFY(path.valid && !path.summaryPct.empty());
    BreakdownModel *table = m_w->criticalPathPanel()->breakdownModel();
    QVERIFY(table->rowCount() > 0);
    double shares = 0;
    for (int r = 0; r < table->rowCount(); ++r) {
        const std::string bound = table->boundBy(r);
        const auto it = std::find_if(path.summaryPct.begin(), path.summaryPct.end(),
                                     [&](const auto &b) { return b.first == bound; });
        QVERIFY2(it != path.summaryPct.end(), bound.c_str());
        shares += it->second;
    }
    QVERIFY2(std::abs(shares - 100.0) < 0.5, qPrintable(QString::number(shares)));
    QVERIFY(m_w->criticalPathPanel()->summaryLabel()->text().contains(QLatin1String("Job critical path")));
}

QTEST_MAIN(TestJobInspector)
#include "tst_jobinspector.moc"
