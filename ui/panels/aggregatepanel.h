// SPDX-License-Identifier: MIT
// The area-selection dock: Shift-drag on the timeline selects a time range over
// the lanes the drag covers; this lists what ran there, per name, sortable; a
// click selects that name's longest op.
#pragma once

#include "aggregatemodel.h"

#include <QWidget>

class QLabel;
class QSortFilterProxyModel;
class QTableView;

namespace syncscope::ui {

class AggregatePanel : public QWidget
{
    Q_OBJECT
public:
    explicit AggregatePanel(QWidget *parent = nullptr);
    AggregateModel *model() const { return m_model; }
    QTableView *view() const { return m_view; }
    QLabel *summaryLabel() const { return m_summary; }
    // Aggregates `rows` (empty: every lane) over [t0, t1]; no model or an empty range clears.
    void setArea(const TimelineModel *model, double t0, double t1, const std::vector<uint32_t> &rows, int lanes);

Q_SIGNALS:
    void eventRequested(qint64 event);

private:
    AggregateModel *m_model;
    QSortFilterProxyModel *m_sorted;
    QLabel *m_summary;
    QTableView *m_view;
};

} // namespace syncscope::ui
