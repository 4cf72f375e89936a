// SPDX-License-Identifier: MIT
// The "Collectives" dock of a job: a filter box (substring of the collective's
// name, process group or .et type) above the matched collectives, sortable by
// every column. A click or Enter on a row asks to show that collective. Below, side
// by side, the current instance: its ranks (CollectiveRanksPanel: arrival, wait,
// transfer, lateness, size, busbw; a click or Enter asks to show that rank's
// kernel) and its root causes (the last arriver's ops with the most excess over
// the same ops on the other ranks, docs/job_analysis.md "Root causes": a click or
// Enter on one asks to show that op on the late rank). Times are job time, from
// the job timeline's origin (setTimeOrigin).
#pragma once

#include "collectiverankspanel.h"
#include "collectivesmodel.h"

#include <QWidget>

class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;
class QTableWidget;
class QSplitter;

namespace syncscope::ui {

class CollectivesPanel : public QWidget
{
    Q_OBJECT
public:
    explicit CollectivesPanel(QWidget *parent = nullptr);
    CollectivesModel *model() const { return m_model; }
    QSortFilterProxyModel *sortedModel() const { return m_sorted; }
    QTableView *view() const { return m_view; }
    QLineEdit *filterEdit() const { return m_filter; }
    QLabel *countLabel() const { return m_count; }
    // The current instance's root causes: rank, op, where (CPU/GPU), start, duration, excess.
    QTableWidget *rootCauseView() const { return m_causes; }
    QLabel *rootCauseLabel() const { return m_causesLabel; }
    // The instance whose root causes are shown; -1 for none.
    qint64 rootCauseCollective() const { return m_causesOf; }
    // The current instance, one row per participating rank.
    CollectiveRanksPanel *ranksPanel() const { return m_ranks; }
    // Below the table: the ranks (widget 0) beside the root causes (widget 1).
    QSplitter *instanceSplitter() const { return m_instance; }

    void setJob(std::shared_ptr<const JobData> job);
    void clear();
    // The 0 of every time shown (the Start column, arrivals, root causes): the job
    // timeline's TimelineModel::originNs. setJob sets jobTimeOriginNs(job), which is
    // that of buildJobTimelineModel with aligned clocks; call after setJob to override.
    void setTimeOrigin(qint64 originNs);
    void setFilterText(const QString &text);
    // Makes collective `index` the current row (clears a filter that hides it), without emitting.
    void selectCollective(quint32 index);

Q_SIGNALS:
    // Click, double-click or Enter on a row: an index into JobAnalysis::collectives.
    void collectiveActivated(quint32 index);
    // Click, double-click or Enter on a root cause: the op's event on the late rank
    // (an index into that rank's Kineto events).
    void rootCauseActivated(qint64 rank, quint32 event);
    // Click, double-click or Enter on a row of the ranks table: that rank's kernel of
    // the current instance (an index into the rank's Kineto events).
    void rankEventActivated(qint64 rank, quint32 event);

private:
    void updateCount();
    void showInstance(qint64 index);
    void showRootCauses(qint64 index);
    void activateRootCause(int row);

    CollectivesModel *m_model;
    QSortFilterProxyModel *m_sorted;
    QLineEdit *m_filter;
    QLabel *m_count;
    QTableView *m_view;
    QLabel *m_causesLabel;
    QTableWidget *m_causes;
    CollectiveRanksPanel *m_ranks;
    QSplitter *m_instance;
    qint64 m_causesOf = -1;
};

} // namespace syncscope::ui
