// SPDX-License-Identifier: MIT
// File ▸ Compare with… / `syncscope --diff A B`: two runs one above the other on
// aligned steps (the step under the view starts at the same x in both), with a
// synchronised cursor and zoom, matched ops linked on hover and selection, ops and
// GPU work coloured by delta (red slower, green faster, orange added, grey removed)
// and a sortable diff table whose rows (click, Enter, arrow keys) zoom both timelines to
// their op; tooltips give both runs' durations.
#pragma once

#include "diff/tracediff.h"
#include "timeline/timelinemodel.h"

#include <QMainWindow>

#include <array>
#include <atomic>
#include <memory>
#include <unordered_map>
#include <vector>

class QComboBox;
class QLabel;
class QSortFilterProxyModel;
class QTableView;

namespace syncscope::ui {

class DiffTableModel;
class TimelinePlot;

class CompareWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit CompareWindow(QWidget *parent = nullptr);
    ~CompareWindow() override;

    // Analyses both runs off the GUI thread (the one per-rank pipeline each), then
    // shows their diff; loadFinished says how it went.
    void compare(const AnalysisRequest &baseline, const AnalysisRequest &candidate);
    // Shows an existing diff (builds the timelines here; tests).
    void setDiff(std::shared_ptr<const TraceDiff> diff);
    std::shared_ptr<const TraceDiff> diff() const { return m_diff; }

    TimelinePlot *baselinePlot() const { return m_plots[0]; }
    TimelinePlot *candidatePlot() const { return m_plots[1]; }
    QTableView *table() const { return m_table; }
    QSortFilterProxyModel *sortedTable() const { return m_sorted; }
    DiffTableModel *tableModel() const { return m_tableModel; }
    QComboBox *stepBox() const { return m_stepBox; }
    QLabel *summaryLabel() const { return m_summary; } // critical path and top change
    QLabel *legendLabel() const { return m_legend; }   // what the tints mean
    QString statusText() const;

    // Puts step `index` (ordinal, both runs) at the left of both timelines.
    void showStep(int index);
    // Selects and reveals both sides of a table row (source model row).
    void showTableRow(int row);
    // The matched op of `event` in the other run, -1 when it has none.
    qint64 counterpart(bool fromBaseline, qint64 event) const;
    // Candidate step start minus baseline step start (timeline ns), 0 for a step in one run only.
    double stepOffsetNs(int step) const;
    // The step under time `ns` of one run's timeline (-1 before the first).
    int stepAt(bool baseline, double ns) const;
    // What hovering an event shows (tooltip; the status bar on one line): its name and both
    // runs' durations (a matched op and its match; GPU work: its key's means per launch).
    QString hoverText(int from, qint64 event) const;
    // The fill colour the timeline gives an event for its delta (invalid: its category's).
    QColor tintOf(bool baseline, uint32_t event) const;

Q_SIGNALS:
    void loadFinished(bool ok);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void apply(std::shared_ptr<const TraceDiff> diff, std::array<std::shared_ptr<TimelineModel>, 2> models);
    void syncRange(int from);
    void linkSelection(int from, qint64 event);
    void hovered(int from, qint64 event);
    void describeHover(int from, qint64 event);
    void zoomTo(int k, uint32_t event); // the op about a sixth of plot k's view
    void buildTints();
    void setStatus(const QString &text);

    std::shared_ptr<const TraceDiff> m_diff;
    std::array<std::shared_ptr<TimelineModel>, 2> m_models;
    std::array<TimelinePlot *, 2> m_plots{};
    std::array<QLabel *, 2> m_titles{};
    std::array<std::vector<double>, 2> m_stepStart;              // timeline ns
    std::array<std::unordered_map<uint32_t, uint32_t>, 2> m_nodeOf; // event -> op node
    std::array<std::shared_ptr<std::unordered_map<uint32_t, QColor>>, 2> m_tints;
    QComboBox *m_stepBox = nullptr;
    QTableView *m_table = nullptr;
    DiffTableModel *m_tableModel = nullptr;
    QSortFilterProxyModel *m_sorted = nullptr;
    QLabel *m_summary = nullptr;
    QLabel *m_legend = nullptr;
    QLabel *m_status = nullptr;
    bool m_syncing = false;
    bool m_linking = false;
    std::shared_ptr<std::atomic<bool>> m_alive; // the worker's result is dropped once the window is gone
};

// The timeline model of one analysed run, with its edges and critical path.
std::shared_ptr<TimelineModel> compareTimelineModel(const Analysis &analysis);

} // namespace syncscope::ui
