// SPDX-License-Identifier: MIT
// The breakdown overlays on the timeline (ui/timeline/gapoverlay.h, gaplayer.h,
// docs/breakdowns.md "On the timeline"): idle gaps by cause land between the
// boxes of their stream's lane with core's classification, exposed communication
// on the NCCL kernels; offscreen, View > Idle gaps by cause / Exposed communication
// show and hide them (saved in the settings) and a hover over a gap names its cause.
#include "analysis/gapcauses.h"
#include "analysis/htarows.h"
#include "mainwindow.h"
#include "testutil.h"
#include "timeline/gapoverlay.h"
#include "timeline/timelineview.h"
#include "tracebuilder.h"
#include "uitestutil.h"

#include <QAction>
#include <QApplication>
#include <QMouseEvent>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>
#include <QToolTip>

using namespace syncscope;
using namespace syncscope::ui;

namespace {

// tst_gapcauses' trace: stream 7 has a kernel-wait (10 µs), a host-wait (100 µs) and
// an "other" (80 µs) gap; stream 8 two NCCL kernels, exposed 200-280, 290-300, 320-330 µs.
std::string inlineTrace()
{
    testutil::KinetoBuilder b;
    b.runtime("cudaLaunchKernel", 1, 90, 5, 1).kernel("gemm", 7, 100, 50, 1);
    b.runtime("cudaLaunchKernel", 1, 95, 5, 2).kernel("gemm", 7, 160, 40, 2);
    b.runtime("cudaLaunchKernel", 1, 250, 5, 3).kernel("relu", 7, 300, 20, 3);
    b.runtime("cudaLaunchKernel", 1, 260, 5, 4).kernel("relu", 7, 400, 20, 4);
    b.runtime("cudaLaunchKernel", 1, 170, 5, 5).kernel("ncclKernel_AllReduce_RING_LL_Sum_float", 8, 180, 100, 5);
    b.runtime("cudaLaunchKernel", 1, 285, 2, 6).kernel("ncclKernel_AllGather_RING_LL_float", 8, 290, 40, 6);
    return b.json();
}

// The row and index of the longest span of an overlay, -1 if none.
std::pair<int, size_t> longest(const std::vector<OverlayRow> &rows)
{
    std::pair<int, size_t> best{-1, 0};
    int64_t len = 0;
    for (size_t r = 0; r < rows.size(); ++r)
        for (size_t i = 0; i < rows[r].spans.size(); ++i)
            if (rows[r].spans[i].endNs - rows[r].spans[i].startNs > len) {
                len = rows[r].spans[i].endNs - rows[r].spans[i].startNs;
                best = {int(r), i};
            }
    return best;
}

// The event of a layout row that starts at or after t.
uint32_t eventFrom(const LaneRow &row, int64_t t)
{
    const size_t i = size_t(std::lower_bound(row.start.begin(), row.start.end(), t) - row.start.begin());
    return row.event[std::min(i, row.size() - 1)];
}

// The event of a layout row that starts at or before t (the one holding t, in a row).
uint32_t eventHolding(const LaneRow &row, int64_t t)
{
    const size_t i = size_t(std::upper_bound(row.start.begin(), row.start.end(), t) - row.start.begin());
    return row.event[i > 0 ? i - 1 : 0];
}

} // namespace

class TestGapOverlay : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void inlineOverlay();
    void lastStepHasItsGaps();
    void togglesAndTooltipOnRealPair();
};

void TestGapOverlay::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QSettings().remove(QStringLiteral("view/idleGaps"));
    QSettings().remove(QStringLiteral("view/exposedComm"));
}

void TestGapOverlay::inlineOverlay()
{
    auto trace = uitest::loadKineto(inlineTrace());
    QVERIFY(trace);
    auto model = buildTimelineModel(trace);
    const auto overlay = buildTimelineOverlay(*model);
    QCOMPARE(overlay->gapCount, size_t(4));
    QCOMPARE(overlay->exposedCount, size_t(3));
    // Stream 7's gaps lie on its lane, exactly between its boxes (origin: the launch at 90 µs).
    const uint32_t gemm2 = 3, relu1 = 5, relu2 = 7, gemm1 = 1;
    QCOMPARE(model->name(relu1), std::string_view("relu"));
    const int32_t row = model->layout.pos(relu1).row;
    QCOMPARE(model->layout.pos(gemm1).row, row);
    const auto &spans = overlay->gaps[size_t(row)].spans;
    QCOMPARE(spans.size(), size_t(3));
    QCOMPARE(spans[0].kind, OverlayKind::KernelWait);
    QCOMPARE(double(spans[0].startNs), model->endNs(gemm1));
    QCOMPARE(double(spans[0].endNs), model->startNs(gemm2));
    QCOMPARE(spans[1].kind, OverlayKind::HostWait);
    QCOMPARE(double(spans[1].startNs), model->endNs(gemm2));
    QCOMPARE(double(spans[1].endNs), model->startNs(relu1));
    QCOMPARE(spans[2].kind, OverlayKind::OtherIdle);
    QCOMPARE(double(spans[2].endNs), model->startNs(relu2));
    QCOMPARE(overlay->gapNs[int(OverlayKind::HostWait)], 110000.0); // 100 on stream 7, 10 on stream 8
    // Exposed communication on the NCCL lane only.
    const int32_t nccl = model->layout.pos(9).row;
    QVERIFY(nccl != row);
    const auto &ex = overlay->exposed[size_t(nccl)].spans;
    QCOMPARE(ex.size(), size_t(3));
    QCOMPARE(ex[0].startNs, int64_t(110000));
    QCOMPARE(ex[0].endNs, int64_t(190000));
    QCOMPARE(ex[2].startNs, int64_t(230000));
    QCOMPARE(overlay->exposedNs, 100000.0);
    QVERIFY(overlay->exposed[size_t(row)].empty());
    // Lookups: the span under a time, within a tolerance.
    QCOMPARE(overlayAt(overlay->gaps[size_t(row)], 150000, 0)->kind, OverlayKind::HostWait);
    QVERIFY(overlayAt(overlay->gaps[size_t(row)], 100000, 0) == nullptr); // inside gemm 2
}

// HTA's load drops the last ProfilerStep; the timeline keeps it, so that step has its gaps.
void TestGapOverlay::lastStepHasItsGaps()
{
    testutil::KinetoBuilder b;
    b.annotation("ProfilerStep#1", 1, 50, 200).annotation("ProfilerStep#2", 1, 250, 200);
    b.runtime("cudaLaunchKernel", 1, 60, 5, 1).kernel("gemm", 7, 100, 20, 1);
    b.runtime("cudaLaunchKernel", 1, 70, 5, 2).kernel("gemm", 7, 150, 20, 2);  // other (30 µs)
    b.runtime("cudaLaunchKernel", 1, 260, 5, 3).kernel("gemm", 7, 300, 20, 3); // host wait
    b.runtime("cudaLaunchKernel", 1, 270, 5, 4).kernel("gemm", 7, 330, 10, 4); // kernel wait
    auto trace = uitest::loadKineto(b.json());
    QVERIFY(trace);
    Diagnostics diag;
    const hta::RowTable htaLoad(*trace, hta::RowOptions{}, diag);
    QVERIFY(htaLoad.lastStepFiltered());
    const std::vector<StreamIdleGaps> filtered = idleGaps(htaLoad);
    QCOMPARE(filtered.size(), size_t(1));
    QCOMPARE(filtered[0].gaps.size(), size_t(1));
    const auto overlay = buildTimelineOverlay(*buildTimelineModel(trace));
    QCOMPARE(overlay->gapCount, size_t(3));
    QCOMPARE(overlay->gapNs[int(OverlayKind::OtherIdle)], 30000.0);
    QCOMPARE(overlay->gapNs[int(OverlayKind::HostWait)], 130000.0);
    QCOMPARE(overlay->gapNs[int(OverlayKind::KernelWait)], 10000.0);
}

void TestGapOverlay::togglesAndTooltipOnRealPair()
{
    MainWindow w;
    w.setInteractive(false);
    w.resize(1400, 900);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    auto *gapsAction = w.findChild<QAction *>(QStringLiteral("idleGaps"));
    auto *exposedAction = w.findChild<QAction *>(QStringLiteral("exposedComm"));
    QVERIFY(gapsAction && exposedAction);
    QVERIFY(gapsAction->isCheckable() && !gapsAction->isChecked()); // defaults
    QVERIFY(exposedAction->isChecked());
    TimelinePlot *plot = w.timeline()->plot();
    QVERIFY(!plot->overlayShown(TimelinePlot::Overlay::IdleGaps));

    const QString dir = QString::fromStdString(testutil::fixture("pairs/param_dlrm_rank0/"));
    QSignalSpy done(&w, &MainWindow::loadFinished);
    w.openFiles(dir + QStringLiteral("rank0.et.json.gz"), dir + QStringLiteral("rank0.kineto.json.gz"));
    QVERIFY(done.wait(60000));
    QVERIFY(done.first().first().toBool());
    QTRY_VERIFY_WITH_TIMEOUT(plot->breakdownOverlay() != nullptr, 30000); // built in a worker
    const auto overlay = plot->breakdownOverlay();
    QVERIFY(overlay->gapCount > 0);
    QVERIFY(overlay->exposedCount > 0);
    const TimelineModel &model = *plot->model();
    auto paint = [&] {
        plot->replot(QCustomPlot::rpImmediateRefresh);
        return plot->lastPaintStats();
    };

    // Exposed communication (on by default) shows on an NCCL lane, and goes with the toggle.
    const auto [exRow, exIndex] = longest(overlay->exposed);
    QVERIFY(exRow >= 0);
    const uint32_t comm = eventHolding(model.layout.rows[size_t(exRow)], overlay->exposed[size_t(exRow)].spans[exIndex].startNs);
    plot->revealEvent(comm);
    QVERIFY(paint().exposedBands > 0);
    const QPoint onComm = plot->eventPoint(comm);
    QCOMPARE(plot->eventAt(onComm), qint64(comm));
    const QString commTip = plot->overlayToolTip(onComm, qint64(comm));
    QVERIFY2(commTip.startsWith(QStringLiteral("exposed communication: ")), qPrintable(commTip));
    QCOMPARE(paint().gapBars, size_t(0));
    // The kernel's label stays on top of the hatch (issue 41): zoomed in until the label is
    // drawn, its text pixels (near black) are there with the band as without it.
    plot->setRange({model.startNs(comm) - 0.05 * (model.endNs(comm) - model.startNs(comm)),
                    model.endNs(comm) + 0.05 * (model.endNs(comm) - model.startNs(comm))});
    auto textPixels = [&] {
        plot->replot(QCustomPlot::rpImmediateRefresh);
        const QImage image = plot->grab().toImage();
        int top = 0, height = 0;
        if (!plot->geometry().rowBand(uint32_t(model.layout.pos(comm).row), top, height))
            return -1;
        const int y0 = plot->plotRect().top() + top - plot->scrollY();
        int n = 0;
        for (int y = std::max(0, y0); y < std::min(image.height(), y0 + height); ++y)
            for (int x = plot->plotRect().left(); x < plot->plotRect().right(); ++x) {
                const QColor px = image.pixelColor(x, y);
                n += std::max({px.red(), px.green(), px.blue()}) < 60 ? 1 : 0;
            }
        return n;
    };
    const int withBand = textPixels();
    QVERIFY(plot->lastPaintStats().exposedBands > 0);
    QVERIFY(plot->lastPaintStats().labels > 0);
    exposedAction->setChecked(false);
    const int without = textPixels();
    QVERIFY2(without > 20, qPrintable(QString::number(without))); // a label is there to read
    QVERIFY2(withBand >= without * 9 / 10, qPrintable(QStringLiteral("%1 text pixels with the band, %2 without").arg(withBand).arg(without)));
    QCOMPARE(paint().exposedBands, size_t(0));
    QCOMPARE(QSettings().value(QStringLiteral("view/exposedComm")).toBool(), false);

    // Idle gaps: zoom to the longest one; on shows bars, off hides them.
    const auto [gRow, gIndex] = longest(overlay->gaps);
    QVERIFY(gRow >= 0);
    const OverlaySpan gap = overlay->gaps[size_t(gRow)].spans[gIndex];
    const uint32_t after = eventFrom(model.layout.rows[size_t(gRow)], gap.endNs);
    QCOMPARE(int64_t(model.startNs(after)), gap.endNs); // the gap ends where the next kernel starts
    plot->revealEvent(after);
    const double len = double(gap.endNs - gap.startNs);
    plot->setRange({double(gap.startNs) - 0.2 * len, double(gap.endNs) + 0.2 * len});
    QCOMPARE(paint().gapBars, size_t(0));
    gapsAction->setChecked(true);
    QVERIFY(plot->overlayShown(TimelinePlot::Overlay::IdleGaps));
    QVERIFY(paint().gapBars > 0);
    QCOMPARE(QSettings().value(QStringLiteral("view/idleGaps")).toBool(), true);

    // The hover names the cause core gives this gap (HTA's classification, no last-step filter).
    Diagnostics diag;
    hta::RowOptions options;
    options.dropLastProfilerStep = false;
    const hta::RowTable rows(*model.trace, options, diag);
    const std::vector<StreamIdleGaps> streams = idleGaps(rows);
    const IdleGap *core = nullptr;
    for (const StreamIdleGaps &s : streams)
        for (const IdleGap &g : s.gaps)
            if (g.after == after)
                core = &g;
    QVERIFY(core);
    QCOMPARE(int(gap.kind), int(core->cause));
    const QPoint anchor = plot->eventPoint(after);
    QVERIFY(anchor.x() >= 0);
    const QPoint mid(plot->plotRect().left() + int(plot->viewport().toX((gap.startNs + gap.endNs) / 2.0)), anchor.y());
    QCOMPARE(plot->eventAt(mid), qint64(-1));
    const QString tip = plot->overlayToolTip(mid, -1);
    QVERIFY2(tip.startsWith(QStringLiteral("Idle: %1").arg(QLatin1String(overlayKindName(gap.kind)))), qPrintable(tip));
    QMouseEvent move(QEvent::MouseMove, mid, plot->mapToGlobal(mid), Qt::NoButton, Qt::NoButton, Qt::NoModifier);
    QApplication::sendEvent(plot, &move);
    QCOMPARE(QToolTip::text(), tip);
    // Off again: no bars and no gap tooltip.
    gapsAction->setChecked(false);
    QCOMPARE(paint().gapBars, size_t(0));
    QVERIFY(plot->overlayToolTip(mid, -1).isEmpty());
    exposedAction->setChecked(true); // leave the settings at their defaults
    QSettings().remove(QStringLiteral("view/idleGaps"));
}

QTEST_MAIN(TestGapOverlay)
#include "tst_gapoverlay.moc"
