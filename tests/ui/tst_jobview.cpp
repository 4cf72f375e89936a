// SPDX-License-Identifier: MIT
// The inspector with a job: a folder of ranks opens on one timeline (rank
// groups in rank order, clocks aligned), collectives are linked across ranks,
// a broken rank does not stop the others, and the job screenshot renders.
#include "document/jobdocument.h"
#include "document/pairdocument.h"
#include "mainwindow.h"
#include "panels/detailsmodel.h"
#include "panels/detailspanel.h"
#include "panels/diagnosticsmodel.h"
#include "panels/diagnosticspanel.h"
#include "panels/collectivesmodel.h"
#include "panels/collectivespanel.h"
#include "panels/jobsearchpanel.h"
#include "panels/ranktablemodel.h"
#include "panels/ranktablepanel.h"
#include "panels/whatifpanel.h"
#include "recentpairs.h"
#include "timeline/jobtimeline.h"
#include "timeline/timelineview.h"

#include "testutil.h"
#include "tracegen.h"

#include <QFile>
#include <QImage>
#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableWidget>
#include <QtTest>

#include <algorithm>
#include <filesystem>
#include <set>

using namespace syncscope;
using namespace syncscope::ui;

class TestJobView : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();
    void opensJobFromFolder();
    void ranksInRankOrderWithAlignedClocks();
    void rawClocksShowOwnClocks();
    void foldedRankShowsItsSummaries();
    void selectingCollectiveSelectsItOnEveryRank();
    void collectiveWaitsAreMarked();
    void detailsShowTheOpsRank();
    void rankOrderByWaitsCausedPutsStragglerFirst();
    void stepSelectorWorksForTheWholeJob();
    void brokenRankDoesNotStopTheOthers();
    void cancelStopsTheJob();
    void recentEntryOpensJob();
    void openingAPairAbandonsTheJob();
    void openingAJobAbandonsThePair();
    void jobScreenshotRenders();
    void realJobCriticalPathAndStraggler();
    void jobDocksFollowTheJob();
    void exportJobWritesEveryRank();
    void whatIfWorksOnTheJob();

private:
    bool openJob(const QString &dir);
    std::unique_ptr<MainWindow> m_w;
    QString m_job, m_broken, m_tmp;
    tracegen::JobOptions m_options;
};

namespace {

constexpr int kRanks = 4;
constexpr int kStraggler = 2;

// The spread (max - min) of the kernel ends of a matched collective on the model's axis.
double endSpreadNs(const TimelineModel &m, uint32_t collective)
{
    double lo = 1e300, hi = -1e300;
    for (uint32_t ev : m.collectiveEvents[collective]) {
        lo = std::min(lo, m.endNs(ev));
        hi = std::max(hi, m.endNs(ev));
    }
    return hi - lo;
}

} // namespace

void TestJobView::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    clearRecentPairs();
    m_tmp = QString::fromStdString(testutil::tempDir());
    m_options.dir = (std::filesystem::path(m_tmp.toStdString()) / "job").string();
    m_options.ranks = kRanks;
    m_options.straggler = kStraggler;
    m_options.gzip = false;
    tracegen::generateJob(m_options);
    m_job = QString::fromStdString(m_options.dir);
    // The same job with rank 1's device trace cut in half (not valid JSON).
    tracegen::JobOptions broken = m_options;
    broken.dir = (std::filesystem::path(m_tmp.toStdString()) / "broken").string();
    tracegen::generateJob(broken);
    m_broken = QString::fromStdString(broken.dir);
    const QString cut = m_broken + QStringLiteral("/rank1.kineto.json");
    QFile f(cut);
    QVERIFY(f.open(QIODevice::ReadWrite));
    const qint64 size = f.size();
    QVERIFY(f.resize(size / 2));
}

void TestJobView::init()
{
    m_w = std::make_unique<MainWindow>();
    m_w->setInteractive(false);
    m_w->resize(1400, 900);
    m_w->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_w.get()));
}

void TestJobView::cleanup()
{
    m_w.reset();
}

bool TestJobView::openJob(const QString &dir)
{
    QSignalSpy done(m_w.get(), &MainWindow::loadFinished);
    m_w->openJob(dir);
    if (!done.wait(120000))
        return false;
    return done.first().first().toBool();
}

void TestJobView::opensJobFromFolder()
{
    QSignalSpy shown(m_w.get(), &MainWindow::timelineShown);
    QSignalSpy changed(m_w.get()->job(), &JobDocument::jobChanged);
    QStringList order; // the timeline (of the ranks read so far) comes before the analyses finish
    connect(m_w.get(), &MainWindow::timelineShown, this, [&] {
        order << QStringLiteral("shown");
        QVERIFY(!m_w->job()->data()); // the job is not analysed yet
    });
    connect(m_w.get(), &MainWindow::loadFinished, this, [&] { order << QStringLiteral("finished"); });
    m_w->openJob(m_job);
    QVERIFY(m_w->isLoading()); // off the GUI thread
    QSignalSpy done(m_w.get(), &MainWindow::loadFinished);
    QVERIFY(done.wait(120000));
    QVERIFY(done.first().first().toBool());
    QCOMPARE(shown.count(), 1);
    QCOMPARE(order, (QStringList{QStringLiteral("shown"), QStringLiteral("finished")}));
    QCOMPARE(changed.count(), 1);
    auto job = m_w->job()->data();
    QVERIFY(job);
    QCOMPARE(int(job->ranks.size()), kRanks);
    for (const JobRankData &r : job->ranks) {
        QVERIFY(r.analysis);
        QCOMPARE(r.summary.exitCode, 0);
    }
    QVERIFY(!job->analysis.collectives.empty());
    QCOMPARE(job->analysis.stragglers.front(), int64_t(kStraggler));
    const TimelineModel *m = m_w->timeline()->plot()->model();
    QVERIFY(m && m->isJob());
    QCOMPARE(int(m->parts.size()), kRanks);
    size_t items = 0;
    for (const JobRankData &r : job->ranks)
        items += m->parts[size_t(job->indexOfRank(r.rank))].model->layout.itemCount;
    QCOMPARE(m->layout.itemCount, items); // every rank's ops, once
    QVERIFY2(m_w->statusSummary().contains(QStringLiteral("4 of 4 ranks loaded")), qPrintable(m_w->statusSummary()));
    QVERIFY(!m->criticalEvents.empty()); // the job critical path is marked
    // Every lane (the CPU summaries included) is sorted and free of overlaps, as the draw list
    // needs, and every event id maps back to its rank.
    for (const LaneRow &row : m->layout.rows)
        for (size_t i = 1; i < row.size(); ++i) {
            QVERIFY(row.start[i] >= row.end[i - 1]);
            QVERIFY(row.end[i] >= row.start[i]);
        }
    for (const LaneGroup &g : m->layout.groups) {
        QVERIFY(g.part >= 0);
        for (uint32_t r = g.firstRow; r < g.firstRow + g.rowCount; ++r)
            for (uint32_t ev : m->layout.rows[r].event)
                QCOMPARE(m->partOf(ev), g.part);
    }
}

void TestJobView::ranksInRankOrderWithAlignedClocks()
{
    QVERIFY(openJob(m_job));
    TimelinePlot *plot = m_w->timeline()->plot();
    const TimelineModel &m = *plot->model();
    int previous = -1;
    for (int r = 0; r < kRanks; ++r) {
        const int y = plot->rankHeaderY(r);
        QVERIFY2(y > previous, qPrintable(QStringLiteral("rank %1 header at %2").arg(r).arg(y)));
        previous = y;
    }
    // tracegen shifts every rank's clock (up to 2 ms); each collective ends at the same
    // true time on every rank, so on the aligned axis the ends line up again.
    double biggestOffset = 0;
    for (int r = 0; r < kRanks; ++r)
        biggestOffset = std::max(biggestOffset, std::abs(tracegen::jobClockOffsetUs(m_options, r)));
    QVERIFY(biggestOffset > 100);
    QVERIFY(!m.collectiveEvents.empty());
    for (size_t c = 0; c < m.collectiveEvents.size(); ++c) {
        QCOMPARE(int(m.collectiveEvents[c].size()), kRanks);
        QVERIFY2(endSpreadNs(m, uint32_t(c)) < 5000,
                 qPrintable(QStringLiteral("collective %1 ends %2 ns apart").arg(c).arg(endSpreadNs(m, uint32_t(c)))));
    }
    for (const TimelineRankPart &p : m.parts)
        QVERIFY(std::abs(p.clockOffsetUs + tracegen::jobClockOffsetUs(m_options, int(p.rank)) -
                         (m.parts[0].clockOffsetUs + tracegen::jobClockOffsetUs(m_options, int(m.parts[0].rank)))) < 5);
}

void TestJobView::rawClocksShowOwnClocks()
{
    QVERIFY(openJob(m_job));
    QSignalSpy rebuilt(m_w.get()->job(), &JobDocument::jobTimelineChanged);
    m_w->setRawClocks(true);
    QVERIFY(rebuilt.wait(30000));
    const TimelineModel &raw = *m_w->timeline()->plot()->model();
    QVERIFY(raw.isJob());
    for (const TimelineRankPart &p : raw.parts)
        QCOMPARE(p.clockOffsetUs, 0.0);
    double worst = 0;
    for (size_t c = 0; c < raw.collectiveEvents.size(); ++c)
        worst = std::max(worst, endSpreadNs(raw, uint32_t(c)));
    QVERIFY2(worst > 100000, qPrintable(QString::number(worst))); // the clocks' offsets show again
    QVERIFY(m_w->statusSummary().contains(QStringLiteral("raw clocks")));
    m_w->setRawClocks(false);
    QVERIFY(rebuilt.wait(30000));
    QVERIFY(m_w->timeline()->plot()->model()->parts[1].clockOffsetUs != 0.0);
}

void TestJobView::foldedRankShowsItsSummaries()
{
    QVERIFY(openJob(m_job));
    TimelinePlot *plot = m_w->timeline()->plot();
    const TimelineModel &m = *plot->model();
    auto shownRows = [&](LaneGroup::JobRole role, int part) {
        int n = 0;
        for (const LaneGroup &g : m.layout.groups)
            if (g.role == role && g.part == part)
                for (uint32_t r = g.firstRow; r < g.firstRow + g.rowCount; ++r)
                    n += plot->geometry().rowShown(r);
        return n;
    };
    QVERIFY(!plot->rankExpanded(0));
    QCOMPARE(shownRows(LaneGroup::JobRole::CpuSummary, 0), 1);
    QCOMPARE(shownRows(LaneGroup::JobRole::GpuSummary, 0), 1);
    QCOMPARE(shownRows(LaneGroup::JobRole::CpuThread, 0), 0);
    QCOMPARE(shownRows(LaneGroup::JobRole::Lane, 0), 0); // GPU streams: on the GPU summary
    // A folded thread's or stream's events are drawn on its summary lane.
    for (const LaneGroup &g : m.layout.groups)
        if ((g.role == LaneGroup::JobRole::CpuThread || g.role == LaneGroup::JobRole::Lane) && g.part == 0)
            QVERIFY(plot->geometry().rowCenterY(g.firstRow) >= 0);
    const int folded = plot->contentHeight();
    // A click on the rank header expands it.
    const QPoint header(20, plot->rankHeaderY(0) - plot->scrollY() + plot->plotRect().top() + 3);
    QTest::mouseClick(plot, Qt::LeftButton, {}, header);
    QVERIFY(plot->rankExpanded(0));
    QCOMPARE(shownRows(LaneGroup::JobRole::CpuSummary, 0), 0);
    QCOMPARE(shownRows(LaneGroup::JobRole::GpuSummary, 0), 0);
    QVERIFY(shownRows(LaneGroup::JobRole::CpuThread, 0) > 0);
    QVERIFY(shownRows(LaneGroup::JobRole::Lane, 0) > 0);
    QVERIFY(plot->contentHeight() > folded);
}

void TestJobView::selectingCollectiveSelectsItOnEveryRank()
{
    QVERIFY(openJob(m_job));
    TimelinePlot *plot = m_w->timeline()->plot();
    const TimelineModel &m = *plot->model();
    const auto job = m_w->job()->data();
    const uint32_t c = 0;
    m_w->job()->selectCollective(c);
    const std::vector<uint32_t> linked = plot->linkedEvents();
    QCOMPARE(int(linked.size()), kRanks);
    std::set<int> parts;
    for (uint32_t ev : linked)
        parts.insert(m.partOf(ev));
    QCOMPARE(int(parts.size()), kRanks); // one kernel on every rank
    QVERIFY(std::find(linked.begin(), linked.end(), uint32_t(plot->selection()->event())) != linked.end());
    // The selected kernel is the last arriver's, and each is that rank's kernel of the instance.
    const MatchedCollective &mc = job->analysis.collectives[c];
    QCOMPARE(m_w->job()->selectedRank(), qint64(mc.lastArrivalRank));
    for (size_t k = 0; k < mc.ranks.size(); ++k) {
        const int i = job->indexOfRank(mc.ranks[k]);
        const uint32_t local = job->ranks[size_t(i)].summary.collectives[mc.index[k]].event;
        QVERIFY(std::find(linked.begin(), linked.end(), uint32_t(jobEventId(m, mc.ranks[k], local))) != linked.end());
    }
    // Selecting another rank's kernel of the same instance links the same set.
    plot->selection()->setEvent(linked.back() == uint32_t(plot->selection()->event()) ? linked.front() : linked.back());
    QCOMPARE(plot->linkedEvents(), linked);
    plot->replot(QCustomPlot::rpImmediateRefresh);
    QCOMPARE(plot->lastPaintStats().linkedOutlines, size_t(kRanks));
    // Hovering a collective kernel joins its instance too.
    plot->selection()->clear();
    QVERIFY(plot->hoveredLinkedEvents().empty());
    plot->revealEvent(linked.front()); // the bottom docks may hide its rank below the fold
    QTest::qWait(50);                  // (and the docks' layout settle: the plot may move)
    plot->replot(QCustomPlot::rpImmediateRefresh);
    const QPoint over = plot->eventPoint(linked.front());
    QVERIFY(over.x() >= 0);
    QTest::mouseMove(plot, over);
    QCOMPARE(plot->hoveredLinkedEvents(), linked);
}

void TestJobView::collectiveWaitsAreMarked()
{
    QVERIFY(openJob(m_job));
    const TimelineModel &m = *m_w->timeline()->plot()->model();
    const auto job = m_w->job()->data();
    for (size_t c = 0; c < job->analysis.collectives.size(); ++c) {
        const MatchedCollective &mc = job->analysis.collectives[c];
        int last = 0;
        for (uint32_t ev : m.collectiveEvents[c]) {
            const CollectiveMark *mark = m.collectiveMark(ev);
            QVERIFY(mark);
            const int64_t rank = m.parts[size_t(m.partOf(ev))].rank;
            QCOMPARE(double(mark->waitNs), double(float(mc.waitUs.at(rank) * 1000)));
            last += mark->lastArrival;
            QCOMPARE(mark->lastArrival, rank == mc.lastArrivalRank);
        }
        QCOMPARE(last, 1);
    }
    // The straggler waits least and the others wait for it: some hatched waits are drawn.
    TimelinePlot *plot = m_w->timeline()->plot();
    plot->replot(QCustomPlot::rpImmediateRefresh);
    QVERIFY(plot->lastPaintStats().waitParts > 0);
}

void TestJobView::detailsShowTheOpsRank()
{
    QVERIFY(openJob(m_job));
    const auto job = m_w->job()->data();
    const TimelineModel &m = *m_w->timeline()->plot()->model();
    const RankCollective &k = job->ranks[3].summary.collectives.front();
    QVERIFY(m_w->job()->selectRankEvent(3, k.event));
    QCOMPARE(m_w->job()->selectedRank(), qint64(3));
    DetailsModel *details = m_w->details()->model();
    QCOMPARE(details->event(), qint64(k.event)); // that rank's own event
    QVERIFY(details->rowCount() > 0);
    QCOMPARE(m.name(uint32_t(jobEventId(m, 3, k.event))), std::string_view(k.kernelName));
}

void TestJobView::rankOrderByWaitsCausedPutsStragglerFirst()
{
    QVERIFY(openJob(m_job));
    TimelinePlot *plot = m_w->timeline()->plot();
    QVERIFY(plot->rankHeaderY(0) < plot->rankHeaderY(kStraggler));
    m_w->setRankOrder(RankOrder::ByWaitsCaused);
    for (int r = 0; r < kRanks; ++r)
        if (r != kStraggler)
            QVERIFY(plot->rankHeaderY(kStraggler) < plot->rankHeaderY(r));
    m_w->setRankOrder(RankOrder::ByRank);
    QVERIFY(plot->rankHeaderY(0) < plot->rankHeaderY(kStraggler));
}

void TestJobView::stepSelectorWorksForTheWholeJob()
{
    QVERIFY(openJob(m_job));
    const std::vector<qint64> steps = m_w->job()->steps();
    QVERIFY(steps.size() >= 2);
    const auto before = m_w->job()->data();
    for (const JobRankData &r : before->ranks)
        QVERIFY(r.summary.criticalPath.windowStep != steps[1]);
    QSignalSpy changed(m_w.get()->job(), &JobDocument::jobChanged);
    m_w->showJobStep(steps[1]);
    QVERIFY(changed.wait(60000));
    const auto after = m_w->job()->data();
    QVERIFY(after != before);
    QCOMPARE(after->window.instanceFirst, 1);
    for (const JobRankData &r : after->ranks) // the same ProfilerStep#N on every rank
        QCOMPARE(r.summary.criticalPath.windowStep, int64_t(steps[1]));
    // The view is on that step: its start on rank 0 is inside, the previous step's is not.
    const TimelineModel &m = *m_w->timeline()->plot()->model();
    const TimeRange view = m_w->timeline()->plot()->range();
    const TimelineRankPart &p0 = m.parts[0];
    auto jobTime = [&](int64_t ownNs) { return double(ownNs - p0.model->originNs + p0.shiftNs); };
    QVERIFY(view.t0 <= jobTime(after->ranks[0].summary.steps[1].startNs));
    QVERIFY(view.t0 > jobTime(after->ranks[0].summary.steps[0].startNs));
}

void TestJobView::brokenRankDoesNotStopTheOthers()
{
    QVERIFY(openJob(m_broken));
    const auto job = m_w->job()->data();
    QVERIFY(job);
    QCOMPARE(int(job->ranks.size()), kRanks);
    QVERIFY(job->ranks[1].summary.exitCode != 0);
    QVERIFY(!job->ranks[1].analysis);
    for (int i : {0, 2, 3})
        QVERIFY(job->ranks[size_t(i)].analysis);
    const TimelineModel &m = *m_w->timeline()->plot()->model();
    QCOMPARE(int(m.parts.size()), kRanks - 1);
    QVERIFY(jobEventId(m, 1, 0) < 0);
    // The rank's error is in Diagnostics, named by its rank.
    DiagnosticsModel *diag = m_w->diagnostics()->model();
    bool found = false;
    for (int r = 0; r < diag->rowCount(); ++r)
        for (int c = 0; c < diag->columnCount(); ++c)
            found |= diag->index(r, c).data().toString().startsWith(QStringLiteral("rank 1: "));
    QVERIFY(found);
}

void TestJobView::cancelStopsTheJob()
{
    QSignalSpy done(m_w.get(), &MainWindow::loadFinished);
    m_w->openJob(m_job);
    m_w->job()->loader()->cancel();
    QVERIFY(done.wait(120000));
    QVERIFY(!done.first().first().toBool());
    QVERIFY(!m_w->isLoading());
    QVERIFY(!m_w->job()->data());
    // Reload loads it again.
    QSignalSpy again(m_w.get(), &MainWindow::loadFinished);
    m_w->reload();
    QVERIFY(again.wait(120000));
    QVERIFY(again.first().first().toBool());
}

void TestJobView::openingAPairAbandonsTheJob()
{
    QSignalSpy done(m_w.get(), &MainWindow::loadFinished);
    QSignalSpy shown(m_w.get(), &MainWindow::timelineShown);
    m_w->openJob(m_job);
    m_w->openFiles(m_job + QStringLiteral("/rank0.et.json"), m_job + QStringLiteral("/rank0.kineto.json"));
    QVERIFY(done.wait(120000));
    QTest::qWait(300); // anything the abandoned job still posts would arrive now
    QCOMPARE(done.count(), 1);
    QVERIFY(done.first().first().toBool());
    QCOMPARE(shown.count(), 1);
    QVERIFY(!m_w->job()->data());
    QVERIFY(!m_w->timeline()->plot()->model()->isJob()); // the pair, not the job
    QVERIFY(m_w->pair()->analysis());
}

void TestJobView::openingAJobAbandonsThePair()
{
    QSignalSpy done(m_w.get(), &MainWindow::loadFinished);
    m_w->openFiles(m_job + QStringLiteral("/rank0.et.json"), m_job + QStringLiteral("/rank0.kineto.json"));
    m_w->openJob(m_job);
    QVERIFY(done.wait(120000));
    QTest::qWait(300);
    QCOMPARE(done.count(), 1);
    QVERIFY(done.first().first().toBool());
    QVERIFY(m_w->job()->data());
    QVERIFY(!m_w->pair()->analysis());
    QVERIFY(m_w->timeline()->plot()->model()->isJob());
}

void TestJobView::recentEntryOpensJob()
{
    QVERIFY(openJob(m_job));
    const auto recent = recentPairs();
    QVERIFY(!recent.empty());
    QVERIFY(recent.front().host.isEmpty());
    QCOMPARE(QFileInfo(recent.front().device).canonicalFilePath(), QFileInfo(m_job).canonicalFilePath());
    QVERIFY(recent.front().label().contains(QStringLiteral("(job)")));
    // Opening the entry (as Open Recent, the start page and a dropped folder do) opens the job.
    QSignalSpy done(m_w.get(), &MainWindow::loadFinished);
    m_w->openFiles(recent.front().device);
    QVERIFY(done.wait(120000));
    QVERIFY(done.first().first().toBool());
    QVERIFY(m_w->job()->data());
}

void TestJobView::jobScreenshotRenders()
{
    const QString out = m_tmp + QStringLiteral("/job.png");
    QProcess p;
    p.start(QStringLiteral(SYNCSCOPE_BIN), {m_job, QStringLiteral("--screenshot"), out, QStringLiteral("--size"),
                                            QStringLiteral("1200x800")});
    QVERIFY(p.waitForFinished(120000));
    QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
    QImage image(out);
    QVERIFY(!image.isNull());
    QCOMPARE(image.size(), QSize(1200, 800));
    // Not a blank window: many colours (lanes, kernels, hatched waits).
    std::set<QRgb> colours;
    for (int y = 0; y < image.height(); y += 7)
        for (int x = 0; x < image.width(); x += 7)
            colours.insert(image.pixel(x, y));
    QVERIFY(colours.size() > 30);
}

// The 8-rank DLRM job (shared data): rank 7 arrives last at the first collective; every
// row of the job critical path is found among its rank's ops and marked.
void TestJobView::realJobCriticalPathAndStraggler()
{
    const QString shared = qEnvironmentVariable("SYNCSCOPE_SHARED_DATA");
    const QString dir = shared + QStringLiteral("/pairs/param_dlrm_8rank");
    if (shared.isEmpty() || !QFileInfo(dir).isDir())
        QSKIP("SYNCSCOPE_SHARED_DATA/pairs/param_dlrm_8rank is not there");
    QVERIFY(openJob(dir));
    const auto job = m_w->job()->data();
    const TimelineModel &m = *m_w->timeline()->plot()->model();
    QCOMPARE(int(m.parts.size()), 8);
    QCOMPARE(job->analysis.collectives.front().lastArrivalRank, int64_t(7));
    const JobCriticalPath &path = job->analysis.criticalPath;
    QVERIFY(path.valid);
    std::set<std::pair<int64_t, std::string>> rows;
    for (const JobCriticalPathRow &r : path.path)
        rows.insert({r.rank, r.op});
    size_t found = 0;
    for (const auto &[rank, op] : rows) {
        bool hit = false;
        for (uint32_t ev : m.criticalEvents)
            hit |= m.parts[size_t(m.partOf(ev))].rank == rank && m.name(ev) == op;
        found += hit;
    }
    QVERIFY2(found == rows.size(), qPrintable(QStringLiteral("%1 of %2 path ops marked").arg(found).arg(rows.size())));
    // The first collective: every rank but 7 waits for it (rank 1 the longest, 7.6 ms), 7 not at all.
    const auto &first = m.collectiveEvents.front();
    QCOMPARE(int(first.size()), 8);
    for (uint32_t ev : first) {
        const CollectiveMark *mark = m.collectiveMark(ev);
        const int64_t rank = m.parts[size_t(m.partOf(ev))].rank;
        QCOMPARE(mark->lastArrival, rank == 7);
        QVERIFY(rank == 7 ? mark->waitNs == 0 : mark->waitNs > 400e3f);
        if (rank == 1)
            QVERIFY(std::abs(mark->waitNs - 7624.5e3f) < 1e3f);
    }
}


void TestJobView::jobDocksFollowTheJob()
{
    QAction *exportJob = m_w->exportJobAction();
    QVERIFY(exportJob && !exportJob->isEnabled());
    QVERIFY(m_w->job()->rankTable()->parentWidget()->isHidden()); // no job: no job docks
    QVERIFY(openJob(m_job));
    const auto job = m_w->job()->data();
    QVERIFY(job);
    QVERIFY(exportJob->isEnabled());
    QVERIFY(!m_w->job()->rankTable()->parentWidget()->isHidden());
    QCOMPARE(m_w->job()->rankTable()->model()->rowCount(), kRanks);
    QCOMPARE(size_t(m_w->job()->collectivesPanel()->model()->rowCount()), job->analysis.collectives.size());
    TimelinePlot *plot = m_w->timeline()->plot();
    QVERIFY(!plot->rankExpanded(kStraggler));
    // A rank row shows that rank; a collective row selects the instance (its last arriver).
    Q_EMIT m_w->job()->rankTable()->rankActivated(kStraggler);
    QVERIFY(plot->rankExpanded(kStraggler));
    Q_EMIT m_w->job()->collectivesPanel()->collectiveActivated(0);
    QCOMPARE(m_w->job()->selectedRank(), qint64(job->analysis.collectives[0].lastArrivalRank));
    QCOMPARE(int(plot->linkedEvents().size()), kRanks);
    // The rank table follows the timeline's selection.
    const QModelIndex current = m_w->job()->rankTable()->view()->currentIndex();
    QVERIFY(current.isValid());
    QCOMPARE(current.data(RankRole).toLongLong(), qint64(job->analysis.collectives[0].lastArrivalRank));
    // A cross-rank search result selects that op on its rank.
    const uint32_t local = job->ranks[1].summary.collectives.front().event;
    Q_EMIT m_w->job()->search()->eventRequested(job->ranks[1].rank, local);
    QCOMPARE(m_w->job()->selectedRank(), job->ranks[1].rank);
    QCOMPARE(plot->selection()->event(), qint64(jobEventId(*plot->model(), job->ranks[1].rank, local)));
    // A root cause of a selected collective selects that op on the late rank.
    qint64 withCauses = -1;
    for (size_t i = 0; i < job->analysis.collectives.size() && withCauses < 0; ++i)
        if (!job->analysis.collectives[i].rootCauses.empty())
            withCauses = qint64(i);
    QVERIFY(withCauses >= 0);
    const RootCauseOp &cause = job->analysis.collectives[size_t(withCauses)].rootCauses.front();
    QCOMPARE(cause.rank, qint64(kStraggler));
    m_w->job()->collectivesPanel()->selectCollective(quint32(withCauses));
    QTableWidget *causes = m_w->job()->collectivesPanel()->rootCauseView();
    QVERIFY(causes->rowCount() > 0);
    Q_EMIT causes->cellActivated(0, 1);
    QCOMPARE(m_w->job()->selectedRank(), qint64(kStraggler));
    QCOMPARE(std::string(plot->model()->name(uint32_t(plot->selection()->event()))), cause.op);
    // A pair replaces the job: the job docks go, the job export is off.
    QSignalSpy done(m_w.get(), &MainWindow::loadFinished);
    m_w->openFiles(m_job + QStringLiteral("/rank0.et.json"), m_job + QStringLiteral("/rank0.kineto.json"));
    QVERIFY(done.wait(120000));
    QVERIFY(!exportJob->isEnabled());
    QVERIFY(m_w->job()->rankTable()->parentWidget()->isHidden());
    QCOMPARE(m_w->job()->rankTable()->model()->rowCount(), 0);
}

void TestJobView::exportJobWritesEveryRank()
{
    QVERIFY(!m_w->job()->exportTo(m_tmp + QStringLiteral("/nojob"), QStringLiteral("t"))); // nothing open
    QVERIFY(openJob(m_job));
    const QString out = m_tmp + QStringLiteral("/export");
    QSignalSpy finished(m_w.get(), &MainWindow::exportFinished);
    QVERIFY(m_w->job()->exportTo(out, QStringLiteral("t")));
    QVERIFY(finished.wait(120000));
    QVERIFY2(finished.first().first().toBool(), qPrintable(finished.first().at(1).toString()));
    for (int r = 0; r < kRanks; ++r) {
        QVERIFY(QFileInfo(out + QStringLiteral("/t.%1.et").arg(r)).size() > 0);
        QVERIFY(QFileInfo(out + QStringLiteral("/t.%1.json").arg(r)).size() > 0);
    }
    // A second export while one runs is refused (one at a time); never over an input: tst_jobpanels.
    QVERIFY(m_w->job()->exportTo(out, QStringLiteral("u")));
    QVERIFY(!m_w->job()->exportTo(out, QStringLiteral("v")));
    QVERIFY(finished.wait(120000));
}

void TestJobView::whatIfWorksOnTheJob()
{
    QVERIFY(openJob(m_job));
    WhatIfPanel *panel = m_w->whatIfPanel();
    const double baseline = m_w->job()->data()->analysis.criticalPath.stepTime.stepTimeUs;
    QVERIFY(baseline > 0);
    QSignalSpy changed(panel, &WhatIfPanel::resultChanged);
    // Factor 1 is the measured job exactly.
    QVERIFY(panel->addRule(QStringLiteral("rank=%1*1").arg(kStraggler)));
    QTRY_VERIFY_WITH_TIMEOUT(panel->jobResult() && panel->jobResult()->ok, 20000);
    QCOMPARE(panel->jobResult()->baselineUs, baseline);
    QCOMPARE(panel->jobResult()->projectedUs, baseline);
    // The straggler's work halved: the job gets faster; every rank has a row.
    panel->removeRule(0);
    QVERIFY(panel->addRule(QStringLiteral("rank=%1*0.5").arg(kStraggler)));
    QTRY_VERIFY_WITH_TIMEOUT(panel->jobResult() && panel->jobResult()->ok && panel->jobResult()->projectedUs < baseline,
                             20000);
    QCOMPARE(panel->movedView()->model()->rowCount(), kRanks);
    QVERIFY(panel->summaryLabel()->text().contains(QStringLiteral("Job step")));
    // A rule that matches nothing on any rank says so.
    panel->removeRule(0);
    QVERIFY(panel->addRule(QStringLiteral("name~no_such_op_anywhere*0.5")));
    QTRY_VERIFY_WITH_TIMEOUT(panel->jobResult() && !panel->jobResult()->ok, 20000);
    QVERIFY(panel->summaryLabel()->text().contains(QStringLiteral("no_such_op_anywhere")));
}

QTEST_MAIN(TestJobView)
#include "tst_jobview.moc"
