// SPDX-License-Identifier: MIT
// The "Ranks" dock of a job: a line on the job as a whole (clock reference,
// top straggler, job critical path) above the rank table, sortable by every
// column (numbers sort as numbers). A click or Enter on a row asks to show that
// rank; moving through the rows with the arrow keys reports the current rank.
#pragma once

#include "ranktablemodel.h"

#include <QWidget>

class QLabel;
class QSortFilterProxyModel;
class QTableView;
class QTableWidget;

namespace syncscope::ui {

class RankTablePanel : public QWidget
{
    Q_OBJECT
public:
    explicit RankTablePanel(QWidget *parent = nullptr);
    RankTableModel *model() const { return m_model; }
    QSortFilterProxyModel *sortedModel() const { return m_sorted; }
    QTableView *view() const { return m_view; }
    QLabel *summaryLabel() const { return m_summary; }
    // The ops whose extra work made others wait, by delay cost (direct + propagated).
    QTableWidget *delayCostView() const { return m_costs; }

    void setJob(std::shared_ptr<const JobData> job);
    void clear();
    // Makes `rank` the current row (e.g. when the timeline selects one of its lanes),
    // without emitting rankActivated.
    void selectRank(qint64 rank);

Q_SIGNALS:
    // Click, double-click or Enter on a row.
    void rankActivated(qint64 rank);
    // The current row changed (arrow keys, click).
    void currentRankChanged(qint64 rank);
    // A delay-cost row: the op's earliest charged occurrence, an event of that rank's trace.
    void delayCostActivated(qint64 rank, quint32 event);

private:
    void showDelayCosts();
    void activateDelayCost(int row);

    RankTableModel *m_model;
    QTableWidget *m_costs;
    QSortFilterProxyModel *m_sorted;
    QLabel *m_summary;
    QTableView *m_view;
    bool m_selecting = false;
};

// One line on the job: "8 ranks of world_size 8, clocks aligned on rank 0 ·
// top straggler: rank 7 (12.3 ms caused) · job critical path 9.1 ms through ranks 0, 7".
QString jobSummaryLine(const JobData &job);

} // namespace syncscope::ui
