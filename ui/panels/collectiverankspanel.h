// SPDX-License-Identifier: MIT
// The selected collective instance as a table, one row per participating rank
// (CollectiveRanksModel): a title naming it as the exported .et does, the rows
// sortable by every column (numbers as numbers). A click or Enter on a row asks
// to show that rank's kernel of the instance.
#pragma once

#include "collectiveranksmodel.h"

#include <QWidget>

class QLabel;
class QSortFilterProxyModel;
class QTableView;

namespace syncscope::ui {

class CollectiveRanksPanel : public QWidget
{
    Q_OBJECT
public:
    explicit CollectiveRanksPanel(QWidget *parent = nullptr);
    CollectiveRanksModel *model() const { return m_model; }
    QSortFilterProxyModel *sortedModel() const { return m_sorted; }
    QTableView *view() const { return m_view; }
    QLabel *titleLabel() const { return m_title; }

    // Shows instance `index` of `job` (-1: none) with arrivals from `originNs`.
    void setCollective(std::shared_ptr<const JobData> job, qint64 index, int64_t originNs,
                       const std::string &chakraKind);

Q_SIGNALS:
    // Click, double-click or Enter on a row: that rank's kernel of the instance (an
    // index into the rank's Kineto events).
    void rankEventActivated(qint64 rank, quint32 event);

private:
    CollectiveRanksModel *m_model;
    QSortFilterProxyModel *m_sorted;
    QLabel *m_title;
    QTableView *m_view;
};

} // namespace syncscope::ui
