// SPDX-License-Identifier: MIT
// TimelinePlot's job view: replacing the job model while keeping the view,
// folding ranks, the display order of the ranks, and linked collectives.
#include "timelineplot.h"
#include "density.h"
#include "selection.h"
#include "zoomhistory.h"

namespace syncscope::ui {

void TimelinePlot::replaceModel(std::shared_ptr<TimelineModel> model)
{
    if (!m_model || !model || !m_model->isJob() || !model->isJob()) {
        setModel(std::move(model));
        return;
    }
    const TimeRange keep = range();
    bool sameIds = m_model->parts.size() == model->parts.size();
    for (size_t i = 0; sameIds && i < model->parts.size(); ++i)
        sameIds = m_model->parts[i].rank == model->parts[i].rank && m_model->parts[i].base == model->parts[i].base &&
                  m_model->parts[i].events == model->parts[i].events;
    const qint64 selected = m_selection->event();
    m_hoverCollective = -1;
    if (m_partOrder.size() != model->parts.size())
        m_partOrder.clear();
    m_model = std::move(model);
    applyTimeBase();
    m_measure.reset();
    m_collapsed.assign(m_model->layout.groups.size(), false);
    m_pinned.assign(m_collapsed.size(), false);
    m_hidden.assign(m_collapsed.size(), false);
    rebuildGeometry();
    xAxis2->setRange(keep.t0 - 1, keep.t1); // force applyRange to clamp to the new span
    if (m_history->canGoBack()) {
        applyRange(keep);
    } else { // the user has not moved yet: fit the new job
        const TimeSpan busy = busyRange(m_model->layout);
        applyRange({busy.t0, busy.t1});
    }
    if (!sameIds && selected >= 0)
        m_selection->clear();
    refresh();
}

void TimelinePlot::setRankExpanded(int64_t rank, bool expanded)
{
    if (rankExpanded(rank) == expanded)
        return;
    m_rankExpanded[rank] = expanded;
    rebuildGeometry();
    refresh();
}

bool TimelinePlot::rankExpanded(int64_t rank) const
{
    auto it = m_rankExpanded.find(rank);
    return it != m_rankExpanded.end() && it->second;
}

void TimelinePlot::setAllRanksExpanded(bool expanded)
{
    if (!m_model)
        return;
    for (const TimelineRankPart &p : m_model->parts)
        m_rankExpanded[p.rank] = expanded;
    rebuildGeometry();
    refresh();
}

void TimelinePlot::setPartOrder(std::vector<uint32_t> parts)
{
    m_partOrder = std::move(parts);
    rebuildGeometry();
    refresh();
}

std::vector<uint32_t> TimelinePlot::hoveredLinkedEvents() const
{
    if (!m_model || m_hoverCollective < 0 || size_t(m_hoverCollective) >= m_model->collectiveEvents.size())
        return {};
    return m_model->collectiveEvents[size_t(m_hoverCollective)];
}

std::vector<uint32_t> TimelinePlot::linkedEvents() const
{
    if (!m_model || !m_selection->hasEvent())
        return {};
    const CollectiveMark *mark = m_model->collectiveMark(static_cast<uint32_t>(m_selection->event()));
    if (!mark || mark->collective >= m_model->collectiveEvents.size())
        return {};
    return m_model->collectiveEvents[mark->collective];
}

int TimelinePlot::rankHeaderY(int64_t rank) const
{
    if (!m_model)
        return -1;
    for (const auto &it : m_geometry.items) {
        const LaneGroup &g = m_model->layout.groups[it.group];
        if (it.header && g.part >= 0 && m_model->parts[size_t(g.part)].rank == rank)
            return it.y;
    }
    return -1;
}

} // namespace syncscope::ui
