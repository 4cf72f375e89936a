// SPDX-License-Identifier: MIT
#include "timelineplot.h"

#include <QToolTip>

#include "gaplayer.h"
#include "timeaxisticker.h"
#include "timelinelayers.h"
#include "density.h"

#include <algorithm>
#include <cmath>

namespace syncscope::ui {

namespace {
constexpr int kGestureGapMs = 600;   // wheel/key bursts closer than this are one history entry
} // namespace

TimelinePlot::TimelinePlot(QWidget *parent)
    : QCustomPlot(parent)
    , m_selection(new Selection(this))
    , m_toggles(new EdgeToggles(this))
    , m_history(new ZoomHistory(this))
{
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
    xAxis->setVisible(false);
    yAxis->setVisible(false);
    xAxis2->setVisible(true);
    xAxis2->setTicker(QSharedPointer<QCPAxisTicker>(new TimeAxisTicker));
    xAxis2->grid()->setVisible(true);
    xAxis2->grid()->setSubGridVisible(false);
    xAxis2->setSubTicks(true);
    xAxis2->setTickLabelPadding(3);
    yAxis->grid()->setVisible(false);
    axisRect()->setAutoMargins(QCP::msTop);
    axisRect()->setMargins(QMargins(m_labelWidth, 0, 6, 2));
    m_boxLayer = new BoxLayer(this, QStringLiteral("main"));
    m_gapLayer = new GapLayer(this, QStringLiteral("main")); // over the boxes, under the arrows
    m_edgeLayer = new EdgeLayer(this, QStringLiteral("main"));
    m_labelLayer = new LaneLabelLayer(this, QStringLiteral("overlay"));
    m_overlayLayer = new OverlayLayer(this, QStringLiteral("overlay"));
    m_rowHeight = QFontMetrics(font()).height() + 6;
    setColors(timelineColors(isDarkPalette(palette())));
    applyRange({0, 1000});
    connect(m_selection, &Selection::changed, this, [this] { refresh(); });
    connect(m_toggles, &EdgeToggles::changed, this, [this] { refresh(); });
}

void TimelinePlot::setModel(std::shared_ptr<TimelineModel> model)
{
    m_model = std::move(model);
    applyTimeBase();
    m_selection->clear();
    m_measure.reset();
    m_history->clear();
    m_rankExpanded.clear();
    m_partOrder.clear();
    m_hoverCollective = -1;
    resetBreakdownOverlay();
    // Jobs: tighter rows, so 8 folded ranks fit one screen.
    m_rowHeight = QFontMetrics(font()).height() + (m_model && m_model->isJob() ? 3 : 6);
    m_collapsed.assign(m_model ? m_model->layout.groups.size() : 0, false);
    m_pinned.assign(m_collapsed.size(), false);
    m_hidden.assign(m_collapsed.size(), false);
    collapseDeepStacks();
    m_scrollY = 0;
    rebuildGeometry();
    if (m_model) {
        const TimeSpan busy = busyRange(m_model->layout); // where the events are, as fit-all
        applyRange({busy.t0, busy.t1});
    } else {
        applyRange({0, 1000});
    }
    Q_EMIT scrollChanged(m_scrollY);
}

void TimelinePlot::setEventTints(std::shared_ptr<const std::unordered_map<uint32_t, QColor>> tints)
{
    m_tints = std::move(tints);
    refresh();
}

void TimelinePlot::setCursorNs(double ns)
{
    if (ns == m_cursorNs || (std::isnan(ns) && std::isnan(m_cursorNs)))
        return;
    m_cursorNs = ns;
    refresh();
}

void TimelinePlot::setProjection(std::shared_ptr<const ProjectedShifts> shifts)
{
    m_projection = std::move(shifts);
    refresh();
}

// A trace recorded with_stack=True nests 40-80 Python frames on a CPU thread: expanded, they
// put every GPU lane below the fold (issue 41). When more rows than kRowsBeforeGpu come before
// the first GPU lane, the CPU lanes deeper than kOpenDepth rows open collapsed (their first
// row: the top-level ops); a click on a lane's label expands it.
void TimelinePlot::collapseDeepStacks()
{
    constexpr uint32_t kRowsBeforeGpu = 24, kOpenDepth = 8;
    if (!m_model || m_model->isJob())
        return;
    const auto &groups = m_model->layout.groups;
    uint32_t before = 0;
    bool gpu = false;
    for (const LaneGroup &g : groups) {
        if (g.gpu) {
            gpu = true;
            break;
        }
        before += g.rowCount;
    }
    if (!gpu || before <= kRowsBeforeGpu)
        return;
    for (size_t i = 0; i < groups.size(); ++i)
        if (!groups[i].gpu && groups[i].rowCount > kOpenDepth)
            m_collapsed[i] = true;
}

void TimelinePlot::modelChanged()
{
    rebuildGeometry();
    refresh();
}

void TimelinePlot::setColors(const TimelineColors &colors)
{
    m_colors = colors;
    applyColors();
    refresh();
}

void TimelinePlot::setLabelWidth(int px)
{
    m_labelWidth = px;
    axisRect()->setMargins(QMargins(m_labelWidth, 0, 6, 2));
    refresh();
}

void TimelinePlot::applyColors()
{
    const TimelineColors &c = m_colors;
    setBackground(c.background);
    axisRect()->setBackground(c.background);
    QCPAxis *ax = xAxis2;
    ax->setBasePen(QPen(c.axis));
    ax->setTickPen(QPen(c.axis));
    ax->setSubTickPen(QPen(c.axis));
    ax->setTickLabelColor(c.text);
    ax->setLabelColor(c.text);
    ax->grid()->setPen(QPen(c.grid, 1, Qt::SolidLine));
}

void TimelinePlot::applyTimeBase()
{
    // One time base per view: the axis says what its 0 is; the panels use the same.
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    xAxis2->setLabelFont(small);
    xAxis2->setLabelPadding(1);
    xAxis2->setLabel(m_model ? QString::fromStdString(m_model->timeBase) : QString());
}

// --- the view -------------------------------------------------------------

QRect TimelinePlot::plotRect() const
{
    return axisRect()->rect();
}

int TimelinePlot::visibleHeight() const
{
    return plotRect().height();
}

TimeRange TimelinePlot::range() const
{
    return {xAxis2->range().lower, xAxis2->range().upper};
}

Viewport TimelinePlot::viewport() const
{
    const TimeRange r = range();
    return Viewport::fit(r.t0, r.t1, std::max(1, plotRect().width()));
}

void TimelinePlot::applyRange(const TimeRange &r)
{
    const double span = m_model ? std::max(1.0, m_model->spanNs()) : 1000.0;
    Viewport v = Viewport::fit(r.t0, r.t1, std::max(1, plotRect().width())).clamped(0, span);
    const TimeRange clamped{v.startNs, v.endNs()};
    if (clamped == range())
        return;
    xAxis2->setRange(clamped.t0, clamped.t1);
    xAxis->setRange(clamped.t0, clamped.t1);
    // A hover tooltip names what was under the pointer before the zoom or pan: it would
    // stay over whatever is there now (issue 41).
    if (QToolTip::isVisible())
        QToolTip::hideText();
    refresh();
    Q_EMIT rangeChanged();
}

void TimelinePlot::centreOn(double ns)
{
    const TimeRange v = range();
    const double half = (v.t1 - v.t0) / 2;
    setRange({ns - half, ns + half});
}

void TimelinePlot::setRange(const TimeRange &r)
{
    m_history->record(range());
    m_gestureActive = false;
    applyRange(r);
}

void TimelinePlot::beginGesture()
{
    if (!m_gestureActive || !m_gestureClock.isValid() || m_gestureClock.elapsed() > kGestureGapMs)
        m_history->record(range());
    m_gestureActive = true;
    m_gestureClock.restart();
}

void TimelinePlot::zoomBy(double factor, double x)
{
    const Viewport v = viewport();
    if (x < 0)
        x = v.widthPx / 2.0;
    beginGesture();
    const Viewport z = v.zoomedAt(x, factor);
    applyRange({z.startNs, z.endNs()});
}

void TimelinePlot::panBy(double dxPx)
{
    beginGesture();
    const Viewport v = viewport().panned(dxPx);
    applyRange({v.startNs, v.endNs()});
}

void TimelinePlot::fitAll()
{
    if (!m_model)
        return;
    // Fit to where the events are (a long empty span around a few stragglers is left
    // out); pressed again, the whole trace.
    const TimeSpan busy = busyRange(m_model->layout);
    const TimeRange core{busy.t0, busy.t1}, whole{0, std::max(1.0, m_model->spanNs())};
    const TimeRange now = range();
    const bool atCore = std::abs(now.t0 - core.t0) < 1e-6 * whole.t1 && std::abs(now.t1 - core.t1) < 1e-6 * whole.t1;
    setRange(atCore ? whole : core);
}

bool TimelinePlot::fitSelection()
{
    double t0, t1;
    if (m_measure) {
        t0 = m_measure->t0;
        t1 = m_measure->t1;
    } else if (m_model && m_selection->hasEvent()) {
        const uint32_t ev = static_cast<uint32_t>(m_selection->event());
        t0 = m_model->startNs(ev);
        t1 = m_model->endNs(ev);
    } else {
        return false;
    }
    const double pad = std::max(50.0, (t1 - t0) * 0.1);
    setRange({t0 - pad, t1 + pad});
    return true;
}

void TimelinePlot::zoomBack()
{
    if (m_history->canGoBack()) {
        m_gestureActive = false;
        applyRange(m_history->back(range()));
    }
}

void TimelinePlot::zoomForward()
{
    if (m_history->canGoForward()) {
        m_gestureActive = false;
        applyRange(m_history->forward(range()));
    }
}

void TimelinePlot::revealEvent(uint32_t ev)
{
    if (!m_model)
        return;
    const EventPos &pos = m_model->layout.pos(ev);
    if (pos.row >= 0) {
        const uint32_t group = m_model->layout.rows[pos.row].group;
        if (groupHidden(group))
            setGroupHidden(group, false);
        if (groupCollapsed(group) && !m_geometry.rowShown(static_cast<uint32_t>(pos.row)))
            setGroupCollapsed(group, false);
        const int cy = m_geometry.rowCenterY(static_cast<uint32_t>(pos.row));
        if (cy >= 0 && (cy - m_rowHeight < m_scrollY || cy + m_rowHeight > m_scrollY + visibleHeight()))
            setScrollY(cy - visibleHeight() / 3);
    }
    const double t0 = m_model->startNs(ev), t1 = m_model->endNs(ev);
    const Viewport v = viewport();
    const double widthPx = (t1 - t0) / v.nsPerPx;
    const bool inView = t0 >= v.startNs && t1 <= v.endNs();
    if (inView && widthPx >= 4)
        return;
    const double trace = std::max(1.0, m_model->spanNs());
    // A window of `span` centred on the op, moved inside the trace (never past its ends).
    auto centred = [&](double span) {
        span = std::min(span, trace);
        const double start = std::clamp((t0 + t1) / 2 - span / 2, 0.0, trace - span);
        setRange({start, start + span});
    };
    if (widthPx >= 4 && widthPx <= 0.8 * v.widthPx) {
        centred(v.spanNs());
        return;
    }
    // Too small (or too large) at this zoom: the op takes about a sixth of the view, with
    // context on both sides; the trace's length plays no part (a 60 µs op on a 4 s trace).
    centred(std::max((t1 - t0) * 6, 1000.0));
}

void TimelinePlot::setScrollY(int y)
{
    y = std::clamp(y, 0, std::max(0, m_geometry.totalHeight - visibleHeight()));
    if (y == m_scrollY)
        return;
    m_scrollY = y;
    refresh();
    Q_EMIT scrollChanged(y);
}

void TimelinePlot::setGroupCollapsed(uint32_t group, bool collapsed)
{
    if (group >= m_collapsed.size() || m_collapsed[group] == collapsed)
        return;
    m_collapsed[group] = collapsed;
    rebuildGeometry();
    refresh();
}

void TimelinePlot::setGroupPinned(uint32_t group, bool pinned)
{
    if (group >= m_pinned.size() || m_pinned[group] == pinned)
        return;
    m_pinned[group] = pinned;
    rebuildGeometry();
    refresh();
}

bool TimelinePlot::groupPinned(uint32_t group) const
{
    return group < m_pinned.size() && m_pinned[group];
}

void TimelinePlot::setGroupHidden(uint32_t group, bool hidden)
{
    if (group >= m_hidden.size() || m_hidden[group] == hidden)
        return;
    m_hidden[group] = hidden;
    rebuildGeometry();
    refresh();
}

bool TimelinePlot::groupHidden(uint32_t group) const
{
    return group < m_hidden.size() && m_hidden[group];
}

int TimelinePlot::hiddenGroupCount() const
{
    return static_cast<int>(std::count(m_hidden.begin(), m_hidden.end(), true));
}

void TimelinePlot::showAllGroups()
{
    if (hiddenGroupCount() == 0)
        return;
    std::fill(m_hidden.begin(), m_hidden.end(), false);
    rebuildGeometry();
    refresh();
}

int TimelinePlot::groupAt(const QPoint &pos) const
{
    const int item = m_geometry.itemAtY(contentY(pos.y()));
    if (item < 0 || pos.y() < plotRect().top())
        return -1;
    return m_geometry.items[static_cast<size_t>(item)].header ? -1
                                                             : static_cast<int>(m_geometry.items[static_cast<size_t>(item)].group);
}

bool TimelinePlot::groupCollapsed(uint32_t group) const
{
    return group < m_collapsed.size() && m_collapsed[group];
}

std::vector<uint32_t> TimelinePlot::measuredRows() const
{
    if (!m_measure || std::abs(m_measureY1 - m_measureY0) < compactRowHeight())
        return {};
    std::vector<uint32_t> rows =
        m_geometry.rowsIn(std::min(m_measureY0, m_measureY1), std::max(m_measureY0, m_measureY1) + 1);
    if (!m_model || !m_model->isJob())
        return rows;
    // A folded rank's summary lane stands for the lanes folded onto it: those are measured
    // (the summaries leave out or cut ops that overlap).
    std::vector<uint32_t> out;
    for (uint32_t r : rows) {
        if (!m_model->layout.groups[m_model->layout.rows[r].group].isSummary()) {
            out.push_back(r);
            continue;
        }
        for (uint32_t f : m_geometry.rowsOnItem(m_geometry.rowItem[r]))
            if (f != r)
                out.push_back(f);
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

int TimelinePlot::compactRowHeight() const
{
    return std::max(6, (m_rowHeight - 3) / 2);
}

int TimelinePlot::measuredLanes() const
{
    if (!m_model)
        return 0;
    std::vector<uint32_t> groups;
    for (uint32_t r : measuredRows())
        groups.push_back(m_model->layout.rows[r].group);
    std::sort(groups.begin(), groups.end());
    return static_cast<int>(std::unique(groups.begin(), groups.end()) - groups.begin());
}

void TimelinePlot::clearMeasurement()
{
    if (!m_measure)
        return;
    m_measure.reset();
    refresh();
    Q_EMIT measurementChanged();
}

void TimelinePlot::rebuildGeometry()
{
    if (m_model && m_model->isJob()) {
        // A folded rank: a header and two compact strips, its CPU threads on the CPU summary
        // lane and its GPU streams on the GPU one (issue 41: 64 ranks were ~240 wheel ticks);
        // an expanded one: its threads and streams, no summaries.
        const LaneLayout &layout = m_model->layout;
        std::vector<bool> hidden = m_hidden, folded(layout.groups.size(), false);
        hidden.resize(layout.groups.size(), false);
        std::vector<uint32_t> order;
        std::vector<std::vector<uint32_t>> groupsOfPart(m_model->parts.size());
        std::vector<uint8_t> gpuSummary(m_model->parts.size(), 0);
        for (const LaneGroup &group : layout.groups)
            if (group.role == LaneGroup::JobRole::GpuSummary && group.part >= 0 &&
                size_t(group.part) < gpuSummary.size())
                gpuSummary[size_t(group.part)] = 1;
        for (uint32_t g = 0; g < layout.groups.size(); ++g) {
            const LaneGroup &group = layout.groups[g];
            if (group.part < 0 || size_t(group.part) >= m_model->parts.size())
                continue;
            groupsOfPart[size_t(group.part)].push_back(g);
            const bool expanded = rankExpanded(m_model->parts[size_t(group.part)].rank);
            switch (group.role) {
            case LaneGroup::JobRole::CpuSummary:
            case LaneGroup::JobRole::GpuSummary:
                hidden[g] = hidden[g] || expanded;
                break;
            case LaneGroup::JobRole::CpuThread:
                folded[g] = !expanded;
                break;
            case LaneGroup::JobRole::Lane:
                folded[g] = !expanded && gpuSummary[size_t(group.part)];
                break;
            }
        }
        if (m_partOrder.size() == m_model->parts.size())
            for (uint32_t p : m_partOrder)
                if (p < groupsOfPart.size())
                    order.insert(order.end(), groupsOfPart[p].begin(), groupsOfPart[p].end());
        m_geometry.build(layout, m_collapsed, m_rowHeight, m_rowHeight + 2, 2, m_pinned, hidden, folded, order,
                         compactRowHeight());
    } else if (m_model)
        m_geometry.build(m_model->layout, m_collapsed, m_rowHeight, m_rowHeight, 4, m_pinned, m_hidden);
    else
        m_geometry = RowGeometry{};
    Q_EMIT contentHeightChanged(m_geometry.totalHeight);
    setScrollY(m_scrollY);
}

void TimelinePlot::refresh()
{
    replot(QCustomPlot::rpQueuedReplot);
}

int TimelinePlot::contentY(int wy) const
{
    return wy - plotRect().top() + m_scrollY;
}

int TimelinePlot::widgetY(int cy) const
{
    return cy - m_scrollY + plotRect().top();
}

// --- geometry ----------------------------------------------------------------

qint64 TimelinePlot::eventAt(const QPoint &pos) const
{
    if (!m_model || !plotRect().contains(pos))
        return -1;
    const int item = m_geometry.itemAtY(contentY(pos.y()));
    if (item < 0 || m_geometry.items[item].header)
        return -1;
    const Viewport v = viewport();
    const double t = v.toTime(pos.x() - plotRect().left());
    return ui::eventAt(m_model->layout.rows[m_geometry.items[item].row], t, 3 * v.nsPerPx);
}

QPoint TimelinePlot::eventPoint(uint32_t ev) const
{
    if (!m_model)
        return {-1, -1};
    const EventPos &pos = m_model->layout.pos(ev);
    if (pos.row < 0)
        return {-1, -1};
    double startNs = m_model->startNs(ev), endNs = m_model->endNs(ev);
    if (!m_geometry.rowShown(static_cast<uint32_t>(pos.row))) {
        // On a folded rank: where its summary strip draws it, if it does (whole or cut).
        const int item = m_geometry.stripItem(m_model->layout, static_cast<uint32_t>(pos.row));
        if (item < 0)
            return {-1, -1};
        const LaneRow &summary = m_model->layout.rows[m_geometry.items[size_t(item)].row];
        const auto k = std::find(summary.event.begin(), summary.event.end(), ev);
        if (k == summary.event.end())
            return {-1, -1};
        startNs = double(summary.start[size_t(k - summary.event.begin())]);
        endNs = double(summary.end[size_t(k - summary.event.begin())]);
    }
    const Viewport v = viewport();
    const double x0 = std::max(0.0, v.toX(startNs));
    const double x1 = std::min(double(v.widthPx - 1), v.toX(endNs));
    if (x1 < x0)
        return {-1, -1};
    const QPoint p(plotRect().left() + int((x0 + x1) / 2), widgetY(m_geometry.rowCenterY(static_cast<uint32_t>(pos.row))));
    return plotRect().contains(p) ? p : QPoint(-1, -1);
}

void TimelinePlot::resizeEvent(QResizeEvent *event)
{
    const TimeRange r = range();
    QCustomPlot::resizeEvent(event);
    // Keep the time range; the scale follows the new width.
    xAxis2->setRange(r.t0, r.t1);
    setScrollY(m_scrollY);
}

bool TimelinePlot::event(QEvent *e)
{
    if (e->type() == QEvent::PaletteChange || e->type() == QEvent::ApplicationPaletteChange) {
        const bool dark = isDarkPalette(palette());
        if (dark != m_colors.dark)
            setColors(timelineColors(dark));
    }
    return QCustomPlot::event(e);
}

} // namespace syncscope::ui
