// SPDX-License-Identifier: MIT
// Runs the analysis (core's runAnalysis, the same pipeline as --batch) on a
// worker thread so the window never freezes. Results come back on the GUI
// thread in two stages: the timeline as soon as the traces have loaded, then
// the finished analysis with every edge. Cancel stops the pipeline.
#pragma once

#include "session/analysis.h"
#include "timeline/timelinemodel.h"

#include <QObject>
#include <QString>

#include <atomic>
#include <functional>
#include <memory>
#include <thread>

namespace syncscope::ui {

struct LoadResult {
    std::shared_ptr<const Analysis> analysis;
    std::shared_ptr<TimelineModel> model; // null when the device trace did not load
    EdgeIndex edges;                      // all kinds, for the model (set on the GUI thread)
    double seconds = 0;
};

class Loader : public QObject
{
    Q_OBJECT
public:
    explicit Loader(QObject *parent = nullptr);
    ~Loader() override;

    // Starts loading (cancelling a load in progress). The request's progress,
    // cancel, loaded and keepRawEvents fields are set here.
    void start(AnalysisRequest request);
    void cancel();
    void abandon(); // cancel, and nothing more is reported (a job was opened instead)
    bool busy() const { return m_busy; }
    // Tests: runs on the worker once the traces are in, before the analysis goes on (with the
    // load's cancel flag), so a test can cancel while the analysis is certainly running.
    void setAfterLoadedHook(std::function<void(const std::atomic<bool> &cancel)> hook) { m_afterLoaded = std::move(hook); }

Q_SIGNALS:
    void started();
    void progress(const QString &stage, double fraction); // fraction of the whole load, 0..1
    void timelineReady(std::shared_ptr<TimelineModel> model);
    void finished(std::shared_ptr<LoadResult> result);

private:
    void join();

    std::thread m_thread;
    std::shared_ptr<std::atomic<bool>> m_cancel;
    quint64 m_generation = 0;
    bool m_busy = false;
    std::function<void(const std::atomic<bool> &)> m_afterLoaded;
};

// Maps a pipeline stage and its own progress to a fraction of the whole load.
double overallProgress(const char *stage, double fraction);

} // namespace syncscope::ui
