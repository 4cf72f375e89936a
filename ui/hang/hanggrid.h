// SPDX-License-Identifier: MIT
// The hang view's grid (issue 29): process groups (rows) x ranks (columns), each cell
// coloured by what the rank last did in that group, with the wavefront of every suspect
// outlined. At 10,000 ranks x 1,251 groups the cells are one byte each and the widget
// paints a widget-sized image from them (each pixel the most alarming cell it covers, so
// zooming out never hides a culprit); never one item per cell.
#pragma once

#include "hang/hanganalysis.h"

#include <QColor>
#include <QImage>
#include <QStringList>
#include <QWidget>

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

class QPainter;

namespace syncscope::ui {

// Ordered by how alarming: a zoomed-out pixel shows the highest state it covers.
// Idle: a member of a group that nobody (with a dump) recorded anything in.
enum class HangCellState : uint8_t { NotMember, Idle, Completed, NoDump, EmptyDump, Started, Scheduled, Never, Count };

QColor hangCellColor(HangCellState s, bool dark = false);
QString hangCellName(HangCellState s);

struct HangGridOutline {
    int row = -1;
    std::vector<std::pair<int64_t, int64_t>> runs; // rank ranges [first, last]
    bool root = false;
    size_t suspect = 0;
};

struct HangGrid {
    int64_t ranks = 0;
    std::vector<size_t> rows;      // row -> index into HangAnalysis::groups
    std::vector<uint8_t> cells;    // rows.size() x ranks, HangCellState
    std::vector<HangGridOutline> outlines; // every suspect's wavefront, roots last (drawn on top)
    HangCellState at(int row, int64_t rank) const
    {
        return row < 0 || size_t(row) >= rows.size() || rank < 0 || rank >= ranks
                   ? HangCellState::NotMember
                   : HangCellState(cells[size_t(row) * size_t(ranks) + size_t(rank)]);
    }
    int rowOfGroup(const HangAnalysis &a, const std::string &pgName) const;
};

// Rows: groups with a finding first (in suspect order), then the others unless
// `onlyFindings`. A member's cell is its last entry's state in the group, except that a
// rank missing from a finding of the group shows "never": it never enqueued the stuck op;
// in a group where no member with a dump recorded anything, members are "idle".
std::shared_ptr<HangGrid> buildHangGrid(const HangAnalysis &a, int64_t worldSize, bool onlyFindings);

class HangGridView : public QWidget
{
    Q_OBJECT
public:
    explicit HangGridView(QWidget *parent = nullptr);

    void setGrid(std::shared_ptr<const HangGrid> grid);
    std::shared_ptr<const HangGrid> grid() const { return m_grid; }
    // What hovering a cell says (row, rank); the window knows the analysis.
    void setToolTipProvider(std::function<QString(int, int64_t)> f) { m_tip = std::move(f); }
    // A name per row, drawn in a gutter at the left (empty: no gutter).
    void setRowLabels(QStringList labels);
    // The selected cell (outlined, with its row and column marked); -1: none.
    void setSelection(int row, int64_t rank);
    int selectedRow() const { return m_selRow; }
    int64_t selectedRank() const { return m_selRank; }
    // Zooms so every row and rank fits.
    void fitAll();
    // Scrolls (keeping the zoom) so that cell is on screen.
    void ensureVisible(int row, int64_t rank);
    // The cell under a widget point (false outside the grid), and the widget point at a cell's centre.
    bool cellAt(QPointF p, int &row, int64_t &rank) const;
    QPoint cellCenter(int row, int64_t rank) const;
    // The last painted image of the cells (tests, screenshots), drawn at cellsRect().
    const QImage &renderedImage() const { return m_image; }
    int labelsDrawn() const { return m_labelsDrawn; } // group names painted at the last paint
    QRect cellsRect() const { return QRect(m_left, kTop, gw(), gh()); }

Q_SIGNALS:
    void cellClicked(int row, qint64 rank);

protected:
    void changeEvent(QEvent *event) override;
    void paintEvent(QPaintEvent *) override;
    void resizeEvent(QResizeEvent *) override;
    void wheelEvent(QWheelEvent *) override;
    void mousePressEvent(QMouseEvent *) override;
    void mouseMoveEvent(QMouseEvent *) override;
    void mouseReleaseEvent(QMouseEvent *) override;
    bool event(QEvent *) override;

private:
    void render();
    void clampView();
    void paintAxes(QPainter &p);
    int gw() const { return width() - m_left; }  // the cells' area
    int gh() const { return height() - kTop; }
    static constexpr int kTop = 16;              // rank numbers above the cells

    std::shared_ptr<const HangGrid> m_grid;
    std::function<QString(int, int64_t)> m_tip;
    QStringList m_labels;
    int m_left = 0;               // the row labels' gutter
    double m_x0 = 0, m_y0 = 0;    // the cell at the widget's top-left (fractional)
    double m_cx = 1, m_cy = 1;    // pixels per cell
    bool m_fitted = true;         // follow the widget's size until the user zooms
    QImage m_image;
    int m_labelsDrawn = 0;
    bool m_dirty = true;
    int m_selRow = -1;
    int64_t m_selRank = -1;
    QPointF m_press, m_last;
    bool m_dragging = false;
};

} // namespace syncscope::ui
