// SPDX-License-Identifier: MIT
#include "rowgeometry.h"

#include <algorithm>

namespace syncscope::ui {

void RowGeometry::build(const LaneLayout &layout, const std::vector<bool> &collapsed, int rowHeight,
                        int headerHeight, int groupGap, const std::vector<bool> &pinned, const std::vector<bool> &hidden,
                        const std::vector<bool> &folded, const std::vector<uint32_t> &displayOrder, int compactHeight)
{
    items.clear();
    rowItem.assign(layout.rows.size(), -1);
    int y = 0;
    const std::string *process = nullptr;
    auto flag = [](const std::vector<bool> &v, uint32_t g) { return g < v.size() && v[g]; };
    std::vector<uint32_t> order;
    order.reserve(layout.groups.size());
    const bool ordered = displayOrder.size() == layout.groups.size();
    for (int pass = 0; pass < 2; ++pass)
        for (uint32_t k = 0; k < layout.groups.size(); ++k) {
            const uint32_t g = ordered ? displayOrder[k] : k;
            if (flag(pinned, g) == (pass == 0) && !flag(hidden, g) && !flag(folded, g))
                order.push_back(g);
        }
    int previous = -1;
    for (uint32_t g : order) {
        const LaneGroup &group = layout.groups[g];
        const LaneGroup *prev = previous >= 0 ? &layout.groups[static_cast<uint32_t>(previous)] : nullptr;
        const bool newProcess = group.part >= 0
                                    ? !prev || prev->part != group.part
                                    : !process || *process != group.process || (prev && prev->gpu != group.gpu);
        previous = static_cast<int>(g);
        if (newProcess) {
            process = &group.process;
            Item h;
            h.header = true;
            h.y = y;
            h.height = headerHeight;
            h.group = g;
            items.push_back(h);
            y += headerHeight;
        }
        const bool summary = group.isSummary();
        const int height = summary && compactHeight > 0 ? compactHeight : rowHeight;
        const bool isCollapsed = g < collapsed.size() && collapsed[g];
        const uint32_t shown = isCollapsed ? std::min<uint32_t>(1, group.rowCount) : group.rowCount;
        for (uint32_t r = 0; r < group.rowCount; ++r) {
            const uint32_t row = group.firstRow + r;
            if (r >= shown) {
                rowItem[row] = rowItem[group.firstRow];
                continue;
            }
            Item it;
            it.y = y;
            it.height = height;
            it.row = row;
            it.group = g;
            it.groupFirst = r == 0;
            rowItem[row] = static_cast<int32_t>(items.size());
            items.push_back(it);
            y += height;
        }
        y += summary && compactHeight > 0 ? 1 : groupGap;
    }
    // Folded lanes: their events sit on the rank's summary lane (CPU threads on the
    // CPU one, GPU streams on the GPU one).
    if (!folded.empty()) {
        std::vector<int32_t> cpuItem, gpuItem; // per part
        for (uint32_t g = 0; g < layout.groups.size(); ++g) {
            const LaneGroup &group = layout.groups[g];
            if (!group.isSummary() || group.part < 0 || group.rowCount == 0)
                continue;
            const bool cpu = group.role == LaneGroup::JobRole::CpuSummary;
            std::vector<int32_t> &item = cpu ? cpuItem : gpuItem;
            if (item.size() <= size_t(group.part))
                item.resize(size_t(group.part) + 1, -1);
            item[size_t(group.part)] = rowItem[group.firstRow];
        }
        for (uint32_t g = 0; g < layout.groups.size(); ++g) {
            const LaneGroup &group = layout.groups[g];
            const std::vector<int32_t> &item = group.gpu ? gpuItem : cpuItem;
            if (!flag(folded, g) || flag(hidden, g) || group.part < 0 || size_t(group.part) >= item.size())
                continue;
            for (uint32_t r = group.firstRow; r < group.firstRow + group.rowCount; ++r)
                rowItem[r] = item[size_t(group.part)];
        }
    }
    totalHeight = y;
}

int RowGeometry::itemAtY(int y) const
{
    auto it = std::upper_bound(items.begin(), items.end(), y, [](int v, const Item &i) { return v < i.y; });
    if (it == items.begin())
        return -1;
    --it;
    if (y >= it->y + it->height)
        return -1;
    return static_cast<int>(it - items.begin());
}

std::vector<uint32_t> RowGeometry::rowsIn(int y0, int y1) const
{
    std::vector<uint32_t> out;
    auto it = std::upper_bound(items.begin(), items.end(), y0, [](int v, const Item &i) { return v < i.y; });
    if (it != items.begin())
        --it;
    for (; it != items.end() && it->y < y1; ++it)
        if (!it->header && it->y + it->height > y0)
            out.push_back(it->row);
    return out;
}

int RowGeometry::rowCenterY(uint32_t layoutRow) const
{
    if (layoutRow >= rowItem.size() || rowItem[layoutRow] < 0)
        return -1;
    const Item &it = items[static_cast<size_t>(rowItem[layoutRow])];
    return it.y + it.height / 2;
}

bool RowGeometry::rowBand(uint32_t layoutRow, int &top, int &height) const
{
    if (layoutRow >= rowItem.size() || rowItem[layoutRow] < 0)
        return false;
    const Item &it = items[static_cast<size_t>(rowItem[layoutRow])];
    top = it.y;
    height = it.height;
    return true;
}

int RowGeometry::stripItem(const LaneLayout &layout, uint32_t layoutRow) const
{
    if (rowShown(layoutRow) || layoutRow >= rowItem.size() || rowItem[layoutRow] < 0)
        return -1;
    const Item &it = items[static_cast<size_t>(rowItem[layoutRow])];
    return !it.header && layout.groups[it.group].isSummary() ? rowItem[layoutRow] : -1;
}

std::vector<uint32_t> RowGeometry::rowsOnItem(int item) const
{
    std::vector<uint32_t> out;
    for (uint32_t r = 0; r < rowItem.size(); ++r)
        if (rowItem[r] == item)
            out.push_back(r);
    return out;
}

bool RowGeometry::rowShown(uint32_t layoutRow) const
{
    return layoutRow < rowItem.size() && rowItem[layoutRow] >= 0 &&
           items[static_cast<size_t>(rowItem[layoutRow])].row == layoutRow;
}

} // namespace syncscope::ui
