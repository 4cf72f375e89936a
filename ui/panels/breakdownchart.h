// SPDX-License-Identifier: MIT
// The Breakdown dock's chart: one horizontal bar per window (the whole trace on top,
// then each ProfilerStep), stacked compute / overlapped comm / exposed comm /
// memcpy-memset-other / idle as % of the window's GPU kernel span. A click on a
// bar's row picks that window; the picked one is framed.
#pragma once

#include "breakdowntables.h"

#include <qcustomplot.h>

namespace syncscope::ui {

class BreakdownChart : public QCustomPlot
{
    Q_OBJECT
public:
    explicit BreakdownChart(QWidget *parent = nullptr);
    // One bar per name (key = its position); an invalid split draws no bar.
    void setBars(const QStringList &names, const std::vector<BreakdownSplit> &splits);
    void setCurrent(int scope);
    int current() const { return m_current; }
    int barCount() const { return int(m_splits.size()); }
    // The stacked part's bars (tests read their data).
    QCPBars *part(int p) const { return m_parts[p]; }
    // The scope whose row is at this pixel height, -1 none.
    int scopeAt(double y) const;
    // Small: the one-row legend must not widen the dock (nor the window, at a layout reset).
    QSize minimumSizeHint() const override { return {160, 60}; }

Q_SIGNALS:
    void scopeClicked(int scope);

protected:
    void changeEvent(QEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    void applyPalette();
    void onMousePress(QMouseEvent *event);
    void onMouseMove(QMouseEvent *event);

    QCPBars *m_parts[BreakdownSplit::PartCount] = {};
    QCPItemRect *m_frame;
    QSharedPointer<QCPAxisTickerText> m_ticker;
    QStringList m_names;
    std::vector<BreakdownSplit> m_splits;
    int m_current = -1;
};

} // namespace syncscope::ui
