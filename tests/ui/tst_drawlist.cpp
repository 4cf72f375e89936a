// SPDX-License-Identifier: MIT
// Lane layout, level of detail (draw list), hit testing, edge culling and row
// geometry: the display-free half of the timeline.
#include "timeline/density.h"
#include "timeline/drawlist.h"
#include "timeline/edgeindex.h"
#include "timeline/lanelayout.h"
#include "timeline/rowgeometry.h"

#include <QTest>

#include <numeric>

using namespace syncscope::ui;

namespace {

// "start:dur" pairs on one track (event ids in order).
LaneLayout layoutOf(const std::vector<std::pair<int64_t, int64_t>> &spans, bool gpu = false)
{
    std::vector<LayoutItem> items;
    for (size_t i = 0; i < spans.size(); ++i) {
        LayoutItem it;
        it.startNs = spans[i].first;
        it.durNs = spans[i].second;
        it.event = static_cast<uint32_t>(i);
        it.band = gpu ? 1 : 0;
        it.category = gpu ? Category::Kernel : Category::CpuOp;
        items.push_back(it);
    }
    return buildLaneLayout(items, {{"lane", "proc", gpu}}, spans.size());
}

// n back-to-back events of `dur` ns starting at 0, `gap` ns apart.
std::vector<std::pair<int64_t, int64_t>> run(size_t n, int64_t dur, int64_t gap, int64_t from = 0)
{
    std::vector<std::pair<int64_t, int64_t>> s;
    for (size_t i = 0; i < n; ++i)
        s.push_back({from + int64_t(i) * (dur + gap), dur});
    return s;
}

} // namespace

class TestDrawList : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void busyRangeLeavesOutEmptySpans();
    void nesting_data();
    void nesting();
    void overlapsAreNeverDropped();
    void roundingOverlapStaysOnItsRow();
    void tracksBecomeGroups();
    void visibleWindow_data();
    void visibleWindow();
    void folding_data();
    void folding();
    void costDependsOnPixels();
    void foldCountsCritical();
    void criticalSpansOfAFold();
    void foldsAreDrawnByDensity();
    void longRowsDensityFromBuckets();
    void hitTest_data();
    void hitTest();
    void edgesVisible();
    void edgesThinnedPerPixel();
    void crossingEdgesThinned();
    void edgesOfEvent();
    void rowGeometryCollapse();
};

void TestDrawList::nesting_data()
{
    QTest::addColumn<QList<qint64>>("spans"); // start, dur, start, dur, ...
    QTest::addColumn<QList<int>>("depths");   // per event
    QTest::newRow("flat") << QList<qint64>{0, 10, 10, 10, 25, 5} << QList<int>{0, 0, 0};
    QTest::newRow("parent child grandchild")
        << QList<qint64>{0, 100, 10, 50, 20, 10} << QList<int>{0, 1, 2};
    QTest::newRow("two children") << QList<qint64>{0, 100, 10, 20, 40, 20} << QList<int>{0, 1, 1};
    QTest::newRow("same start: longer is parent")
        << QList<qint64>{0, 10, 0, 100} << QList<int>{1, 0};
    QTest::newRow("child ends with parent") << QList<qint64>{0, 100, 50, 50, 100, 10} << QList<int>{0, 1, 0};
    QTest::newRow("zero-length inside") << QList<qint64>{0, 100, 30, 0, 40, 10} << QList<int>{0, 1, 1};
}

void TestDrawList::nesting()
{
    QFETCH(QList<qint64>, spans);
    QFETCH(QList<int>, depths);
    std::vector<std::pair<int64_t, int64_t>> s;
    for (int i = 0; i + 1 < spans.size(); i += 2)
        s.push_back({spans[i], spans[i + 1]});
    const LaneLayout l = layoutOf(s);
    for (int i = 0; i < depths.size(); ++i) {
        const EventPos &p = l.pos(uint32_t(i));
        QVERIFY(p.row >= 0);
        QCOMPARE(int(l.rows[p.row].depth), depths[i]);
    }
    // Rows: ascending starts and ends, no overlaps.
    for (const LaneRow &row : l.rows)
        for (size_t i = 1; i < row.size(); ++i) {
            QVERIFY(row.start[i] >= row.end[i - 1]);
            QVERIFY(row.end[i] >= row.end[i - 1]);
        }
}

void TestDrawList::overlapsAreNeverDropped()
{
    // Three kernels on one stream overlapping each other (not nested).
    const LaneLayout l = layoutOf({{0, 100}, {50, 100}, {90, 100}, {300, 10}}, true);
    QCOMPARE(l.itemCount, size_t(4));
    QCOMPARE(l.groups.size(), size_t(1));
    QCOMPARE(l.groups[0].rowCount, 3u);
    QCOMPARE(l.groups[0].overlapRows, 2u);
    size_t placed = 0;
    for (const LaneRow &r : l.rows)
        placed += r.size();
    QCOMPARE(placed, size_t(4));
    QCOMPARE(l.rows[l.pos(0).row].depth, uint16_t(0));
    QCOMPARE(l.rows[l.pos(1).row].depth, uint16_t(1));
    QCOMPARE(l.rows[l.pos(2).row].depth, uint16_t(2));
    QCOMPARE(l.rows[l.pos(3).row].depth, uint16_t(0)); // after the overlap, back on the first row
}

void TestDrawList::roundingOverlapStaysOnItsRow()
{
    // 1 ns "overlap" from µs rounding: same row, shown from where the previous ends.
    LaneLayout l = layoutOf({{0, 100}, {99, 50}}, true);
    QCOMPARE(l.rows.size(), size_t(1));
    QCOMPARE(l.rows[0].start[1], int64_t(100));
    QCOMPARE(l.rows[0].end[1], int64_t(149));
    QCOMPARE(l.groups[0].overlapRows, 0u);
    // 2 ns is a real overlap: a second row, flagged.
    l = layoutOf({{0, 100}, {98, 50}}, true);
    QCOMPARE(l.rows.size(), size_t(2));
    QCOMPARE(l.groups[0].overlapRows, 1u);
}

void TestDrawList::tracksBecomeGroups()
{
    std::vector<LayoutItem> items = {
        {0, 10, 0, 1, 1, Category::Kernel},  {5, 10, 1, 0, 0, Category::CpuOp},
        {0, 30, 2, 1, 0, Category::Annotation}, {40, 1, 3, 1, 2, Category::Sync},
        {20, 5, 4, 3, 0, Category::Other}, // track 2 has no events: no group
    };
    const LaneLayout l = buildLaneLayout(items, {{"t0", "p", false}, {"s7", "GPU", true}, {"empty", "p", false},
                                                 {"t3", "p", false}},
                                         5);
    QCOMPARE(l.groups.size(), size_t(3));
    QCOMPARE(QString::fromStdString(l.groups[0].name), QStringLiteral("t0"));
    QCOMPARE(QString::fromStdString(l.groups[1].name), QStringLiteral("s7"));
    QCOMPARE(QString::fromStdString(l.groups[2].name), QStringLiteral("t3"));
    // GPU group: annotation band, work band, sync band -> three rows in that order.
    QCOMPARE(l.groups[1].rowCount, 3u);
    QCOMPARE(l.pos(2).row, int32_t(l.groups[1].firstRow));
    QCOMPARE(l.pos(0).row, int32_t(l.groups[1].firstRow + 1));
    QCOMPARE(l.pos(3).row, int32_t(l.groups[1].firstRow + 2));
    QCOMPARE(l.endNs, int64_t(41));
}

void TestDrawList::visibleWindow_data()
{
    QTest::addColumn<double>("t0");
    QTest::addColumn<double>("t1");
    QTest::addColumn<int>("first");
    QTest::addColumn<int>("last");
    // Events [0,10) [20,30) [40,50) [60,70)
    QTest::newRow("all") << -5.0 << 100.0 << 0 << 4;
    QTest::newRow("middle two") << 25.0 << 45.0 << 1 << 3;
    QTest::newRow("gap only") << 31.0 << 39.0 << 2 << 2;
    QTest::newRow("touching ends count") << 30.0 << 40.0 << 1 << 3;
    QTest::newRow("before all") << -50.0 << -1.0 << 0 << 0;
    QTest::newRow("after all") << 71.0 << 90.0 << 4 << 4;
    QTest::newRow("inside one") << 62.0 << 63.0 << 3 << 4;
}

void TestDrawList::visibleWindow()
{
    QFETCH(double, t0);
    QFETCH(double, t1);
    QFETCH(int, first);
    QFETCH(int, last);
    const LaneLayout l = layoutOf(run(4, 10, 10));
    const RowWindow w = syncscope::ui::visibleWindow(l.rows[0], t0, t1);
    QCOMPARE(int(w.first), first);
    QCOMPARE(int(w.last), last);
}

void TestDrawList::folding_data()
{
    QTest::addColumn<int>("n");
    QTest::addColumn<qint64>("dur");
    QTest::addColumn<qint64>("gap");
    QTest::addColumn<double>("t0");
    QTest::addColumn<double>("t1");
    QTest::addColumn<int>("width");
    QTest::addColumn<int>("boxes");
    QTest::addColumn<int>("folded");
    // 100 events of 10 ns, back to back, over 1000 ns.
    QTest::newRow("1 px/ns: all drawn") << 100 << qint64(10) << qint64(0) << 0.0 << 1000.0 << 1000 << 100 << 0;
    QTest::newRow("0.1 px/ns: one fold") << 100 << qint64(10) << qint64(0) << 0.0 << 1000.0 << 100 << 1 << 1;
    QTest::newRow("zoomed into 10 events") << 100 << qint64(10) << qint64(0) << 200.0 << 300.0 << 100 << 12 << 0;
    // Gaps wider than 3 px split folds: 1 ns events every 100 ns at 0.1 px/ns = 10 px apart.
    QTest::newRow("sparse tiny events") << 10 << qint64(1) << qint64(99) << 0.0 << 1000.0 << 100 << 10 << 0;
    // Gaps under 3 px fold: 1 ns events every 20 ns at 0.1 px/ns = 2 px apart.
    QTest::newRow("dense tiny events") << 50 << qint64(1) << qint64(19) << 0.0 << 1000.0 << 100 << 1 << 1;
}

void TestDrawList::folding()
{
    QFETCH(int, n);
    QFETCH(qint64, dur);
    QFETCH(qint64, gap);
    QFETCH(double, t0);
    QFETCH(double, t1);
    QFETCH(int, width);
    QFETCH(int, boxes);
    QFETCH(int, folded);
    const LaneLayout l = layoutOf(run(size_t(n), dur, gap));
    std::vector<DrawBox> out;
    buildDrawList(l, Viewport::fit(t0, t1, width), {0}, 3.0, out);
    QCOMPARE(int(out.size()), boxes);
    QCOMPARE(int(std::count_if(out.begin(), out.end(), [](const DrawBox &b) { return b.folded(); })), folded);
    // Never dropping: the boxes cover every event in the window, each exactly once, in order.
    const RowWindow w = syncscope::ui::visibleWindow(l.rows[0], t0, t1 + 0.0);
    uint32_t next = uint32_t(w.first);
    for (const DrawBox &b : out) {
        QCOMPARE(b.first, next);
        next += b.count;
        QVERIFY(b.x1 >= b.x0);
    }
    QCOMPARE(next, uint32_t(w.last));
}

void TestDrawList::costDependsOnPixels()
{
    // One row of a million 10 ns events: zoomed out over 1000 px, the draw list has at
    // most a few hundred boxes and needs about one binary search per 3 px.
    const LaneLayout l = layoutOf(run(1'000'000, 10, 5));
    std::vector<DrawBox> out;
    DrawListStats stats;
    buildDrawList(l, Viewport::fit(0, double(l.endNs), 1000), {0}, 3.0, out, &stats);
    QVERIFY2(out.size() <= 1000 / 3 + 1, qPrintable(QString::number(out.size())));
    QVERIFY2(stats.searches <= 2 + 2 * (1000 / 3 + 1), qPrintable(QString::number(stats.searches)));
    uint64_t covered = 0;
    for (const DrawBox &b : out)
        covered += b.count;
    QCOMPARE(covered, uint64_t(1'000'000));
    // Zoomed in on 100 ns: only the dozen events there.
    out.clear();
    buildDrawList(l, Viewport::fit(500'000, 500'100, 1000), {0}, 3.0, out);
    QCOMPARE(out.size(), size_t(8));
    QVERIFY(std::none_of(out.begin(), out.end(), [](const DrawBox &b) { return b.folded(); }));
}

void TestDrawList::foldCountsCritical()
{
    LaneLayout l = layoutOf(run(100, 10, 0));
    l.setCritical({3, 4, 50, 99});
    QVERIFY(l.isCritical(50));
    QVERIFY(!l.isCritical(51));
    std::vector<DrawBox> out;
    buildDrawList(l, Viewport::fit(0, 1000, 100), {0}, 3.0, out);
    QCOMPARE(out.size(), size_t(1));
    QCOMPARE(out[0].critical, 4u);
    out.clear();
    buildDrawList(l, Viewport::fit(0, 1000, 1000), {0}, 3.0, out);
    QCOMPARE(out[4].critical, 1u);
    QCOMPARE(out[5].critical, 0u);
    l.setCritical({});
    QVERIFY(!l.isCritical(50));
}

// Issue 41, item 3: a folded box is drawn per pixel column as busy as its row is there, in
// the colour of what mostly runs there; idle columns stay empty.
void TestDrawList::longRowsDensityFromBuckets()
{
    // A long row (its searches start from a time bucket): sparse ops, a crowded burst of
    // 6,000 1 ns ops, and ops of every length; at any zoom the density is the one the
    // plain searches give, column for column.
    std::vector<std::pair<int64_t, int64_t>> s = run(3000, 700, 1300);
    const int64_t burst = s.back().first + 5000;
    for (int64_t k = 0; k < 6000; ++k)
        s.push_back({burst + 2 * k, 1});
    int64_t t = burst + 20000;
    for (int64_t k = 0; k < 4000; ++k) {
        const int64_t dur = 1 + (k * 7919) % 5000;
        s.push_back({t, dur});
        t += dur + (k * 104729) % 3000;
    }
    LaneLayout l = layoutOf(s);
    QCOMPARE(l.rows.size(), size_t(1));
    const LaneRow &row = l.rows[0];
    QVERIFY(row.bucketWidth > 0);
    LaneRow plain = row;
    plain.bucketWidth = 0;
    plain.bucketFirst.clear();
    const int64_t end = row.end.back();
    for (const double width : {200.0, 1000.0, 4000.0, 30000.0}) {
        for (const int64_t from : {int64_t(0), burst - 1000, end / 2}) {
            const Viewport v = Viewport::fit(double(from), double(end), int(width));
            std::vector<DrawBox> boxes;
            buildDrawList(l, v, {0}, 3.0, boxes);
            int folded = 0;
            for (const DrawBox &b : boxes) {
                if (!b.folded())
                    continue;
                ++folded;
                std::vector<PxDensity> a, e;
                foldedDensity(row, v, b, a);
                foldedDensity(plain, v, b, e);
                QCOMPARE(a.size(), e.size());
                for (size_t k = 0; k < a.size(); ++k) {
                    QCOMPARE(a[k].x, e[k].x);
                    QCOMPARE(a[k].busy, e[k].busy);
                    QCOMPARE(int(a[k].category), int(e[k].category));
                }
            }
            QVERIFY(folded > 0 || width >= 30000);
        }
    }
    // Each search from a bucket lands where a plain one does.
    for (int64_t q = row.start.front() - 10; q < end + 10; q += 997)
        QCOMPARE(row.searchFrom(0, double(q)), plain.searchFrom(0, double(q)));
}

void TestDrawList::foldsAreDrawnByDensity()
{
    // 500 ns ops every 2 µs over 1 ms at 1 µs per pixel: one fold (the 1.5 µs gaps are under
    // 3 px), half the columns busy by a half, the others idle.
    LaneLayout l = layoutOf(run(500, 500, 1500));
    const Viewport v = Viewport::fit(0, 1'000'000, 1000);
    std::vector<DrawBox> boxes;
    buildDrawList(l, v, {0}, 3.0, boxes);
    QCOMPARE(boxes.size(), size_t(1));
    QVERIFY(boxes[0].folded());
    std::vector<PxDensity> d;
    foldedDensity(l.rows[0], v, boxes[0], d);
    QCOMPARE(d.size(), size_t(500)); // the idle columns are absent
    for (const PxDensity &c : d) {
        QCOMPARE(c.x % 2, 0);
        QVERIFY2(qAbs(c.busy - 0.5f) < 1e-6f, qPrintable(QString::number(c.busy)));
    }
    QCOMPARE(busyNs(l.rows[0], 0, 1'000'000), 250'000.0);
    QCOMPARE(busyNs(l.rows[0], 250, 2250), 500.0); // half of op 0, half of op 1
    QCOMPARE(busyNs(l.rows[0], 600, 1900), 0.0);   // a gap

    // The colour is the category with most of the column, not the run's first op: a 100 ns
    // copy then a 700 ns kernel in every 1 µs column.
    std::vector<LayoutItem> items;
    for (uint32_t k = 0; k < 1000; ++k) {
        LayoutItem copy, kernel;
        copy.startNs = 1000 * k;
        copy.durNs = 100;
        copy.event = 2 * k;
        copy.band = 1;
        copy.category = Category::Memcpy;
        kernel.startNs = 1000 * k + 150;
        kernel.durNs = 700;
        kernel.event = 2 * k + 1;
        kernel.band = 1;
        kernel.category = Category::Kernel;
        items.push_back(copy);
        items.push_back(kernel);
    }
    const LaneLayout mixed = buildLaneLayout(items, {{"stream 7", "GPU 0", true}}, items.size());
    const uint32_t row = mixed.groups[0].firstRow;
    boxes.clear();
    buildDrawList(mixed, v, {row}, 3.0, boxes);
    QCOMPARE(boxes.size(), size_t(1));
    QCOMPARE(boxes[0].category, Category::Memcpy); // what the solid bar was coloured by
    foldedDensity(mixed.rows[row], v, boxes[0], d);
    QCOMPARE(d.size(), size_t(1000));
    for (const PxDensity &c : d) {
        QCOMPARE(c.category, Category::Kernel);
        QVERIFY(qAbs(c.busy - 0.8f) < 1e-6f);
    }
}

void TestDrawList::criticalSpansOfAFold()
{
    // Issue 23: 100,000 back-to-back 10 ns ops over 1000 px fold into one box; its red goes
    // only where the critical ops are, one span per group less than a pixel apart.
    LaneLayout l = layoutOf(run(100'000, 10, 0));
    l.setCritical({3, 4, 50'000, 99'999});
    const Viewport v = Viewport::fit(0, double(l.endNs), 1000);
    std::vector<DrawBox> boxes;
    buildDrawList(l, v, {0}, 3.0, boxes);
    QCOMPARE(boxes.size(), size_t(1));
    QCOMPARE(boxes[0].critical, 4u);
    std::vector<PxSpan> spans;
    criticalSpans(l.rows[0], v, boxes[0], spans);
    QCOMPARE(spans.size(), size_t(3));
    QVERIFY(qAbs(spans[0].x0 - 0.03) < 1e-9 && qAbs(spans[0].x1 - 0.05) < 1e-9); // ops 3 and 4, joined
    QVERIFY(qAbs(spans[1].x0 - 500.0) < 1e-9 && qAbs(spans[1].x1 - 500.01) < 1e-9);
    QVERIFY(qAbs(spans[2].x0 - 999.99) < 1e-9 && qAbs(spans[2].x1 - 1000.0) < 1e-9);
    // Critical ops every 50 px: 20 spans; every 2nd op: one span along the whole box (the
    // count follows the pixels, not the 50,000 critical ops).
    std::vector<uint32_t> every;
    for (uint32_t e = 0; e < 100'000; e += 5000)
        every.push_back(e);
    l.setCritical(every);
    spans.clear();
    criticalSpans(l.rows[0], v, boxes[0], spans);
    QCOMPARE(spans.size(), size_t(20));
    QVERIFY(qAbs(spans[7].x0 - 350.0) < 1e-9);
    every.clear();
    for (uint32_t e = 0; e < 100'000; e += 2)
        every.push_back(e);
    l.setCritical(every);
    spans.clear();
    criticalSpans(l.rows[0], v, boxes[0], spans);
    QCOMPARE(spans.size(), size_t(1));
    QVERIFY(spans[0].x0 < 0.01 && spans[0].x1 > 999.9);
    // No critical op: no span; spans are appended after what the vector holds.
    l.setCritical({});
    criticalSpans(l.rows[0], v, boxes[0], spans);
    QCOMPARE(spans.size(), size_t(1));
    // Zoomed in, a fold of part of the row: only its own critical ops count.
    l.setCritical({10, 5000});
    const Viewport z = Viewport::fit(0, 20'000, 1000); // 20 ns/px: 10 ns ops fold
    boxes.clear();
    buildDrawList(l, z, {0}, 3.0, boxes);
    QCOMPARE(boxes.size(), size_t(1));
    QCOMPARE(boxes[0].critical, 1u);
    spans.clear();
    criticalSpans(l.rows[0], z, boxes[0], spans);
    QCOMPARE(spans.size(), size_t(1));
    QVERIFY(qAbs(spans[0].x0 - 5.0) < 1e-9 && qAbs(spans[0].x1 - 5.5) < 1e-9);
}

void TestDrawList::hitTest_data()
{
    QTest::addColumn<double>("t");
    QTest::addColumn<double>("tolerance");
    QTest::addColumn<qint64>("event");
    // Events [0,10) [20,30) [40,50)
    QTest::newRow("inside first") << 5.0 << 0.0 << qint64(0);
    QTest::newRow("inside last") << 45.0 << 0.0 << qint64(2);
    QTest::newRow("gap, no tolerance") << 15.0 << 0.0 << qint64(-1);
    QTest::newRow("gap, nearer left") << 12.0 << 3.0 << qint64(0);
    QTest::newRow("gap, nearer right") << 18.0 << 3.0 << qint64(1);
    QTest::newRow("after all, within") << 52.0 << 3.0 << qint64(2);
    QTest::newRow("after all, beyond") << 60.0 << 3.0 << qint64(-1);
    QTest::newRow("before all") << -2.0 << 3.0 << qint64(0);
}

void TestDrawList::hitTest()
{
    QFETCH(double, t);
    QFETCH(double, tolerance);
    QFETCH(qint64, event);
    const LaneLayout l = layoutOf(run(3, 10, 10));
    QCOMPARE(qint64(eventAt(l.rows[0], t, tolerance)), event);
}

void TestDrawList::edgesVisible()
{
    EdgeIndex index;
    index.add({0, 1, 0, 10, EdgeKind::Launch});
    index.add({2, 3, 100, 110, EdgeKind::Launch});
    index.add({4, 5, 5, 10000, EdgeKind::CriticalPath}); // long: spans any view
    index.add({6, 7, 500, 300, EdgeKind::Sync});          // backwards in time
    index.finish();
    std::vector<uint32_t> ids;
    index.visible(EdgeKind::Launch, 50, 200, 1, 100, ids);
    QCOMPARE(ids.size(), size_t(1));
    QCOMPARE(index.edges(EdgeKind::Launch)[ids[0]].from, 2u);
    ids.clear();
    index.visible(EdgeKind::CriticalPath, 5000, 6000, 1, 100, ids);
    QCOMPARE(ids.size(), size_t(1));
    ids.clear();
    index.visible(EdgeKind::Sync, 350, 360, 1, 100, ids);
    QCOMPARE(ids.size(), size_t(1));
    ids.clear();
    index.visible(EdgeKind::Launch, 20, 90, 1, 100, ids);
    QCOMPARE(ids.size(), size_t(0));
    QCOMPARE(index.total(), size_t(4));
}

void TestDrawList::edgesThinnedPerPixel()
{
    EdgeIndex index;
    for (uint32_t i = 0; i < 10000; ++i) // an edge every 1 ns
        index.add({i, i + 1, double(i), double(i) + 0.5, EdgeKind::Launch});
    index.finish();
    std::vector<uint32_t> ids;
    index.visible(EdgeKind::Launch, 0, 10000, 10.0, 100000, ids); // under budget: all
    QCOMPARE(ids.size(), size_t(10000));
    ids.clear();
    index.visible(EdgeKind::Launch, 0, 10000, 10.0, 50, ids); // over budget: one per 10 ns column after 51
    QVERIFY2(ids.size() <= 51 + 10000 / 10 + 1, qPrintable(QString::number(ids.size())));
    QVERIFY(ids.size() >= 10000 / 10);
    QVERIFY(std::is_sorted(ids.begin(), ids.end()));
}

void TestDrawList::crossingEdgesThinned()
{
    // 10000 edges that all start left of the view and end inside it, 1 ns apart.
    EdgeIndex index;
    for (uint32_t i = 0; i < 10000; ++i)
        index.add({i, i + 1, -1000.0 - i, double(i), EdgeKind::InterThread});
    index.finish();
    std::vector<uint32_t> ids;
    index.visible(EdgeKind::InterThread, 0, 10000, 100.0, 20, ids); // 100 columns
    QVERIFY2(ids.size() <= 20 + 101, qPrintable(QString::number(ids.size())));
    QVERIFY(ids.size() >= 100);
    // Edges spanning the whole view share one column.
    EdgeIndex spanning;
    for (uint32_t i = 0; i < 1000; ++i)
        spanning.add({i, i + 1, -1.0 - i, 1e6 + i, EdgeKind::Sync});
    spanning.finish();
    ids.clear();
    spanning.visible(EdgeKind::Sync, 0, 100, 1.0, 10, ids);
    QCOMPARE(ids.size(), size_t(11));
}

void TestDrawList::edgesOfEvent()
{
    EdgeIndex index;
    index.add({1, 2, 0, 1, EdgeKind::Launch});
    index.add({2, 3, 1, 2, EdgeKind::Sync});
    index.add({4, 2, 1, 2, EdgeKind::InterThread});
    index.finish();
    const auto refs = index.edgesOf(2);
    QCOMPARE(refs.size(), size_t(3));
    QCOMPARE(index.edgesOf(9).size(), size_t(0));
    QCOMPARE(index.edgesOf(4).size(), size_t(1));
    QCOMPARE(int(index.edgesOf(4)[0].kind), int(EdgeKind::InterThread));
}

void TestDrawList::rowGeometryCollapse()
{
    std::vector<LayoutItem> items = {
        {0, 100, 0, 0, 0, Category::CpuOp}, {10, 10, 1, 0, 0, Category::CpuOp}, {12, 2, 2, 0, 0, Category::CpuOp},
        {0, 10, 3, 1, 1, Category::Kernel},
    };
    const LaneLayout l = buildLaneLayout(items, {{"t", "p", false}, {"s", "GPU", true}}, 4);
    RowGeometry g;
    g.build(l, {false, false}, 20, 18, 4);
    // header(18) + 3 rows + gap, header(18) + 1 row + gap
    QCOMPARE(g.totalHeight, 18 + 60 + 4 + 18 + 20 + 4);
    QCOMPARE(g.rowCenterY(2), 18 + 40 + 10);
    QCOMPARE(g.rowsIn(0, 1000).size(), size_t(4));
    QCOMPARE(g.rowsIn(18, 38), std::vector<uint32_t>{0});
    QCOMPARE(g.itemAtY(5), 0);
    QVERIFY(g.items[0].header);
    g.build(l, {true, false}, 20, 18, 4);
    QCOMPARE(g.totalHeight, 18 + 20 + 4 + 18 + 20 + 4);
    QVERIFY(g.rowShown(0));
    QVERIFY(!g.rowShown(2));
    QCOMPARE(g.rowCenterY(2), g.rowCenterY(0)); // hidden rows map to the lane's first row
    QCOMPARE(g.rowsIn(0, 1000).size(), size_t(2));
}

// Issue 13: fit-all fitted a trace whose events end long before its last straggler.
void TestDrawList::busyRangeLeavesOutEmptySpans()
{
    // 1000 ops in the first 2 ms, one more at 60 ms.
    auto spans = run(1000, 1500, 500);
    spans.push_back({60'000'000, 1000});
    const TimeSpan r = busyRange(layoutOf(spans));
    QVERIFY2(r.t0 < 100'000 && r.t1 >= 1'999'000 && r.t1 < 2'100'000, qPrintable(QStringLiteral("%1 .. %2").arg(r.t0).arg(r.t1)));
    // Activity spread over the whole trace: the whole trace.
    auto even = run(1000, 1500, 500);
    for (const auto &p : run(1000, 1500, 500, 58'000'000))
        even.push_back(p);
    const LaneLayout l = layoutOf(even);
    const TimeSpan whole = busyRange(l);
    QCOMPARE(whole.t0, 0.0);
    QCOMPARE(whole.t1, double(l.endNs));
}

QTEST_GUILESS_MAIN(TestDrawList)
#include "tst_drawlist.moc"
