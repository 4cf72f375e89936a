// SPDX-License-Identifier: MIT
// Paints the breakdown overlays (gapoverlay.h) over the boxes: idle gaps as thin
// translucent bars coloured by cause on the GPU lanes, and a legend of what is shown.
// Exposed communication, an orange hatched, outlined band on the communication
// kernels, is painted by the box layer under their labels (paintExposedBand). Both
// toggles live on TimelinePlot (View menu).
#pragma once

#include "timelinelayers.h"

#include <QColor>
#include <QRectF>

class QPainter;

namespace syncscope::ui {

enum class OverlayKind : uint8_t;

// The colour of an overlay kind (the legend and the bars).
QColor overlayColor(OverlayKind kind, bool dark);

// Exposed communication as drawn on its kernel: an orange hatched, outlined band. The
// box layer paints it between a box's fill and its label, so the label stays on top.
void paintExposedBand(QPainter *painter, const QRectF &band, bool dark);

class GapLayer : public TimelineLayerable
{
public:
    using TimelineLayerable::TimelineLayerable;

protected:
    void draw(QCPPainter *painter) override;

private:
    void drawLegend(QCPPainter *painter, bool gaps, bool exposed);
};

} // namespace syncscope::ui
