// SPDX-License-Identifier: MIT
// The "Collectives" dock of a job: a filter box (substring of the collective's
// name or process group) above the matched collectives, sortable by every
// column. A click or Enter on a row asks to show that collective. Below, the
// current instance's root causes (the last arriver's ops with the most excess
// over the same ops on the other ranks, docs/job_analysis.md "Root causes"): a
// click or Enter on one asks to show that op on the late rank.
#pragma once

#include "collectivesmodel.h"

#include <QWidget>

class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;
class QTableWidget;

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

    void setJob(std::shared_ptr<const JobData> job);
    void clear();
    void setFilterText(const QString &text);
    // Makes collective `index` the current row (clears a filter that hides it), without emitting.
    void selectCollective(quint32 index);

Q_SIGNALS:
    // Click, double-click or Enter on a row: an index into JobAnalysis::collectives.
    void collectiveActivated(quint32 index);
    // Click, double-click or Enter on a root cause: the op's event on the late rank
    // (an index into that rank's Kineto events).
    void rootCauseActivated(qint64 rank, quint32 event);

private:
    void updateCount();
    void showRootCauses(qint64 index);
    void activateRootCause(int row);

    CollectivesModel *m_model;
    QSortFilterProxyModel *m_sorted;
    QLineEdit *m_filter;
    QLabel *m_count;
    QTableView *m_view;
    QLabel *m_causesLabel;
    QTableWidget *m_causes;
    qint64 m_causesOf = -1;
};

} // namespace syncscope::ui
