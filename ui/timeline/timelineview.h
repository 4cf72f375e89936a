// SPDX-License-Identifier: MIT
// The timeline as a widget: the legend (colours of the op categories present,
// and one toggle per kind of arrow, drawn in its colour and style), the plot,
// and a vertical scroll bar for the lanes.
#pragma once

#include "timelineplot.h"

#include <QWidget>

#include <array>

class QCheckBox;
class QHBoxLayout;
class QScrollBar;

namespace syncscope::ui {

class OverviewStrip;

class TimelineView : public QWidget
{
    Q_OBJECT
public:
    explicit TimelineView(QWidget *parent = nullptr);
    TimelinePlot *plot() const { return m_plot; }
    QCheckBox *edgeToggle(EdgeKind k) const { return m_toggles[static_cast<int>(k)]; }
    // The edge toggles (the edges' legend); the window may move it into its toolbar.
    QWidget *edgeBar() const { return m_edgeBar; }
    OverviewStrip *overview() const { return m_overview; }

    void setModel(std::shared_ptr<TimelineModel> model);
    // The same job, rebuilt (TimelinePlot::replaceModel): the view stays.
    void replaceModel(std::shared_ptr<TimelineModel> model);
    void modelChanged(); // edges arrived: update counts and repaint

protected:
    void changeEvent(QEvent *event) override;

private:
    void rebuildLegend();
    void syncScrollBar();

    TimelinePlot *m_plot;
    OverviewStrip *m_overview;
    QScrollBar *m_vbar;
    QWidget *m_legend;
    QWidget *m_edgeBar;
    QHBoxLayout *m_chips;
    std::array<QCheckBox *, kEdgeKindCount> m_toggles{};
};

} // namespace syncscope::ui
