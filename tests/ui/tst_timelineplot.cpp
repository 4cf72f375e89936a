// SPDX-License-Identifier: MIT
// The timeline widget driven by QTest events (offscreen): the wheel in both
// mappings, click selection, keys and focus, drag pan, Shift-drag measure, zoom
// history, lane collapse, edge toggles, the selected op's edges, and where the
// critical path's red goes at fit-all.
#include "timeline/overviewstrip.h"
#include "timeline/timelinelayers.h"
#include "timeline/timelineview.h"
#include "testutil.h"
#include "theme.h"
#include "tracebuilder.h"
#include "uitestutil.h"

#include "analysis/criticalpath.h"
#include "parse/traceloader.h"

#include <QCheckBox>
#include <QSettings>
#include <QStandardPaths>
#include <QTest>
#include <QToolTip>
#include <QWindow>

using namespace syncscope;
using namespace syncscope::ui;

namespace {

// angleDelta (dx, dy): 120 is one notch; dy > 0 away from the user, dx > 0 to the left.
void sendWheel(QWidget *w, QPoint pos, QPoint delta, Qt::KeyboardModifiers mods = Qt::NoModifier)
{
    QWheelEvent e(QPointF(pos), QPointF(w->mapToGlobal(pos)), QPoint(), delta, Qt::NoButton, mods, Qt::NoScrollPhase,
                  false);
    QCoreApplication::sendEvent(w, &e);
}

void sendWheel(QWidget *w, QPoint pos, int dy, Qt::KeyboardModifiers mods = Qt::NoModifier)
{
    sendWheel(w, pos, QPoint(0, dy), mods);
}

double span(const TimeRange &r)
{
    return r.t1 - r.t0;
}

} // namespace

class TestTimelinePlot : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void init();
    void wheelScrollsLanes();
    void ctrlWheelZoomsAtCursor();
    void sidewaysWheelPans();
    void oldWheelMapping();
    void focusedPlotTakesKeys();
    void clickSelectsOpUnderCursor();
    void keysZoomPanFit();
    void dragPans();
    void shiftDragMeasures();
    void zoomHistory();
    void labelClickCollapses();
    void edgeTogglesHideArrows();
    void selectedOpEdgesAlwaysShown();
    void inferredSyncEdgesDashed();
    void replayedKernelShowsGraphLaunchArrow();
    void revealBringsOpIntoView();
    void revealZoomStaysInsideTrace();
    void overviewStripMovesView();
    void pinAndHideLanes();
    void repaintIsPixelBound();
    void fitAllRedOnlyWhereThePathIs();
    void darkPalette();
    void deepStacksOpenCollapsed();
    void tooltipGoesWithAZoom();
    void overviewFollowsTheTheme();

private:
    std::shared_ptr<Analysis> m_analysis;
    std::unique_ptr<TimelineView> m_view;
    TimelinePlot *plot() const { return m_view->plot(); }
    void repaint() const { plot()->replot(QCustomPlot::rpImmediateRefresh); }
    qint64 longestOp(Category c) const;
};

void TestTimelinePlot::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true); // the wheel setting goes to a test location
    m_analysis = uitest::sampleAnalysis();
    QVERIFY(m_analysis->inputsOk);
}

void TestTimelinePlot::init()
{
    TimelinePlot::setWheelZooms(false); // the default, whatever an earlier run left
    m_view = std::make_unique<TimelineView>();
    m_view->resize(1200, 700);
    auto model = buildTimelineModel(m_analysis->device);
    model->edges = buildEdgeIndex(*model, *m_analysis, &*m_analysis->criticalPath);
    model->layout.setCritical(m_analysis->criticalPath->criticalEvents);
    m_view->setModel(model);
    m_view->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_view.get()));
    repaint();
}

qint64 TestTimelinePlot::longestOp(Category c) const
{
    const TimelineModel &m = *plot()->model();
    qint64 best = -1;
    for (uint32_t i = 0; i < m.trace->events.size(); ++i)
        if (m.layout.pos(i).row >= 0 && m.category(i) == c &&
            (best < 0 || m.endNs(i) - m.startNs(i) > m.endNs(uint32_t(best)) - m.startNs(uint32_t(best))))
            best = i;
    return best;
}

void TestTimelinePlot::wheelScrollsLanes()
{
    // Issue 23: as Perfetto and Nsight Systems, the plain wheel scrolls the lanes; the time range stays.
    plot()->resize(plot()->width(), 200); // content taller than the view
    repaint();
    QVERIFY(plot()->contentHeight() > plot()->visibleHeight());
    const TimeRange before = plot()->range();
    const QRect r = plot()->plotRect();
    const QPoint at(r.left() + r.width() / 4, r.center().y());
    QCOMPARE(plot()->scrollY(), 0);
    sendWheel(plot(), at, -120); // towards the user: down the lanes
    QCOMPARE(plot()->scrollY(), 3 * plot()->rowHeight());
    QCOMPARE(plot()->range().t0, before.t0);
    QCOMPARE(plot()->range().t1, before.t1);
    sendWheel(plot(), at, 120);
    QCOMPARE(plot()->scrollY(), 0);
    QVERIFY(!plot()->zoomHistory()->canGoBack()); // scrolling is no zoom step
    // With every lane in view there is nothing to scroll: nothing moves.
    plot()->resize(plot()->width(), plot()->contentHeight() + 200);
    repaint();
    QVERIFY(plot()->contentHeight() <= plot()->visibleHeight());
    const TimeRange tall = plot()->range();
    sendWheel(plot(), at, -120);
    QCOMPARE(plot()->scrollY(), 0);
    QCOMPARE(plot()->range().t0, tall.t0);
    QCOMPARE(plot()->range().t1, tall.t1);
}

void TestTimelinePlot::ctrlWheelZoomsAtCursor()
{
    plot()->resize(plot()->width(), 200);
    repaint();
    const TimeRange before = plot()->range();
    const QRect r = plot()->plotRect();
    const QPoint at(r.left() + r.width() / 4, r.center().y());
    const double tAt = plot()->viewport().toTime(at.x() - r.left());
    sendWheel(plot(), at, 120, Qt::ControlModifier);
    const TimeRange after = plot()->range();
    QVERIFY2(qAbs(span(before) / span(after) - 1.2) < 1e-9, qPrintable(QString::number(span(before) / span(after))));
    QVERIFY(qAbs(plot()->viewport().toTime(at.x() - r.left()) - tAt) < 1e-6 * span(before)); // the time under the cursor
    QCOMPARE(plot()->scrollY(), 0);
    sendWheel(plot(), at, -120, Qt::ControlModifier);
    QVERIFY(qAbs(span(plot()->range()) - span(before)) < 1e-6 * span(before));
}

void TestTimelinePlot::sidewaysWheelPans()
{
    plot()->setRange({100000, 200000});
    plot()->resize(plot()->width(), 200);
    repaint();
    const TimeRange before = plot()->range();
    const QPoint at = plot()->plotRect().center();
    // A sideways notch to the right (dx < 0): a tenth of the view later, same span, no scroll.
    sendWheel(plot(), at, QPoint(-120, 0));
    QVERIFY2(qAbs(plot()->range().t0 - (before.t0 + 0.1 * span(before))) < 1e-6 * span(before),
             qPrintable(QString::number(plot()->range().t0 - before.t0)));
    QVERIFY(qAbs(span(plot()->range()) - span(before)) < 1e-6 * span(before));
    QCOMPARE(plot()->scrollY(), 0);
    // Shift+wheel pans too (towards the user: later), and does not scroll.
    sendWheel(plot(), at, QPoint(0, -120), Qt::ShiftModifier);
    QVERIFY(qAbs(plot()->range().t0 - (before.t0 + 0.2 * span(before))) < 1e-6 * span(before));
    QCOMPARE(plot()->scrollY(), 0);
    sendWheel(plot(), at, QPoint(120, 0));
    sendWheel(plot(), at, QPoint(120, 0));
    QVERIFY(qAbs(plot()->range().t0 - before.t0) < 1e-6 * span(before));
}

void TestTimelinePlot::oldWheelMapping()
{
    // View > Wheel zooms (old mapping): the wheel zooms at the cursor, Shift+wheel scrolls;
    // a setting shared by every plot and kept across runs.
    TimelinePlot::setWheelZooms(true);
    QVERIFY(TimelinePlot::wheelZooms());
    QCOMPARE(QSettings().value(QStringLiteral("timeline/wheelZooms")).toBool(), true);
    plot()->resize(plot()->width(), 200);
    repaint();
    const TimeRange before = plot()->range();
    const QRect r = plot()->plotRect();
    const QPoint at(r.left() + r.width() / 4, r.center().y());
    const double tAt = plot()->viewport().toTime(at.x() - r.left());
    sendWheel(plot(), at, 120);
    QVERIFY(qAbs(span(before) / span(plot()->range()) - 1.2) < 1e-9);
    QVERIFY(qAbs(plot()->viewport().toTime(at.x() - r.left()) - tAt) < 1e-6 * span(before));
    QCOMPARE(plot()->scrollY(), 0);
    const TimeRange kept = plot()->range();
    sendWheel(plot(), at, -120, Qt::ShiftModifier);
    QVERIFY(plot()->scrollY() > 0);
    QCOMPARE(plot()->range().t0, kept.t0);
    // A second plot (the compare window's are TimelinePlots too) follows the same setting.
    TimelinePlot other;
    other.resize(800, 400);
    other.setModel(plot()->sharedModel());
    const TimeRange o = other.range();
    sendWheel(&other, other.plotRect().center(), 120);
    QVERIFY(span(other.range()) < span(o));
    TimelinePlot::setWheelZooms(false);
    QCOMPARE(QSettings().value(QStringLiteral("timeline/wheelZooms")).toBool(), false);
    const TimeRange o2 = other.range();
    sendWheel(&other, other.plotRect().center(), 120);
    QCOMPARE(other.range().t0, o2.t0);
    QCOMPARE(other.range().t1, o2.t1);
}

void TestTimelinePlot::focusedPlotTakesKeys()
{
    // Keys typed into the window go to the focus widget; a checkbox ignores W, the plot zooms.
    QWindow *window = m_view->windowHandle();
    QVERIFY(window);
    QCOMPARE(plot()->focusPolicy(), Qt::StrongFocus);
    QCheckBox *other = m_view->edgeToggle(EdgeKind::Sync);
    other->setFocus();
    QCOMPARE(m_view->focusWidget(), other);
    const TimeRange all = plot()->range();
    QTest::keyClick(window, Qt::Key_W);
    QCOMPARE(plot()->range().t0, all.t0);
    QCOMPARE(plot()->range().t1, all.t1);
    // What the window does after a click in a table: the focus back on the timeline.
    plot()->setFocus();
    QCOMPARE(m_view->focusWidget(), plot());
    QTest::keyClick(window, Qt::Key_W);
    QVERIFY2(qAbs(span(all) / span(plot()->range()) - 1.5) < 1e-9, "W zooms in");
    const TimeRange zoomed = plot()->range();
    QTest::keyClick(window, Qt::Key_D);
    QVERIFY(qAbs(plot()->range().t0 - (zoomed.t0 + 0.2 * span(zoomed))) < 1e-6 * span(zoomed));
    QTest::keyClick(window, Qt::Key_A);
    QVERIFY(qAbs(plot()->range().t0 - zoomed.t0) < 1e-6 * span(zoomed));
    QTest::keyClick(window, Qt::Key_S);
    QVERIFY(qAbs(span(plot()->range()) - span(all)) < 1e-6 * span(all));
    plot()->setRange({1000, 5000});
    QTest::keyClick(window, Qt::Key_Home);
    QCOMPARE(plot()->range().t0, all.t0);
    QCOMPARE(plot()->range().t1, all.t1);
    // The keys are the same in the old wheel mapping.
    TimelinePlot::setWheelZooms(true);
    QTest::keyClick(window, Qt::Key_W);
    QVERIFY(qAbs(span(all) / span(plot()->range()) - 1.5) < 1e-9);
    QTest::keyClick(window, Qt::Key_Home);
    QCOMPARE(plot()->range().t0, all.t0);
    TimelinePlot::setWheelZooms(false);
    // A click in the plot takes the focus back too.
    other->setFocus();
    QTest::mouseClick(plot(), Qt::LeftButton, Qt::NoModifier, plot()->plotRect().center());
    QCOMPARE(m_view->focusWidget(), plot());
}

void TestTimelinePlot::clickSelectsOpUnderCursor()
{
    const qint64 step = longestOp(Category::Annotation);
    QVERIFY(step >= 0);
    const QPoint p = plot()->eventPoint(uint32_t(step));
    QVERIFY(p.x() >= 0);
    QCOMPARE(plot()->eventAt(p), step);
    QTest::mouseClick(plot(), Qt::LeftButton, Qt::NoModifier, p);
    QCOMPARE(plot()->selection()->event(), step);
    // Zoom in on a kernel and click it.
    const qint64 kernel = longestOp(Category::Kernel);
    plot()->setRange({plot()->model()->startNs(uint32_t(kernel)) - 1000, plot()->model()->endNs(uint32_t(kernel)) + 1000});
    repaint();
    const QPoint k = plot()->eventPoint(uint32_t(kernel));
    QVERIFY(k.x() >= 0);
    QTest::mouseClick(plot(), Qt::LeftButton, Qt::NoModifier, k);
    QCOMPARE(plot()->selection()->event(), kernel);
    // Empty space (a process header row) clears it.
    const QRect r = plot()->plotRect();
    QTest::mouseClick(plot(), Qt::LeftButton, Qt::NoModifier, QPoint(r.center().x(), r.top() + 3));
    QCOMPARE(plot()->selection()->event(), qint64(-1));
}

void TestTimelinePlot::keysZoomPanFit()
{
    const TimeRange all = plot()->range();
    QTest::keyClick(plot(), Qt::Key_W);
    QVERIFY2(qAbs(span(all) / span(plot()->range()) - 1.5) < 1e-9, "W zooms in by 1.5");
    const TimeRange zoomed = plot()->range();
    QTest::keyClick(plot(), Qt::Key_D);
    const double shift = plot()->range().t0 - zoomed.t0;
    QVERIFY2(qAbs(shift - 0.2 * span(zoomed)) < 1e-6 * span(zoomed), qPrintable(QString::number(shift)));
    QTest::keyClick(plot(), Qt::Key_A);
    QVERIFY(qAbs(plot()->range().t0 - zoomed.t0) < 1e-6 * span(zoomed));
    QTest::keyClick(plot(), Qt::Key_S);
    QVERIFY(qAbs(span(plot()->range()) - span(all)) < 1e-6 * span(all));
    QTest::keyClick(plot(), Qt::Key_W);
    QTest::keyClick(plot(), Qt::Key_0);
    QCOMPARE(plot()->range().t0, all.t0);
    QCOMPARE(plot()->range().t1, all.t1);
    // F fits the selected op with 10 % on each side.
    const qint64 kernel = longestOp(Category::Kernel);
    plot()->selection()->setEvent(kernel);
    QTest::keyClick(plot(), Qt::Key_F);
    const double s = plot()->model()->startNs(uint32_t(kernel)), e = plot()->model()->endNs(uint32_t(kernel));
    const double pad = std::max(50.0, 0.1 * (e - s));
    QVERIFY(qAbs(plot()->range().t0 - (s - pad)) < 1e-6);
    QVERIFY(qAbs(plot()->range().t1 - (e + pad)) < 1e-6);
    QTest::keyClick(plot(), Qt::Key_Escape);
    QCOMPARE(plot()->selection()->event(), qint64(-1));
}

void TestTimelinePlot::dragPans()
{
    plot()->setRange({100000, 200000});
    repaint();
    const Viewport v = plot()->viewport();
    const QRect r = plot()->plotRect();
    const QPoint from(r.center().x(), r.center().y());
    QTest::mousePress(plot(), Qt::LeftButton, Qt::NoModifier, from);
    QTest::mouseMove(plot(), from - QPoint(100, 0));
    QTest::mouseRelease(plot(), Qt::LeftButton, Qt::NoModifier, from - QPoint(100, 0));
    QVERIFY2(qAbs(plot()->range().t0 - (100000 + 100 * v.nsPerPx)) < 1e-6,
             qPrintable(QString::number(plot()->range().t0)));
    QCOMPARE(plot()->selection()->event(), qint64(-1)); // a drag is not a click
}

void TestTimelinePlot::shiftDragMeasures()
{
    const Viewport v = plot()->viewport();
    const QRect r = plot()->plotRect();
    const QPoint a(r.left() + 100, r.center().y()), b(r.left() + 400, r.center().y());
    QTest::mousePress(plot(), Qt::LeftButton, Qt::ShiftModifier, a);
    QTest::mouseMove(plot(), b);
    QTest::mouseRelease(plot(), Qt::LeftButton, Qt::ShiftModifier, b);
    QVERIFY(plot()->measurement().has_value());
    QVERIFY(qAbs((plot()->measurement()->t1 - plot()->measurement()->t0) - 300 * v.nsPerPx) < 1e-6);
    QCOMPARE(plot()->range().t0, v.startNs); // measuring does not pan
    // F now fits the measured span.
    QTest::keyClick(plot(), Qt::Key_F);
    const double pad = std::max(50.0, 30 * v.nsPerPx);
    QVERIFY(qAbs(plot()->range().t0 - (v.toTime(100) - pad)) < 1e-6);
    QTest::keyClick(plot(), Qt::Key_Escape);
    QVERIFY(!plot()->measurement().has_value());
}

void TestTimelinePlot::zoomHistory()
{
    const TimeRange a = plot()->range();
    plot()->setRange({1000, 5000});
    plot()->setRange({2000, 3000});
    QVERIFY(plot()->zoomHistory()->canGoBack());
    plot()->zoomBack();
    QCOMPARE(plot()->range().t0, 1000.0);
    QCOMPARE(plot()->range().t1, 5000.0);
    plot()->zoomBack();
    QCOMPARE(plot()->range().t0, a.t0);
    QVERIFY(!plot()->zoomHistory()->canGoBack());
    plot()->zoomForward();
    plot()->zoomForward();
    QCOMPARE(plot()->range().t0, 2000.0);
    QVERIFY(!plot()->zoomHistory()->canGoForward());
    // A burst of wheel steps is one entry.
    const size_t depth = plot()->zoomHistory()->depth();
    for (int i = 0; i < 5; ++i)
        sendWheel(plot(), plot()->plotRect().center(), 120, Qt::ControlModifier);
    QCOMPARE(plot()->zoomHistory()->depth(), depth + 1);
    QTest::keyClick(plot(), Qt::Key_Left, Qt::AltModifier);
    QCOMPARE(plot()->range().t0, 2000.0);
}

void TestTimelinePlot::labelClickCollapses()
{
    const RowGeometry &g = plot()->geometry();
    const auto it = std::find_if(g.items.begin(), g.items.end(), [&](const RowGeometry::Item &i) {
        return i.groupFirst && plot()->model()->layout.groups[i.group].rowCount > 1;
    });
    QVERIFY(it != g.items.end());
    const uint32_t group = it->group;
    const int height = plot()->contentHeight();
    const QPoint label(20, plot()->plotRect().top() + it->y + it->height / 2);
    QTest::mouseClick(plot(), Qt::LeftButton, Qt::NoModifier, label);
    QVERIFY(plot()->groupCollapsed(group));
    QCOMPARE(plot()->contentHeight(),
             height - int(plot()->model()->layout.groups[group].rowCount - 1) * plot()->rowHeight());
    QTest::mouseClick(plot(), Qt::LeftButton, Qt::NoModifier, label);
    QVERIFY(!plot()->groupCollapsed(group));
    QCOMPARE(plot()->contentHeight(), height);
}

void TestTimelinePlot::edgeTogglesHideArrows()
{
    // Issue 13: by default only the critical path (and the selected op's edges) are drawn.
    repaint();
    PaintStats s = plot()->lastPaintStats();
    QVERIFY(s.edges[int(EdgeKind::CriticalPath)] > 0);
    for (EdgeKind k : {EdgeKind::Launch, EdgeKind::Sync, EdgeKind::InterThread}) {
        QCOMPARE(s.edges[int(k)], size_t(0));
        QVERIFY(!m_view->edgeToggle(k)->isChecked());
    }
    // The all-launch / all-sync toggles remain.
    for (EdgeKind k : {EdgeKind::Launch, EdgeKind::Sync})
        QTest::mouseClick(m_view->edgeToggle(k), Qt::LeftButton, Qt::NoModifier,
                          QPoint(8, m_view->edgeToggle(k)->height() / 2));
    repaint();
    s = plot()->lastPaintStats();
    for (EdgeKind k : {EdgeKind::Launch, EdgeKind::Sync, EdgeKind::CriticalPath})
        QVERIFY2(s.edges[int(k)] > 0, edgeKindName(k));
    // Thinned by screen distance: at fit-all fewer arrows than edges (no comb, no curtain).
    QVERIFY(s.edges[int(EdgeKind::Launch)] < plot()->model()->edges.count(EdgeKind::Launch));
    QVERIFY(s.edges[int(EdgeKind::CriticalPath)] < plot()->model()->edges.count(EdgeKind::CriticalPath));
    QCOMPARE(s.selectedEdges, size_t(0));
    // Click the Sync check box off: no sync arrows, the others stay.
    QCheckBox *sync = m_view->edgeToggle(EdgeKind::Sync);
    QVERIFY(sync->isChecked());
    QTest::mouseClick(sync, Qt::LeftButton, Qt::NoModifier, QPoint(8, sync->height() / 2));
    QVERIFY(!sync->isChecked());
    QVERIFY(!plot()->edgeToggles()->shown(EdgeKind::Sync));
    repaint();
    const PaintStats off = plot()->lastPaintStats();
    QCOMPARE(off.edges[int(EdgeKind::Sync)], size_t(0));
    QCOMPARE(off.edges[int(EdgeKind::Launch)], s.edges[int(EdgeKind::Launch)]);
    QCOMPARE(off.edges[int(EdgeKind::CriticalPath)], s.edges[int(EdgeKind::CriticalPath)]);
    for (EdgeKind k : {EdgeKind::Launch, EdgeKind::CriticalPath, EdgeKind::InterThread})
        plot()->edgeToggles()->setShown(k, false);
    QVERIFY(!m_view->edgeToggle(EdgeKind::CriticalPath)->isChecked());
    repaint();
    s = plot()->lastPaintStats();
    for (int k = 0; k < kEdgeKindCount; ++k)
        QCOMPARE(s.edges[k], size_t(0));
    // The pixels agree: no critical-path red is left outside the boxes' outlines... count
    // pixels of the critical colour before/after toggling its arrows back on.
    const QImage without = plot()->toPixmap().toImage();
    plot()->edgeToggles()->setShown(EdgeKind::CriticalPath, true);
    repaint();
    const QImage with = plot()->toPixmap().toImage();
    const QRgb red = plot()->colors().critical.rgb();
    auto count = [red](const QImage &img) {
        int n = 0;
        for (int y = 0; y < img.height(); ++y)
            for (int x = 0; x < img.width(); ++x)
                n += (img.pixel(x, y) & 0xffffff) == (red & 0xffffff);
        return n;
    };
    QVERIFY2(count(with) > count(without) + 100, qPrintable(QStringLiteral("%1 vs %2").arg(count(with)).arg(count(without))));
}

void TestTimelinePlot::selectedOpEdgesAlwaysShown()
{
    for (int k = 0; k < kEdgeKindCount; ++k)
        plot()->edgeToggles()->setShown(EdgeKind(k), false);
    const SyncEdge &e = m_analysis->syncEdges.front();
    plot()->selection()->setEvent(e.dst);
    plot()->revealEvent(e.dst);
    repaint();
    const size_t expected = plot()->model()->edges.edgesOf(e.dst).size();
    QVERIFY(expected >= 1);
    QCOMPARE(plot()->lastPaintStats().selectedEdges, expected);
    QCOMPARE(plot()->lastPaintStats().edges[int(EdgeKind::Sync)], size_t(0));
}

// Issue 28: sync edges from cuda_sync rows are drawn solid, inferred ones dashed (also
// as the selected op's edges, and when many arrows are drawn as thin lines); the
// legend says how many were inferred.
void TestTimelinePlot::inferredSyncEdgesDashed()
{
    const QColor col(10, 120, 200);
    QCOMPARE(timelineEdgePen(EdgeKind::Sync, false, col).style(), Qt::SolidLine);
    QCOMPARE(timelineEdgePen(EdgeKind::Sync, true, col).style(), Qt::DashLine);
    QCOMPARE(timelineEdgePen(EdgeKind::Sync, false, col, true).style(), Qt::SolidLine);
    QCOMPARE(timelineEdgePen(EdgeKind::Sync, true, col, true).style(), Qt::DashLine);
    QCOMPARE(timelineEdgePen(EdgeKind::Sync, false, col, false, true).style(), Qt::SolidLine);
    QCOMPARE(timelineEdgePen(EdgeKind::Sync, true, col, false, true).style(), Qt::DashLine);
    QCOMPARE(timelineEdgePen(EdgeKind::Launch, false, col).style(), Qt::SolidLine);
    QCOMPARE(timelineEdgePen(EdgeKind::InterThread, false, col).style(), Qt::DotLine);
    QCOMPARE(timelineEdgePen(EdgeKind::Sync, true, col).widthF(), timelineEdgePen(EdgeKind::Sync, false, col).widthF());

    const auto a = uitest::analyseKineto(uitest::inferredSyncTrace());
    QVERIFY(a->inputsOk && a->criticalPath);
    auto model = buildTimelineModel(a->device);
    model->edges = buildEdgeIndex(*model, *a, &*a->criticalPath);
    m_view->setModel(model);
    plot()->edgeToggles()->setShown(EdgeKind::Sync, true);
    plot()->fitAll();
    repaint();
    PaintStats s = plot()->lastPaintStats();
    QCOMPARE(s.edges[int(EdgeKind::Sync)], size_t(3));
    QCOMPARE(s.dashedSyncEdges, size_t(2)); // the inferred Stream Sync and Blocking Copy
    // The selected op's arrows keep their style: the first sync call's inferred wait is
    // dashed, the second call's wait from its cuda_sync row solid.
    plot()->edgeToggles()->setShown(EdgeKind::Sync, false);
    plot()->selection()->setEvent(2);
    repaint();
    s = plot()->lastPaintStats();
    QCOMPARE(s.edges[int(EdgeKind::Sync)], size_t(0));
    QCOMPARE(s.dashedSyncEdges, size_t(0));
    QVERIFY(s.selectedEdges >= 1);
    QCOMPARE(s.selectedDashedEdges, size_t(1));
    plot()->selection()->setEvent(13);
    repaint();
    s = plot()->lastPaintStats();
    QVERIFY(s.selectedEdges >= 1);
    QCOMPARE(s.selectedDashedEdges, size_t(0));
    const QString legend = m_view->edgeToggle(EdgeKind::Sync)->text();
    QVERIFY2(legend.contains(QStringLiteral("3 links, 2 inferred")), qPrintable(legend));
    QVERIFY2(!m_view->edgeToggle(EdgeKind::Launch)->text().contains(QStringLiteral("inferred")),
             qPrintable(m_view->edgeToggle(EdgeKind::Launch)->text()));
}

// Issue 28: a kernel replayed by a CUDA graph shares its correlation with the other
// replayed ops; selecting it draws its launch arrow from the cudaGraphLaunch call.
void TestTimelinePlot::replayedKernelShowsGraphLaunchArrow()
{
    const auto a = uitest::analyseKineto(uitest::inferredSyncTrace());
    auto model = buildTimelineModel(a->device);
    model->edges = buildEdgeIndex(*model, *a, &*a->criticalPath);
    m_view->setModel(model);
    for (int k = 0; k < kEdgeKindCount; ++k)
        plot()->edgeToggles()->setShown(EdgeKind(k), false);
    plot()->fitAll();
    for (uint32_t kernel : {8u, 9u, 10u}) {
        plot()->selection()->setEvent(kernel);
        repaint();
        const auto refs = model->edges.edgesOf(kernel);
        int fromGraph = 0;
        for (const EdgeRef &r : refs) {
            const TimelineEdge &e = model->edges.edges(r.kind)[r.id];
            fromGraph += r.kind == EdgeKind::Launch && e.from == 7 && e.to == kernel;
        }
        QCOMPARE(fromGraph, 1);
        QCOMPARE(plot()->lastPaintStats().selectedEdges, refs.size());
    }
    // The graph launch call itself: one arrow to each replayed kernel.
    plot()->selection()->setEvent(7);
    repaint();
    size_t launches = 0;
    for (const EdgeRef &r : model->edges.edgesOf(7))
        launches += r.kind == EdgeKind::Launch;
    QCOMPARE(launches, size_t(3));
    QVERIFY(plot()->lastPaintStats().selectedEdges >= launches);
}

void TestTimelinePlot::revealBringsOpIntoView()
{
    // The last kernel of the trace, far right, with the view on the first 1 %.
    const TimelineModel &m = *plot()->model();
    qint64 last = -1;
    for (uint32_t i = 0; i < m.trace->events.size(); ++i)
        if (m.category(i) == Category::Kernel && (last < 0 || m.startNs(i) > m.startNs(uint32_t(last))))
            last = i;
    plot()->setRange({0, m.spanNs() / 100});
    plot()->revealEvent(uint32_t(last));
    repaint();
    const TimeRange r = plot()->range();
    QVERIFY(r.t0 <= m.startNs(uint32_t(last)) && r.t1 >= m.endNs(uint32_t(last)));
    const QPoint p = plot()->eventPoint(uint32_t(last));
    QVERIFY(p.x() >= 0);
    QCOMPARE(plot()->eventAt(p), last);
}

// Issue 13: the search jump zoomed to a window wider than the trace, starting before it.
void TestTimelinePlot::revealZoomStaysInsideTrace()
{
    const TimelineModel &m = *plot()->model();
    // The earliest short op (it starts at the trace's start) and the shortest GPU op.
    qint64 first = -1, shortest = -1;
    for (uint32_t i = 0; i < m.trace->events.size(); ++i) {
        if (m.layout.pos(i).row < 0 || m.endNs(i) <= m.startNs(i))
            continue;
        const double d = m.endNs(i) - m.startNs(i);
        if (d < m.spanNs() / 50 && (first < 0 || m.startNs(i) < m.startNs(uint32_t(first))))
            first = i;
        if (m.category(i) == Category::Kernel &&
            (shortest < 0 || d < m.endNs(uint32_t(shortest)) - m.startNs(uint32_t(shortest))))
            shortest = i;
    }
    QVERIFY(first >= 0 && shortest >= 0);
    for (qint64 ev : {first, shortest}) {
        // From a view of the trace's last 1 %: the op is out of view and must be brought in.
        plot()->setRange({m.spanNs() * 0.99, m.spanNs()});
        plot()->revealEvent(uint32_t(ev));
        const TimeRange r = plot()->range();
        const double d = m.endNs(uint32_t(ev)) - m.startNs(uint32_t(ev));
        QVERIFY2(r.t0 >= 0 && r.t1 <= m.spanNs(), qPrintable(QStringLiteral("%1 .. %2 of %3").arg(r.t0).arg(r.t1).arg(m.spanNs())));
        QVERIFY(r.t0 <= m.startNs(uint32_t(ev)) && r.t1 >= m.endNs(uint32_t(ev)));
        QVERIFY2(d < 200 || d / (r.t1 - r.t0) >= 0.1, qPrintable(QStringLiteral("op %1 ns in a %2 ns view").arg(d).arg(r.t1 - r.t0)));
    }
}

// Issue 13: an overview strip with the density per lane and the view marked; a click moves the view.
void TestTimelinePlot::overviewStripMovesView()
{
    OverviewStrip *strip = m_view->overview();
    QVERIFY(strip->isVisible());
    const TimelineModel &m = *plot()->model();
    const LaneDensity &d = strip->density();
    QCOMPARE(d.lanes.size(), m.layout.groups.size());
    for (size_t g = 0; g < d.lanes.size(); ++g) {
        const float peak = *std::max_element(d.lanes[g].begin(), d.lanes[g].end());
        QVERIFY(peak > 0 && peak <= 1);
    }
    plot()->setRange({0, m.spanNs() / 100});
    const double target = 0.6 * m.spanNs();
    QTest::mouseClick(strip, Qt::LeftButton, Qt::NoModifier, QPoint(int(strip->xOf(target)), strip->height() / 2));
    const TimeRange r = plot()->range();
    QVERIFY2(qAbs((r.t0 + r.t1) / 2 - target) < m.spanNs() / 200, qPrintable(QString::number((r.t0 + r.t1) / 2)));
    QVERIFY(qAbs(span(r) - m.spanNs() / 100) < 1); // the zoom is kept
}

// Issue 13: a lane can be pinned to the top and hidden.
void TestTimelinePlot::pinAndHideLanes()
{
    const TimelineModel &m = *plot()->model();
    const uint32_t last = uint32_t(m.layout.groups.size() - 1);
    auto firstLane = [&] {
        for (const auto &it : plot()->geometry().items)
            if (!it.header)
                return it.group;
        return uint32_t(-1);
    };
    QVERIFY(firstLane() != last);
    plot()->setGroupPinned(last, true);
    QCOMPARE(firstLane(), last);
    QCOMPARE(plot()->groupAt(QPoint(10, plot()->plotRect().top() + plot()->geometry().items[1].y + 2)), int(last));
    plot()->setGroupPinned(last, false);
    QVERIFY(firstLane() != last);
    // Hide the first lane: none of its rows are shown, its ops have no place; revealing one shows it again.
    const uint32_t g = firstLane();
    const uint32_t ev = m.layout.rows[m.layout.groups[g].firstRow].event.front();
    const int height = plot()->contentHeight();
    plot()->setGroupHidden(g, true);
    QCOMPARE(plot()->hiddenGroupCount(), 1);
    QVERIFY(plot()->contentHeight() < height);
    for (const auto &it : plot()->geometry().items)
        QVERIFY(it.header || it.group != g);
    QCOMPARE(plot()->eventPoint(ev), QPoint(-1, -1));
    plot()->revealEvent(ev);
    QVERIFY(!plot()->groupHidden(g));
    QCOMPARE(plot()->contentHeight(), height);
}

void TestTimelinePlot::repaintIsPixelBound()
{
    repaint();
    const PaintStats s = plot()->lastPaintStats();
    // Zoomed out, boxes are bounded by rows x width / 3 px, whatever the event count.
    const size_t rows = plot()->geometry().rowsIn(0, 100000).size();
    QVERIFY(s.boxes > 0);
    QVERIFY(s.boxes <= rows * size_t(plot()->plotRect().width() / 3 + 1));
    QVERIFY(s.foldedBoxes > 0);
    QVERIFY(s.labels > 0);
    // Folded boxes are drawn by density (issue 41): pixel columns, at most the rows' width.
    QVERIFY(s.densityColumns > 0);
    QVERIFY(s.densityColumns <= rows * size_t(plot()->plotRect().width() + 2));
}

void TestTimelinePlot::fitAllRedOnlyWhereThePathIs()
{
    // Issue 23 item 7: four threads of 5,000 1-µs ops each (at fit-all every row is one
    // merged "5000 ops" box) and one critical op, on thread 2 at 3 ms. Only that row may
    // show the critical path's red, and only at that op's pixels, at fit-all and zoomed in.
    constexpr uint32_t kThreads = 4, kOps = 5000;
    std::vector<TrackInfo> tracks;
    std::vector<LayoutItem> items;
    for (uint32_t t = 0; t < kThreads; ++t) {
        tracks.push_back({"thread " + std::to_string(t), "python3", false});
        for (uint32_t i = 0; i < kOps; ++i) {
            LayoutItem it;
            it.startNs = int64_t(i) * 2000;
            it.durNs = 1000;
            it.event = t * kOps + i;
            it.track = t;
            it.category = Category::CpuOp;
            items.push_back(it);
        }
    }
    auto model = std::make_shared<TimelineModel>();
    model->layout = buildLaneLayout(std::move(items), tracks, kThreads * kOps);
    const uint32_t critical = 2 * kOps + 1500;
    model->criticalEvents = {critical};
    model->layout.setCritical(model->criticalEvents);
    m_view->setModel(model);
    const int criticalRow = model->layout.pos(critical).row;
    QVERIFY(criticalRow >= 0);

    auto redish = [](QRgb px) { return qRed(px) - std::max(qGreen(px), qBlue(px)) >= 60; };
    auto check = [&](const char *where, bool folded) {
        repaint();
        QVERIFY2((plot()->lastPaintStats().foldedBoxes > 0) == folded, where);
        const QImage img = plot()->toPixmap().toImage();
        const QRect r = plot()->plotRect();
        const Viewport v = plot()->viewport();
        const double opX0 = r.left() + v.toX(model->startNs(critical)), opX1 = r.left() + v.toX(model->endNs(critical));
        for (uint32_t row = 0; row < model->layout.rows.size(); ++row) {
            const int top = plot()->geometry().rowCenterY(row) - plot()->scrollY() + r.top() - plot()->rowHeight() / 2;
            int reds = 0, minX = img.width(), maxX = -1;
            for (int y = std::max(r.top(), top); y < std::min(r.bottom(), top + plot()->rowHeight()); ++y)
                for (int x = r.left(); x <= r.right(); ++x)
                    if (redish(img.pixel(x, y))) {
                        ++reds;
                        minX = std::min(minX, x);
                        maxX = std::max(maxX, x);
                    }
            if (int(row) != criticalRow) {
                QVERIFY2(reds == 0, qPrintable(QStringLiteral("%1: %2 red pixels on row %3").arg(where).arg(reds).arg(row)));
                continue;
            }
            QVERIFY2(reds >= 4, qPrintable(QStringLiteral("%1: the critical op is not marked").arg(where)));
            QVERIFY2(minX >= std::floor(opX0) - 2 && maxX <= std::ceil(opX1) + 3,
                     qPrintable(QStringLiteral("%1: red at x %2..%3, the op at %4..%5")
                                    .arg(where).arg(minX).arg(maxX).arg(opX0).arg(opX1)));
        }
    };
    check("fit-all", true);
    // Zoomed in to 400 µs around the op (1 µs ops are still folded, 2.4 px apart).
    plot()->setRange({2'800'000, 3'200'000});
    check("zoomed in", true);
    // Zoomed in until the op is a box of its own: its band and outline, no more.
    plot()->setRange({2'999'000, 3'003'000});
    check("one box per op", false);
}

void TestTimelinePlot::darkPalette()
{
    QPalette dark;
    dark.setColor(QPalette::Window, QColor(0x20, 0x20, 0x20));
    dark.setColor(QPalette::WindowText, Qt::white);
    QVERIFY(!plot()->colors().dark);
    plot()->setPalette(dark);
    QVERIFY(plot()->colors().dark);
    QCOMPARE(plot()->colors().background, timelineColors(true).background);
    plot()->setPalette(QPalette(QColor(0xf0, 0xf0, 0xf0)));
    QVERIFY(!plot()->colors().dark);
}

// Issue 41: a thread with 60 nested Python frames (with_stack=True) opens collapsed, so the GPU
// lane is on the first screen; a click on its label expands it. The sample (shallow) opens as
// it is.
void TestTimelinePlot::deepStacksOpenCollapsed()
{
    for (const RowGeometry::Item &it : plot()->geometry().items)
        if (!it.header)
            QVERIFY(!plot()->groupCollapsed(it.group));
    testutil::KinetoBuilder b;
    for (int d = 0; d < 60; ++d) // expanded: 60 rows, over 1,200 px before the GPU lane
        b.cpu("frame" + std::to_string(d), 1, 100 + d, 1000 - 2 * d, -1, -1, "python_function");
    b.cpu("aten::mm", 1, 200, 20, 1).runtime("cudaLaunchKernel", 1, 205, 5, 1, 1).kernel("gemm", 7, 215, 300, 1, 1);
    const std::string path = testutil::tempDir() + "/deep_stack.json";
    testutil::writeText(path, b.json());
    Diagnostics diag;
    const LoadedTrace t = loadTrace(path, diag);
    QVERIFY(t.complete && t.device);
    TimelineView view;
    view.resize(1500, 900);
    view.setModel(buildTimelineModel(t.device));
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    TimelinePlot *p = view.plot();
    const auto &groups = p->model()->layout.groups;
    int gpuY = -1;
    uint32_t cpuGroup = 0;
    for (const RowGeometry::Item &it : p->geometry().items) {
        if (it.header || !it.groupFirst)
            continue;
        if (groups[it.group].gpu && gpuY < 0)
            gpuY = it.y;
        if (!groups[it.group].gpu && groups[it.group].rowCount > 8) {
            cpuGroup = it.group;
            QVERIFY(p->groupCollapsed(it.group));
        }
    }
    QVERIFY2(gpuY >= 0 && gpuY + p->rowHeight() <= p->visibleHeight(),
             qPrintable(QString("GPU lane at %1 px of %2").arg(gpuY).arg(p->visibleHeight())));
    p->setGroupCollapsed(cpuGroup, false); // what a click on the label does
    QVERIFY(!p->groupCollapsed(cpuGroup));
    QVERIFY(p->contentHeight() > p->visibleHeight());
}

// Issue 41, item 10: a hover tooltip named what was under the pointer before a zoom and stayed
// over whatever was there after it.
void TestTimelinePlot::tooltipGoesWithAZoom()
{
    TimelinePlot *p = plot();
    const QPoint at = p->mapToGlobal(p->plotRect().center());
    QToolTip::showText(at, QStringLiteral("aten::mm\n20 \u00b5s"), p);
    QTRY_VERIFY(QToolTip::isVisible());
    const TimeRange before = p->range();
    p->zoomBy(2);
    QVERIFY(!(p->range() == before));
    QTRY_VERIFY_WITH_TIMEOUT(!QToolTip::isVisible(), 1000); // hidden at once (a tooltip stays 10 s)
}

namespace {
double meanLightness(const QImage &img)
{
    double sum = 0;
    for (int y = 0; y < img.height(); ++y)
        for (int x = 0; x < img.width(); ++x)
            sum += QColor(img.pixel(x, y)).lightness();
    return sum / std::max(1, img.width() * img.height());
}
} // namespace

// Issue 41, item 10: the overview strip kept the image it drew in the light palette after
// View > Theme > Dark (a light band above a dark timeline).
void TestTimelinePlot::overviewFollowsTheTheme()
{
    OverviewStrip *strip = m_view->overview();
    applyTheme(ThemeChoice::Light, false);
    const double light = meanLightness(strip->grab().toImage());
    applyTheme(ThemeChoice::Dark, false);
    QCoreApplication::processEvents();
    const double dark = meanLightness(strip->grab().toImage());
    applyTheme(ThemeChoice::System, false);
    QVERIFY2(light > 170 && dark < 90, qPrintable(QStringLiteral("light %1, dark %2").arg(light).arg(dark)));
}

QTEST_MAIN(TestTimelinePlot)
#include "tst_timelineplot.moc"
