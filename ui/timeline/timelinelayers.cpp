// SPDX-License-Identifier: MIT
#include "timelinelayers.h"

#include "gaplayer.h"
#include "gapoverlay.h"
#include "timeformat.h"
#include "timelineplot.h"

#include <QElapsedTimer>
#include <QImage>

#include <algorithm>
#include <cmath>

namespace syncscope::ui {

namespace {

constexpr double kMinBoxPx = 3.0;   // narrower events fold
constexpr size_t kEdgeBudget = 600; // per kind, before thinning to one arrow per pixel column
constexpr double kThinPx = 8.0;     // arrows between the same two rows closer than this are one

double clampX(double x, const QRect &r)
{
    return std::clamp(x, double(r.left()) - 20000.0, double(r.right()) + 20000.0);
}

QString qstr(std::string_view s)
{
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

// Pixel spans (plot x) as rects from `top`, `height` tall, at least 2 px wide so a
// lone critical op stays visible at any zoom.
void fillSpans(QCPPainter *painter, const std::vector<PxSpan> &spans, const QRect &rect, double top, double height,
               const QColor &color, double grow = 0)
{
    for (const PxSpan &s : spans) {
        const double x0 = clampX(rect.left() + s.x0, rect), x1 = clampX(rect.left() + s.x1, rect);
        painter->fillRect(QRectF(x0 - grow, top - grow, std::max(2.0, x1 - x0) + 2 * grow, height + 2 * grow), color);
    }
}

void drawArrow(QCPPainter *painter, QPointF from, QPointF to, double head)
{
    painter->drawLine(QLineF(from, to));
    const double dx = to.x() - from.x(), dy = to.y() - from.y();
    const double len = std::hypot(dx, dy);
    if (len < 1)
        return;
    const double ux = dx / len, uy = dy / len;
    const QPointF base(to.x() - ux * head, to.y() - uy * head);
    const QPointF n(-uy * head * 0.45, ux * head * 0.45);
    const QPointF tri[3] = {to, base + n, base - n};
    painter->drawPolygon(tri, 3);
}

} // namespace

QPen timelineEdgePen(EdgeKind kind, bool inferred, QColor color, bool bold, bool cheap)
{
    double width = 1.0;
    Qt::PenStyle style = Qt::SolidLine;
    switch (kind) {
    case EdgeKind::Launch: color.setAlpha(bold ? 255 : 170); break;
    case EdgeKind::Sync: width = 1.6; style = inferred ? Qt::DashLine : Qt::SolidLine; break;
    case EdgeKind::CriticalPath: width = 2.4; break;
    case EdgeKind::InterThread: width = 1.3; style = Qt::DotLine; break;
    }
    if (bold)
        width += 1.5;
    if (cheap && kind != EdgeKind::CriticalPath) { // many arrows: faint thin lines, drawn in one batch
        width = 0;
        // Recorded and inferred waits stay apart even then.
        style = kind == EdgeKind::Sync && inferred ? Qt::DashLine : Qt::SolidLine;
        color.setAlpha(90);
    }
    return QPen(color, width, style, Qt::RoundCap, Qt::RoundJoin);
}

TimelineLayerable::TimelineLayerable(TimelinePlot *plot, const QString &layer)
    : QCPLayerable(plot, layer)
    , m_plot(plot)
{
}

void TimelineLayerable::applyDefaultAntialiasingHint(QCPPainter *painter) const
{
    painter->setAntialiasing(false);
}

QRect TimelineLayerable::clipRect() const
{
    return m_plot->plotRect();
}

void BoxLayer::draw(QCPPainter *painter)
{
    const TimelinePlot &p = *m_plot;
    const TimelineColors &c = p.m_colors;
    const QRect rect = p.plotRect();
    PaintStats &stats = m_plot->m_stats;
    stats = PaintStats{};
    if (!p.m_model)
        return;
    const TimelineModel &model = *p.m_model;
    const RowGeometry &geo = p.m_geometry;
    const int y0 = p.m_scrollY, y1 = p.m_scrollY + rect.height();

    // Lane stripes and process headers.
    for (int i = std::max(0, geo.itemAtY(y0)); i >= 0 && i < int(geo.items.size()) && geo.items[i].y < y1; ++i) {
        const auto &it = geo.items[i];
        const QRect band(rect.left(), p.widgetY(it.y), rect.width(), it.height);
        if (it.header) {
            painter->fillRect(band, c.header);
            const LaneGroup &g = model.layout.groups[it.group];
            if (g.part >= 0 && size_t(g.part) < model.parts.size()) { // a rank header: its figures
                painter->setPen(c.textDim);
                painter->drawText(band.adjusted(6, 0, -6, 0), Qt::AlignVCenter | Qt::AlignLeft,
                                  qstr(model.parts[size_t(g.part)].label));
            }
        }
        else if (it.group % 2)
            painter->fillRect(band, c.laneStripe);
    }

    QElapsedTimer timer;
    timer.start();
    const Viewport view = p.viewport();
    m_boxes.clear();
    buildDrawList(model.layout, view, geo.rowsIn(y0, y1), kMinBoxPx, m_boxes);
    stats.drawListMs = timer.nsecsElapsed() / 1e6;
    stats.boxes = m_boxes.size();

    const QFontMetrics fm(painter->font());
    const TimelineOverlay *exposed = p.m_showExposed ? p.m_breakdownOverlay.get() : nullptr;
    const bool jobMarks = model.isJob() && !model.collectiveOf.empty();
    QPen criticalPen(c.critical, 2);
    criticalPen.setJoinStyle(Qt::MiterJoin);
    for (const DrawBox &b : m_boxes) {
        int rowY = 0, rowH = 0;
        if (!geo.rowBand(b.row, rowY, rowH))
            continue;
        const double x0 = clampX(rect.left() + b.x0, rect), x1 = clampX(rect.left() + b.x1, rect);
        const QRectF r(x0, p.widgetY(rowY) + 1, std::max(1.0, x1 - x0), rowH - 2);
        QColor fill = c.category[static_cast<int>(b.category)];
        if (b.folded()) {
            ++stats.foldedBoxes;
            fill = c.dark ? fill.darker(135) : fill.darker(118);
        } else if (p.m_tints) { // compare window: coloured by delta
            if (auto it = p.m_tints->find(static_cast<uint32_t>(b.event)); it != p.m_tints->end())
                fill = it->second;
        }
        // The critical path as a band on its ops; a folded run only where its critical ops are,
        // so a merged "N ops" box with one critical op in it is not red all along.
        m_spans.clear();
        if (b.critical && b.folded())
            criticalSpans(model.layout.rows[b.row], view, b, m_spans);
        // An op the path only joins at one end (a blocking call it reaches from the GPU) is red
        // at that end, not along its whole length (issue 41).
        QRectF onPath = r;
        if (b.critical && !b.folded()) {
            if (auto part = model.criticalPart.find(b.event); part != model.criticalPart.end()) {
                const double full = std::max(1.0, (b.x1 - b.x0));
                const double a = rect.left() + b.x0 + part->second.first * full;
                const double e = rect.left() + b.x0 + part->second.second * full;
                const double w = std::max(4.0, e - a);
                const double left = part->second.first >= 1 ? e - w : a;
                onPath = QRectF(clampX(left, rect), r.top(), std::max(1.0, clampX(left + w, rect) - clampX(left, rect)),
                                r.height());
                ++stats.partialCritical;
            }
            painter->fillRect(onPath.adjusted(-2, -1, 2, 1), c.criticalBand);
        }
        fillSpans(painter, m_spans, rect, r.top(), r.height(), c.criticalBand, 1);
        double meanBusy = 1;
        if (b.folded()) {
            // Density, not a solid bar: each pixel column as busy as the row is there, in the
            // colour of what mostly runs there; idle columns stay empty (issue 41).
            foldedDensity(model.layout.rows[b.row], view, b, m_density);
            double sum = 0;
            if (!m_density.empty()) {
                // One image row per box, stretched to the row's height: a column per pixel
                // without a fill call per pixel.
                const int first = std::max(m_density.front().x, -1), lastX = std::min(m_density.back().x, rect.width());
                if (lastX >= first) {
                    QImage line(lastX - first + 1, 1, QImage::Format_ARGB32_Premultiplied);
                    line.fill(Qt::transparent);
                    auto *px = reinterpret_cast<QRgb *>(line.scanLine(0));
                    for (const PxDensity &d : m_density) {
                        sum += d.busy;
                        if (d.x < first || d.x > lastX)
                            continue;
                        const QColor &col = c.category[static_cast<int>(d.category)];
                        const int a = int(255 * (0.25 + 0.75 * double(d.busy)));
                        px[d.x - first] = qPremultiply(qRgba(col.red(), col.green(), col.blue(), a));
                    }
                    painter->drawImage(QRectF(rect.left() + first, r.top(), line.width(), r.height()), line);
                }
            }
            meanBusy = sum / double(std::max(1.0, r.width()));
            stats.densityColumns += m_density.size();
        } else {
            painter->fillRect(r, fill);
        }
        // Job: a collective kernel's wait for the last arrival is hatched and lighter, the
        // transfer after it solid; the last arriver gets a marker at its start.
        if (jobMarks && b.category == Category::Communication && !b.folded()) {
            if (const CollectiveMark *mark = model.collectiveMark(b.event)) {
                if (mark->waitNs > 0) {
                    const double wx1 = std::min(r.right(), r.left() + double(mark->waitNs) / view.nsPerPx);
                    const QRectF w(r.left(), r.top(), std::max(1.0, wx1 - r.left()), r.height());
                    painter->fillRect(w, fill.lighter(c.dark ? 70 : 160));
                    painter->fillRect(w, QBrush(fill.darker(c.dark ? 60 : 150), Qt::BDiagPattern));
                    ++stats.waitParts;
                }
                if (mark->lastArrival) {
                    const double t = std::min(7.0, r.height() + 1); // smaller on a folded rank's strip
                    const QPointF tri[3] = {QPointF(r.left(), r.top() - 1), QPointF(r.left() + t, r.top() - 1),
                                            QPointF(r.left(), r.top() + t)};
                    painter->setPen(Qt::NoPen);
                    painter->setBrush(c.critical);
                    painter->drawPolygon(tri, 3);
                }
            }
        }
        // Exposed communication on this box: over its fill, under its label (issue 41).
        bool exposedHere = false;
        if (exposed && b.row < exposed->exposed.size() && !exposed->exposed[b.row].empty()) {
            const OverlayRow &spans = exposed->exposed[b.row];
            const SpanWindow w = overlayWindow(spans, view.toTime(b.x0), view.toTime(b.x1));
            double bx0 = 0, bx1 = -1e9; // spans less than a pixel apart are one band
            auto flush = [&] {
                if (bx1 < bx0)
                    return;
                paintExposedBand(painter, QRectF(bx0, r.top(), std::max(1.0, bx1 - bx0), r.height()), c.dark);
                ++stats.exposedBands;
                exposedHere = true;
            };
            for (size_t i = w.first; i < w.last; ++i) {
                const double sx0 = std::max(r.left(), rect.left() + view.toX(double(spans.spans[i].startNs)));
                const double sx1 = std::min(r.right(), rect.left() + view.toX(double(spans.spans[i].endNs)));
                if (sx1 < sx0)
                    continue;
                if (sx0 <= bx1 + 1) {
                    bx1 = std::max(bx1, sx1);
                } else {
                    flush();
                    bx0 = sx0;
                    bx1 = sx1;
                }
            }
            flush();
        }
        if (b.critical) {
            if (b.folded()) {
                fillSpans(painter, m_spans, rect, r.bottom() - 3, 3, c.critical);
            } else if (onPath.width() < 4) {
                painter->fillRect(QRectF(onPath.left(), onPath.bottom() - 3, onPath.width(), 3), c.critical);
            } else {
                painter->setPen(criticalPen);
                painter->setBrush(Qt::NoBrush);
                painter->drawRect(onPath.adjusted(1, 1, -1, -1));
            }
        }
        // What-if: the op's projected place, a dashed outline on its own row.
        if (p.m_projection && !b.folded()) {
            if (auto it = p.m_projection->find(static_cast<uint32_t>(b.event)); it != p.m_projection->end()) {
                const double g0 = clampX(rect.left() + b.x0 + it->second.first / view.nsPerPx, rect);
                const double g1 = clampX(rect.left() + b.x1 + it->second.second / view.nsPerPx, rect);
                QPen ghost(c.critical, 1, Qt::DashLine);
                painter->setPen(ghost);
                painter->setBrush(Qt::NoBrush);
                painter->drawRect(QRectF(g0, r.top(), std::max(1.0, g1 - g0), r.height()));
                ++stats.ghosts;
            }
        }
        // Labels: only where they fit; a folded run says how many ops it holds.
        const double visibleW = std::min(r.right(), double(rect.right())) - std::max(r.left(), double(rect.left()));
        if (visibleW < 28 || r.height() < fm.height() - 4) // a folded rank's strips carry no text
            continue;
        QString text = b.folded() ? QStringLiteral("%1 ops").arg(b.count) : qstr(model.name(b.event));
        text = fm.elidedText(text, Qt::ElideRight, int(visibleW) - 6);
        if (text.size() <= 1)
            continue;
        const QRectF tr(std::max(r.left(), double(rect.left())) + 3, r.top(), visibleW - 6, r.height());
        if (exposedHere) { // the label on its own fill, the hatch around it
            const int textW = fm.horizontalAdvance(text) + 4;
            painter->fillRect(QRectF(tr.left() - 2, r.top() + 2, std::min(double(textW), tr.width() + 4), r.height() - 4), fill);
        }
        painter->setPen(!b.folded() ? textOn(fill) : meanBusy > 0.6 ? textOn(fill).lighter(c.dark ? 80 : 160) : c.text);
        painter->drawText(tr, Qt::AlignVCenter | Qt::AlignLeft, text);
        ++stats.labels;
    }

    drawFoldedCritical(painter, y0, y1);

    // Job: the hovered collective joined on every rank (a thin dotted connector).
    if (const std::vector<uint32_t> hovered = p.hoveredLinkedEvents(); hovered.size() > 1) {
        std::vector<QPointF> joints;
        for (uint32_t ev : hovered) {
            const EventPos &op = model.layout.pos(ev);
            const int cy = op.row >= 0 ? geo.rowCenterY(static_cast<uint32_t>(op.row)) : -1;
            if (cy >= 0)
                joints.emplace_back(clampX(rect.left() + view.toX(model.startNs(ev)), rect), p.widgetY(cy));
        }
        std::sort(joints.begin(), joints.end(), [](const QPointF &a, const QPointF &b) { return a.y() < b.y(); });
        painter->setPen(QPen(c.selection, 1, Qt::DotLine));
        if (joints.size() > 1)
            painter->drawPolyline(joints.data(), static_cast<int>(joints.size()));
    }

    // The selected op, outlined wherever it is (even when folded into a run).
    if (p.m_selection->hasEvent()) {
        const uint32_t ev = static_cast<uint32_t>(p.m_selection->event());
        const EventPos &pos = model.layout.pos(ev);
        if (pos.row >= 0) {
            int rowY = 0, rowH = 0;
            geo.rowBand(static_cast<uint32_t>(pos.row), rowY, rowH);
            const double x0 = clampX(rect.left() + view.toX(model.startNs(ev)), rect);
            const double x1 = clampX(rect.left() + view.toX(model.endNs(ev)), rect);
            const double w = std::max(3.0, x1 - x0);
            const QRectF r(x0 - (x1 - x0 < 3 ? 1 : 0), p.widgetY(rowY), w, rowH);
            painter->setBrush(Qt::NoBrush);
            painter->setPen(QPen(c.selection, 2.5));
            painter->drawRect(r);
        }
        // Job: the same collective on every rank, outlined and joined by a thin connector.
        std::vector<QPointF> joints;
        for (uint32_t other : p.linkedEvents()) {
            const EventPos &op = model.layout.pos(other);
            int rowY = 0, rowH = 0;
            if (op.row < 0 || !geo.rowBand(static_cast<uint32_t>(op.row), rowY, rowH))
                continue;
            const double x0 = clampX(rect.left() + view.toX(model.startNs(other)), rect);
            const double x1 = clampX(rect.left() + view.toX(model.endNs(other)), rect);
            const QRectF r(x0, p.widgetY(rowY), std::max(3.0, x1 - x0), rowH);
            painter->setBrush(Qt::NoBrush);
            painter->setPen(QPen(c.selection, 1.5, Qt::DashLine));
            if (other != ev)
                painter->drawRect(r);
            joints.emplace_back(x0, p.widgetY(rowY + rowH / 2));
            ++stats.linkedOutlines;
        }
        if (joints.size() > 1) {
            std::sort(joints.begin(), joints.end(), [](const QPointF &a, const QPointF &b) { return a.y() < b.y(); });
            painter->setPen(QPen(c.selection, 1.2));
            painter->drawPolyline(joints.data(), static_cast<int>(joints.size()));
        }
    }
    // The compare window's synchronised cursor.
    if (!std::isnan(p.m_cursorNs)) {
        const double x = rect.left() + view.toX(p.m_cursorNs);
        if (x >= rect.left() && x <= rect.right()) {
            painter->setPen(QPen(c.selection, 1, Qt::DashLine));
            painter->drawLine(QPointF(x, rect.top()), QPointF(x, rect.bottom()));
        }
    }
}

// Job: the critical ops on a folded rank's threads and streams, as a red strip along
// the bottom of its summary lanes (which show top-level ops only, or cut ones).
void BoxLayer::drawFoldedCritical(QCPPainter *painter, int y0, int y1)
{
    const TimelinePlot &p = *m_plot;
    const TimelineModel &model = *p.m_model;
    if (!model.isJob() || model.criticalEvents.empty())
        return;
    const RowGeometry &geo = p.m_geometry;
    const LaneLayout &layout = model.layout;
    m_foldedRows.clear();
    for (int i = std::max(0, geo.itemAtY(y0)); i >= 0 && i < int(geo.items.size()) && geo.items[i].y < y1; ++i) {
        const auto &it = geo.items[size_t(i)];
        if (it.header || !layout.groups[it.group].isSummary())
            continue;
        for (uint32_t r : geo.rowsOnItem(i))
            if (r != it.row)
                m_foldedRows.push_back(r);
    }
    if (m_foldedRows.empty())
        return;
    const QRect rect = p.plotRect();
    const Viewport view = p.viewport();
    m_folded.clear();
    buildDrawList(layout, view, m_foldedRows, kMinBoxPx, m_folded);
    for (const DrawBox &b : m_folded) {
        if (!b.critical)
            continue;
        int rowY = 0, rowH = 0;
        if (!geo.rowBand(b.row, rowY, rowH))
            continue;
        m_spans.clear();
        if (b.folded()) // only where the critical ops of the run are
            criticalSpans(layout.rows[b.row], view, b, m_spans);
        else
            m_spans.push_back({b.x0, b.x1});
        const double bottom = p.widgetY(rowY) + rowH - 1;
        fillSpans(painter, m_spans, rect, bottom - 3, 3, p.m_colors.critical);
    }
}

void EdgeLayer::draw(QCPPainter *painter)
{
    TimelinePlot &p = *m_plot;
    if (!p.m_model)
        return;
    const TimelineModel &model = *p.m_model;
    const TimelineColors &c = p.m_colors;
    const QRect rect = p.plotRect();
    const Viewport view = p.viewport();

    auto pointOf = [&](uint32_t event, double t, QPointF &out) {
        const EventPos &pos = model.layout.pos(event);
        if (pos.row < 0)
            return false;
        const int cy = p.m_geometry.rowCenterY(static_cast<uint32_t>(pos.row));
        if (cy < 0)
            return false;
        out = QPointF(clampX(rect.left() + view.toX(t), rect), p.widgetY(cy));
        return true;
    };
    // Job: the rank of an op drawn on a folded rank's strips, -1 elsewhere.
    auto foldedPart = [&](uint32_t event) {
        const EventPos &pos = model.layout.pos(event);
        const int item = pos.row < 0 ? -1 : p.m_geometry.stripItem(model.layout, uint32_t(pos.row));
        return item < 0 ? -1 : int(model.layout.groups[p.m_geometry.items[size_t(item)].group].part);
    };
    auto lineOf = [&](const TimelineEdge &e, QLineF &line) {
        QPointF a, b;
        // Inside one folded rank the strips are a few pixels apart: its own arrows would
        // be a knot there (the red strip shows its critical ops); across ranks they stay.
        if (const int part = foldedPart(e.from); part >= 0 && part == foldedPart(e.to))
            return false;
        if (!pointOf(e.from, e.fromNs, a) || !pointOf(e.to, e.toNs, b))
            return false;
        if ((a.y() < rect.top() && b.y() < rect.top()) || (a.y() > rect.bottom() && b.y() > rect.bottom()))
            return false;
        line = QLineF(a, b);
        return true;
    };
    auto penFor = [&](EdgeKind k, bool inferred, bool bold, bool cheap) {
        const QPen pen = timelineEdgePen(k, inferred, c.edge[static_cast<int>(k)], bold, cheap);
        painter->setBrush(pen.color());
        painter->setPen(pen);
        return pen.widthF();
    };

    // Level of detail: a kind with many arrows in view is drawn as plain aliased lines in
    // one call; arrowheads and antialiasing only when they are few.
    constexpr size_t kDetailed = 300;
    const double t0 = view.startNs, t1 = view.endNs();
    for (int k = 0; k < kEdgeKindCount; ++k) {
        const EdgeKind kind = static_cast<EdgeKind>(k);
        if (!p.m_toggles->shown(kind))
            continue;
        m_ids.clear();
        model.edges.visible(kind, t0, t1, view.nsPerPx, kEdgeBudget, m_ids);
        const auto &edges = model.edges.edges(kind);
        m_lines.clear();
        m_dashedLines.clear();
        m_lastX.clear();
        QLineF line;
        for (uint32_t id : m_ids) {
            const TimelineEdge &e = edges[id];
            const int32_t fromRow = model.layout.pos(e.from).row, toRow = model.layout.pos(e.to).row;
            // The critical path: the band on its ops shows it within a lane (along a row and down a
            // call stack); connectors only where it moves to another lane (launch, sync, thread).
            if (kind == EdgeKind::CriticalPath &&
                (fromRow == toRow || (fromRow >= 0 && toRow >= 0 &&
                                      model.layout.rows[size_t(fromRow)].group == model.layout.rows[size_t(toRow)].group)))
                continue;
            if (!lineOf(e, line))
                continue;
            // Thin by screen distance: one arrow per row pair every kThinPx pixels (no combs or curtains).
            const uint64_t key = (uint64_t(uint32_t(fromRow)) << 32) | uint32_t(toRow);
            auto [it, fresh] = m_lastX.try_emplace(key, line.p1().x());
            if (!fresh) {
                if (std::abs(line.p1().x() - it->second) < kThinPx)
                    continue;
                it->second = line.p1().x();
            }
            (e.inferred ? m_dashedLines : m_lines).push_back(line);
        }
        p.m_stats.edges[k] = m_lines.size() + m_dashedLines.size();
        if (kind == EdgeKind::Sync)
            p.m_stats.dashedSyncEdges = m_dashedLines.size();
        const bool cheap = p.m_stats.edges[k] > kDetailed;
        painter->setAntialiasing(!cheap);
        for (const bool inferred : {false, true}) {
            const std::vector<QLineF> &lines = inferred ? m_dashedLines : m_lines;
            if (lines.empty())
                continue;
            const double w = penFor(kind, inferred, false, cheap);
            if (cheap) {
                painter->drawLines(lines.data(), static_cast<int>(lines.size()));
            } else {
                for (const QLineF &l : lines)
                    drawArrow(painter, l.p1(), l.p2(), 5 + 1.5 * w);
            }
        }
    }
    painter->setAntialiasing(true);
    if (p.m_selection->hasEvent()) {
        for (const EdgeRef &ref : model.edges.edgesOf(static_cast<uint32_t>(p.m_selection->event()))) {
            const TimelineEdge &e = model.edges.edges(ref.kind)[ref.id];
            const double w = penFor(ref.kind, e.inferred, true, false);
            QLineF line;
            if (lineOf(e, line)) {
                drawArrow(painter, line.p1(), line.p2(), 5 + 1.5 * w);
                ++p.m_stats.selectedEdges;
                p.m_stats.selectedDashedEdges += e.inferred;
            }
        }
    }
}

void OverlayLayer::draw(QCPPainter *painter)
{
    const TimelinePlot &p = *m_plot;
    const TimelineColors &c = p.m_colors;
    const QRect rect = p.plotRect();
    if (!p.m_model) {
        painter->setPen(c.textDim);
        painter->drawText(rect, Qt::AlignCenter, QStringLiteral("No trace loaded"));
        return;
    }
    if (!p.m_measure)
        return;
    const Viewport view = p.viewport();
    const double x0 = clampX(rect.left() + view.toX(p.m_measure->t0), rect);
    const double x1 = clampX(rect.left() + view.toX(p.m_measure->t1), rect);
    const QRectF band(x0, rect.top(), std::max(1.0, x1 - x0), rect.height());
    painter->fillRect(band, c.measureFill);
    painter->setPen(QPen(c.measureEdge, 1));
    painter->drawLine(QLineF(x0, rect.top(), x0, rect.bottom()));
    painter->drawLine(QLineF(x1, rect.top(), x1, rect.bottom()));
    const QString text = QString::fromStdString(formatDuration(p.m_measure->t1 - p.m_measure->t0));
    QFont f = painter->font();
    f.setBold(true);
    painter->setFont(f);
    const QFontMetrics fm(f);
    const int w = fm.horizontalAdvance(text) + 12, h = fm.height() + 6;
    const double cx = std::clamp((x0 + x1) / 2, double(rect.left()) + w / 2, double(rect.right()) - w / 2);
    const QRectF box(cx - w / 2.0, rect.top() + 4, w, h);
    painter->setAntialiasing(true);
    painter->setBrush(c.measureEdge);
    painter->setPen(Qt::NoPen);
    painter->drawRoundedRect(box, 4, 4);
    painter->setPen(Qt::white);
    painter->drawText(box, Qt::AlignCenter, text);
}

} // namespace syncscope::ui
