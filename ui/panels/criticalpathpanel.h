// SPDX-License-Identifier: MIT
// The critical path: its length, the bound-by breakdown, the ops on it in path
// order (a click jumps to the op), and a step selector when the trace has
// several ProfilerSteps (choosing one recomputes the path for that step).
#pragma once

#include "criticalpathmodel.h"

#include <QStringList>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QSortFilterProxyModel;
class QTableView;

namespace syncscope::ui {

class CriticalPathPanel : public QWidget
{
    Q_OBJECT
public:
    explicit CriticalPathPanel(QWidget *parent = nullptr);
    CriticalOpsModel *opsModel() const { return m_ops; }
    BreakdownModel *breakdownModel() const { return m_breakdown; }
    QComboBox *stepBox() const { return m_steps; }
    QTableView *opsView() const { return m_opsView; }
    QTableView *breakdownView() const { return m_breakdownView; }
    QLabel *summaryLabel() const { return m_summary; }
    QCheckBox *groupBox() const { return m_group; }
    QCheckBox *zeroRowsBox() const { return m_zero; }
    // The ops table's view index of a row of opsModel() (the table sorts through a proxy).
    QModelIndex viewIndex(int row, int column) const;
    // Moves the current row of the ops table (as shown) by delta and selects its op: keys
    // step forward / back along the path.
    void stepAlongPath(int delta);

    // `steps`: the ProfilerStep#N names (empty: no selector). The selector shows step
    // range [first, last]; "All" spans every step; first = -1: the path's window is an
    // HTA instance that is not one step (listed first, labelled as such).
    // The graph capture of the open trace (tooltips of replayed graph ops), null without one.
    void setGraphCapture(std::shared_ptr<const GraphCaptureLink> capture);
    void setPath(std::shared_ptr<const CriticalPathResult> cp, std::shared_ptr<const TimelineModel> model,
                 const QStringList &steps, int first, int last);
    void setBusy(const QString &text);
    void clear();

Q_SIGNALS:
    void eventRequested(qint64 event);
    void stepRequested(int first, int last);
    // A bound-by row was clicked: highlight the parts of the path in that bucket ("" = all again).
    void boundByRequested(const QString &boundBy);

private:
    void describeTable();
    CriticalOpsModel *m_ops;
    BreakdownModel *m_breakdown;
    QLabel *m_summary;
    QString m_summaryBase; // the path's own counts; describeTable() adds the table's
    QComboBox *m_steps;
    QTableView *m_breakdownView;
    QTableView *m_opsView;
    QSortFilterProxyModel *m_sorted;
    QCheckBox *m_group;
    QCheckBox *m_zero;
    bool m_updating = false;
};

} // namespace syncscope::ui
