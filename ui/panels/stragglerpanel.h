// SPDX-License-Identifier: MIT
// The "Stragglers" dock of a job: the straggler what-if of ByteDance's study
// (core/job/stragglerwhatif.h, docs/what_if.md "Straggler what-if"). An optional
// parallelism ("dp=4,pp=2,tp=1", checked as typed; empty: from the traces) and
// Compute (also run once when the dock is first shown with a job); the analysis
// runs on a worker thread (a generation counter drops stale results). Shown: S,
// the measured and ideal mean step, the layout, M_W / M_S, and four sortable
// tables: per step, per op type (S_t), per dp rank (S_w; a click shows that
// rank's lanes) and per pipeline stage. An analysis that fails shows its error.
#pragma once

#include "stragglermodel.h"

#include <QWidget>

#include <memory>

class QLabel;
class QLineEdit;
class QPushButton;
class QSortFilterProxyModel;
class QTabWidget;
class QTableView;

namespace syncscope::ui {

struct JobData;

class StragglerPanel : public QWidget
{
    Q_OBJECT
public:
    explicit StragglerPanel(QWidget *parent = nullptr);
    ~StragglerPanel() override;

    // The job to analyse (null: none). Drops any result; nothing is computed until
    // compute() or the dock is shown.
    void setJob(std::shared_ptr<const JobData> job);
    void clear() { setJob(nullptr); }
    // Starts the analysis with the parallelism in the line edit; false (the reason
    // shown under it, nothing computed) without a job or when that text does not parse.
    bool compute();
    bool busy() const { return m_busy; }
    // Computes once per job when the panel is on screen (its dock's tab raised): call
    // when that may have changed (QDockWidget::visibilityChanged); showing it does too.
    void autoCompute();

    // The latest finished computation (null before the first, after setJob).
    std::shared_ptr<const StragglerPanelResult> result() const { return m_result; }

    QLineEdit *parallelismEdit() const { return m_parallelism; }
    QPushButton *computeButton() const { return m_compute; }
    QLabel *errorLabel() const { return m_error; }
    QLabel *summaryLabel() const { return m_summary; }
    QTabWidget *tabs() const { return m_tabs; }
    QTableView *view(StragglerTableModel::Table table) const { return m_views[table]; }
    StragglerTableModel *model(StragglerTableModel::Table table) const { return m_models[table]; }

Q_SIGNALS:
    void resultChanged();
    // A click or Enter on a dp-rank or stage row: the lowest rank it holds.
    void rankActivated(qint64 rank);

protected:
    void showEvent(QShowEvent *event) override;

private:
    void showResult(quint64 generation, std::shared_ptr<const StragglerPanelResult> result);
    bool checkParallelism(ParallelismSpec *spec);
    QString summaryText(const StragglerPanelResult &r) const;

    std::shared_ptr<const JobData> m_job;
    std::shared_ptr<const StragglerPanelResult> m_result;
    quint64 m_generation = 0;
    bool m_busy = false;
    bool m_computedOnce = false; // for this job (the dock's first show computes)
    QLineEdit *m_parallelism;
    QPushButton *m_compute;
    QLabel *m_error;
    QLabel *m_summary;
    QTabWidget *m_tabs;
    StragglerTableModel *m_models[4];
    QSortFilterProxyModel *m_sorted[4];
    QTableView *m_views[4];
};

} // namespace syncscope::ui
