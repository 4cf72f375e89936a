// SPDX-License-Identifier: MIT
// Cross-rank search (the job's Ctrl+F): a query line (substring or regular
// expression) over the ops of every rank, the match count and on how many
// ranks, and the matches in aligned time order with a rank column (sortable).
// A click, Enter or the arrow keys on a match ask to show that op of that rank.
#pragma once

#include "jobsearchmodel.h"

#include <QWidget>

class QCheckBox;
class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;

namespace syncscope::ui {

class JobSearchPanel : public QWidget
{
    Q_OBJECT
public:
    explicit JobSearchPanel(QWidget *parent = nullptr);
    JobSearchModel *model() const { return m_model; }
    QSortFilterProxyModel *sortedModel() const { return m_sorted; }
    QTableView *view() const { return m_view; }
    QLineEdit *queryEdit() const { return m_query; }
    QCheckBox *regexBox() const { return m_regex; }
    QLabel *countLabel() const { return m_count; }

    void setJob(std::shared_ptr<const JobData> job);
    void clear();
    void focusQuery();
    // Puts `text` in the query line and runs it at once (substring search).
    void setQueryText(const QString &text);

Q_SIGNALS:
    // A match was clicked, activated or became current: event index in that rank's Kineto trace.
    void eventRequested(qint64 rank, qint64 event);

private:
    void runQuery();
    void updateCount();

    JobSearchModel *m_model;
    QSortFilterProxyModel *m_sorted;
    QLineEdit *m_query;
    QCheckBox *m_regex;
    QCheckBox *m_case;
    QLabel *m_count;
    QTableView *m_view;
};

} // namespace syncscope::ui
