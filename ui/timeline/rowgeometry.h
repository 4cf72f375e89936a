// SPDX-License-Identifier: MIT
// Vertical layout of the timeline (display-free): a header row per process,
// then its lanes' rows; a collapsed lane shows only its first row.
#pragma once

#include "lanelayout.h"

#include <cstdint>
#include <vector>

namespace syncscope::ui {

struct RowGeometry {
    struct Item {
        bool header = false;   // a process header (no events)
        int y = 0, height = 0; // pixels from the top of the content
        uint32_t row = 0;      // LaneLayout row (rows only)
        uint32_t group = 0;    // LaneLayout group
        bool groupFirst = false; // first shown row of its group (carries the lane label)
    };
    std::vector<Item> items;
    std::vector<int32_t> rowItem; // LaneLayout row -> item; a hidden row maps to its group's first item
    int totalHeight = 0;

    // `pinned` lanes come first (in lane order), `hidden` lanes get no rows (their events
    // have no position: rowCenterY -1). Missing entries mean false.
    // `order` is the display order of the groups (empty: layout order); a new rank
    // (LaneGroup::part) starts a header.
    // Job timelines: `folded` lanes get no rows either, but their events are drawn on
    // their rank's summary lane (CPU threads on the CpuSummary, GPU streams on the
    // GpuSummary group of the same part); the summary lanes' rows are `compactHeight`
    // tall (0: rowHeight) with a 1 px gap, so a folded rank is a header and two strips.
    void build(const LaneLayout &layout, const std::vector<bool> &collapsed, int rowHeight, int headerHeight,
               int groupGap, const std::vector<bool> &pinned = {}, const std::vector<bool> &hidden = {},
               const std::vector<bool> &folded = {}, const std::vector<uint32_t> &order = {}, int compactHeight = 0);
    int itemAtY(int y) const;                      // -1 if none
    std::vector<uint32_t> rowsIn(int y0, int y1) const; // LaneLayout rows whose items meet [y0, y1)
    int rowCenterY(uint32_t layoutRow) const;      // -1 if unknown
    // The band a row is drawn in (its own, or the summary lane's it is folded onto):
    // false if unknown.
    bool rowBand(uint32_t layoutRow, int &top, int &height) const;
    // The summary strip a folded row is drawn on (an item index), -1 when the row is
    // shown itself or folded elsewhere.
    int stripItem(const LaneLayout &layout, uint32_t layoutRow) const;
    // The layout rows drawn on item `item`: its own row and the rows folded onto it.
    std::vector<uint32_t> rowsOnItem(int item) const;
    bool rowShown(uint32_t layoutRow) const;       // false for the hidden rows of a collapsed lane
};

} // namespace syncscope::ui
