// SPDX-License-Identifier: MIT
// Back/forward history of the visible time range (like a browser's). The view
// records the range it leaves; a burst of wheel steps counts as one entry.
#pragma once

#include <QObject>

#include <vector>

namespace syncscope::ui {

struct TimeRange {
    double t0 = 0, t1 = 0; // ns from the trace start
    bool operator==(const TimeRange &o) const { return t0 == o.t0 && t1 == o.t1; }
};

class ZoomHistory : public QObject
{
    Q_OBJECT
public:
    explicit ZoomHistory(QObject *parent = nullptr);

    // Records `left` (the range being left) unless it repeats the last entry; clears forward.
    void record(const TimeRange &left);
    bool canGoBack() const { return !m_back.empty(); }
    bool canGoForward() const { return !m_forward.empty(); }
    // Returns the range to show; `current` moves to the other stack.
    TimeRange back(const TimeRange &current);
    TimeRange forward(const TimeRange &current);
    void clear();
    size_t depth() const { return m_back.size(); }

Q_SIGNALS:
    void changed();

private:
    std::vector<TimeRange> m_back, m_forward;
};

} // namespace syncscope::ui
