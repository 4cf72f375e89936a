// SPDX-License-Identifier: MIT
// Ctrl+F: a query line (substring or regular expression), the match count,
// next / previous, and the list of matches in time order.
#pragma once

#include "searchmodel.h"

#include <QWidget>

class QCheckBox;
class QLabel;
class QLineEdit;
class QTableView;
class QToolButton;

namespace syncscope::ui {

class SearchPanel : public QWidget
{
    Q_OBJECT
public:
    explicit SearchPanel(QWidget *parent = nullptr);
    SearchModel *model() const { return m_model; }
    QLineEdit *queryEdit() const { return m_query; }
    QCheckBox *regexBox() const { return m_regex; }
    QLabel *countLabel() const { return m_count; }
    int currentRow() const { return m_current; }

    void setTimeline(std::shared_ptr<const TimelineModel> model);
    void focusQuery();
    // Puts `text` in the query line and runs it at once (substring search).
    void setQueryText(const QString &text);
    // Makes `event` the current match if it is one (no jump is requested).
    void markCurrent(qint64 event);
    // Moves to the next/previous match (wrapping) and asks to show it.
    void next();
    void previous();
    // Where "next" starts from when nothing was visited yet (the view's left edge).
    void setAnchorTime(double ns) { m_anchorNs = ns; }

Q_SIGNALS:
    void eventRequested(qint64 event);

private:
    void runQuery();
    void go(int row);
    void updateCount();

    SearchModel *m_model;
    QLineEdit *m_query;
    QCheckBox *m_regex;
    QCheckBox *m_case;
    QLabel *m_count;
    QToolButton *m_prev;
    QToolButton *m_next;
    QTableView *m_view;
    int m_current = -1;
    double m_anchorNs = 0;
};

} // namespace syncscope::ui
