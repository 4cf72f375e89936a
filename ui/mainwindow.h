// SPDX-License-Identifier: MIT
// The inspector window, a thin shell: start page or timeline in the middle, the
// docks' homes, File / View / Analysis / Search / Help menus, toolbar, status bar
// with the load progress and Cancel, recent files. What is shown belongs to a
// document (ui/document): a pair (PairDocument) or a job (JobDocument), one at a
// time; the compare window (ui/diff) is a window of its own.
#pragma once

#include "exporter.h"
#include "job/jobloader.h"
#include "loader.h"
#include "recentpairs.h"
#include "timeline/jobtimeline.h"

#include <QMainWindow>
#include <QPointer>
#include <QStringList>

#include <map>
#include <memory>
#include <vector>

class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QStackedWidget;
class QToolButton;

namespace syncscope::ui {

class AggregatePanel;
class CriticalPathPanel;
class DetailsPanel;
class DiagnosticsPanel;
class Document;
class HangWindow;
class JobDocument;
class PairDocument;
class SearchPanel;
class StartPage;
class SyncWaitsPanel;
class TimelineView;
class WhatIfPanel;

class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    // The documents: the pair and the job (the one opened last is shown).
    PairDocument *pair() const { return m_pair; }
    JobDocument *job() const { return m_job; }
    Document *active() const { return m_active; }

    // Options every load starts from (link mode, rank, critical-path window, --hta-exact), from the command line.
    void setRequestTemplate(const AnalysisRequest &request);
    const AnalysisRequest &requestTemplate() const { return m_template; }
    // Analysis > HTA-exact: HTA f4d0062's sync edges and critical path exactly (cuda_sync rows
    // only, no inferred waits, no graph replays), as --hta-exact. Changing it analyses the open
    // pair or job again. HTA d731cc2e (--hta-version) is always exact.
    void setHtaExact(bool on);
    bool htaExact() const;
    QAction *htaExactAction() const { return m_htaExactAction; }
    // Opens one or two files in either order (the loader detects which is which); a folder is a job.
    void openFiles(const QString &first, const QString &second = {});
    void openRequest(AnalysisRequest request);
    void openSample();
    // Opens a job: a folder of ranks (discovery as `--batch --job DIR`), every rank on one timeline.
    // A folder holding NCCL flight recorder dumps opens the hang view instead (openHang).
    void openJob(const QString &dir);
    // The hang view of a folder of flight recorder dumps (ui/hang), a window of its own; returns it.
    HangWindow *openHang(const QString &dir);
    // The last hang view opened (null: none, or closed).
    HangWindow *hangWindow() const;
    // Opens `dir` as a job even though it holds dumps, then shows its last ProfilerStep
    // (the hang view's "Open the job timeline").
    void openJobTimeline(const QString &dir);
    void setSamplePair(const QString &host, const QString &device);
    // File > Open pair... (the desktop entry's "Open Trace Pair" action starts here).
    void showOpenDialog();
    // File > Compare with...: the loaded run against one or two files (ui/diff); returns the window.
    QWidget *compareWith(const QString &first, const QString &second = {});
    // Tests and screenshots: no modal dialogs (fatal errors and export results still go to the panels/status bar).
    void setInteractive(bool on);
    // Whether opened pairs go to File > Open Recent (not for screenshots).
    void setRecordRecent(bool on) { m_recordRecent = on; }
    // The window size and dock layout of the last session.
    void restoreLayout();
    // Dock sizes and tabs for the current window size (the first start, screenshots,
    // View > Reset layout).
    void applyDefaultLayout();
    // View > Reset layout: every dock back home, the default sizes.
    void resetLayout();

    bool isLoading() const;
    QString statusSummary() const;
    QAction *exportAction(ExportKind kind) const;
    QAction *exportJobAction() const { return m_exportJobAction; }
    QToolButton *exportButton() const { return m_exportButton; }
    QAction *reloadAction() const { return m_reloadAction; }
    // Loads the last pair or job again (after Cancel, or to pick up changed files).
    void reload();

    TimelineView *timeline() const { return m_timeline; }
    DetailsPanel *details() const { return m_details; }
    SearchPanel *search() const { return m_search; }
    CriticalPathPanel *criticalPathPanel() const { return m_cpPanel; }
    DiagnosticsPanel *diagnostics() const { return m_diagnostics; }
    WhatIfPanel *whatIfPanel() const { return m_whatIf; }
    SyncWaitsPanel *syncWaits() const { return m_syncWaits; }
    AggregatePanel *areaPanel() const { return m_area; }
    QDockWidget *dock(const QString &objectName) const;

    // Selects the op and brings it into view.
    void jumpTo(qint64 event);
    // --select: the earliest op with exactly this name, else whose name contains it.
    bool selectByName(const QString &name);

    // The job toolbar (and View menu): rank order, raw clocks, step.
    void setRankOrder(RankOrder order);
    void setRawClocks(bool raw);
    void showJobStep(qint64 stepNumber);

Q_SIGNALS:
    void timelineShown();
    void loadFinished(bool ok);
    void exportFinished(bool ok, const QString &message);
    void criticalPathChanged();

protected:
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;
    void closeEvent(QCloseEvent *event) override;

private:
    void createDocks();
    void createActions();
    void createFileMenu();
    void createViewMenu();
    void createToolBar();
    void connectDocument(Document *doc);
    void activate(Document *doc);
    void rebuildRecentMenu();
    void showOpenJobDialog();
    void updateJobWidgets();
    void askExport(ExportKind kind);
    void askExportJob();
    void updateExportActions();
    void finishExport(bool ok, const QString &message);
    void returnFocusToTimeline();
    void syncHtaExactAction();
    void setDiagnostics(const std::vector<Diagnostic> &items);
    void showDock(QDockWidget *dock);

    AnalysisRequest m_template;
    bool m_interactive = true;
    bool m_recordRecent = true;
    QString m_sampleHost, m_sampleDevice;

    QStackedWidget *m_stack;
    StartPage *m_start;
    TimelineView *m_timeline;
    DetailsPanel *m_details;
    SearchPanel *m_search;
    CriticalPathPanel *m_cpPanel;
    DiagnosticsPanel *m_diagnostics;
    WhatIfPanel *m_whatIf;
    SyncWaitsPanel *m_syncWaits;
    AggregatePanel *m_area;
    PairDocument *m_pair;
    JobDocument *m_job;
    Document *m_active = nullptr;
    QPointer<HangWindow> m_hang;

    QDockWidget *m_detailsDock = nullptr, *m_cpDock = nullptr, *m_searchDock = nullptr, *m_diagDock = nullptr;
    QDockWidget *m_whatIfDock = nullptr, *m_syncDock = nullptr, *m_areaDock = nullptr;
    QDockWidget *m_ranksDock = nullptr, *m_collectivesDock = nullptr, *m_jobSearchDock = nullptr;
    QDockWidget *m_stragglersDock = nullptr; // the job's straggler what-if, a tab beside What-if
    QDockWidget *m_overviewDock = nullptr;
    QAction *m_reloadAction = nullptr;
    QAction *m_htaExactAction = nullptr;
    QAction *m_rawClocksAction = nullptr;
    QAction *m_exportJobAction = nullptr;
    QList<QAction *> m_jobActions; // shown for jobs only
    QList<QAction *> m_rankOrderActions;
    QComboBox *m_rankOrderBox = nullptr;
    QComboBox *m_jobStepBox = nullptr;
    QToolButton *m_exportButton = nullptr;
    QMenu *m_recentMenu = nullptr;
    QMenu *m_exportMenu = nullptr;
    std::map<ExportKind, QAction *> m_exportActions;
    QLabel *m_statusLabel;
    QLabel *m_diagLabel;
    QProgressBar *m_progress;
    QPushButton *m_cancel;
};

} // namespace syncscope::ui
