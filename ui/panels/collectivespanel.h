// SPDX-License-Identifier: MIT
// The "Collectives" dock of a job: a filter box (substring of the collective's
// name or process group) above the matched collectives, sortable by every
// column. A click or Enter on a row asks to show that collective.
#pragma once

#include "collectivesmodel.h"

#include <QWidget>

class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;

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

    void setJob(std::shared_ptr<const JobData> job);
    void clear();
    void setFilterText(const QString &text);
    // Makes collective `index` the current row (clears a filter that hides it), without emitting.
    void selectCollective(quint32 index);

Q_SIGNALS:
    // Click, double-click or Enter on a row: an index into JobAnalysis::collectives.
    void collectiveActivated(quint32 index);

private:
    void updateCount();

    CollectivesModel *m_model;
    QSortFilterProxyModel *m_sorted;
    QLineEdit *m_filter;
    QLabel *m_count;
    QTableView *m_view;
};

} // namespace syncscope::ui
