// SPDX-License-Identifier: MIT
// The Breakdown dock (issue 25, docs/breakdowns.md "In the inspector"): the HTA-exact
// breakdowns and the exposed communication of the open pair, for the whole trace and
// each ProfilerStep. A stacked bar per window reads at a glance (a click picks the
// window); the tables under it detail the picked one. Computed once per loaded pair
// on a worker thread (computeReportBreakdown), dropped on close or reload; the
// window follows the critical-path panel's step selector.
#pragma once

#include "breakdowntables.h"

#include <QWidget>

#include <memory>

class QComboBox;
class QLabel;
class QSortFilterProxyModel;
class QSplitter;
class QStackedWidget;
class QTabWidget;
class QTableView;

namespace syncscope {
struct Analysis;
}

namespace syncscope::ui {

class BreakdownChart;
class PairDocument;

class BreakdownPanel : public QWidget
{
    Q_OBJECT
public:
    // `document`: the pair whose analysis it shows (and whose step it follows); may be null.
    explicit BreakdownPanel(PairDocument *document, QWidget *parent = nullptr);
    ~BreakdownPanel() override;

    // Starts computing the breakdowns of `analysis` (null: nothing to show); a result
    // of an earlier analysis still on its way is dropped.
    void setAnalysis(std::shared_ptr<const Analysis> analysis);
    // The window shown: 0 the whole trace, 1 + i the i-th ProfilerStep.
    int scope() const { return m_scope; }
    void setScope(int scope);

    bool isReady() const { return m_result != nullptr; }
    std::shared_ptr<const ReportBreakdown> result() const { return m_result; }
    // The numbers of scope `scope` (the whole trace or a step), null when there are none.
    const BreakdownSet *set(int scope) const;

    QComboBox *scopeBox() const { return m_scopeBox; }
    BreakdownChart *chart() const { return m_chart; }
    QLabel *messageLabel() const { return m_message; }
    QLabel *summaryLabel() const { return m_summary; }
    QTabWidget *tabs() const { return m_tabs; }
    QTableView *table(int table) const { return m_views[table]; }
    BreakdownTableModel *tableModel(int table) const { return m_models[table]; }

Q_SIGNALS:
    // The breakdowns of the current analysis are shown (or its empty state is).
    void ready();

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    void showMessage(const QString &text);
    void showResult(std::shared_ptr<const ReportBreakdown> result);

    PairDocument *m_document;
    QLabel *m_summary;
    QComboBox *m_scopeBox;
    QStackedWidget *m_stack;
    QLabel *m_message;
    QSplitter *m_split;
    BreakdownChart *m_chart;
    QTabWidget *m_tabs;
    QTableView *m_views[TableCount] = {};
    BreakdownTableModel *m_models[TableCount] = {};
    QSortFilterProxyModel *m_sorted[TableCount] = {};
    std::shared_ptr<const ReportBreakdown> m_result;
    quint64 m_generation = 0;
    int m_scope = 0;
    bool m_updating = false;
};

} // namespace syncscope::ui
