// SPDX-License-Identifier: MIT
// Opens a job off the GUI thread: discovery, then every rank through the
// per-rank pipeline (runRankPipeline -> runAnalysis, the code path of
// `--batch --job`) on a small worker pool (core/util/parallel.h), then the
// cross-rank analysis. The timeline comes back in stages: as each rank's traces
// are read, a job timeline of the ranks read so far (own clocks); when every
// rank is analysed, the finished job (aligned clocks, collectives, job critical
// path). A rank that fails does not stop the others; Cancel stops them all.
#pragma once

#include "job/jobdata.h"
#include "timeline/jobtimeline.h"

#include <QObject>
#include <QString>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace syncscope::ui {

struct JobLoadResult {
    std::shared_ptr<JobData> job;
    // Per job->ranks entry: the rank's own timeline model with its edges (null: not loaded).
    std::vector<std::shared_ptr<TimelineModel>> rankModels;
    std::shared_ptr<TimelineModel> model; // the job timeline (aligned clocks); null when no rank loaded
    bool cancelled = false;
    double seconds = 0;               // the whole load
    double firstTimelineSeconds = -1; // when the first ranks' timeline was posted
    double analysisSeconds = 0;       // the cross-rank analysis
};

class JobLoader : public QObject
{
    Q_OBJECT
public:
    explicit JobLoader(QObject *parent = nullptr);
    ~JobLoader() override;

    // `request` carries the options (link mode, critical-path window); paths and rank are
    // set per rank. `workers` 0: min(cores, 4) ranks at once.
    void start(std::vector<std::string> inputs, AnalysisRequest request, unsigned workers = 0);
    void cancel();   // the load stops; finished() still reports it (cancelled)
    void abandon();  // the load stops and nothing more is reported (another file was opened)
    bool busy() const { return m_busy; }

Q_SIGNALS:
    void started();
    void progress(const QString &text, double fraction);
    void timelineReady(std::shared_ptr<TimelineModel> model); // the ranks read so far
    void finished(std::shared_ptr<JobLoadResult> result);

private:
    void join();

    std::thread m_thread;
    std::shared_ptr<std::atomic<bool>> m_cancel;
    quint64 m_generation = 0;
    bool m_busy = false;
};

// The job timeline of a loaded job (rank headers with their figures), on aligned
// clocks or, with rawClocks, on each rank's own.
std::shared_ptr<TimelineModel> buildJobModel(const JobData &job,
                                             const std::vector<std::shared_ptr<TimelineModel>> &rankModels,
                                             bool rawClocks);

// Every diagnostic of the job: discovery, each rank's (prefixed "rank N: "), the cross-rank analysis.
std::vector<Diagnostic> jobDiagnostics(const JobData &job);

// Per part of `model`: the rank's step time and the waits it caused (µs, -1 unknown), for rankDisplayOrder.
void rankOrderKeys(const JobData &job, const TimelineModel &model, std::vector<double> &stepTimeUs,
                   std::vector<double> &waitCausedUs);

} // namespace syncscope::ui
