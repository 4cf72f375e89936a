// SPDX-License-Identifier: MIT
// The sync-waits dock: per-kind totals on top, every wait below, sortable by any
// column; a click (or the arrow keys) selects the op of that cell on the timeline.
#pragma once

#include "syncwaitsmodel.h"

#include <QWidget>

class QLabel;
class QSortFilterProxyModel;
class QTableView;

namespace syncscope::ui {

class SyncWaitsPanel : public QWidget
{
    Q_OBJECT
public:
    explicit SyncWaitsPanel(QWidget *parent = nullptr);
    SyncWaitsModel *model() const { return m_model; }
    QTableView *view() const { return m_view; }
    QLabel *totalsLabel() const { return m_totals; }
    void setSources(std::shared_ptr<const Analysis> analysis, std::shared_ptr<const TimelineModel> model);

Q_SIGNALS:
    void eventRequested(qint64 event);

private:
    SyncWaitsModel *m_model;
    QSortFilterProxyModel *m_sorted;
    QLabel *m_totals;
    QTableView *m_view;
};

} // namespace syncscope::ui
