// SPDX-License-Identifier: MIT
// The inspector window: start page or timeline in the middle; details, critical
// path, search and diagnostics in docks; File / View / Search / Help menus,
// toolbar, status bar with the load progress and Cancel.
#pragma once

#include "exporter.h"
#include "job/jobloader.h"
#include "loader.h"
#include "recentpairs.h"

#include <QMainWindow>
#include <QStringList>

#include <map>
#include <vector>
#include <memory>

class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QStackedWidget;

namespace syncscope::ui {

class AggregatePanel;
class CollectivesPanel;
class JobExporter;
class JobSearchPanel;
class RankTablePanel;
class CriticalPathPanel;
class DetailsPanel;
class DiagnosticsPanel;
class SearchPanel;
class WhatIfPanel;
class SyncWaitsPanel;
class StartPage;
class TimelineView;

class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    // Options every load starts from (link mode, rank, critical-path window, --hta-exact), from the command line.
    void setRequestTemplate(const AnalysisRequest &request);
    const AnalysisRequest &requestTemplate() const { return m_template; }
    // Analysis > HTA-exact: HTA f4d0062's sync edges and critical path exactly (cuda_sync rows
    // only, no inferred waits, no graph replays), as --hta-exact. Changing it analyses the open
    // pair or job again. HTA d731cc2e (--hta-version) is always exact.
    void setHtaExact(bool on);
    bool htaExact() const;
    QAction *htaExactAction() const { return m_htaExactAction; }
    // Opens one or two files in either order (the loader detects which is which).
    void openFiles(const QString &first, const QString &second = {});
    void openRequest(AnalysisRequest request);
    void openSample();
    // Opens a job: a folder of ranks (discovery as `--batch --job DIR`), every rank on one timeline.
    void openJob(const QString &dir);
    void setSamplePair(const QString &host, const QString &device);
    // File > Open pair... (the desktop entry's "Open Trace Pair" action starts here).
    void showOpenDialog();
    // File > Compare with...: the loaded run against one or two files (ui/diff); returns the window.
    QWidget *compareWith(const QString &first, const QString &second = {});
    // Tests and screenshots: no modal dialogs (fatal errors and export results still go to the panels/status bar).
    void setInteractive(bool on) { m_interactive = on; }
    // Whether opened pairs go to File > Open Recent (not for screenshots).
    void setRecordRecent(bool on) { m_recordRecent = on; }
    // The window size and dock layout of the last session.
    void restoreLayout();
    // Dock sizes for the current window size (the first start, screenshots).
    void applyDefaultLayout();

    bool isLoading() const;
    Loader *loader() const { return m_loader; }
    JobLoader *jobLoader() const { return m_jobLoader; }

    // --- jobs -----------------------------------------------------------------
    // Hooks for the job panels (rank table, collectives table, cross-rank search):
    // jobChanged() fires when a job finished loading (or was closed: jobData() null);
    // connect their rankActivated(rank) to showRank and collectiveActivated(index) to
    // selectCollective.
    bool isJob() const { return m_job != nullptr || m_jobLoader->busy(); }
    std::shared_ptr<const JobData> jobData() const { return m_job; }
    // The job docks (shown while a job is open) and the job export.
    RankTablePanel *rankTable() const { return m_rankTable; }
    CollectivesPanel *collectivesPanel() const { return m_collectives; }
    JobSearchPanel *jobSearch() const { return m_jobSearch; }
    QAction *exportJobAction() const { return m_exportJobAction; }
    // Every loaded rank's .et and ET+ JSON as DIR/PREFIX.RANK.et / .json, off the GUI
    // thread; exportFinished reports the outcome. False when it could not start.
    bool exportJobTo(const QString &dir, const QString &prefix);
    const JobLoadResult *jobLoadResult() const { return m_jobResult.get(); }
    // Expands the rank and scrolls its lanes into view.
    void showRank(qint64 rank);
    // Selects matched collective `index` (JobAnalysis::collectives) on every rank: the
    // last arriver's kernel is selected, the others outlined and joined.
    void selectCollective(quint32 index);
    // Selects the rank's own event `event` (an index into that rank's Kineto events).
    bool selectRankEvent(qint64 rank, quint32 event);
    // Each rank on its own clock instead of the reference rank's (rebuilt off the GUI
    // thread: jobTimelineChanged when shown).
    void setRawClocks(bool raw);
    bool rawClocks() const { return m_rawClocks; }
    void setRankOrder(RankOrder order);
    // The whole job on ProfilerStep#N: every rank's critical path for that step, then the
    // cross-rank analysis again (off the GUI thread; jobChanged when done), and the view on it.
    void showJobStep(qint64 stepNumber);
    // The ProfilerStep#N numbers of the job (of its first loaded rank).
    std::vector<qint64> jobSteps() const;
    RankOrder rankOrder() const { return m_rankOrder; }
    // The job selection's rank (-1: none, or not a job).
    qint64 selectedRank() const;
    std::shared_ptr<const Analysis> analysis() const { return m_analysis; }
    std::shared_ptr<const CriticalPathResult> criticalPath() const { return m_cp; }
    TimelineView *timeline() const { return m_timeline; }
    DetailsPanel *details() const { return m_details; }
    SearchPanel *search() const { return m_search; }
    CriticalPathPanel *criticalPathPanel() const { return m_cpPanel; }
    DiagnosticsPanel *diagnostics() const { return m_diagnostics; }
    WhatIfPanel *whatIfPanel() const { return m_whatIf; }
    SyncWaitsPanel *syncWaits() const { return m_syncWaits; }
    AggregatePanel *areaPanel() const { return m_area; }
    QAction *exportAction(ExportKind kind) const;
    QString statusSummary() const;

    // Selects the op and brings it into view.
    void jumpTo(qint64 event);
    // --select: the earliest op with exactly this name, else whose name contains it.
    bool selectByName(const QString &name);
    // Exports in the background; exportFinished reports the outcome.
    void exportTo(ExportKind kind, const QString &path);
    // Recomputes the critical path for ProfilerSteps [first, last] (the steps as
    // profilerStepEvents() numbers them, the last step's events kept).
    void showStep(int first, int last);
    // The ProfilerStep#N annotation events of the loaded trace, in ts order.
    const std::vector<uint32_t> &steps() const { return m_steps; }
    // Highlights the parts of the critical path in one bound-by bucket ("" = the whole path).
    void highlightBoundBy(const QString &boundBy);
    QString highlightedBoundBy() const { return m_highlight; }
    // Loads the last pair again (after Cancel, or to pick up changed files).
    void reload();
    QAction *reloadAction() const { return m_reloadAction; }
    // Where the save dialog of an export starts: the last export's folder, else the trace's.
    QString exportStartPath(ExportKind kind) const;

Q_SIGNALS:
    void timelineShown();
    void loadFinished(bool ok);
    void exportFinished(bool ok, const QString &message);
    void criticalPathChanged();
    void jobChanged();
    // The job timeline was rebuilt (raw clocks toggled, another step).
    void jobTimelineChanged();

protected:
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;
    void closeEvent(QCloseEvent *event) override;

private:
    void createActions();
    void createDocks();
    void rebuildRecentMenu();
    void onProgress(const QString &stage, double fraction);
    void onTimelineReady(std::shared_ptr<TimelineModel> model);
    void onFinished(std::shared_ptr<LoadResult> result);
    void applyCriticalPath(std::shared_ptr<const CriticalPathResult> cp, EdgeIndex edges);
    void onJobTimelineReady(std::shared_ptr<TimelineModel> model);
    void onJobFinished(std::shared_ptr<JobLoadResult> result);
    void onSelectionChanged(qint64 event);
    void closeJob();
    void showJobModel(std::shared_ptr<TimelineModel> model);
    void applyRankOrder();
    QString jobSummary() const;
    void showOpenJobDialog();
    void giveTimelineRoom();
    void createJobDocks();
    void updateJobDocks();
    void askExportJob();
    void updateStatus();
    void updateExportActions();
    void askExport(ExportKind kind);
    void finishExport(bool ok, const QString &message);
    QStringList stepNames() const;
    int stepOfWindow() const;

    AnalysisRequest m_template;
    Loader *m_loader;
    JobLoader *m_jobLoader;
    std::shared_ptr<JobData> m_job;
    std::shared_ptr<JobLoadResult> m_jobResult;
    QString m_jobDir, m_lastJobDir;
    bool m_rawClocks = false;
    bool m_jobShown = false;        // the job being opened is on the timeline
    RankOrder m_rankOrder = RankOrder::ByRank;
    int m_detailsPart = -1;         // job: the rank part the details panel shows
    QAction *m_rawClocksAction = nullptr;
    QComboBox *m_rankOrderBox = nullptr;
    QComboBox *m_jobStepBox = nullptr;
    void fillJobSteps();
    QList<QAction *> m_jobActions; // shown for jobs only
    std::shared_ptr<const Analysis> m_analysis;
    std::shared_ptr<TimelineModel> m_model;
    std::shared_ptr<const CriticalPathResult> m_cp;
    int m_cpFirst = 0, m_cpLast = 0;
    quint64 m_stepGeneration = 0;
    bool m_interactive = true;
    bool m_recordRecent = true;
    QString m_sampleHost, m_sampleDevice;
    RecentPair m_loading;
    AnalysisRequest m_lastRequest;
    bool m_haveLastRequest = false;
    std::vector<uint32_t> m_steps;
    QString m_highlight;
    QAction *m_reloadAction = nullptr;
    QAction *m_htaExactAction = nullptr;
    void syncHtaExactAction();

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
    QDockWidget *m_areaDock = nullptr;
    QDockWidget *m_syncDock = nullptr;
    QDockWidget *m_detailsDock = nullptr;
    QDockWidget *m_searchDock = nullptr;
    QDockWidget *m_cpDock = nullptr;
    QDockWidget *m_diagDock = nullptr;
    QDockWidget *m_whatIfDock = nullptr;
    RankTablePanel *m_rankTable = nullptr;
    CollectivesPanel *m_collectives = nullptr;
    JobSearchPanel *m_jobSearch = nullptr;
    QDockWidget *m_ranksDock = nullptr;
    QDockWidget *m_collectivesDock = nullptr;
    QDockWidget *m_jobSearchDock = nullptr;
    JobExporter *m_jobExporter = nullptr;
    QAction *m_exportJobAction = nullptr;
    QMenu *m_recentMenu = nullptr;
    std::map<ExportKind, QAction *> m_exportActions;
    QLabel *m_statusLabel;
    QLabel *m_diagLabel;
    QProgressBar *m_progress;
    QPushButton *m_cancel;
};

} // namespace syncscope::ui
