// SPDX-License-Identifier: MIT
// The lane label column: process and rank headers (a rank's fold marker), each lane's
// name, collapse marker, pin and overlap note; a folded rank's strips in a font that fits.
#include "timelinelayers.h"

#include "timelineplot.h"

#include <algorithm>

namespace syncscope::ui {

QRect LaneLabelLayer::clipRect() const
{
    const QRect r = m_plot->plotRect();
    return QRect(0, r.top(), r.left(), r.height());
}

void LaneLabelLayer::draw(QCPPainter *painter)
{
    const TimelinePlot &p = *m_plot;
    const TimelineColors &c = p.m_colors;
    const QRect clip = clipRect();
    painter->fillRect(clip, c.dark ? c.background.lighter(115) : c.background.darker(103));
    if (!p.m_model)
        return;
    const LaneLayout &layout = p.m_model->layout;
    const RowGeometry &geo = p.m_geometry;
    const int y0 = p.m_scrollY, y1 = p.m_scrollY + clip.height();
    QFont bold = painter->font();
    bold.setBold(true);
    const QFont normal = painter->font();
    for (int i = std::max(0, geo.itemAtY(y0 - 200)); i >= 0 && i < int(geo.items.size()) && geo.items[i].y < y1; ++i) {
        const auto &it = geo.items[i];
        if (it.y + it.height < y0)
            continue;
        const LaneGroup &g = layout.groups[it.group];
        const QRect band(0, p.widgetY(it.y), clip.width(), it.height);
        if (it.header) {
            painter->fillRect(band, c.header);
            painter->setFont(bold);
            painter->setPen(c.text);
            QString title = QString::fromStdString(g.process);
            if (g.part >= 0 && size_t(g.part) < p.m_model->parts.size()) { // a rank: click to (un)fold
                const TimelineRankPart &part = p.m_model->parts[size_t(g.part)];
                title = (p.rankExpanded(part.rank) ? QStringLiteral("\u25be ") : QStringLiteral("\u25b8 ")) +
                        QStringLiteral("Rank %1").arg(part.rank);
                painter->setPen(c.separator);
                painter->drawLine(QLineF(0, band.top(), clip.width(), band.top()));
                painter->setPen(c.text);
            }
            painter->drawText(band.adjusted(6, 0, -4, 0), Qt::AlignVCenter | Qt::AlignLeft,
                              QFontMetrics(bold).elidedText(title, Qt::ElideRight, band.width() - 10));
            painter->setFont(normal);
            continue;
        }
        if (!it.groupFirst)
            continue;
        if (it.group % 2)
            painter->fillRect(QRect(0, band.top(), clip.width(), int(std::min<uint32_t>(g.rowCount, 1) * it.height)),
                              c.laneStripe);
        const bool collapsed = p.groupCollapsed(it.group);
        QString label = (g.rowCount > 1 ? QString(collapsed ? QStringLiteral("\u25b8 ") : QStringLiteral("\u25be "))
                                        : QStringLiteral("   ")) +
                        QString::fromStdString(g.name);
        if (collapsed && g.rowCount > 1)
            label += QStringLiteral("  (%1 rows)").arg(g.rowCount);
        if (p.groupPinned(it.group))
            label += QStringLiteral("  \u2191 pinned");
        // A folded rank's strips: their names in a font that fits them.
        QFont font = normal;
        if (it.height < QFontMetrics(normal).height() - 4) {
            font.setPixelSize(std::max(6, it.height));
            painter->setFont(font);
        }
        const QFontMetrics fm(font);
        painter->setPen(c.text);
        QString note;
        if (g.overlapRows)
            note = QStringLiteral("  \u26a0 +%1 overlap").arg(g.overlapRows);
        const int noteW = note.isEmpty() ? 0 : fm.horizontalAdvance(note);
        const QRect textRect = band.adjusted(6, 0, -4 - noteW, 0);
        painter->drawText(textRect, Qt::AlignVCenter | Qt::AlignLeft,
                          fm.elidedText(label, Qt::ElideRight, textRect.width()));
        if (!note.isEmpty()) {
            painter->setPen(c.critical);
            painter->drawText(band.adjusted(0, 0, -4, 0), Qt::AlignVCenter | Qt::AlignRight, note);
        }
        painter->setFont(normal);
    }
    painter->setPen(c.separator);
    painter->drawLine(QLineF(clip.right(), clip.top(), clip.right(), clip.bottom()));
}

} // namespace syncscope::ui
