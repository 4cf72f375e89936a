// SPDX-License-Identifier: MIT
// The dense job overview (issue 23, item 4) on generated jobs whose straggler is
// known, loaded as the GUI loads them (JobLoader): one row per rank at 8 and 256
// ranks, clicks and Enter give the rank of the row under any order, the
// straggler is the row without waits, the heatmap marks the last arriver, NCCL
// streams only by default, the dark palette's colours.
#include "job/jobloader.h"
#include "job/joboverview.h"
#include "testutil.h"
#include "theme.h"
#include "tracegen.h"

#include <QApplication>
#include <QHelpEvent>
#include <QSignalSpy>
#include <QToolTip>
#include <QtTest>

#include <cmath>

#include <filesystem>

using namespace syncscope;
using namespace syncscope::ui;

class TestJobOverview : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void oneRowPerRankAtEightRanks();
    void oneRowPerRankAt256Ranks();
    void clickAndEnterGiveTheRowsRank();
    void stragglerRowHasNoWaits();
    void heatmapMarksTheLastArriver();
    void ncclStreamsOnlyByDefault();
    void darkPaletteColours();
    void tooltipSaysRankTimeAndWait();
    void viewRangeIsFramed();
    void rowsAreLabelledWithTheirRanks();
    void lastArriverShowsAtManyRanks();

private:
    struct Loaded {
        std::shared_ptr<const JobData> job;
        std::shared_ptr<const TimelineModel> model;
    };
    static Loaded load(const std::string &dir);
    std::unique_ptr<JobOverview> show(const Loaded &job, QSize size);

    Loaded m_job8, m_job256;
};

namespace {

constexpr int kStraggler = 5;

// Renders the canvas as a paint event does; the overview's image is then current.
void render(JobOverview &o)
{
    o.canvas()->grab();
}

// Whether `px` is `base` laid over `bg` at some opacity (what the overview draws).
bool isBlendOf(QRgb px, const QColor &bg, const QColor &base)
{
    const int d[3] = {base.red() - bg.red(), base.green() - bg.green(), base.blue() - bg.blue()};
    const int v[3] = {qRed(px) - bg.red(), qGreen(px) - bg.green(), qBlue(px) - bg.blue()};
    int k = 0; // the channel with the largest difference gives the opacity
    for (int i = 1; i < 3; ++i)
        if (std::abs(d[i]) > std::abs(d[k]))
            k = i;
    if (d[k] == 0)
        return false;
    const double a = double(v[k]) / d[k];
    if (a < 0.2 || a > 1.01)
        return false;
    for (int i = 0; i < 3; ++i)
        if (std::abs(v[i] - a * d[i]) > 2.5)
            return false;
    return true;
}

// Pixels of the rank's rows drawn in (a blend of) `base`.
int pixelsOf(const JobOverview &o, qint64 rank, const QColor &bg, const QColor &base)
{
    const QImage &img = o.image();
    const int top = o.rowTop(rank);
    int n = 0;
    for (int y = top; y < top + std::max(1, o.rowHeight() - (o.rowHeight() >= 6 ? 1 : 0)); ++y)
        for (int x = 0; x < img.width(); ++x)
            n += isBlendOf(img.pixel(x, y), bg, base);
    return n;
}

int nonBackground(const QImage &img, int y, const QColor &bg)
{
    int n = 0;
    for (int x = 0; x < img.width(); ++x)
        n += img.pixel(x, y) != bg.rgb();
    return n;
}

} // namespace

TestJobOverview::Loaded TestJobOverview::load(const std::string &dir)
{
    JobLoader loader;
    std::shared_ptr<JobLoadResult> result;
    QObject::connect(&loader, &JobLoader::finished, [&](std::shared_ptr<JobLoadResult> r) { result = std::move(r); });
    loader.start({dir}, AnalysisRequest{});
    QElapsedTimer t;
    t.start();
    while (!result && t.elapsed() < 600000)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
    if (!result || !result->model)
        return {};
    return {result->job, result->model};
}

std::unique_ptr<JobOverview> TestJobOverview::show(const Loaded &job, QSize size)
{
    auto o = std::make_unique<JobOverview>();
    o->resize(size);
    o->show();
    o->setJob(job.job, job.model);
    render(*o);
    return o;
}

void TestJobOverview::initTestCase()
{
    const std::filesystem::path tmp = testutil::tempDir();
    tracegen::JobOptions o;
    o.dir = (tmp / "job8").string();
    o.ranks = 8;
    o.steps = 2;
    o.layers = 2;
    o.gzip = false;
    o.straggler = kStraggler;
    tracegen::generateJob(o);
    m_job8 = load(o.dir);
    QVERIFY(m_job8.model);
    QCOMPARE(m_job8.model->parts.size(), size_t(8));
    QVERIFY(!m_job8.job->analysis.collectives.empty());

    o.dir = (tmp / "job256").string();
    o.ranks = 256;
    o.steps = 1;
    o.layers = 1;
    o.straggler = -1;
    tracegen::generateJob(o);
    m_job256 = load(o.dir);
    QVERIFY(m_job256.model);
    QCOMPARE(m_job256.model->parts.size(), size_t(256));
}

void TestJobOverview::oneRowPerRankAtEightRanks()
{
    auto o = show(m_job8, {600, 240});
    const int h = o->canvas()->height();
    QVERIFY(h >= 8);
    QCOMPARE(o->ranksPerRow(), 1);
    QCOMPARE(o->rowHeight(), std::min(24, h / 8)); // fills the height, a few px at most
    const QColor bg = timelineColors(isDarkPalette(o->palette())).background;
    for (int k = 0; k < 8; ++k) {
        QCOMPARE(o->rowTop(k), k * o->rowHeight());
        QCOMPARE(o->rankAt(o->rowTop(k)), qint64(k));
        QCOMPARE(o->rankAt(o->rowTop(k) + o->rowHeight() - 1), qint64(k));
        QVERIFY2(nonBackground(o->image(), o->rowTop(k), bg) > 0, qPrintable(QStringLiteral("rank %1").arg(k)));
        if (o->rowHeight() >= 6) // the separator line between ranks
            QCOMPARE(nonBackground(o->image(), o->rowTop(k) + o->rowHeight() - 1, bg), 0);
    }
    QCOMPARE(o->rankAt(8 * o->rowHeight()), qint64(-1));
    QCOMPARE(nonBackground(o->image(), std::min(h - 1, 8 * o->rowHeight()), bg), 0);
}

void TestJobOverview::oneRowPerRankAt256Ranks()
{
    auto o = show(m_job256, {800, 300});
    QVERIFY(o->canvas()->height() >= 256);
    QCOMPARE(o->rowHeight(), 1);
    QCOMPARE(o->ranksPerRow(), 1);
    const QColor bg = timelineColors(isDarkPalette(o->palette())).background;
    for (int k = 0; k < 256; ++k) {
        QCOMPARE(o->rowTop(k), k);
        QCOMPARE(o->rankAt(k), qint64(k));
        QVERIFY2(nonBackground(o->image(), k, bg) > 0, qPrintable(QStringLiteral("rank %1").arg(k)));
    }
    QCOMPARE(o->rankAt(256), qint64(-1));
    // Fewer pixel rows than ranks: several ranks per row, every rank still on one.
    o->resize(800, 120);
    QCoreApplication::processEvents();
    render(*o);
    const int rows = o->canvas()->height();
    QVERIFY(rows < 256);
    QCOMPARE(o->ranksPerRow(), (256 + rows - 1) / rows);
    QCOMPARE(o->rowTop(255), (255 / o->ranksPerRow()));
    QCOMPARE(o->rankAt(o->rowTop(255)), qint64(255 / o->ranksPerRow() * o->ranksPerRow()));
    QVERIFY(o->stats().composeMs >= 0);
}

void TestJobOverview::clickAndEnterGiveTheRowsRank()
{
    auto o = show(m_job8, {600, 240});
    // A non-trivial order: reversed, then the first two swapped.
    std::vector<uint32_t> order = {7, 6, 5, 4, 3, 2, 1, 0};
    std::swap(order[0], order[1]);
    o->setRankOrder(order);
    render(*o);
    QSignalSpy ranks(o.get(), &JobOverview::rankActivated);
    QSignalSpy collectives(o.get(), &JobOverview::collectiveActivated);
    const int rowPx = o->rowHeight();
    for (int k = 0; k < 8; ++k) {
        QTest::mouseClick(o->canvas(), Qt::LeftButton, {}, QPoint(100, k * rowPx + rowPx / 2));
        QCOMPARE(ranks.size(), k + 1);
        QCOMPARE(ranks.last().at(0).toLongLong(), qint64(m_job8.model->parts[order[size_t(k)]].rank));
        QCOMPARE(o->rowTop(m_job8.model->parts[order[size_t(k)]].rank), k * rowPx);
    }
    QCOMPARE(collectives.size(), 0); // activity: ranks only
    // Keyboard: Home, two rows down, Enter.
    o->canvas()->setFocus();
    QTest::keyClick(o->canvas(), Qt::Key_Home);
    QTest::keyClick(o->canvas(), Qt::Key_Down);
    QTest::keyClick(o->canvas(), Qt::Key_Down);
    QCOMPARE(ranks.size(), 8);
    QTest::keyClick(o->canvas(), Qt::Key_Return);
    QCOMPARE(ranks.size(), 9);
    QCOMPARE(ranks.last().at(0).toLongLong(), qint64(m_job8.model->parts[order[2]].rank));
    QCOMPARE(o->currentRank(), qint64(m_job8.model->parts[order[2]].rank));
    // Below the rows nothing is emitted; a bad order falls back to rank order.
    QTest::mouseClick(o->canvas(), Qt::LeftButton, {}, QPoint(100, 8 * rowPx + 1));
    QCOMPARE(ranks.size(), 9);
    o->setRankOrder({0, 0, 1});
    QCOMPARE(o->rankAt(o->rowTop(3)), qint64(3));
    QCOMPARE(o->rowTop(3), 3 * rowPx);
}

void TestJobOverview::stragglerRowHasNoWaits()
{
    auto o = show(m_job8, {800, 240});
    QCOMPARE(o->mode(), JobOverview::Mode::Activity);
    const TimelineColors c = timelineColors(isDarkPalette(o->palette()));
    const QColor wait = c.edge[size_t(EdgeKind::Sync)];
    const QColor comm = c.category[size_t(Category::Communication)];
    const ActivityBins &b = o->activityBins();
    QCOMPARE(b.width, o->canvas()->width());
    for (int k = 0; k < 8; ++k) {
        const int part = m_job8.model->parts[size_t(k)].rank == k ? k : -1;
        QVERIFY(part >= 0);
        int waitBins = 0;
        for (int x = 0; x < b.width; ++x)
            waitBins += b.wait[size_t(part) * size_t(b.width) + size_t(x)] > 0;
        const int waitPixels = pixelsOf(*o, k, c.background, wait);
        const int commPixels = pixelsOf(*o, k, c.background, comm);
        const QString what = QStringLiteral("rank %1: %2 wait bins, %3 wait px, %4 comm px")
                                 .arg(k).arg(waitBins).arg(waitPixels).arg(commPixels);
        QVERIFY2(commPixels > 0, qPrintable(what)); // every rank transfers
        if (k == kStraggler) {
            QVERIFY2(waitBins == 0 && waitPixels == 0, qPrintable(what));
        } else {
            QVERIFY2(waitBins > 0 && waitPixels > 0, qPrintable(what));
        }
    }
}

void TestJobOverview::heatmapMarksTheLastArriver()
{
    auto o = show(m_job8, {800, 240});
    o->setMode(JobOverview::Mode::Waits);
    render(*o);
    const TimelineColors c = timelineColors(isDarkPalette(o->palette()));
    const HeatmapBins &h = o->heatmapBins();
    QCOMPARE(h.width, o->canvas()->width());
    const auto &collectives = m_job8.job->analysis.collectives;
    QSignalSpy ranks(o.get(), &JobOverview::rankActivated);
    QSignalSpy picked(o.get(), &JobOverview::collectiveActivated);
    int marked = 0;
    for (size_t ci = 0; ci < collectives.size(); ++ci) {
        const MatchedCollective &mc = collectives[ci];
        QCOMPARE(mc.lastArrivalRank, int64_t(kStraggler));
        const int x0 = o->columnOf(quint32(ci));
        QVERIFY(x0 >= 0);
        int x1 = x0;
        while (x1 + 1 < h.width && h.first[size_t(x1 + 1)] == h.first[size_t(x0)])
            ++x1;
        const int x = (x0 + x1 + 1) / 2;
        for (int64_t rank = 0; rank < 8; ++rank) {
            const QRgb px = o->image().pixel(x, o->rowTop(rank));
            const bool last = rank == mc.lastArrivalRank;
            QCOMPARE(h.cell[size_t(rank) * size_t(h.width) + size_t(x)] == HeatCell::LastArrival, last);
            QCOMPARE(px == c.critical.rgb(), last);
            if (!last) // the others waited for it
                QVERIFY(isBlendOf(px, c.background, c.edge[size_t(EdgeKind::Sync)]));
        }
        ++marked;
        // A click on a cell: its rank and its collective.
        QTest::mouseClick(o->canvas(), Qt::LeftButton, {}, QPoint(x, o->rowTop(2)));
        QCOMPARE(ranks.last().at(0).toLongLong(), qint64(2));
        QCOMPARE(picked.last().at(0).toUInt(), quint32(ci));
    }
    QVERIFY(marked > 0);
    QCOMPARE(picked.size(), marked);
}

void TestJobOverview::ncclStreamsOnlyByDefault()
{
    auto o = show(m_job8, {800, 240});
    QVERIFY(!o->allStreams());
    const std::vector<OverviewPartRows> rows = overviewRows(*m_job8.model);
    for (const OverviewPartRows &r : rows) {
        QVERIFY(!r.commRows.empty());
        QVERIFY(r.commRows.size() < r.gpuRows.size()); // the compute streams are left out
    }
    auto other = [&] {
        size_t n = 0;
        for (uint8_t v : o->activityBins().other)
            n += v > 0;
        return n;
    };
    const TimelineColors c = timelineColors(isDarkPalette(o->palette()));
    const QColor kernel = c.category[size_t(Category::Kernel)];
    QCOMPARE(other(), size_t(0));
    QCOMPARE(pixelsOf(*o, 0, c.background, kernel), 0);
    o->setAllStreams(true);
    render(*o);
    QVERIFY(other() > 0);
    QVERIFY(pixelsOf(*o, 0, c.background, kernel) > 0);
    o->setAllStreams(false);
    render(*o);
    QCOMPARE(other(), size_t(0));
}

void TestJobOverview::darkPaletteColours()
{
    auto o = show(m_job8, {800, 240});
    QPalette dark = o->palette();
    dark.setColor(QPalette::Window, QColor(0x20, 0x20, 0x24));
    dark.setColor(QPalette::WindowText, QColor(0xe0, 0xe0, 0xe0));
    o->setPalette(dark);
    QVERIFY(isDarkPalette(o->palette()));
    render(*o);
    const TimelineColors d = timelineColors(true), l = timelineColors(false);
    const QImage &img = o->image();
    const int below = img.height() - 1; // under the rows: background
    QVERIFY(o->rankAt(below) < 0);
    QCOMPARE(img.pixel(img.width() / 2, below), d.background.rgb());
    QVERIFY(pixelsOf(*o, 0, d.background, d.category[size_t(Category::Communication)]) > 0);
    QVERIFY(pixelsOf(*o, 0, d.background, d.edge[size_t(EdgeKind::Sync)]) > 0);
    QCOMPARE(pixelsOf(*o, 0, l.background, l.category[size_t(Category::Communication)]), 0);
    o->setMode(JobOverview::Mode::Waits);
    render(*o);
    QCOMPARE(o->image().pixel(o->columnOf(0) + 1, o->rowTop(kStraggler)), d.critical.rgb());
    o->setPalette(QPalette(QColor(0xf0, 0xf0, 0xf0)));
    render(*o);
    QCOMPARE(o->image().pixel(o->image().width() / 2, below), l.background.rgb());
}

void TestJobOverview::tooltipSaysRankTimeAndWait()
{
    auto o = show(m_job8, {800, 240});
    o->setViewRange(0, m_job8.model->spanNs() / 2);
    render(*o);
    // A wait pixel of rank 0.
    const ActivityBins &b = o->activityBins();
    int x = -1;
    for (int i = 0; i < b.width && x < 0; ++i)
        if (b.wait[size_t(i)] == 255)
            x = i;
    QVERIFY(x >= 0);
    const QPoint pos(x, o->rowTop(0));
    QHelpEvent help(QEvent::ToolTip, pos, o->canvas()->mapToGlobal(pos));
    QApplication::sendEvent(o->canvas(), &help);
    const QString text = QToolTip::text();
    QVERIFY2(text.contains(QStringLiteral("Rank 0")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral(" ms")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("wait of")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("in collective")), qPrintable(text));
}

void TestJobOverview::viewRangeIsFramed()
{
    auto o = show(m_job8, {800, 240});
    const QColor frame = timelineColors(isDarkPalette(o->palette())).selection;
    auto framedAt = [&](int x) {
        const QImage shot = o->canvas()->grab().toImage();
        return shot.pixelColor(x, o->rowTop(3) + 1) == frame;
    };
    const int w = o->canvas()->width();
    QVERIFY(!framedAt(w / 2 - 1));
    // The left half of the job: its right edge is the frame's.
    o->setViewRange(0, m_job8.model->spanNs() / 2);
    QVERIFY(framedAt(w / 2 - 1) || framedAt(w / 2));
    QVERIFY(!framedAt(w / 4));
    o->setViewRange(0, 0);
    QVERIFY(!framedAt(w / 2 - 1) && !framedAt(w / 2));
    // Waits: Right then Enter picks a collective by keyboard.
    o->setMode(JobOverview::Mode::Waits);
    QSignalSpy picked(o.get(), &JobOverview::collectiveActivated);
    o->canvas()->setFocus();
    QTest::keyClick(o->canvas(), Qt::Key_Right);
    QTest::keyClick(o->canvas(), Qt::Key_Right);
    QTest::keyClick(o->canvas(), Qt::Key_Enter);
    QCOMPARE(picked.size(), 1);
    QCOMPARE(picked.last().at(0).toUInt(), 1u);
}

// Issue 41, item 7: rank numbers down the left edge, every row when they fit, else every k-th
// pixel row (at least 10 px apart): 64 ranks of heatmap were an unlabelled wall.
void TestJobOverview::rowsAreLabelledWithTheirRanks()
{
    for (JobOverview::Mode mode : {JobOverview::Mode::Activity, JobOverview::Mode::Waits}) {
        auto tall = show(m_job8, {600, 240});
        tall->setMode(mode);
        render(*tall);
        QCOMPARE(tall->stats().rankLabels, 8);
        auto flat = show(m_job8, {600, 48}); // a few px per rank: every k-th row
        flat->setMode(mode);
        render(*flat);
        const OverviewRowGeometry g = overviewRowGeometry(8, flat->canvas()->height());
        QVERIFY(g.rowPx < 10);
        const int every = int(std::ceil(10.0 / g.rowPx));
        QCOMPARE(flat->stats().rankLabels, (g.rows + every - 1) / every);
        QVERIFY(flat->stats().rankLabels < 8);
    }
    auto many = show(m_job256, {600, 300});
    render(*many);
    QVERIFY(many->stats().rankLabels >= 20 && many->stats().rankLabels <= 31);
}

// Issue 41, item 7: with rows under 3 px the heatmap's last arrivals are drawn 3 px tall, so the
// straggler's cells show as a mark, not a 1-px line in an orange wall. The 256-rank job.
void TestJobOverview::lastArriverShowsAtManyRanks()
{
    auto o = show(m_job256, {800, 300});
    o->setMode(JobOverview::Mode::Waits);
    render(*o);
    const OverviewRowGeometry g = overviewRowGeometry(256, o->canvas()->height());
    QVERIFY(g.rowPx < 3);
    QVERIFY(o->stats().lastArrivalMarks > 0);
    const QImage shot = o->canvas()->grab().toImage();
    const QColor critical = timelineColors(isDarkPalette(o->palette())).critical;
    const HeatmapBins &h = o->heatmapBins();
    int checked = 0;
    for (size_t d = 0; d < o->rankOrder().size() && checked < 20; ++d) {
        const size_t part = o->rankOrder()[d];
        const int y = int(d / size_t(g.perRow)) * g.rowPx + g.rowPx / 2;
        for (int x = 40; x < h.width && checked < 20; ++x) // right of the rank numbers
            if (h.cell[part * size_t(h.width) + size_t(x)] == HeatCell::LastArrival && y >= 1) {
                for (int dy = -1; dy <= 1; ++dy)
                    QCOMPARE(QColor(shot.pixel(x, y + dy)), critical);
                ++checked;
            }
    }
    QVERIFY(checked > 0);
}

QTEST_MAIN(TestJobOverview)
#include "tst_joboverview.moc"
