// SPDX-License-Identifier: MIT
// The What-if panel: rules typed by hand or made from the selection ("this op
// x0.5", "all like it", "drop its wait"), the projected step time against the
// baseline, the projected critical path's bound-by split and the ops that move
// most (a click jumps to the op). Evaluations run on a worker thread.
#pragma once

#include "analysis/whatif.h"
#include "job/jobwhatif.h"

#include <QWidget>

#include <memory>

class QCheckBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QStandardItemModel;
class QTableView;

namespace syncscope::ui {

struct JobData;

class WhatIfPanel : public QWidget
{
    Q_OBJECT
public:
    explicit WhatIfPanel(QWidget *parent = nullptr);
    ~WhatIfPanel() override;

    // The trace and the critical path the rules apply to (null: nothing to analyse).
    void setContext(std::shared_ptr<const KinetoTrace> trace, std::shared_ptr<const CriticalPathResult> cp);
    // The op the "from selection" buttons use (-1: none).
    void setSelectedEvent(qint64 event);
    // A job (null: back to the single-rank context): the rules re-weight every
    // rank's critical-path graph and the job critical path is recomputed
    // (core/job/jobwhatif.h); the table lists each rank's own path, projected.
    void setJob(std::shared_ptr<const JobData> job);
    // The latest finished job evaluation (null outside a job, before the first or with no rules).
    std::shared_ptr<const JobWhatIf> jobResult() const { return m_jobResult; }
    // Adds a rule; false (and the reason in the panel) when it does not parse.
    bool addRule(const QString &text);
    void removeRule(int row);
    QStringList rules() const;

    // The latest finished evaluation (null before the first or with no rules).
    std::shared_ptr<const WhatIfResult> result() const { return m_result; }
    QLabel *summaryLabel() const { return m_summary; }
    QTableView *movedView() const { return m_movedView; }
    QLineEdit *ruleEdit() const { return m_edit; }
    QPushButton *thisOpButton() const { return m_thisOp; }
    QPushButton *allLikeButton() const { return m_allLike; }
    QPushButton *dropWaitButton() const { return m_dropWait; }
    QCheckBox *projectionBox() const { return m_showProjection; }

Q_SIGNALS:
    void eventRequested(qint64 event);
    void resultChanged();
    // The projected timeline to draw (null: none), when the toggle is on.
    void projectionChanged(std::shared_ptr<const EventShifts> shifts);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    struct Context;
    void recompute();
    std::vector<WhatIfRule> parsedRules() const;
    void showResult(quint64 generation, std::shared_ptr<const WhatIfResult> result);
    QString factorText() const;

    std::shared_ptr<Context> m_context;
    std::shared_ptr<const WhatIfResult> m_result;
    std::shared_ptr<const JobData> m_job;
    std::shared_ptr<const JobWhatIf> m_jobResult;
    void recomputeJob(std::vector<WhatIfRule> rules, quint64 generation);
    void showJobResult(quint64 generation, std::shared_ptr<const JobWhatIf> result);
    quint64 m_generation = 0;
    qint64 m_selected = -1;
    QLineEdit *m_edit;
    QListWidget *m_rules;
    QDoubleSpinBox *m_factor;
    QPushButton *m_thisOp, *m_allLike, *m_dropWait;
    QCheckBox *m_showProjection;
    void emitProjection();
    QLabel *m_summary;
    QStandardItemModel *m_moved;
    QTableView *m_movedView;
};

} // namespace syncscope::ui
