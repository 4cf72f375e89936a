// SPDX-License-Identifier: MIT
// TimelinePlot's input: mouse (click select, drag pan, Shift-drag measure, hover
// tooltips), the wheel in either mapping, the keys, and the lane labels' menu.
#include "timelineplot.h"

#include "timeformat.h"

#include <QContextMenuEvent>
#include <QMenu>
#include <QSettings>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace syncscope::ui {

namespace {
constexpr double kKeyZoom = 1.5;
constexpr double kKeyPan = 0.2; // of the width
constexpr int kClickSlop = 4;
constexpr const char *kWheelZoomsKey = "timeline/wheelZooms";
} // namespace

// Read from the settings once, then shared by every plot (the compare window's too).
std::optional<bool> TimelinePlot::s_wheelZooms;

void TimelinePlot::toggleGroupAt(const QPoint &pos)
{
    const int item = m_geometry.itemAtY(contentY(pos.y()));
    if (item < 0)
        return;
    const auto &it = m_geometry.items[item];
    if (it.header && m_model && m_model->layout.groups[it.group].part >= 0) { // a rank header: (un)fold the rank
        const int64_t rank = m_model->parts[size_t(m_model->layout.groups[it.group].part)].rank;
        setRankExpanded(rank, !rankExpanded(rank));
        return;
    }
    if (!it.header && m_model && m_model->layout.groups[it.group].rowCount > 1)
        setGroupCollapsed(it.group, !groupCollapsed(it.group));
}

void TimelinePlot::mousePressEvent(QMouseEvent *event)
{
    setFocus(Qt::MouseFocusReason);
    if (event->button() != Qt::LeftButton)
        return;
    m_pressPos = event->position().toPoint();
    m_pressRange = range();
    m_pressScroll = m_scrollY;
    const QRect rect = plotRect();
    if (m_pressPos.x() < rect.left() && m_pressPos.y() >= rect.top())
        m_drag = Drag::Label;
    else if (!rect.contains(m_pressPos))
        m_drag = Drag::None;
    else if (event->modifiers() & Qt::ShiftModifier)
        m_drag = Drag::Measure;
    else
        m_drag = Drag::Pending;
}

void TimelinePlot::mouseMoveEvent(QMouseEvent *event)
{
    const QPoint pos = event->position().toPoint();
    const QRect rect = plotRect();
    if (m_drag == Drag::Pending && (pos - m_pressPos).manhattanLength() > kClickSlop) {
        m_drag = Drag::Pan;
        m_history->record(m_pressRange);
        m_gestureActive = false;
    }
    if (m_drag == Drag::Pan) {
        const Viewport v = Viewport::fit(m_pressRange.t0, m_pressRange.t1, std::max(1, rect.width()));
        const Viewport moved = v.panned(double(m_pressPos.x() - pos.x()));
        applyRange({moved.startNs, moved.endNs()});
        setScrollY(m_pressScroll + m_pressPos.y() - pos.y());
        return;
    }
    if (m_drag == Drag::Measure) {
        const Viewport v = viewport();
        double a = v.toTime(m_pressPos.x() - rect.left()), b = v.toTime(pos.x() - rect.left());
        if (a > b)
            std::swap(a, b);
        m_measure = TimeRange{a, b};
        m_measureY0 = contentY(m_pressPos.y());
        m_measureY1 = contentY(pos.y());
        refresh();
        Q_EMIT measurementChanged();
        return;
    }
    if (m_drag == Drag::None && rect.contains(pos)) {
        const qint64 ev = eventAt(pos);
        Q_EMIT eventHovered(ev);
        // Job: a hovered collective kernel joins its instance on every rank (thin connector).
        const CollectiveMark *mark = ev >= 0 && m_model ? m_model->collectiveMark(uint32_t(ev)) : nullptr;
        const int64_t hovered = mark ? int64_t(mark->collective) : -1;
        if (hovered != m_hoverCollective) {
            m_hoverCollective = hovered;
            refresh();
        }
        if (ev >= 0 && m_model) {
            const uint32_t e = static_cast<uint32_t>(ev);
            QString text = QString::fromUtf8(m_model->name(e).data(), qsizetype(m_model->name(e).size())) +
                           QStringLiteral("\n") +
                           QString::fromStdString(formatDuration(m_model->endNs(e) - m_model->startNs(e)));
            if (const int part = m_model->partOf(e); part >= 0)
                text.prepend(tr("Rank %1 \u00b7 ").arg(m_model->parts[size_t(part)].rank));
            if (mark && mark->lastArrival)
                text += tr("\nlast to arrive: the other ranks waited for it");
            else if (mark && mark->waitNs > 0)
                text += tr("\nwaited %1 for the last arrival (hatched)")
                            .arg(QString::fromStdString(formatDuration(mark->waitNs)));
            if (const QString overlay = overlayToolTip(pos, ev); !overlay.isEmpty())
                text += QStringLiteral("\n") + overlay;
            QToolTip::showText(event->globalPosition().toPoint(), text, this);
        } else if (const QString overlay = overlayToolTip(pos, -1); !overlay.isEmpty()) {
            QToolTip::showText(event->globalPosition().toPoint(), overlay, this); // an idle gap
        } else {
            QToolTip::hideText();
        }
    }
}

void TimelinePlot::mouseReleaseEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton)
        return;
    const QPoint pos = event->position().toPoint();
    switch (m_drag) {
    case Drag::Pending:
        clearMeasurement();
        m_selection->setEvent(eventAt(pos));
        break;
    case Drag::Label:
        if ((pos - m_pressPos).manhattanLength() <= kClickSlop)
            toggleGroupAt(pos);
        break;
    case Drag::Measure:
        if (m_measure && m_measure->t1 <= m_measure->t0)
            clearMeasurement();
        break;
    default:
        break;
    }
    m_drag = Drag::None;
}

void TimelinePlot::mouseDoubleClickEvent(QMouseEvent *event)
{
    const qint64 ev = eventAt(event->position().toPoint());
    if (ev < 0)
        return;
    m_selection->setEvent(ev);
    fitSelection();
}

bool TimelinePlot::wheelZooms()
{
    if (!s_wheelZooms)
        s_wheelZooms = QSettings().value(QLatin1String(kWheelZoomsKey), false).toBool();
    return *s_wheelZooms;
}

void TimelinePlot::setWheelZooms(bool on)
{
    s_wheelZooms = on;
    QSettings().setValue(QLatin1String(kWheelZoomsKey), on);
}

void TimelinePlot::wheelEvent(QWheelEvent *event)
{
    // One notch is 120; a trackpad sends smaller steps, scaled the same way.
    const int dx = event->angleDelta().x(), dy = event->angleDelta().y();
    const QRect rect = plotRect();
    const double atX = event->position().x() - rect.left();
    const bool shift = event->modifiers() & Qt::ShiftModifier;
    auto zoom = [&](int d) { zoomBy(std::pow(1.2, d / 120.0), atX); };
    auto pan = [&](int d) { panBy(-d * rect.width() / 1200.0); };      // a notch: a tenth of the width
    auto scroll = [&](int d) { setScrollY(m_scrollY - d * m_rowHeight * 3 / 120); }; // a notch: three rows
    if (wheelZooms()) { // the old mapping: the wheel zooms, Shift+wheel scrolls the lanes
        if (shift)
            scroll(dy != 0 ? dy : dx);
        else if (dy != 0)
            zoom(dy);
        else if (dx != 0)
            pan(dx);
    } else if (event->modifiers() & Qt::ControlModifier) { // Perfetto and Nsight: Ctrl+wheel zooms
        zoom(dy != 0 ? dy : dx);
    } else if (shift) { // Shift+wheel pans (some platforms turn it into a horizontal delta already)
        pan(dy != 0 ? dy : dx);
    } else { // the wheel scrolls the lanes (nothing when they fit), a sideways wheel or trackpad pans
        if (dx != 0)
            pan(dx);
        if (dy != 0)
            scroll(dy);
    }
    event->accept();
}

bool TimelinePlot::handleKey(int key, Qt::KeyboardModifiers modifiers)
{
    const QRect rect = plotRect();
    const QPoint cursor = mapFromGlobal(QCursor::pos());
    const double anchor = rect.contains(cursor) ? cursor.x() - rect.left() : -1;
    const bool alt = modifiers & Qt::AltModifier;
    switch (key) {
    case Qt::Key_W:
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        zoomBy(kKeyZoom, anchor);
        break;
    case Qt::Key_S:
    case Qt::Key_Minus:
        zoomBy(1 / kKeyZoom, anchor);
        break;
    case Qt::Key_A:
        panBy(-kKeyPan * rect.width());
        break;
    case Qt::Key_D:
        panBy(kKeyPan * rect.width());
        break;
    case Qt::Key_Left:
        if (alt)
            zoomBack();
        else
            panBy(-kKeyPan * rect.width());
        break;
    case Qt::Key_Right:
        if (alt)
            zoomForward();
        else
            panBy(kKeyPan * rect.width());
        break;
    case Qt::Key_Backspace:
        zoomBack();
        break;
    case Qt::Key_Up:
        setScrollY(m_scrollY - m_rowHeight * 2);
        break;
    case Qt::Key_Down:
        setScrollY(m_scrollY + m_rowHeight * 2);
        break;
    case Qt::Key_PageUp:
        setScrollY(m_scrollY - visibleHeight() * 9 / 10);
        break;
    case Qt::Key_PageDown:
        setScrollY(m_scrollY + visibleHeight() * 9 / 10);
        break;
    case Qt::Key_0:
    case Qt::Key_Home:
        fitAll();
        break;
    case Qt::Key_F:
        fitSelection();
        break;
    case Qt::Key_Escape:
        clearMeasurement();
        m_selection->clear();
        break;
    default:
        return false;
    }
    return true;
}

void TimelinePlot::keyPressEvent(QKeyEvent *event)
{
    if (handleKey(event->key(), event->modifiers()))
        event->accept();
    else
        QCustomPlot::keyPressEvent(event);
}

void TimelinePlot::contextMenuEvent(QContextMenuEvent *event)
{
    const int g = groupAt(event->pos());
    QMenu menu(this);
    const int item = m_geometry.itemAtY(contentY(event->pos().y()));
    if (item >= 0 && m_model && m_model->layout.groups[m_geometry.items[size_t(item)].group].part >= 0) {
        const int64_t rank =
            m_model->parts[size_t(m_model->layout.groups[m_geometry.items[size_t(item)].group].part)].rank;
        const bool expanded = rankExpanded(rank);
        menu.addAction(expanded ? tr("Fold rank %1 (GPU lanes and a CPU summary)").arg(rank)
                                : tr("Expand rank %1 (every CPU thread)").arg(rank),
                       this, [this, rank, expanded] { setRankExpanded(rank, !expanded); });
        menu.addAction(tr("Fold every rank"), this, [this] { setAllRanksExpanded(false); });
        menu.addAction(tr("Expand every rank"), this, [this] { setAllRanksExpanded(true); });
        menu.addSeparator();
    }
    if (g >= 0) {
        const uint32_t group = static_cast<uint32_t>(g);
        const QString name = QString::fromStdString(m_model->layout.groups[group].name);
        menu.addAction(groupPinned(group) ? tr("Unpin %1").arg(name) : tr("Pin %1 to the top").arg(name), this,
                       [this, group] { setGroupPinned(group, !groupPinned(group)); });
        menu.addAction(tr("Hide %1").arg(name), this, [this, group] { setGroupHidden(group, true); });
    }
    if (hiddenGroupCount() > 0)
        menu.addAction(tr("Show %n hidden lane(s)", nullptr, hiddenGroupCount()), this, &TimelinePlot::showAllGroups);
    if (!menu.isEmpty())
        menu.exec(event->globalPos());
}

} // namespace syncscope::ui
