// SPDX-License-Identifier: MIT
// The critical path: its length, the bound-by breakdown, the ops on it in path
// order (a click jumps to the op), and a step selector when the trace has
// several ProfilerSteps (choosing one recomputes the path for that step).
#pragma once

#include "criticalpathmodel.h"

#include <QStringList>
#include <QWidget>

class QComboBox;
class QLabel;
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
    QLabel *summaryLabel() const { return m_summary; }

    // `steps`: one name per annotation instance (empty or one entry: no selector).
    // The selector shows instance range [first, last]; "all" spans every step.
    void setPath(std::shared_ptr<const CriticalPathResult> cp, std::shared_ptr<const TimelineModel> model,
                 const QStringList &steps, int first, int last);
    void setBusy(const QString &text);
    void clear();

Q_SIGNALS:
    void eventRequested(qint64 event);
    void stepRequested(int first, int last);

private:
    CriticalOpsModel *m_ops;
    BreakdownModel *m_breakdown;
    QLabel *m_summary;
    QComboBox *m_steps;
    QTableView *m_breakdownView;
    QTableView *m_opsView;
    bool m_updating = false;
};

} // namespace syncscope::ui
