// SPDX-License-Identifier: MIT
// Paints the breakdown overlays (gapoverlay.h) over the boxes: idle gaps as thin
// translucent bars coloured by cause on the GPU lanes, exposed communication as an
// orange hatched, outlined band on the communication kernels, and a legend of what
// is shown. Both toggles live on TimelinePlot (View menu).
#pragma once

#include "timelinelayers.h"

#include <QColor>

namespace syncscope::ui {

enum class OverlayKind : uint8_t;

// The colour of an overlay kind (the legend and the bars).
QColor overlayColor(OverlayKind kind, bool dark);

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
