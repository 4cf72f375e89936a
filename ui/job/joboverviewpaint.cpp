// SPDX-License-Identifier: MIT
// JobOverview's drawing: the image composed from the bins (O(pixels)), the
// overlays (view frame, keyboard row and column) and the tooltips.
#include "joboverview.h"

#include "theme.h"
#include "timeline/timeformat.h"

#include <QElapsedTimer>
#include <QPainter>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace syncscope::ui {

namespace {

// Colours as floats, to mix and average without QColor's conversions per pixel.
struct Rgb {
    float r = 0, g = 0, b = 0;
};

Rgb rgbOf(const QColor &c)
{
    return {float(c.red()), float(c.green()), float(c.blue())};
}

// `to` over `from` at opacity a (0..1).
Rgb mix(const Rgb &from, const Rgb &to, float a)
{
    return {from.r + (to.r - from.r) * a, from.g + (to.g - from.g) * a, from.b + (to.b - from.b) * a};
}

// Covered pixels are at least this opaque: a short kernel in a long column stays visible.
constexpr float kMinAlpha = 0.3f;

struct Palette {
    Rgb background, absent, comm, other, wait, last;
};

Palette paletteOf(const TimelineColors &c)
{
    return {rgbOf(c.background), rgbOf(c.laneStripe), rgbOf(c.category[size_t(Category::Communication)]),
            rgbOf(c.category[size_t(Category::Kernel)]), rgbOf(c.edge[size_t(EdgeKind::Sync)]), rgbOf(c.critical)};
}

Rgb activityColour(const Palette &pal, const ActivityBins &b, size_t i)
{
    const int w = b.wait[i], c = b.comm[i], o = b.other[i];
    const int total = std::min(255, w + c + o);
    if (total == 0)
        return pal.background;
    const Rgb &base = (w >= c && w >= o) ? pal.wait : (c >= o ? pal.comm : pal.other);
    return mix(pal.background, base, kMinAlpha + (1 - kMinAlpha) * float(total) / 255.f);
}

Rgb heatColour(const Palette &pal, const HeatmapBins &h, size_t i)
{
    switch (h.cell[i]) {
    case HeatCell::Absent: return pal.absent;
    case HeatCell::LastArrival: return pal.last;
    case HeatCell::Waited: break;
    }
    return mix(pal.background, pal.wait, 0.08f + 0.92f * float(h.level[i]) / 255.f);
}

QString msText(double ns)
{
    return QStringLiteral("%1 ms").arg(ns / 1e6, 0, 'f', 3);
}

QString durText(double ns)
{
    return QString::fromStdString(formatDuration(ns));
}

} // namespace

void JobOverview::compose()
{
    QElapsedTimer t;
    t.start();
    const int width = std::max(1, canvas()->width()), height = std::max(1, canvas()->height());
    const TimelineColors colors = timelineColors(isDarkPalette(palette()));
    const Palette pal = paletteOf(colors);
    if (m_image.size() != QSize(width, height))
        m_image = QImage(width, height, QImage::Format_RGB32);
    m_image.fill(colors.background);
    const bool waits = m_mode == Mode::Waits;
    const int binsWidth = waits ? m_heat.width : m_activity.width;
    const OverviewRowGeometry g = overviewRowGeometry(int(m_order.size()), height);
    const int cols = std::min(width, binsWidth);
    // Waits: with cells 4 px wide or more, each column's first pixel separates it.
    const bool separators = waits && !m_heat.empty() && m_job &&
                            width >= 4 * int(m_job->analysis.collectives.size());
    std::vector<Rgb> sum(size_t(std::max(0, cols)));
    std::vector<QRgb> line(size_t(width), colors.background.rgb());
    for (int row = 0; row < g.rows && cols > 0; ++row) {
        const int first = row * g.perRow, last = std::min(int(m_order.size()), first + g.perRow);
        std::fill(sum.begin(), sum.end(), Rgb{});
        for (int d = first; d < last; ++d) {
            const size_t base = size_t(m_order[size_t(d)]) * size_t(binsWidth);
            for (int x = 0; x < cols; ++x) {
                const Rgb c = waits ? heatColour(pal, m_heat, base + size_t(x)) : activityColour(pal, m_activity, base + size_t(x));
                sum[size_t(x)].r += c.r;
                sum[size_t(x)].g += c.g;
                sum[size_t(x)].b += c.b;
            }
        }
        const float n = float(last - first);
        for (int x = 0; x < cols; ++x) {
            const bool gap = separators && x > 0 && m_heat.first[size_t(x)] != m_heat.first[size_t(x - 1)];
            line[size_t(x)] = gap ? colors.background.rgb()
                                  : qRgb(int(sum[size_t(x)].r / n + 0.5f), int(sum[size_t(x)].g / n + 0.5f),
                                         int(sum[size_t(x)].b / n + 0.5f));
        }
        const int y0 = row * g.rowPx;
        const int lines = g.gap() ? g.rowPx - 1 : g.rowPx;
        for (int y = y0; y < y0 + lines && y < height; ++y)
            std::memcpy(m_image.scanLine(y), line.data(), size_t(width) * sizeof(QRgb));
    }
    m_imageDirty = false;
    m_stats.composeMs = double(t.nsecsElapsed()) / 1e6;
}

void JobOverview::paintCanvas(QPainter &p)
{
    ensureImage();
    ++m_stats.paints;
    p.drawImage(0, 0, m_image);
    const TimelineColors colors = timelineColors(isDarkPalette(palette()));
    const OverviewRowGeometry g = overviewRowGeometry(int(m_order.size()), canvas()->height());
    const int used = g.rows * g.rowPx;
    QString empty;
    if (!m_model || m_rows.empty())
        empty = tr("No job open");
    else if (m_mode == Mode::Waits && m_heat.empty())
        empty = m_job ? tr("No matched collectives") : tr("Waits: the cross-rank analysis has not run yet");
    if (!empty.isEmpty()) {
        p.setPen(colors.textDim);
        p.drawText(canvas()->rect(), Qt::AlignCenter, empty);
        return;
    }
    p.setBrush(Qt::NoBrush);
    // The main timeline's visible range.
    int x0 = -1, x1 = -1;
    if (m_viewEnd > m_viewStart && m_mode == Mode::Activity && !m_activity.empty()) {
        const double nsPerPx = (m_activity.endNs - m_activity.startNs) / m_activity.width;
        x0 = int(std::floor((m_viewStart - m_activity.startNs) / nsPerPx));
        x1 = int(std::ceil((m_viewEnd - m_activity.startNs) / nsPerPx));
    } else if (m_viewEnd > m_viewStart && m_mode == Mode::Waits) {
        for (int x = 0; x < m_heat.width; ++x)
            for (uint32_t c = m_heat.first[size_t(x)]; c < m_heat.last[size_t(x)]; ++c) {
                const double s = m_heat.startNs[c];
                if (s >= m_viewStart && s <= m_viewEnd) {
                    x0 = x0 < 0 ? x : x0;
                    x1 = x + 1;
                }
            }
    }
    if (x1 > x0 && x1 > 0 && x0 < canvas()->width()) {
        x0 = std::max(0, x0);
        x1 = std::min(canvas()->width(), x1);
        p.setPen(QPen(colors.selection, 1));
        p.drawRect(QRect(x0, 0, std::max(1, x1 - x0) - 1, std::max(1, used) - 1));
    }
    // Waits with rows under 3 px (64+ ranks): each collective's last arriver drawn 3 px tall
    // over its neighbours, so the straggler shows at any rank count (issue 41: a 1-px red cell
    // in an orange wall).
    m_stats.lastArrivalMarks = 0;
    if (m_mode == Mode::Waits && !m_heat.empty() && g.rowPx < 3) {
        const int w = m_heat.width;
        for (size_t d = 0; d < m_order.size(); ++d) {
            const size_t part = m_order[d];
            if ((part + 1) * size_t(w) > m_heat.cell.size())
                continue;
            const int y = int(d / size_t(g.perRow)) * g.rowPx;
            const HeatCell *cells = m_heat.cell.data() + part * size_t(w);
            for (int x = 0; x < w; ++x)
                if (cells[x] == HeatCell::LastArrival) {
                    p.fillRect(QRect(x, std::max(0, y + g.rowPx / 2 - 1), 1, 3), colors.critical);
                    ++m_stats.lastArrivalMarks;
                }
        }
    }
    // Rank numbers down the left edge, every k-th pixel row at least 10 px apart (issue 41: 64
    // ranks of heatmap were an unlabelled wall), on a translucent chip over the cells.
    {
        QFont small = p.font();
        small.setPixelSize(8);
        p.setFont(small);
        const QFontMetrics fm(small);
        QColor chip = colors.background;
        chip.setAlpha(190);
        const int every = std::max(1, int(std::ceil(10.0 / g.rowPx)));
        m_stats.rankLabels = 0;
        for (int row = 0; row < g.rows; row += every) {
            const size_t display = size_t(row) * size_t(g.perRow);
            if (display >= m_order.size() || m_order[display] >= m_model->parts.size())
                break;
            const QString t = QString::number(m_model->parts[m_order[display]].rank);
            const QRect box(1, std::max(0, row * g.rowPx + g.rowPx / 2 - 5), fm.horizontalAdvance(t) + 4, 10);
            p.fillRect(box, chip);
            p.setPen(colors.text);
            p.drawText(box, Qt::AlignCenter, t);
            ++m_stats.rankLabels;
        }
        p.setFont(font());
    }
    // The keyboard's row and, in Waits, its column.
    if (m_current >= 0) {
        const int y = (m_current / g.perRow) * g.rowPx;
        p.setPen(QPen(colors.text, 1));
        if (g.rowPx >= 3)
            p.drawRect(QRect(0, y, canvas()->width() - 1, g.rowPx - 1));
        else
            p.fillRect(QRect(0, y, 4, g.rowPx), colors.text);
    }
    if (m_mode == Mode::Waits && m_currentCollective >= 0) {
        const int x = columnOf(quint32(m_currentCollective));
        int w = 1;
        while (x >= 0 && x + w < m_heat.width && m_heat.first[size_t(x + w)] == m_heat.first[size_t(x)])
            ++w;
        if (x >= 0) {
            p.setPen(QPen(colors.text, 1, Qt::DotLine));
            p.drawRect(QRect(x, 0, std::max(1, w) - 1, std::max(1, used) - 1));
        }
    }
}

QString JobOverview::toolTipAt(const QPoint &pos) const
{
    const qint64 rank = rankAt(pos.y());
    if (rank < 0 || !m_model)
        return {};
    const OverviewRowGeometry g = overviewRowGeometry(int(m_order.size()), canvas()->height());
    const int display = (pos.y() / g.rowPx) * g.perRow;
    QString who = tr("Rank %1").arg(rank);
    if (g.perRow > 1) {
        const int lastDisplay = std::min(int(m_order.size()), display + g.perRow) - 1;
        who = tr("Ranks %1\u2013%2 (this pixel row; Rank %1 on click)")
                  .arg(rank)
                  .arg(m_rows[m_order[size_t(lastDisplay)]].rank);
    }
    const int part = partAtRow(display);
    if (m_mode == Mode::Waits) {
        const int c = collectiveAt(pos.x(), part);
        if (c < 0)
            return who;
        const MatchedCollective &mc = m_job->analysis.collectives[size_t(c)];
        QString text = who + QStringLiteral(" \u00b7 ") + QString::fromStdString(mc.name) +
                       QStringLiteral(" #%1").arg(c);
        if (!mc.processGroup.empty())
            text += tr(" (group %1)").arg(QString::fromStdString(mc.processGroup));
        if (m_heat.startNs[size_t(c)] >= 0)
            text += tr("\nfirst arrival at %1").arg(msText(m_heat.startNs[size_t(c)]));
        const uint32_t first = m_heat.first[size_t(pos.x())], last = m_heat.last[size_t(pos.x())];
        if (last - first > 1)
            text += tr("\nthis column: collectives #%1\u2013#%2").arg(first).arg(last - 1);
        auto w = mc.waitUs.find(rank);
        if (std::find(mc.ranks.begin(), mc.ranks.end(), rank) == mc.ranks.end())
            text += tr("\nrank %1 did not take part").arg(rank);
        else if (mc.lastArrivalRank == rank)
            text += tr("\narrived last: caused %1 of waits").arg(durText(waitCausedUs(mc) * 1e3));
        else
            text += tr("\nwaited %1 (last arrival: rank %2)")
                        .arg(durText(w == mc.waitUs.end() ? 0.0 : w->second * 1e3))
                        .arg(mc.lastArrivalRank);
        return text;
    }
    if (m_activity.empty() || pos.x() < 0 || pos.x() >= m_activity.width)
        return who;
    const double ns = timeAt(pos.x());
    const double nsPerPx = (m_activity.endNs - m_activity.startNs) / m_activity.width;
    QString text = who + QStringLiteral(" \u00b7 ") + msText(ns);
    const int64_t ev = part < 0 ? -1 : overviewEventAt(*m_model, m_rows[size_t(part)], m_allStreams, ns, nsPerPx);
    if (ev < 0)
        return text + tr("\nidle");
    const uint32_t event = uint32_t(ev);
    const QString name = QString::fromStdString(std::string(m_model->name(event)));
    const double start = m_model->startNs(event), end = m_model->endNs(event);
    if (const CollectiveMark *m = m_model->collectiveMark(event); m && m->waitNs > 0 && ns < start + m->waitNs) {
        QString what = name;
        if (m_job && m->collective < m_job->analysis.collectives.size())
            what = QString::fromStdString(m_job->analysis.collectives[m->collective].name) +
                   QStringLiteral(" #%1").arg(m->collective);
        return text + tr("\nwait of %1 in collective %2").arg(durText(m->waitNs), what);
    }
    if (const CollectiveMark *m = m_model->collectiveMark(event); m && m->lastArrival)
        return text + tr("\nbusy: %1 (%2), arrived last").arg(name, durText(end - start));
    return text + tr("\nbusy: %1 (%2)").arg(name, durText(end - start));
}

} // namespace syncscope::ui
