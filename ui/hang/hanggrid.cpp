// SPDX-License-Identifier: MIT
#include "hanggrid.h"

#include "theme.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>

#include <QEvent>

#include <algorithm>
#include <cmath>
#include <map>

namespace syncscope::ui {

QColor hangCellColor(HangCellState s, bool dark)
{
    // The quiet states recede into the background of either palette; the alarming ones keep
    // their colour (the legend's) in both.
    switch (s) {
    case HangCellState::NotMember: return dark ? QColor(0x2a, 0x2c, 0x30) : QColor(0xee, 0xee, 0xee);
    case HangCellState::Idle: return dark ? QColor(0x44, 0x4c, 0x58) : QColor(0xcf, 0xd6, 0xe0);
    case HangCellState::Completed: return QColor(0x8c, 0xc8, 0x8c);
    case HangCellState::NoDump: return dark ? QColor(0x10, 0x10, 0x10) : QColor(0x3a, 0x3a, 0x3a);
    case HangCellState::EmptyDump: return QColor(0x9a, 0x9a, 0x9a);
    case HangCellState::Started: return QColor(0xf2, 0xb1, 0x34);
    case HangCellState::Scheduled: return QColor(0x4f, 0x8f, 0xd6);
    case HangCellState::Never: return QColor(0xd6, 0x27, 0x28);
    case HangCellState::Count: break;
    }
    return Qt::white;
}

QString hangCellName(HangCellState s)
{
    switch (s) {
    case HangCellState::NotMember: return QObject::tr("not a member");
    case HangCellState::Idle: return QObject::tr("idle (group unused)");
    case HangCellState::Completed: return QObject::tr("completed");
    case HangCellState::NoDump: return QObject::tr("no dump");
    case HangCellState::EmptyDump: return QObject::tr("empty dump");
    case HangCellState::Started: return QObject::tr("started");
    case HangCellState::Scheduled: return QObject::tr("scheduled");
    case HangCellState::Never: return QObject::tr("never enqueued");
    case HangCellState::Count: break;
    }
    return {};
}

int HangGrid::rowOfGroup(const HangAnalysis &a, const std::string &pgName) const
{
    for (size_t r = 0; r < rows.size(); ++r)
        if (a.groups[rows[r]].pgName == pgName)
            return int(r);
    return -1;
}

namespace {

HangCellState stateOf(const HangMemberStatus &m)
{
    if (m.dump == "none")
        return HangCellState::NoDump;
    if (m.dump == "empty")
        return HangCellState::EmptyDump;
    if (m.state == "completed")
        return HangCellState::Completed;
    if (m.state == "started")
        return HangCellState::Started;
    if (m.state == "scheduled")
        return HangCellState::Scheduled;
    return HangCellState::Never;
}

void addRuns(std::vector<std::pair<int64_t, int64_t>> &runs, const std::vector<int64_t> &ranks)
{
    for (int64_t r : ranks) {
        if (!runs.empty() && runs.back().second + 1 == r)
            runs.back().second = r;
        else
            runs.emplace_back(r, r);
    }
}

} // namespace

std::shared_ptr<HangGrid> buildHangGrid(const HangAnalysis &a, int64_t worldSize, bool onlyFindings)
{
    auto g = std::make_shared<HangGrid>();
    g->ranks = std::max<int64_t>(worldSize, 0);
    for (const auto &grp : a.groups)
        for (const auto &m : grp.members)
            g->ranks = std::max(g->ranks, m.rank + 1);
    std::map<std::string, size_t> groupIndex;
    for (size_t i = 0; i < a.groups.size(); ++i)
        groupIndex.emplace(a.groups[i].pgName, i);
    std::vector<char> taken(a.groups.size(), 0);
    for (const auto &s : a.suspects)
        if (auto it = groupIndex.find(s.pgName); it != groupIndex.end() && !taken[it->second]) {
            taken[it->second] = 1;
            g->rows.push_back(it->second);
        }
    if (!onlyFindings)
        for (size_t i = 0; i < a.groups.size(); ++i)
            if (!taken[i])
                g->rows.push_back(i);
    const size_t width = size_t(g->ranks);
    g->cells.assign(g->rows.size() * width, uint8_t(HangCellState::NotMember));
    std::vector<int> rowOf(a.groups.size(), -1);
    for (size_t r = 0; r < g->rows.size(); ++r) {
        rowOf[g->rows[r]] = int(r);
        uint8_t *row = g->cells.data() + r * width;
        const auto &members = a.groups[g->rows[r]].members;
        const bool used = std::any_of(members.begin(), members.end(),
                                      [](const HangMemberStatus &m) { return m.dump == "ok" && m.state != "never"; });
        for (const auto &m : members)
            if (m.rank >= 0 && m.rank < g->ranks) {
                const HangCellState st = stateOf(m);
                row[m.rank] = uint8_t(st == HangCellState::Never && !used ? HangCellState::Idle : st);
            }
    }
    // Consequences first so the roots' outlines are drawn over them.
    for (int pass = 0; pass < 2; ++pass)
        for (size_t i = 0; i < a.suspects.size(); ++i) {
            const HangSuspect &s = a.suspects[i];
            if (s.root != (pass == 1))
                continue;
            auto it = groupIndex.find(s.pgName);
            if (it == groupIndex.end() || rowOf[it->second] < 0)
                continue;
            const int row = rowOf[it->second];
            uint8_t *cells = g->cells.data() + size_t(row) * width;
            // It never enqueued the stuck op, whatever it did before (an active-only dump
            // still holds its older pending entries; an empty one whose pg_status gave its
            // progress is known to have stopped before). Not a rank held elsewhere. The
            // member list is searched only for empty dumps (rare): a map of the 10,000-rank
            // world group per finding was built before.
            const auto &members = a.groups[it->second].members;
            auto progressKnown = [&](int64_t r) { // an empty dump whose pg_status gave its progress
                auto m = std::find_if(members.begin(), members.end(), [r](const HangMemberStatus &x) { return x.rank == r; });
                return m != members.end() && m->lastEnqueued >= 0;
            };
            for (int64_t r : s.missingRanks) {
                if (r < 0 || r >= g->ranks || std::binary_search(s.heldRanks.begin(), s.heldRanks.end(), r))
                    continue;
                const auto c = HangCellState(cells[r]);
                if (c == HangCellState::Completed || c == HangCellState::Scheduled || c == HangCellState::Started ||
                    (c == HangCellState::EmptyDump && progressKnown(r)))
                    cells[r] = uint8_t(HangCellState::Never);
            }
            std::vector<int64_t> all = s.missingRanks;
            all.insert(all.end(), s.mismatchedRanks.begin(), s.mismatchedRanks.end());
            all.insert(all.end(), s.waitingRanks.begin(), s.waitingRanks.end());
            std::sort(all.begin(), all.end());
            all.erase(std::unique(all.begin(), all.end()), all.end());
            HangGridOutline o;
            o.row = row;
            o.root = s.root;
            o.suspect = i;
            addRuns(o.runs, all);
            g->outlines.push_back(std::move(o));
        }
    return g;
}

HangGridView::HangGridView(QWidget *parent)
    : QWidget(parent)
{
    setMouseTracking(true);
    setMinimumSize(200, 120);
    setFocusPolicy(Qt::StrongFocus);
}

void HangGridView::setGrid(std::shared_ptr<const HangGrid> grid)
{
    m_grid = std::move(grid);
    m_selRow = -1;
    m_selRank = -1;
    fitAll();
}

void HangGridView::fitAll()
{
    m_fitted = true;
    m_x0 = m_y0 = 0;
    if (m_grid && m_grid->ranks > 0 && !m_grid->rows.empty()) {
        m_cx = double(gw()) / double(m_grid->ranks);
        m_cy = std::min(24.0, double(gh()) / double(m_grid->rows.size()));
    }
    m_dirty = true;
    update();
}

void HangGridView::clampView()
{
    if (!m_grid)
        return;
    // From "everything fits" (rows at most 24 px then) to 64 px per cell (or the fit, when larger).
    const double fitX = double(gw()) / double(std::max<int64_t>(m_grid->ranks, 1));
    const double fitY = double(gh()) / double(std::max<size_t>(m_grid->rows.size(), 1));
    m_cx = std::clamp(m_cx, fitX, std::max(64.0, fitX));
    m_cy = std::clamp(m_cy, std::min(24.0, fitY), std::max(64.0, fitY));
    const double maxX = std::max(0.0, double(m_grid->ranks) - gw() / m_cx);
    const double maxY = std::max(0.0, double(m_grid->rows.size()) - gh() / m_cy);
    m_x0 = std::clamp(m_x0, 0.0, maxX);
    m_y0 = std::clamp(m_y0, 0.0, maxY);
}

void HangGridView::setSelection(int row, int64_t rank)
{
    m_selRow = row;
    m_selRank = rank;
    update();
}

void HangGridView::ensureVisible(int row, int64_t rank)
{
    if (!m_grid)
        return;
    const double w = gw() / m_cx, h = gh() / m_cy;
    if (rank >= 0 && (rank < m_x0 || rank + 1 > m_x0 + w))
        m_x0 = double(rank) - w / 2;
    if (row >= 0 && (row < m_y0 || row + 1 > m_y0 + h))
        m_y0 = double(row) - h / 2;
    clampView();
    m_dirty = true;
    update();
}

bool HangGridView::cellAt(QPointF p, int &row, int64_t &rank) const
{
    if (!m_grid)
        return false;
    const double x = m_x0 + (p.x() - m_left) / m_cx, y = m_y0 + (p.y() - kTop) / m_cy;
    if (p.x() < m_left || p.y() < kTop)
        return false;
    if (x < 0 || y < 0 || x >= double(m_grid->ranks) || y >= double(m_grid->rows.size()))
        return false;
    row = int(y);
    rank = int64_t(x);
    return true;
}

QPoint HangGridView::cellCenter(int row, int64_t rank) const
{
    return QPoint(m_left + int((double(rank) + 0.5 - m_x0) * m_cx), kTop + int((double(row) + 0.5 - m_y0) * m_cy));
}

// Each pixel takes the most alarming state among the cells it covers (a byte max over
// the block), so a lone "never" among 10,000 completed ranks stays visible zoomed out.
void HangGridView::render()
{
    m_dirty = false;
    const int W = std::max(1, gw()), H = std::max(1, gh());
    m_image = QImage(W, H, QImage::Format_RGB32);
    m_image.fill(palette().color(QPalette::Base));
    if (!m_grid || m_grid->rows.empty() || m_grid->ranks == 0)
        return;
    QRgb lut[size_t(HangCellState::Count)];
    for (size_t i = 0; i < size_t(HangCellState::Count); ++i)
        lut[i] = hangCellColor(HangCellState(i), isDarkPalette(palette())).rgb();
    const int64_t ranks = m_grid->ranks, rows = int64_t(m_grid->rows.size());
    std::vector<int64_t> c0(size_t(W) + 1);
    for (int x = 0; x <= W; ++x)
        c0[size_t(x)] = std::clamp<int64_t>(int64_t(std::floor(m_x0 + x / m_cx)), 0, ranks);
    std::vector<uint8_t> line(static_cast<size_t>(W), uint8_t(0));
    for (int y = 0; y < H; ++y) {
        const int64_t r0 = int64_t(std::floor(m_y0 + y / m_cy));
        if (r0 >= rows)
            break;
        const int64_t r1 = std::clamp<int64_t>(int64_t(std::floor(m_y0 + (y + 1) / m_cy)), r0 + 1, rows);
        std::fill(line.begin(), line.end(), uint8_t(0));
        for (int64_t r = r0; r < r1; ++r) {
            const uint8_t *cells = m_grid->cells.data() + size_t(r) * size_t(ranks);
            for (int x = 0; x < W; ++x) {
                const int64_t a = c0[size_t(x)], b = std::max(c0[size_t(x) + 1], a + 1);
                if (a >= ranks)
                    break;
                uint8_t v = line[size_t(x)];
                for (int64_t c = a; c < b && c < ranks; ++c)
                    v = std::max(v, cells[c]);
                line[size_t(x)] = v;
            }
        }
        auto *out = reinterpret_cast<QRgb *>(m_image.scanLine(y));
        for (int x = 0; x < W && c0[size_t(x)] < ranks; ++x)
            out[x] = lut[line[size_t(x)]];
    }
}

void HangGridView::changeEvent(QEvent *event)
{
    // View > Theme: the cells are drawn again in the new palette's colours.
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::ApplicationPaletteChange) {
        m_dirty = true;
        update();
    }
    QWidget::changeEvent(event);
}

void HangGridView::paintEvent(QPaintEvent *)
{
    if (m_dirty || m_image.size() != QSize(std::max(1, gw()), std::max(1, gh())))
        render();
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Window));
    if (m_grid)
        paintAxes(p);
    p.translate(m_left, kTop);
    p.setClipRect(QRect(0, 0, gw(), gh()));
    p.drawImage(0, 0, m_image);
    if (!m_grid)
        return;
    auto rectOf = [&](int row, int64_t first, int64_t last) {
        QRectF r((double(first) - m_x0) * m_cx, (double(row) - m_y0) * m_cy, double(last - first + 1) * m_cx, m_cy);
        // At least a few pixels: the wavefront must stay findable zoomed out.
        if (r.width() < 3)
            r.adjust(-(3 - r.width()) / 2, 0, (3 - r.width()) / 2, 0);
        if (r.height() < 3)
            r.adjust(0, -(3 - r.height()) / 2, 0, (3 - r.height()) / 2);
        return r;
    };
    const QRectF visible = QRectF(0, 0, gw(), gh()).adjusted(-4, -4, 4, 4);
    for (const auto &o : m_grid->outlines) {
        p.setPen(o.root ? QPen(Qt::black, 2) : QPen(QColor(0x70, 0x20, 0x90), 1, Qt::DashLine));
        p.setBrush(Qt::NoBrush);
        for (const auto &[a, b] : o.runs) {
            const QRectF r = rectOf(o.row, a, b);
            if (r.intersects(visible))
                p.drawRect(r);
        }
    }
    if (m_selRow >= 0 || m_selRank >= 0) {
        QColor mark(0x00, 0x60, 0xff, 60);
        if (m_selRow >= 0)
            p.fillRect(QRectF(0, (m_selRow - m_y0) * m_cy, gw(), std::max(1.0, m_cy)), mark);
        if (m_selRank >= 0)
            p.fillRect(QRectF((double(m_selRank) - m_x0) * m_cx, 0, std::max(1.0, m_cx), gh()), mark);
        if (m_selRow >= 0 && m_selRank >= 0) {
            p.setPen(QPen(QColor(0x00, 0x60, 0xff), 2));
            p.drawRect(rectOf(m_selRow, m_selRank, m_selRank).adjusted(-1, -1, 1, 1));
        }
    }
}

void HangGridView::setRowLabels(QStringList labels)
{
    m_labels = std::move(labels);
    m_left = m_labels.isEmpty() ? 0 : std::min(220, fontMetrics().horizontalAdvance(QStringLiteral("pg 0000 ")) + 140);
    fitAll();
}

// Group names at the left, rank numbers along the top. Rows too short for a name (the grid
// fitted to hundreds of groups) name every k-th row, the first (the root's group) always, in
// a small font (issue 41: at Fit the rows were 3-8 px and unnamed).
void HangGridView::paintAxes(QPainter &p)
{
    p.setPen(palette().color(QPalette::WindowText));
    const QFontMetrics fm = fontMetrics();
    QFont font = p.font();
    constexpr int kMinLabelPx = 8;
    if (m_cy < fm.height()) { // short rows: a font that fits them, or one row in k named
        font.setPixelSize(std::max(kMinLabelPx, int(m_cy)));
        p.setFont(font);
    }
    const QFontMetrics lfm(p.font());
    m_labelsDrawn = 0;
    if (m_left > 0 && m_cy > 0) {
        const int every = m_cy >= kMinLabelPx ? 1 : int(std::ceil((kMinLabelPx + 1) / m_cy));
        const double boxH = std::max(m_cy, double(lfm.height()));
        const int first = int(m_y0), last = std::min<int>(int(m_grid->rows.size()), int(m_y0 + gh() / m_cy) + 1);
        for (int r = first; r < last && r < m_labels.size(); ++r) {
            if (r % every != 0)
                continue;
            const double cy = kTop + (r - m_y0 + 0.5) * m_cy;
            const QRectF box(2, cy - boxH / 2, m_left - 4, boxH);
            p.drawText(box, Qt::AlignVCenter | Qt::AlignLeft, lfm.elidedText(m_labels[r], Qt::ElideRight, m_left - 4));
            ++m_labelsDrawn;
        }
    }
    p.setFont(this->font());
    // A tick every 1, 2 or 5 x 10^k ranks, at least 60 px apart.
    double step = 1;
    while (step * m_cx < 60)
        step *= (QString::number(step).startsWith(QLatin1Char('2')) ? 2.5 : 2);
    for (double r = std::ceil(m_x0 / step) * step; r < m_x0 + gw() / m_cx; r += step) {
        const double x = m_left + (r + 0.5 - m_x0) * m_cx;
        p.drawLine(QPointF(x, kTop - 3), QPointF(x, kTop));
        p.drawText(QRectF(x - 40, 0, 80, kTop - 3), Qt::AlignCenter, QString::number(qint64(r)));
    }
}

void HangGridView::resizeEvent(QResizeEvent *)
{
    if (m_fitted)
        fitAll();
    else
        clampView();
    m_dirty = true;
}

// Wheel: zoom both axes around the cursor; Shift: ranks only; Ctrl: groups only.
void HangGridView::wheelEvent(QWheelEvent *e)
{
    if (!m_grid)
        return;
    const double f = std::pow(1.25, e->angleDelta().y() / 120.0);
    const QPointF pos = e->position() - QPointF(m_left, kTop);
    const double cx = m_x0 + pos.x() / m_cx, cy = m_y0 + pos.y() / m_cy;
    if (!(e->modifiers() & Qt::ControlModifier))
        m_cx *= f;
    if (!(e->modifiers() & Qt::ShiftModifier))
        m_cy *= f;
    clampView();
    m_x0 = cx - pos.x() / m_cx;
    m_y0 = cy - pos.y() / m_cy;
    clampView();
    m_fitted = false;
    m_dirty = true;
    update();
    e->accept();
}

void HangGridView::mousePressEvent(QMouseEvent *e)
{
    m_press = m_last = e->position();
    m_dragging = false;
}

void HangGridView::mouseMoveEvent(QMouseEvent *e)
{
    if (!(e->buttons() & Qt::LeftButton))
        return;
    if ((e->position() - m_press).manhattanLength() > 4)
        m_dragging = true;
    if (m_dragging) {
        const QPointF d = e->position() - m_last;
        m_x0 -= d.x() / m_cx;
        m_y0 -= d.y() / m_cy;
        clampView();
        m_fitted = false;
        m_dirty = true;
        update();
    }
    m_last = e->position();
}

void HangGridView::mouseReleaseEvent(QMouseEvent *e)
{
    int row = -1;
    int64_t rank = -1;
    if (!m_dragging && e->button() == Qt::LeftButton && cellAt(e->position(), row, rank)) {
        setSelection(row, rank);
        Q_EMIT cellClicked(row, rank);
    }
    m_dragging = false;
}

bool HangGridView::event(QEvent *e)
{
    if (e->type() == QEvent::ToolTip) {
        auto *he = static_cast<QHelpEvent *>(e);
        int row = -1;
        int64_t rank = -1;
        if (m_tip && cellAt(he->pos(), row, rank))
            QToolTip::showText(he->globalPos(), m_tip(row, rank), this);
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(e);
}

} // namespace syncscope::ui
