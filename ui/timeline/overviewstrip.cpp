// SPDX-License-Identifier: MIT
#include "overviewstrip.h"

#include "timelineplot.h"

#include <QMouseEvent>
#include <QPainter>

#include <algorithm>

namespace syncscope::ui {

namespace {
constexpr int kBins = 2048; // time slices computed once per model, scaled to the width
}

OverviewStrip::OverviewStrip(TimelinePlot *plot, QWidget *parent)
    : QWidget(parent)
    , m_plot(plot)
{
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    setFixedHeight(36);
    setCursor(Qt::PointingHandCursor);
    setToolTip(tr("The whole trace: activity per lane. Click or drag to move the view."));
    connect(plot, &TimelinePlot::rangeChanged, this, qOverload<>(&QWidget::update));
}

QSize OverviewStrip::sizeHint() const
{
    return {400, 36};
}

void OverviewStrip::modelChanged()
{
    m_density = m_plot->model() ? laneDensity(m_plot->model()->layout, kBins) : LaneDensity{};
    renderImage();
    update();
}

void OverviewStrip::resizeEvent(QResizeEvent *)
{
    renderImage();
}

double OverviewStrip::xOf(double ns) const
{
    const QRect r = m_plot->plotRect();
    return r.left() + (m_density.spanNs > 0 ? ns / m_density.spanNs * r.width() : 0);
}

double OverviewStrip::timeAt(double x) const
{
    const QRect r = m_plot->plotRect();
    return r.width() > 0 ? (x - r.left()) / r.width() * m_density.spanNs : 0;
}

void OverviewStrip::renderImage()
{
    const QRect r = m_plot->plotRect();
    const int w = std::max(1, r.width()), h = std::max(1, height() - 2);
    m_image = QImage(w, h, QImage::Format_ARGB32_Premultiplied);
    const TimelineColors &c = m_plot->colors();
    m_imageDark = c.dark;
    m_image.fill(c.background);
    const size_t lanes = m_density.lanes.size();
    if (lanes == 0)
        return;
    QPainter p(&m_image);
    const double laneH = double(h) / double(lanes);
    const QColor ink = c.dark ? QColor(0x8a, 0xb4, 0xf8) : QColor(0x1a, 0x5f, 0xb4);
    for (size_t g = 0; g < lanes; ++g) {
        const auto &lane = m_density.lanes[g];
        const int y0 = int(g * laneH), y1 = std::max(y0 + 1, int((g + 1) * laneH));
        for (int x = 0; x < w; ++x) {
            // The busiest slice under this pixel column.
            const int b0 = int(double(x) / w * m_density.bins), b1 = std::max(b0 + 1, int(double(x + 1) / w * m_density.bins));
            float v = 0;
            for (int b = b0; b < std::min(b1, m_density.bins); ++b)
                v = std::max(v, lane[static_cast<size_t>(b)]);
            if (v <= 0)
                continue;
            QColor col = ink;
            col.setAlphaF(0.15 + 0.6 * v);
            p.fillRect(QRect(x, y0, 1, y1 - y0), col);
        }
    }
}

void OverviewStrip::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    const TimelineColors &c = m_plot->colors();
    p.fillRect(rect(), c.dark ? c.background.lighter(115) : c.background.darker(103));
    const QRect r = m_plot->plotRect();
    if (m_image.width() != std::max(1, r.width()) || m_imageDark != c.dark) // resized, or View > Theme
        renderImage();
    p.drawImage(QPoint(r.left(), 1), m_image);
    if (!m_plot->model())
        return;
    // The current view.
    const TimeRange v = m_plot->range();
    const double x0 = std::max(double(r.left()), xOf(v.t0)), x1 = std::min(double(r.right()), xOf(v.t1));
    const QRectF box(x0, 0.5, std::max(2.0, x1 - x0), height() - 1.0);
    QColor fill = c.measureEdge;
    fill.setAlpha(40);
    p.fillRect(box, fill);
    p.setPen(QPen(c.measureEdge, 1.5));
    p.drawRect(box);
}

void OverviewStrip::centreAt(double x)
{
    if (!m_plot->model())
        return;
    m_plot->centreOn(timeAt(x));
}

void OverviewStrip::mousePressEvent(QMouseEvent *event)
{
    if (event->button() == Qt::LeftButton)
        centreAt(event->position().x());
}

void OverviewStrip::mouseMoveEvent(QMouseEvent *event)
{
    if (event->buttons() & Qt::LeftButton)
        centreAt(event->position().x());
}

} // namespace syncscope::ui
