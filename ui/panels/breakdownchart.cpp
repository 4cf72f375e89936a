// SPDX-License-Identifier: MIT
#include "breakdownchart.h"

#include "theme.h"
#include "timeline/gaplayer.h"
#include "timeline/gapoverlay.h"
#include "timeline/timeformat.h"

#include <QResizeEvent>
#include <QToolTip>

#include <algorithm>

#include <cmath>

namespace syncscope::ui {

namespace {

// The timeline's vocabulary (issue 41: green and red meant kernel and sync there, hidden and
// exposed communication here): compute in the kernel colour, communication under compute in
// the communication colour, exposed communication in the orange of the timeline's exposed-comm
// band, copies in the memcpy colour, idle in the lane grey.
QColor partColor(int part, bool dark)
{
    const TimelineColors c = timelineColors(dark);
    switch (part) {
    case BreakdownSplit::Compute: return c.category[static_cast<int>(Category::Kernel)];
    case BreakdownSplit::OverlappedComm: return c.category[static_cast<int>(Category::Communication)];
    case BreakdownSplit::ExposedComm: return overlayColor(OverlayKind::ExposedComm, dark);
    case BreakdownSplit::MemoryOther: return c.category[static_cast<int>(Category::Memcpy)];
    default: return dark ? QColor(0x5a, 0x5e, 0x66) : QColor(0xb8, 0xbc, 0xc4);
    }
}

} // namespace

BreakdownChart::BreakdownChart(QWidget *parent)
    : QCustomPlot(parent)
    , m_frame(new QCPItemRect(this))
    , m_ticker(new QCPAxisTickerText)
{
    yAxis->setTicker(m_ticker);
    yAxis->setRangeReversed(true); // the whole trace on top, the steps in order below
    yAxis->setSubTicks(false);
    yAxis->grid()->setVisible(false);
    xAxis->setRange(0, 100);
    xAxis->setLabel(tr("% of the GPU kernel span"));
    QCPBars *below = nullptr;
    for (int p = 0; p < BreakdownSplit::PartCount; ++p) {
        auto *bars = new QCPBars(yAxis, xAxis); // horizontal: the key runs down the y axis
        bars->setName(breakdownPartName(p));
        bars->setWidth(0.7);
        bars->setPen(Qt::NoPen);
        bars->setSelectable(QCP::stNone);
        if (below)
            bars->moveAbove(below);
        below = bars;
        m_parts[p] = bars;
    }
    // The legend in a row of its own above the bars, one line.
    legend->setVisible(true);
    legend->setFillOrder(QCPLegend::foColumnsFirst);
    legend->setBrush(Qt::NoBrush);
    legend->setBorderPen(Qt::NoPen);
    plotLayout()->insertRow(0);
    plotLayout()->addElement(0, 0, legend);
    plotLayout()->setRowStretchFactor(0, 0.001);
    legend->setMargins(QMargins(2, 2, 2, 0));
    m_frame->setBrush(Qt::NoBrush);
    m_frame->setVisible(false);
    m_frame->setClipToAxisRect(true);
    connect(this, &QCustomPlot::mousePress, this, &BreakdownChart::onMousePress);
    connect(this, &QCustomPlot::mouseMove, this, &BreakdownChart::onMouseMove);
    setMouseTracking(true);
    applyPalette();
}

// The theme's colours (View > Theme can change them while the chart is shown).
void BreakdownChart::applyPalette()
{
    setBackground(palette().base());
    const QColor text = palette().text().color();
    for (QCPAxis *axis : {xAxis, yAxis}) {
        axis->setBasePen(QPen(text));
        axis->setTickPen(QPen(text));
        axis->setSubTickPen(QPen(text));
        axis->setTickLabelColor(text);
        axis->setLabelColor(text);
    }
    legend->setTextColor(text);
    const bool dark = isDarkPalette(palette());
    for (int p = 0; p < BreakdownSplit::PartCount; ++p)
        m_parts[p]->setBrush(partColor(p, dark)); // the bars' colours (set here for both themes)
    m_frame->setPen(QPen(text, 1.5));
    replot(QCustomPlot::rpQueuedReplot);
}

void BreakdownChart::resizeEvent(QResizeEvent *event)
{
    // The legend on as many rows as its names need at this width (one row of five was cut
    // to "Cor", "Expose" in a narrow dock).
    int widest = 0;
    for (int p = 0; p < BreakdownSplit::PartCount; ++p)
        widest = std::max(widest, fontMetrics().horizontalAdvance(m_parts[p]->name()) + 40);
    const int columns = std::clamp(event->size().width() / std::max(1, widest), 1, int(BreakdownSplit::PartCount));
    if (legend->wrap() != columns) {
        legend->setWrap(columns);
        legend->setFillOrder(QCPLegend::foColumnsFirst, true);
    }
    QCustomPlot::resizeEvent(event);
}

void BreakdownChart::changeEvent(QEvent *event)
{
    QCustomPlot::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        applyPalette();
}

void BreakdownChart::setBars(const QStringList &names, const std::vector<BreakdownSplit> &splits)
{
    m_names = names;
    m_splits = splits;
    m_ticker->clear();
    const int n = int(splits.size());
    // Too many steps to label each: every k-th label (the bars are all there).
    const int every = std::max(1, n / 30);
    for (int i = 0; i < n; ++i)
        if (i == 0 || i % every == 0)
            m_ticker->addTick(i, i < names.size() ? names[i] : QString());
    for (int p = 0; p < BreakdownSplit::PartCount; ++p) {
        QVector<double> keys, values;
        for (int i = 0; i < n; ++i) {
            if (!splits[size_t(i)].valid)
                continue;
            keys << i;
            values << splits[size_t(i)].pct(p);
        }
        m_parts[p]->setData(keys, values, true);
    }
    yAxis->setRange(-0.5, std::max(0, n - 1) + 0.5);
    if (m_current >= n)
        m_current = -1;
    setCurrent(m_current);
}

void BreakdownChart::setCurrent(int scope)
{
    m_current = scope;
    m_frame->setVisible(scope >= 0 && scope < barCount());
    m_frame->topLeft->setCoords(-0.5, scope - 0.45);
    m_frame->bottomRight->setCoords(100.5, scope + 0.45);
    replot(QCustomPlot::rpQueuedReplot);
}

int BreakdownChart::scopeAt(double y) const
{
    if (!axisRect()->rect().contains(axisRect()->rect().center().x(), int(y)))
        return -1;
    const int key = int(std::lround(yAxis->pixelToCoord(y)));
    return key >= 0 && key < barCount() ? key : -1;
}

void BreakdownChart::onMousePress(QMouseEvent *event)
{
    const int scope = scopeAt(event->position().y());
    if (scope >= 0)
        Q_EMIT scopeClicked(scope);
}

void BreakdownChart::onMouseMove(QMouseEvent *event)
{
    const int scope = scopeAt(event->position().y());
    if (scope < 0 || !m_splits[size_t(scope)].valid) {
        QToolTip::hideText();
        return;
    }
    const BreakdownSplit &s = m_splits[size_t(scope)];
    QString tip = QStringLiteral("<b>%1</b> (%2)").arg(m_names.value(scope).toHtmlEscaped(),
                                                        QString::fromStdString(formatDuration(s.spanUs * 1000)));
    for (int p = 0; p < BreakdownSplit::PartCount; ++p)
        tip += QStringLiteral("<br>%1: %2 % (%3)")
                   .arg(breakdownPartName(p))
                   .arg(s.pct(p), 0, 'f', 1)
                   .arg(QString::fromStdString(formatDuration(s.us[p] * 1000)));
    QToolTip::showText(event->globalPosition().toPoint(), tip, this);
}

} // namespace syncscope::ui
