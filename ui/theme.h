// SPDX-License-Identifier: MIT
// Colours of the timeline for the light and the dark palette. The scheme follows
// the system: Qt 6.4 has no QStyleHints::colorScheme, so a window colour darker
// than mid-grey means dark.
#pragma once

#include "timeline/edgeindex.h"
#include "timeline/lanelayout.h"

#include <QColor>
#include <QPalette>

#include <array>

namespace syncscope::ui {

struct TimelineColors {
    bool dark = false;
    QColor background, laneStripe, separator, text, textDim, header, axis, grid;
    QColor selection, measureFill, measureEdge, critical;
    QColor criticalBand; // the translucent band behind the critical path's ops
    std::array<QColor, kCategoryCount> category;
    std::array<QColor, kEdgeKindCount> edge;
};

bool isDarkPalette(const QPalette &palette);
TimelineColors timelineColors(bool dark);

// Black or white, whichever reads better on `fill`.
QColor textOn(const QColor &fill);

// View > Theme: the desktop's palette, or Syncscope's light or dark one, for the
// whole application (the timeline follows the palette). Saved in the settings.
enum class ThemeChoice { System, Light, Dark };
ThemeChoice currentTheme();
ThemeChoice savedTheme();
void applyTheme(ThemeChoice choice, bool save);

} // namespace syncscope::ui
