// SPDX-License-Identifier: MIT
// The hang view (issue 29, docs/hang_diagnosis.md "In the inspector"): a window of its
// own (like the compare window) for a folder of NCCL flight recorder dumps. The folder is
// read off the GUI thread with progress and Cancel (core/hang/hangfolder.h), analysed
// (analyzeHang) and shown as: the root cause on top, a ranks x groups grid with the
// wavefront outlined, the suspects table (root first) and the selected rank's entries
// with the selected entry's stack. When the folder also holds the job's Kineto traces,
// "Open the job timeline" hands the folder to the main window's job view.
#pragma once

#include "hang/hanganalysis.h"
#include "hang/hangfolder.h"

#include <QMainWindow>

#include <atomic>
#include <memory>
#include <unordered_map>

class QCheckBox;
class QLabel;
class QListWidget;
class QProgressBar;
class QPushButton;
class QTableView;
class QTabWidget;

namespace syncscope::ui {

struct HangGrid;
class HangGridView;
class HangSuspectsModel;
class HangEntriesModel;

class HangWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit HangWindow(QWidget *parent = nullptr);
    ~HangWindow() override;

    // Reads and analyses every dump under `dir` off the GUI thread; loadFinished says how it went.
    void open(const QString &dir);
    // Stops the read: the window shows why and stays usable (Reload reads again).
    void cancel();
    void reload();
    bool busy() const { return m_busy; }
    QString dir() const { return m_dir; }

    std::shared_ptr<const HangFolder> folder() const { return m_folder; }
    std::shared_ptr<const HangAnalysis> analysis() const { return m_analysis; }
    // Ranks of the folder with a Kineto device trace (discoverJob); 0: no timeline to open.
    int traceRanks() const { return m_traceRanks; }
    const FrDump *dumpOf(int64_t rank) const;

    // Selects suspect `index` (its group, and its first missing, else mismatched, else waiting rank).
    void selectSuspect(int index);
    // Selects a grid cell: the group's row and the rank's entries.
    void selectCell(int row, int64_t rank);
    // Only the groups with a finding in the grid.
    void setOnlyFindings(bool on);
    // What hovering a grid cell shows: rank, group, state, last enqueued/started/completed seq
    // and its part in each finding of the group.
    QString cellToolTip(int row, int64_t rank) const;

    HangGridView *grid() const { return m_grid; }
    QTableView *suspectsTable() const { return m_suspects; }
    HangSuspectsModel *suspectsModel() const { return m_suspectsModel; }
    QTableView *entriesTable() const { return m_entries; }
    HangEntriesModel *entriesModel() const { return m_entriesModel; }
    QListWidget *framesList() const { return m_frames; }
    QListWidget *diagnosticsList() const { return m_diags; }
    QLabel *summaryLabel() const { return m_summary; }
    QLabel *entriesLabel() const { return m_entriesLabel; }
    QPushButton *timelineButton() const { return m_timeline; }
    QPushButton *cancelButton() const { return m_cancel; }
    QPushButton *reloadButton() const { return m_reload; }
    QCheckBox *onlyFindingsBox() const { return m_onlyFindings; }

Q_SIGNALS:
    void loadFinished(bool ok);
    // "Open the job timeline (last recorded step)": the main window opens `dir` as a job.
    void timelineRequested(const QString &dir);

private:
    static constexpr size_t kOnlyFindingsAbove = 32; // groups: more open on the findings' groups
    struct Load;
    void apply(std::shared_ptr<Load> load);
    void setBusy(bool busy);
    void showRank(int64_t rank, const std::string &pgName, const HangSuspect *suspect);
    void showFrames();
    const HangSuspect *suspectOfGroup(const std::string &pgName, int *index = nullptr) const;

    QString m_dir;
    std::shared_ptr<const HangFolder> m_folder;
    std::shared_ptr<const FrDump> m_framesDump; // the shown rank's dump read again with its stacks
    std::shared_ptr<const HangAnalysis> m_analysis;
    std::shared_ptr<const HangGrid> m_allGrid, m_shownGrid;
    std::unordered_map<int64_t, size_t> m_dumpOfRank;
    int m_traceRanks = 0;
    bool m_busy = false;
    bool m_selecting = false;
    quint64 m_generation = 0;
    std::shared_ptr<std::atomic<bool>> m_cancelFlag;

    QLabel *m_summary;
    QLabel *m_status;
    QProgressBar *m_progress;
    QPushButton *m_cancel, *m_reload, *m_timeline, *m_fit;
    QCheckBox *m_onlyFindings;
    HangGridView *m_grid;
    QTableView *m_suspects;
    HangSuspectsModel *m_suspectsModel;
    QLabel *m_entriesLabel;
    QTableView *m_entries;
    HangEntriesModel *m_entriesModel;
    QListWidget *m_frames;
    QListWidget *m_diags;
    QTabWidget *m_tabs;
};

} // namespace syncscope::ui
