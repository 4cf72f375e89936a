// SPDX-License-Identifier: MIT
// A job (a folder of ranks) in the main window: its loader, every rank's data and
// the cross-rank analysis, the job timeline's options (raw clocks, rank order,
// step), its own panels (ranks, collectives, search over every rank) and the job
// export. Drives the shared panels of Workspace like a pair does.
#pragma once

#include "document.h"
#include "job/jobloader.h"
#include "timeline/jobtimeline.h"

#include <memory>
#include <vector>

namespace syncscope::ui {

class CollectivesPanel;
class JobExporter;
class JobOverview;
class JobSearchPanel;
class RankTablePanel;
class StragglerPanel;

class JobDocument : public Document
{
    Q_OBJECT
public:
    // The job panels are made children of `panelParent` (the shell docks them).
    JobDocument(const Workspace &workspace, QWidget *panelParent, QObject *parent);
    ~JobDocument() override;

    // Opens every rank under `dir`; `request` carries the options (paths are per rank).
    void open(const QString &dir, AnalysisRequest request);
    QString lastDir() const { return m_lastDir; }

    bool busy() const override { return m_loader->busy(); }
    bool isOpen() const override { return m_job != nullptr || m_loader->busy(); }
    void cancel() override { m_loader->cancel(); }
    void close() override;
    bool canReload() const override { return !m_lastDir.isEmpty(); }
    void reload() override;
    QString statusSummary() const override;
    void selectionChanged(qint64 event) override;
    qint64 detailsEventToTimeline(qint64 event) const override;
    bool selectByName(const QString &name) override;
    void setHtaExact(bool on) override;

    JobLoader *loader() const { return m_loader; }
    // The loaded job (null while loading, or when none is open).
    std::shared_ptr<const JobData> data() const { return m_job; }
    const JobLoadResult *loadResult() const { return m_result.get(); }
    std::shared_ptr<const TimelineModel> model() const { return m_model; }

    RankTablePanel *rankTable() const { return m_rankTable; }
    CollectivesPanel *collectivesPanel() const { return m_collectives; }
    JobSearchPanel *search() const { return m_search; }
    JobOverview *overview() const { return m_overview; }
    StragglerPanel *stragglerPanel() const { return m_stragglers; }

    // Expands the rank and scrolls its lanes into view.
    void showRank(qint64 rank);
    // Scrolls the rank's header into view, folded or not as it is.
    void revealRank(qint64 rank);
    // Selects matched collective `index` (JobAnalysis::collectives) on every rank: the
    // last arriver's kernel is selected, the others outlined and joined.
    void selectCollective(quint32 index);
    // Selects the rank's own event `event` (an index into that rank's Kineto events).
    bool selectRankEvent(qint64 rank, quint32 event);
    // The rank of the timeline's selection (-1: none).
    qint64 selectedRank() const;
    // Each rank on its own clock instead of the reference rank's (rebuilt off the GUI
    // thread: jobTimelineChanged when shown).
    void setRawClocks(bool raw);
    bool rawClocks() const { return m_rawClocks; }
    void setRankOrder(RankOrder order);
    RankOrder rankOrder() const { return m_rankOrder; }
    // The whole job on ProfilerStep#N: every rank's critical path for that step, then the
    // cross-rank analysis again (off the GUI thread; jobChanged when done), and the view on it.
    void showStep(qint64 stepNumber);
    // The ProfilerStep#N numbers of the job (of its first loaded rank), and the one shown.
    std::vector<qint64> steps() const;
    qint64 currentStep() const;
    // Every loaded rank's .et and ET+ JSON as DIR/PREFIX.RANK.et / .json, off the GUI
    // thread; exportFinished reports the outcome. False when it could not start.
    bool exportTo(const QString &dir, const QString &prefix);

Q_SIGNALS:
    // A job finished loading, another step was analysed, or the job was closed (data() null).
    void jobChanged();
    // The job timeline was rebuilt (raw clocks toggled, another step).
    void jobTimelineChanged();

private:
    void onTimelineReady(std::shared_ptr<TimelineModel> model);
    void onFinished(std::shared_ptr<JobLoadResult> result);
    void showModel(std::shared_ptr<TimelineModel> model);
    void startPanels();
    void applyRankOrder();
    void updatePanels();
    void showStepRange(const JobData &job, const TimelineModel &model, qint64 stepNumber);
    QString pathText(qint64 stepNumber) const;
    void showPath(qint64 stepNumber);
    void connectPanels();

    JobLoader *m_loader;
    std::shared_ptr<JobData> m_job;
    std::shared_ptr<JobLoadResult> m_result;
    std::shared_ptr<TimelineModel> m_model;
    QString m_dir, m_lastDir;
    AnalysisRequest m_request;
    bool m_rawClocks = false;
    bool m_shown = false;           // the job being opened is on the timeline
    RankOrder m_rankOrder = RankOrder::ByRank;
    int m_detailsPart = -1;         // the rank part the details panel shows
    quint64 m_generation = 0;
    RankTablePanel *m_rankTable;
    CollectivesPanel *m_collectives;
    JobSearchPanel *m_search;
    JobOverview *m_overview;
    StragglerPanel *m_stragglers;
    JobExporter *m_exporter;
};

} // namespace syncscope::ui
