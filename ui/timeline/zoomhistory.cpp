// SPDX-License-Identifier: MIT
#include "zoomhistory.h"

namespace syncscope::ui {

namespace {
constexpr size_t kMaxDepth = 200;
}

ZoomHistory::ZoomHistory(QObject *parent)
    : QObject(parent)
{
}

void ZoomHistory::record(const TimeRange &left)
{
    if (!m_back.empty() && m_back.back() == left)
        return;
    m_back.push_back(left);
    if (m_back.size() > kMaxDepth)
        m_back.erase(m_back.begin());
    m_forward.clear();
    Q_EMIT changed();
}

TimeRange ZoomHistory::back(const TimeRange &current)
{
    if (m_back.empty())
        return current;
    const TimeRange r = m_back.back();
    m_back.pop_back();
    m_forward.push_back(current);
    Q_EMIT changed();
    return r;
}

TimeRange ZoomHistory::forward(const TimeRange &current)
{
    if (m_forward.empty())
        return current;
    const TimeRange r = m_forward.back();
    m_forward.pop_back();
    m_back.push_back(current);
    Q_EMIT changed();
    return r;
}

void ZoomHistory::clear()
{
    m_back.clear();
    m_forward.clear();
    Q_EMIT changed();
}

} // namespace syncscope::ui
