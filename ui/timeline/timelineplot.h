// SPDX-License-Identifier: MIT
// The timeline widget: a QCustomPlot whose time axis is the top axis and whose
// content is painted by layers from the draw list (timelinelayers.h). It owns the
// view (visible time range, vertical scroll, collapsed lanes) and handles input
// (timelineplotinput.cpp): as Perfetto and Nsight Systems, the wheel scrolls the lanes,
// Ctrl+wheel / W S zoom, Shift+wheel / a sideways wheel / drag / A D pan (the old
// wheel-zooms mapping is a setting), Shift-drag measure, click select, 0 / Home / F fit,
// Alt+Left / Alt+Right zoom history.
#pragma once

#include "analysis/whatif.h"
#include "drawlist.h"
#include "edgetoggles.h"
#include "rowgeometry.h"
#include "selection.h"
#include "timelinemodel.h"
#include "zoomhistory.h"
#include "../theme.h"

#include <qcustomplot.h>

#include <QElapsedTimer>

#include <array>
#include <limits>
#include <map>
#include <memory>
#include <unordered_map>
#include <utility>
#include <optional>

namespace syncscope::ui {

class BoxLayer;
class EdgeLayer;
class GapLayer;
class LaneLabelLayer;
class OverlayLayer;
struct TimelineOverlay;

struct PaintStats {
    size_t boxes = 0, foldedBoxes = 0, labels = 0;
    size_t densityColumns = 0;                  // folded boxes: pixel columns drawn by their busy share
    size_t partialCritical = 0;                 // critical ops drawn red only where the path joins them
    std::array<size_t, kEdgeKindCount> edges{}; // arrows drawn per kind (toggles)
    size_t selectedEdges = 0;                   // arrows of the selected op
    size_t dashedSyncEdges = 0;                 // of edges[Sync]: inferred ones, drawn dashed
    size_t selectedDashedEdges = 0;             // of selectedEdges: inferred sync edges, drawn dashed
    double drawListMs = 0;                      // time spent building the draw list
    size_t ghosts = 0;                          // projected (what-if) outlines drawn
    size_t waitParts = 0;                       // job: hatched collective waits drawn
    size_t linkedOutlines = 0;                  // job: kernels of the selected collective outlined
    size_t gapBars = 0, exposedBands = 0;       // breakdown overlays drawn (gaplayer.h)
};

// What-if: how far each op's start and end move (ns), per traceEvents index.
using ProjectedShifts = EventShifts;

class TimelinePlot : public QCustomPlot
{
    Q_OBJECT
public:
    explicit TimelinePlot(QWidget *parent = nullptr);

    void setModel(std::shared_ptr<TimelineModel> model);
    // Job timelines: the same job again (more ranks loaded, the analysis arrived, raw
    // clocks toggled): keeps the view, the folding and, when the ids did not move, the selection.
    void replaceModel(std::shared_ptr<TimelineModel> model);
    const TimelineModel *model() const { return m_model.get(); }
    std::shared_ptr<TimelineModel> sharedModel() const { return m_model; }
    // The model's edges or critical flags changed (stage 2, another step).
    void modelChanged();

    Selection *selection() const { return m_selection; }
    EdgeToggles *edgeToggles() const { return m_toggles; }
    ZoomHistory *zoomHistory() const { return m_history; }

    // --- the view ---
    TimeRange range() const;
    Viewport viewport() const;
    void setRange(const TimeRange &r);          // records the old range in the history
    void zoomBy(double factor, double x = -1);  // x in plot pixels (-1: centre)
    void centreOn(double ns);                   // the view moved to centre on ns, its zoom kept
    void panBy(double dxPx);
    void fitAll();
    bool fitSelection();                        // the measured span, else the selected op
    void zoomBack();
    void zoomForward();
    void revealEvent(uint32_t event);           // scroll/zoom so the op is in view
    // The wheel mapping of every TimelinePlot (saved as the setting timeline/wheelZooms).
    // false (the default, as Perfetto and Nsight Systems): the wheel scrolls the lanes,
    // Ctrl+wheel zooms at the pointer, Shift+wheel and sideways deltas pan. true (the old
    // mapping): the wheel zooms at the pointer, Shift+wheel scrolls, sideways deltas pan.
    static bool wheelZooms();
    static void setWheelZooms(bool on);
    // The timeline's keys (W S A D, arrows, 0 / Home, F, Esc, ...); also used by the window's
    // shortcuts so they work wherever the focus is. False when the key is not one.
    bool handleKey(int key, Qt::KeyboardModifiers modifiers = Qt::NoModifier);
    int scrollY() const { return m_scrollY; }
    void setScrollY(int y);
    int contentHeight() const { return m_geometry.totalHeight; }
    int visibleHeight() const;
    void setGroupCollapsed(uint32_t group, bool collapsed);
    bool groupCollapsed(uint32_t group) const;
    // Track pinning (the lane is kept at the top) and hiding; the lane labels' context menu.
    void setGroupPinned(uint32_t group, bool pinned);
    bool groupPinned(uint32_t group) const;
    void setGroupHidden(uint32_t group, bool hidden);
    bool groupHidden(uint32_t group) const;
    int hiddenGroupCount() const;
    void showAllGroups();
    // --- job timelines: ranks fold to their GPU lanes plus one CPU summary lane ---
    void setRankExpanded(int64_t rank, bool expanded);
    bool rankExpanded(int64_t rank) const;
    void setAllRanksExpanded(bool expanded);
    // Display order of the ranks (indices into TimelineModel::parts; empty: by rank).
    void setPartOrder(std::vector<uint32_t> parts);
    const std::vector<uint32_t> &partOrder() const { return m_partOrder; }
    // The kernels of the selected op's matched collective on every rank (empty: none).
    std::vector<uint32_t> linkedEvents() const;
    // The kernels of the hovered op's matched collective (empty: none).
    std::vector<uint32_t> hoveredLinkedEvents() const;
    // The content y of the header of a rank, -1 when it is not shown.
    int rankHeaderY(int64_t rank) const;
    // The lane group whose label is at this widget position (-1 if none).
    int groupAt(const QPoint &pos) const;
    std::optional<TimeRange> measurement() const { return m_measure; }
    // The lane rows the Shift-drag covered vertically (empty: a flat drag, every lane).
    std::vector<uint32_t> measuredRows() const;
    // The lanes (groups) of measuredRows(); 0 for every lane.
    int measuredLanes() const;
    void clearMeasurement();

    // --- geometry (also for tests) ---
    qint64 eventAt(const QPoint &pos) const;     // widget coordinates; -1 if none
    QPoint eventPoint(uint32_t event) const;     // a point inside the op's box, or (-1, -1)
    QRect plotRect() const;                      // where events are drawn
    const RowGeometry &geometry() const { return m_geometry; }
    int rowHeight() const { return m_rowHeight; }
    // Height of a folded rank's summary strips (job timelines).
    int compactRowHeight() const;
    const PaintStats &lastPaintStats() const { return m_stats; }
    // Draws each moved op's projected place as a dashed outline (null: none).
    void setProjection(std::shared_ptr<const ProjectedShifts> shifts);
    bool hasProjection() const { return m_projection != nullptr; }
    // The compare window: a fill colour per op instead of its category's (null: none),
    // and a vertical cursor line at a time (ns from the trace start; NaN: none).
    void setEventTints(std::shared_ptr<const std::unordered_map<uint32_t, QColor>> tints);
    void setCursorNs(double ns);
    double cursorNs() const { return m_cursorNs; }
    const TimelineColors &colors() const { return m_colors; }
    void setColors(const TimelineColors &colors);
    void setLabelWidth(int px);
    // Breakdown overlays (View menu, gaplayer.cpp): idle gaps by HTA cause on the GPU
    // lanes, exposed communication on the communication lanes. Built in a worker, once
    // per model, the first time one is shown; single pairs only.
    enum class Overlay { IdleGaps, ExposedComm };
    void setOverlayShown(Overlay which, bool on);
    bool overlayShown(Overlay which) const;
    std::shared_ptr<const TimelineOverlay> breakdownOverlay() const { return m_breakdownOverlay; }
    // What the overlay says at a widget position ("" if nothing); `event`: the op there, -1 if none.
    QString overlayToolTip(const QPoint &pos, qint64 event) const;

Q_SIGNALS:
    void breakdownOverlayReady();
    void rangeChanged();
    void scrollChanged(int y);
    void contentHeightChanged(int height);
    void measurementChanged();
    void eventHovered(qint64 event);

protected:
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void mouseDoubleClickEvent(QMouseEvent *event) override;
    void wheelEvent(QWheelEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    void contextMenuEvent(QContextMenuEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    bool event(QEvent *event) override;

private:
    friend class BoxLayer;
    friend class EdgeLayer;
    friend class GapLayer;
    friend class LaneLabelLayer;
    friend class OverlayLayer;

    void applyRange(const TimeRange &r); // no history
    void beginGesture();                 // records once per burst of wheel/keys
    void rebuildGeometry();
    void collapseDeepStacks();
    void refresh();
    void applyColors();
    void applyTimeBase(); // the axis title: what its 0 is
    int contentY(int widgetY) const;     // widget y -> content y
    int widgetY(int contentY) const;
    void toggleGroupAt(const QPoint &pos);
    void requestBreakdownOverlay();
    void resetBreakdownOverlay(); // a new model

    std::shared_ptr<TimelineModel> m_model;
    std::shared_ptr<const ProjectedShifts> m_projection;
    std::shared_ptr<const std::unordered_map<uint32_t, QColor>> m_tints;
    double m_cursorNs = std::numeric_limits<double>::quiet_NaN();
    Selection *m_selection;
    EdgeToggles *m_toggles;
    ZoomHistory *m_history;
    BoxLayer *m_boxLayer;
    GapLayer *m_gapLayer;
    EdgeLayer *m_edgeLayer;
    LaneLabelLayer *m_labelLayer;
    OverlayLayer *m_overlayLayer;
    TimelineColors m_colors;
    RowGeometry m_geometry;
    std::vector<bool> m_collapsed;
    std::vector<bool> m_pinned, m_hidden;
    std::map<int64_t, bool> m_rankExpanded; // job: by rank number, so it survives new models
    std::vector<uint32_t> m_partOrder;
    int64_t m_hoverCollective = -1;
    std::shared_ptr<const TimelineOverlay> m_breakdownOverlay;
    const TimelineModel *m_overlayModel = nullptr; // the model the overlay (or its worker) is for
    quint64 m_overlayGeneration = 0;
    bool m_showGaps = false, m_showExposed = false;
    int m_scrollY = 0;
    int m_rowHeight = 20;
    int m_labelWidth = 230;
    PaintStats m_stats;

    enum class Drag { None, Pending, Pan, Measure, Label };
    Drag m_drag = Drag::None;
    QPoint m_pressPos;
    TimeRange m_pressRange;
    int m_pressScroll = 0;
    std::optional<TimeRange> m_measure;
    int m_measureY0 = 0, m_measureY1 = 0; // content y of the Shift-drag's ends
    QElapsedTimer m_gestureClock;
    bool m_gestureActive = false;
    static std::optional<bool> s_wheelZooms; // the setting, read once
};

} // namespace syncscope::ui
