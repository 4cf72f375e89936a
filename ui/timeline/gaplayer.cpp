// SPDX-License-Identifier: MIT
#include "gaplayer.h"

#include "gapoverlay.h"
#include "timeformat.h"
#include "timelineplot.h"

#include <QApplication>
#include <QPointer>
#include <QThreadPool>

#include <algorithm>

namespace syncscope::ui {

namespace {

// What each cause means, as HTA's get_idle_time_breakdown decides it.
QString causeText(OverlayKind kind)
{
    switch (kind) {
    case OverlayKind::HostWait:
        return QApplication::translate("GapLayer", "the next kernel was launched after the stream had drained: "
                                                   "the GPU waited for the CPU");
    case OverlayKind::KernelWait:
        return QApplication::translate("GapLayer", "launched in time, a gap under 30 \u00b5s: the overhead between "
                                                   "consecutive kernels");
    case OverlayKind::OtherIdle:
        return QApplication::translate("GapLayer", "launched in time, yet a longer gap (waiting on another stream, "
                                                   "an event, a copy)");
    case OverlayKind::ExposedComm: break;
    }
    return QApplication::translate("GapLayer", "not overlapped by any computation kernel on this GPU");
}

} // namespace

QColor overlayColor(OverlayKind kind, bool dark)
{
    switch (kind) {
    case OverlayKind::HostWait: return dark ? QColor(0xf0, 0x62, 0x92) : QColor(0xc2, 0x18, 0x5b);
    case OverlayKind::KernelWait: return dark ? QColor(0xb3, 0x9d, 0xdb) : QColor(0x7e, 0x57, 0xc2);
    case OverlayKind::OtherIdle: return dark ? QColor(0xbd, 0xbd, 0xbd) : QColor(0x75, 0x75, 0x75);
    case OverlayKind::ExposedComm: break;
    }
    return QColor(0xff, 0x8c, 0x00);
}

void paintExposedBand(QPainter *painter, const QRectF &band, bool dark)
{
    const QColor orange = overlayColor(OverlayKind::ExposedComm, dark);
    QColor orangeFill = orange;
    orangeFill.setAlpha(70);
    painter->fillRect(band, orangeFill);
    painter->fillRect(band, QBrush(orange, Qt::BDiagPattern));
    painter->setPen(QPen(orange, 2));
    painter->setBrush(Qt::NoBrush);
    painter->drawRect(band.adjusted(1, 1, -1, -1));
}

void GapLayer::draw(QCPPainter *painter)
{
    TimelinePlot &p = *m_plot;
    const TimelineOverlay *ov = p.m_breakdownOverlay.get();
    const bool gaps = p.m_showGaps && ov, exposed = p.m_showExposed && ov;
    if (!p.m_model || (!gaps && !exposed))
        return;
    const QRect rect = p.plotRect();
    const Viewport view = p.viewport();
    const RowGeometry &geo = p.m_geometry;
    const bool dark = p.m_colors.dark;
    PaintStats &stats = p.m_stats;
    const int y0 = p.m_scrollY, y1 = p.m_scrollY + rect.height();
    const double t0 = view.startNs, t1 = view.endNs();
    std::array<QColor, 3> fills;
    for (int k = 0; k < 3; ++k) {
        fills[size_t(k)] = overlayColor(OverlayKind(k), dark);
        fills[size_t(k)].setAlpha(150);
    }
    // One bar per pixel column at most: after a span, jump to the first that starts a pixel later.
    auto eachSpan = [&](const OverlayRow &row, auto &&paint) {
        const SpanWindow w = overlayWindow(row, t0, t1);
        for (size_t i = w.first; i < w.last;) {
            const OverlaySpan &s = row.spans[i];
            const double x0 = std::max(-2.0, view.toX(double(s.startNs)));
            const double x1 = std::min(double(view.widthPx) + 2, view.toX(double(s.endNs)));
            paint(s, rect.left() + x0, std::max(1.0, x1 - x0));
            const double next = view.toTime(std::max(x0, x1) + 1);
            auto it = std::lower_bound(row.spans.begin() + long(i) + 1, row.spans.begin() + long(w.last), next,
                                       [](const OverlaySpan &a, double t) { return double(a.startNs) < t; });
            i = size_t(it - row.spans.begin());
        }
    };
    for (uint32_t r : geo.rowsIn(y0, y1)) {
        int rowY = 0, rowH = 0;
        if (!geo.rowBand(r, rowY, rowH))
            continue;
        const double top = p.widgetY(rowY) + 1, h = rowH - 2;
        if (gaps && r < ov->gaps.size() && !ov->gaps[r].empty())
            eachSpan(ov->gaps[r], [&](const OverlaySpan &s, double x, double w) {
                // A thin bar in the middle of the row: the empty lane stays readable as empty.
                painter->fillRect(QRectF(x, top + h * 0.3, w, h * 0.4), fills[size_t(s.kind)]);
                ++stats.gapBars;
            });
    }
    drawLegend(painter, gaps, exposed);
}

void GapLayer::drawLegend(QCPPainter *painter, bool gaps, bool exposed)
{
    const TimelinePlot &p = *m_plot;
    const QRect rect = p.plotRect();
    std::vector<std::pair<OverlayKind, QString>> items;
    if (gaps)
        for (OverlayKind k : {OverlayKind::HostWait, OverlayKind::KernelWait, OverlayKind::OtherIdle})
            items.push_back({k, QApplication::translate("GapLayer", "idle: %1").arg(QLatin1String(overlayKindName(k)))});
    if (exposed)
        items.push_back({OverlayKind::ExposedComm, QApplication::translate("GapLayer", "exposed comm")});
    const QFontMetrics fm(painter->font());
    const int sw = 10, pad = 6, gap = 12;
    int width = pad;
    for (const auto &[k, text] : items)
        width += sw + 4 + fm.horizontalAdvance(text) + gap;
    const int h = fm.height() + 4;
    const QRectF box(rect.right() - width - 4, rect.top() + 4, width, h); // top right: over CPU lanes, not GPU ones
    QColor bg = p.m_colors.background;
    bg.setAlpha(220);
    painter->fillRect(box, bg);
    double x = box.left() + pad;
    for (const auto &[k, text] : items) {
        const QRectF swatch(x, box.center().y() - sw / 2.0, sw, sw);
        painter->fillRect(swatch, overlayColor(k, p.m_colors.dark));
        if (k == OverlayKind::ExposedComm)
            painter->fillRect(swatch, QBrush(p.m_colors.background, Qt::BDiagPattern));
        x += sw + 4;
        painter->setPen(p.m_colors.text);
        painter->drawText(QRectF(x, box.top(), fm.horizontalAdvance(text) + 2, box.height()), Qt::AlignVCenter, text);
        x += fm.horizontalAdvance(text) + gap;
    }
}

// --- TimelinePlot's side: the toggles, the worker, the tooltip ------------------

void TimelinePlot::setOverlayShown(Overlay which, bool on)
{
    bool &flag = which == Overlay::IdleGaps ? m_showGaps : m_showExposed;
    if (flag == on)
        return;
    flag = on;
    requestBreakdownOverlay();
    refresh();
}

bool TimelinePlot::overlayShown(Overlay which) const
{
    return which == Overlay::IdleGaps ? m_showGaps : m_showExposed;
}

// Built once per model, in a worker, the first time an overlay is shown (a large trace
// needs its own HTA row table: never on the GUI thread).
void TimelinePlot::requestBreakdownOverlay()
{
    if (!(m_showGaps || m_showExposed) || !m_model || !m_model->trace || m_model->isJob() ||
        m_overlayModel == m_model.get())
        return;
    m_overlayModel = m_model.get();
    m_breakdownOverlay.reset();
    const quint64 generation = ++m_overlayGeneration;
    QPointer<TimelinePlot> self(this);
    std::shared_ptr<const TimelineModel> model = m_model;
    QThreadPool::globalInstance()->start([self, generation, model] {
        std::shared_ptr<const TimelineOverlay> overlay = buildTimelineOverlay(*model);
        // Delivered through the application object, which outlives every plot.
        QMetaObject::invokeMethod(
            qApp,
            [self, generation, overlay] {
                if (!self || generation != self->m_overlayGeneration)
                    return;
                self->m_breakdownOverlay = overlay;
                self->refresh();
                Q_EMIT self->breakdownOverlayReady();
            },
            Qt::QueuedConnection);
    });
}

void TimelinePlot::resetBreakdownOverlay()
{
    ++m_overlayGeneration; // a running worker's result is for the old model
    m_breakdownOverlay.reset();
    m_overlayModel = nullptr;
    requestBreakdownOverlay();
}

QString TimelinePlot::overlayToolTip(const QPoint &pos, qint64 event) const
{
    const TimelineOverlay *ov = m_breakdownOverlay.get();
    if (!ov || !m_model || !plotRect().contains(pos))
        return {};
    const int item = m_geometry.itemAtY(contentY(pos.y()));
    if (item < 0 || m_geometry.items[size_t(item)].header)
        return {};
    const uint32_t row = m_geometry.items[size_t(item)].row;
    const Viewport v = viewport();
    const double t = v.toTime(pos.x() - plotRect().left());
    if (event >= 0) { // a communication kernel: how much of it is exposed
        if (!m_showExposed || row >= ov->exposed.size())
            return {};
        const double k0 = m_model->startNs(uint32_t(event)), k1 = m_model->endNs(uint32_t(event));
        const SpanWindow w = overlayWindow(ov->exposed[row], k0, k1);
        double ns = 0;
        for (size_t i = w.first; i < w.last; ++i) {
            const OverlaySpan &s = ov->exposed[row].spans[i];
            ns += std::max(0.0, std::min(k1, double(s.endNs)) - std::max(k0, double(s.startNs)));
        }
        if (ns <= 0)
            return {};
        return tr("exposed communication: %1 of %2 (%3)")
            .arg(QString::fromStdString(formatDuration(ns)), QString::fromStdString(formatDuration(k1 - k0)),
                 causeText(OverlayKind::ExposedComm));
    }
    if (!m_showGaps || row >= ov->gaps.size())
        return {};
    const OverlaySpan *s = overlayAt(ov->gaps[row], t, 2 * v.nsPerPx);
    if (!s)
        return {};
    return tr("Idle: %1, %2\n%3")
        .arg(QLatin1String(overlayKindName(s->kind)),
             QString::fromStdString(formatDuration(double(s->endNs - s->startNs))), causeText(s->kind));
}

} // namespace syncscope::ui
