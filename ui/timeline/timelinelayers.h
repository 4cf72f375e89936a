// SPDX-License-Identifier: MIT
// The QCustomPlot layerables that paint the timeline: boxes from the draw list,
// edges, lane labels in the left margin, and the measurement overlay. They only
// paint what TimelinePlot's view and the draw list say; no event loops here.
#pragma once

#include "drawlist.h"
#include "edgeindex.h"

#include <qcustomplot.h>

#include <unordered_map>
#include <vector>

namespace syncscope::ui {

class TimelinePlot;

// The pen of an arrow: launch solid, sync 1.6 px (solid from a cuda_sync row,
// dashed when inferred from the runtime calls), critical path 2.4 px,
// inter-thread dotted. `bold`: the selected op's edges. `cheap`: many arrows at
// once, drawn as thin faint lines (an inferred sync edge stays dashed there too).
QPen timelineEdgePen(EdgeKind kind, bool inferred, QColor color, bool bold = false, bool cheap = false);

class TimelineLayerable : public QCPLayerable
{
public:
    TimelineLayerable(TimelinePlot *plot, const QString &layer);

protected:
    void applyDefaultAntialiasingHint(QCPPainter *painter) const override;
    QRect clipRect() const override;
    TimelinePlot *m_plot;
};

class BoxLayer : public TimelineLayerable
{
public:
    using TimelineLayerable::TimelineLayerable;

protected:
    void draw(QCPPainter *painter) override;

private:
    void drawFoldedCritical(QCPPainter *painter, int y0, int y1);
    std::vector<DrawBox> m_boxes; // reused between paints
    std::vector<DrawBox> m_folded;
    std::vector<uint32_t> m_foldedRows;
    std::vector<PxSpan> m_spans; // a folded box's critical parts
    std::vector<PxDensity> m_density; // a folded box's busy share and category per pixel column
};

class EdgeLayer : public TimelineLayerable
{
public:
    using TimelineLayerable::TimelineLayerable;

protected:
    void draw(QCPPainter *painter) override;

private:
    std::vector<uint32_t> m_ids;
    std::vector<QLineF> m_lines;
    std::vector<QLineF> m_dashedLines; // inferred sync edges
    std::unordered_map<uint64_t, double> m_lastX; // thinning: last arrow x per row pair
};

class LaneLabelLayer : public TimelineLayerable
{
public:
    using TimelineLayerable::TimelineLayerable;

protected:
    QRect clipRect() const override;
    void draw(QCPPainter *painter) override;
};

class OverlayLayer : public TimelineLayerable
{
public:
    using TimelineLayerable::TimelineLayerable;

protected:
    void draw(QCPPainter *painter) override;
};

} // namespace syncscope::ui
