// SPDX-License-Identifier: MIT
// A folded rank is compact (issue 41, item 7): a header and two strips, its CPU
// threads on the CPU summary and its GPU streams on the GPU summary, at most 40 px,
// so 64 ranks fit in a few screens. The GPU strip holds what the streams hold: the
// busy time is the streams' union, the collectives whole, the other ops only cut.
// On a generated job and on the real 8-rank DLRM job.
#include "job/jobbuild.h"
#include "testutil.h"
#include "timeline/jobtimeline.h"
#include "timeline/timelineplot.h"
#include "tracegen.h"

#include <QtTest>

#include <algorithm>
#include <filesystem>

using namespace syncscope;
using namespace syncscope::ui;

namespace {

std::shared_ptr<TimelineModel> jobTimeline(const JobData &job)
{
    std::vector<JobTimelineRank> ranks;
    for (const JobRankData &r : job.ranks)
        if (r.analysis && r.analysis->device)
            ranks.push_back({r.rank, buildTimelineModel(r.analysis->device), &r.summary, {}});
    return buildJobTimelineModel(ranks, &job.analysis, {});
}

using Spans = std::vector<std::pair<int64_t, int64_t>>;

Spans unionOf(Spans s)
{
    std::sort(s.begin(), s.end());
    Spans out;
    for (const auto &[a, b] : s) {
        if (!out.empty() && a <= out.back().second)
            out.back().second = std::max(out.back().second, b);
        else if (b > a)
            out.emplace_back(a, b);
    }
    return out;
}

// Checks every part's GPU summary against its stream lanes; returns the parts checked.
int checkGpuSummaries(const TimelineModel &m)
{
    const LaneLayout &layout = m.layout;
    int checked = 0;
    for (size_t part = 0; part < m.parts.size(); ++part) {
        const LaneRow *summary = nullptr;
        Spans lanes, comm;
        std::vector<uint32_t> commEvents;
        for (const LaneGroup &g : layout.groups) {
            if (g.part != int32_t(part))
                continue;
            if (g.role == LaneGroup::JobRole::GpuSummary)
                summary = &layout.rows[g.firstRow];
            if (g.role != LaneGroup::JobRole::Lane)
                continue;
            for (uint32_t r = g.firstRow; r < g.firstRow + g.rowCount; ++r) {
                const LaneRow &row = layout.rows[r];
                for (size_t i = 0; i < row.size(); ++i) {
                    lanes.emplace_back(row.start[i], row.end[i]);
                    if (row.category[i] == Category::Communication) {
                        comm.emplace_back(row.start[i], row.end[i]);
                        commEvents.push_back(row.event[i]);
                    }
                }
            }
        }
        if (lanes.empty())
            continue;
        if (!summary) {
            qWarning("part %zu has GPU lanes but no GPU summary", part);
            return -1;
        }
        // Never overlapping, each piece inside its own op.
        Spans pieces;
        for (size_t i = 0; i < summary->size(); ++i) {
            if (i > 0 && summary->start[i] < summary->end[i - 1])
                return -1;
            const uint32_t ev = summary->event[i];
            if (summary->start[i] < int64_t(m.startNs(ev)) || summary->end[i] > int64_t(m.endNs(ev)) + 1)
                return -1;
            pieces.emplace_back(summary->start[i], summary->end[i]);
        }
        // Busy exactly where some stream is busy.
        if (unionOf(pieces) != unionOf(lanes)) {
            qWarning("part %zu: the GPU summary's busy time is not the streams' union", part);
            return -1;
        }
        // A collective that overlaps no other is there whole.
        for (size_t k = 0; k < commEvents.size(); ++k) {
            bool alone = true;
            for (size_t j = 0; j < comm.size() && alone; ++j)
                alone = j == k || comm[j].second <= comm[k].first || comm[j].first >= comm[k].second;
            if (!alone)
                continue;
            bool whole = false;
            for (size_t i = 0; i < summary->size() && !whole; ++i)
                whole = summary->event[i] == commEvents[k] && summary->start[i] == comm[k].first &&
                        summary->end[i] == comm[k].second;
            if (!whole) {
                qWarning("part %zu: collective %u is not whole on the GPU summary", part, commEvents[k]);
                return -1;
            }
        }
        ++checked;
    }
    return checked;
}

// Heights of the ranks' blocks (header to the next header), by part.
std::vector<int> rankBlockHeights(const TimelinePlot &plot)
{
    const RowGeometry &geo = plot.geometry();
    std::vector<int> out;
    for (size_t i = 0; i < geo.items.size(); ++i) {
        if (!geo.items[i].header)
            continue;
        size_t next = i + 1;
        while (next < geo.items.size() && !geo.items[next].header)
            ++next;
        out.push_back((next < geo.items.size() ? geo.items[next].y : geo.totalHeight) - geo.items[i].y);
    }
    return out;
}

} // namespace

class TestFoldedRank : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void gpuSummaryHoldsTheStreams();
    void foldedRankIsAHeaderAndTwoStrips();
    void foldedLanesAreMeasuredNotTheirSummary();
    void realJob();

private:
    std::shared_ptr<const JobData> m_job;
};

void TestFoldedRank::initTestCase()
{
    tracegen::JobOptions o;
    o.dir = (std::filesystem::path(testutil::tempDir()) / "foldedrank").string();
    o.ranks = 4;
    o.steps = 2;
    o.layers = 2;
    o.straggler = 2;
    o.gzip = false;
    tracegen::generateJob(o);
    m_job = buildJobData({o.dir}, AnalysisRequest{});
    QVERIFY(m_job);
    QCOMPARE(int(m_job->ranks.size()), 4);
}

void TestFoldedRank::gpuSummaryHoldsTheStreams()
{
    const auto m = jobTimeline(*m_job);
    QCOMPARE(checkGpuSummaries(*m), 4);
}

void TestFoldedRank::foldedRankIsAHeaderAndTwoStrips()
{
    TimelinePlot plot;
    plot.resize(1200, 700);
    plot.setModel(jobTimeline(*m_job));
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    const TimelineModel &m = *plot.model();
    auto shown = [&](LaneGroup::JobRole role, int64_t rank) {
        int n = 0;
        for (const LaneGroup &g : m.layout.groups)
            if (g.role == role && m.parts[size_t(g.part)].rank == rank)
                for (uint32_t r = g.firstRow; r < g.firstRow + g.rowCount; ++r)
                    n += plot.geometry().rowShown(r);
        return n;
    };
    for (int h : rankBlockHeights(plot))
        QVERIFY2(h <= 40, qPrintable(QString::number(h)));
    QCOMPARE(shown(LaneGroup::JobRole::CpuSummary, 0), 1);
    QCOMPARE(shown(LaneGroup::JobRole::GpuSummary, 0), 1);
    QCOMPARE(shown(LaneGroup::JobRole::CpuThread, 0), 0);
    QCOMPARE(shown(LaneGroup::JobRole::Lane, 0), 0);
    // A folded stream's ops are drawn on the GPU strip: the collective kernels are found there.
    const uint32_t kernel = m.collectiveEvents.front().front();
    const int part = m.partOf(kernel);
    int top = 0, height = 0;
    QVERIFY(plot.geometry().rowBand(uint32_t(m.layout.pos(kernel).row), top, height));
    QCOMPARE(height, plot.compactRowHeight());
    plot.revealEvent(kernel);
    const QPoint at = plot.eventPoint(kernel);
    QVERIFY(at.x() >= 0);
    QCOMPARE(plot.eventAt(at), qint64(kernel));
    // Expanded: the rank's threads and streams at full height, no strips.
    const int64_t rank = m.parts[size_t(part)].rank;
    plot.setRankExpanded(rank, true);
    QCOMPARE(shown(LaneGroup::JobRole::GpuSummary, rank), 0);
    QCOMPARE(shown(LaneGroup::JobRole::CpuSummary, rank), 0);
    QVERIFY(shown(LaneGroup::JobRole::Lane, rank) > 0);
    QVERIFY(plot.geometry().rowBand(uint32_t(m.layout.pos(kernel).row), top, height));
    QCOMPARE(height, plot.rowHeight());
    const std::vector<int> expanded = rankBlockHeights(plot);
    QVERIFY(*std::max_element(expanded.begin(), expanded.end()) > 40);
}

void TestFoldedRank::foldedLanesAreMeasuredNotTheirSummary()
{
    // An area selection over a folded rank counts its lanes' ops (the strips leave out
    // or cut the ones that overlap), each once.
    TimelinePlot plot;
    plot.resize(1200, 700);
    plot.setModel(jobTimeline(*m_job));
    const TimelineModel &m = *plot.model();
    const RowGeometry &geo = plot.geometry();
    const int y0 = geo.items[0].y, y1 = geo.items[0].y + rankBlockHeights(plot).front() - 1;
    std::vector<uint32_t> rows = geo.rowsIn(y0, y1 + 1);
    QCOMPARE(int(rows.size()), 2); // the two strips
    // A Shift-drag from the top of the first rank's block to its bottom.
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    auto at = [&](int x, int contentY) { return QPoint(plot.plotRect().left() + x, plot.plotRect().top() + contentY - plot.scrollY()); };
    QTest::mousePress(&plot, Qt::LeftButton, Qt::ShiftModifier, at(10, y0 + 1));
    QTest::mouseMove(&plot, at(200, y1));
    QTest::mouseRelease(&plot, Qt::LeftButton, Qt::ShiftModifier, at(200, y1));
    QVERIFY(plot.measurement());
    const std::vector<uint32_t> measured = plot.measuredRows();
    QVERIFY(measured.size() > 2);
    for (uint32_t r : measured) {
        const LaneGroup &g = m.layout.groups[m.layout.rows[r].group];
        QVERIFY(g.role == LaneGroup::JobRole::Lane || g.role == LaneGroup::JobRole::CpuThread);
        QCOMPARE(g.part, m.layout.groups[geo.items[0].group].part);
    }
}

void TestFoldedRank::realJob()
{
    const std::string dir = testutil::sharedData("pairs/param_dlrm_8rank");
    REQUIRE_SHARED_DATA();
    const auto job = buildJobData({dir}, AnalysisRequest{});
    QVERIFY(job);
    QCOMPARE(int(job->ranks.size()), 8);
    const auto model = jobTimeline(*job);
    QCOMPARE(checkGpuSummaries(*model), 8);
    TimelinePlot plot;
    plot.resize(1500, 900);
    plot.setModel(model);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    const std::vector<int> heights = rankBlockHeights(plot);
    QCOMPARE(int(heights.size()), 8);
    for (int h : heights)
        QVERIFY2(h <= 40, qPrintable(QString::number(h)));
    // The job critical path runs through ranks 7, 5 and 4: its arrows inside a folded rank
    // would be a knot on its strips, so only those between ranks are drawn.
    const auto &edges = model->edges.edges(EdgeKind::CriticalPath);
    size_t across = 0;
    for (const TimelineEdge &e : edges)
        across += model->partOf(e.from) != model->partOf(e.to) ? 1 : 0;
    QVERIFY(across > 0);
    QVERIFY(edges.size() > across + 10);
    plot.replot(QCustomPlot::rpImmediateRefresh);
    const size_t folded = plot.lastPaintStats().edges[size_t(EdgeKind::CriticalPath)];
    // (Arrows between the same two rows closer than 8 px are drawn once.)
    QVERIFY2(folded >= 1 && folded <= across, qPrintable(QString::number(folded)));
    // Unfolded, the rank's own arrows are drawn.
    int64_t rank = -1;
    for (const TimelineEdge &e : edges)
        if (model->partOf(e.from) == model->partOf(e.to))
            rank = model->parts[size_t(model->partOf(e.from))].rank;
    plot.setRankExpanded(rank, true);
    plot.setScrollY(plot.rankHeaderY(rank));
    plot.replot(QCustomPlot::rpImmediateRefresh);
    const size_t expanded = plot.lastPaintStats().edges[size_t(EdgeKind::CriticalPath)];
    QVERIFY2(folded < expanded, qPrintable(QStringLiteral("%1 folded, %2 expanded").arg(folded).arg(expanded)));
}

QTEST_MAIN(TestFoldedRank)
#include "tst_foldedrank.moc"
