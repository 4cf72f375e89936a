// SPDX-License-Identifier: MIT
#include "jobloader.h"

#include "io/releasememory.h"
#include "job/jobdocument.h"
#include "job/jobrunner.h"
#include "util/parallel.h"
#include "job/rankbreakdown.h"
#include "loader.h"
#include "session/exitcodes.h"
#include "session/rankpipeline.h"
#include "timeline/timeformat.h"

#include <QElapsedTimer>
#include <QMetaObject>

#include <algorithm>
#include <atomic>
#include <memory>
#include <cstring>
#include <mutex>

#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace syncscope::ui {

namespace {

std::string ms(double us)
{
    return formatDuration(us * 1000.0);
}

// The rank header's figures: step time, waits suffered and caused, clock offset.
std::string rankLabel(const JobData &job, size_t i, bool rawClocks)
{
    const JobRankData &r = job.ranks[i];
    std::vector<std::string> parts;
    if (r.summary.exitCode != 0)
        parts.push_back("exit " + std::to_string(r.summary.exitCode));
    if (const double step = rankStepTimeUs(r.summary, job.window); step >= 0 && r.analysis)
        parts.push_back("step " + ms(step));
    for (const RankJobStats &s : job.analysis.ranks) {
        if (s.rank != r.rank)
            continue;
        if (s.collectiveWaitUs > 0)
            parts.push_back("waited " + ms(s.collectiveWaitUs));
        if (s.collectiveWaitCausedUs > 0)
            parts.push_back("caused " + ms(s.collectiveWaitCausedUs) + " of waits" +
                            (s.workDelayCostUs > 0 ? " (" + ms(s.workDelayCostUs) + " by its extra work)" : ""));
        if (rawClocks)
            parts.push_back("own clock");
        else if (s.clockOffsetUs != 0)
            parts.push_back("clock " + std::string(s.clockOffsetUs > 0 ? "+" : "-") + ms(std::abs(s.clockOffsetUs)));
    }
    if (!job.analysis.stragglers.empty() && job.analysis.stragglers.front() == r.rank) {
        for (const RankJobStats &s : job.analysis.ranks)
            if (s.rank == r.rank && s.workDelayCostUs > 0)
                parts.insert(parts.begin(), "\u26a0 top straggler");
    }
    std::string out;
    for (const auto &p : parts)
        out += (out.empty() ? "" : "  \u00b7  ") + p;
    return out;
}

double secondsOf(const QElapsedTimer &t)
{
    return double(t.nsecsElapsed()) / 1e9;
}

} // namespace

std::shared_ptr<TimelineModel> buildJobModel(const JobData &job,
                                             const std::vector<std::shared_ptr<TimelineModel>> &rankModels,
                                             bool rawClocks)
{
    std::vector<JobTimelineRank> ranks;
    for (size_t i = 0; i < job.ranks.size(); ++i) {
        JobTimelineRank r;
        r.rank = job.ranks[i].rank;
        r.model = i < rankModels.size() ? rankModels[i] : nullptr;
        r.summary = &job.ranks[i].summary;
        r.label = rankLabel(job, i, rawClocks);
        ranks.push_back(std::move(r));
    }
    JobTimelineOptions options;
    options.rawClocks = rawClocks;
    return buildJobTimelineModel(ranks, &job.analysis, options);
}

std::vector<Diagnostic> jobDiagnostics(const JobData &job)
{
    std::vector<Diagnostic> out = job.discovery.diagnostics.items();
    for (const JobRankData &r : job.ranks)
        for (Diagnostic d : r.summary.diagnostics.items()) {
            d.message = "rank " + std::to_string(r.rank) + ": " + d.message;
            out.push_back(std::move(d));
        }
    for (const Diagnostic &d : job.analysis.diagnostics.items())
        out.push_back(d);
    return out;
}

void rankOrderKeys(const JobData &job, const TimelineModel &model, std::vector<double> &stepTimeUs,
                   std::vector<double> &waitCausedUs)
{
    stepTimeUs.assign(model.parts.size(), -1);
    waitCausedUs.assign(model.parts.size(), -1);
    for (size_t p = 0; p < model.parts.size(); ++p) {
        const int i = job.indexOfRank(model.parts[p].rank);
        if (i >= 0)
            stepTimeUs[p] = rankStepTimeUs(job.ranks[size_t(i)].summary, job.window);
        for (const RankJobStats &s : job.analysis.ranks)
            if (s.rank == model.parts[p].rank)
                waitCausedUs[p] = s.workDelayCostUs; // the stragglers' ranking (issue 41: one metric)
    }
}

JobLoader::JobLoader(QObject *parent)
    : QObject(parent)
{
}

JobLoader::~JobLoader()
{
    cancel();
    join();
}

void JobLoader::join()
{
    if (m_thread.joinable())
        m_thread.join();
}

void JobLoader::cancel()
{
    if (m_cancel)
        m_cancel->store(true);
}

void JobLoader::abandon()
{
    cancel();
    ++m_generation; // what the running load still posts is dropped
    m_busy = false;
}

void JobLoader::start(std::vector<std::string> inputs, AnalysisRequest request, unsigned workers)
{
    cancel();
    join();
    const quint64 generation = ++m_generation;
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    m_busy = true;
    Q_EMIT started();
    if (workers == 0)
        workers = std::min(4u, defaultWorkers()); // each rank reads host and device at once as well
    auto cancelFlag = m_cancel;
    m_thread = std::thread([this, generation, cancelFlag, workers, inputs = std::move(inputs),
                            request = std::move(request)]() mutable {
#ifdef __linux__
        // The ranks' work runs a little below the GUI thread (threads it starts inherit
        // this), so the window stays responsive while every core is busy loading.
        setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 5);
#endif
        QElapsedTimer clock;
        clock.start();
        auto post = [this, generation](auto fn) {
            QMetaObject::invokeMethod(
                this,
                [this, generation, fn = std::move(fn)]() mutable {
                    if (generation == m_generation)
                        fn();
                },
                Qt::QueuedConnection);
        };
        auto result = std::make_shared<JobLoadResult>();
        result->job = std::make_shared<JobData>();
        JobData &job = *result->job;
        job.window = request.cpa;
        DiscoveryOptions discoveryOptions;
        discoveryOptions.workers = workers;
        job.discovery = discoverJob(inputs, discoveryOptions);
        const size_t n = job.discovery.ranks.size();
        job.ranks.resize(n);
        result->rankModels.resize(n);
        for (size_t i = 0; i < n; ++i)
            job.ranks[i].rank = job.discovery.ranks[i].rank;

        // Progress: the mean of the ranks' own progress, throttled to one update per 50 ms.
        std::vector<std::atomic<double>> fraction(n);
        std::atomic<size_t> read{0}, analysed{0};
        std::mutex postLock;
        qint64 lastProgressMs = -1000, lastTimelineMs = -1000;
        auto postProgress = [&](bool force) {
            std::lock_guard<std::mutex> g(postLock);
            const qint64 now = clock.elapsed();
            if (!force && now - lastProgressMs < 50)
                return;
            lastProgressMs = now;
            double sum = 0;
            for (auto &f : fraction)
                sum += f.load();
            const double overall = n ? sum / double(n) : 1.0;
            const QString text = QObject::tr("ranks read %1/%2, analysed %3/%2").arg(read.load()).arg(n).arg(analysed.load());
            post([this, text, overall] { Q_EMIT progress(text, overall); });
        };
        // Stage 1: a job timeline of the ranks read so far (and one for the last). Each
        // rebuild covers every rank read so far and the GUI draws it, so with many ranks
        // a fixed rate would be quadratic: the next comes only after 150 ms, after 4x
        // the time the last one took to build, and once the GUI has taken the last.
        std::mutex modelsLock;
        qint64 timelineCostMs = 0;
        auto timelineTaken = std::make_shared<std::atomic<bool>>(true);
        auto postTimeline = [&](bool force) {
            std::vector<JobTimelineRank> ranks;
            QElapsedTimer cost;
            {
                std::lock_guard<std::mutex> g(modelsLock);
                const qint64 now = clock.elapsed();
                if (!force && (now - lastTimelineMs < std::max<qint64>(150, 4 * timelineCostMs) || !timelineTaken->load()))
                    return;
                lastTimelineMs = now;
                cost.start();
                timelineTaken->store(false);
                for (size_t i = 0; i < n; ++i)
                    if (result->rankModels[i])
                        ranks.push_back({job.ranks[i].rank, result->rankModels[i], nullptr, "analysing\u2026"});
            }
            auto model = buildJobTimelineModel(ranks, nullptr, JobTimelineOptions{true});
            {
                std::lock_guard<std::mutex> g(modelsLock);
                if (result->firstTimelineSeconds < 0)
                    result->firstTimelineSeconds = secondsOf(clock);
                timelineCostMs = cost.elapsed();
                lastTimelineMs = clock.elapsed();
            }
            post([this, model, timelineTaken] {
                Q_EMIT timelineReady(model);
                timelineTaken->store(true);
            });
        };

        // Freed memory goes back to the system (io/releasememory.h) at most every 250 ms:
        // a trim walks every arena and what it returns faults in again for the next rank,
        // so trimming after each of 1,024 small ranks made their load 2.5x slower. A rank
        // big enough to matter takes longer than that, so it is still trimmed after.
        std::atomic<qint64> lastTrimMs{-1000};
        parallelFor(n, workers, [&](size_t i) {
            const JobRank &rank = job.discovery.ranks[i];
            RankSummary &summary = job.ranks[i].summary;
            if (cancelFlag->load()) {
                summary.rank = rank.rank;
                summary.exitCode = ExitBadInput;
                summary.diagnostics.error("load.cancelled", "loading was cancelled");
                return;
            }
            if (rank.devicePath.empty()) { // as runJobRank says it
                summary.rank = rank.rank;
                summary.hostPath = rank.hostPath;
                summary.exitCode = ExitBadInput;
                summary.diagnostics.error("job.no_device",
                                          "rank " + std::to_string(rank.rank) + " has a host execution trace (" +
                                              rank.hostPath + ") but no Kineto device trace, which every analysis needs",
                                          rank.hostPath);
                fraction[i] = 1;
                ++analysed;
                return;
            }
            AnalysisRequest req = request;
            req.hostPath = rank.hostPath;
            req.devicePath = rank.devicePath;
            req.rolesGiven = true;
            req.rank = rank.rank;
            req.keepRawEvents = true; // the details panel shows every arg
            req.cancel = cancelFlag.get();
            req.progress = [&, i](const char *stage, double f) {
                const bool load = std::strncmp(stage, "load", 4) == 0;
                fraction[i] = std::max(fraction[i].load(), overallProgress(load ? "load" : stage, f));
                postProgress(false);
            };
            std::shared_ptr<TimelineModel> model;
            req.loaded = [&](const std::shared_ptr<const KinetoTrace> &device, const std::shared_ptr<const HostTrace> &) {
                model = buildTimelineModel(device);
                {
                    std::lock_guard<std::mutex> g(modelsLock);
                    result->rankModels[i] = model;
                }
                const bool last = ++read == n;
                postTimeline(last);
            };
            try {
                RankRun run = runRankPipeline(req, jobRankOutputPaths(JobOutputOptions{}, rank));
                Analysis &a = *run.analysis;
                a.request.progress = nullptr; // they refer to this thread's locals
                a.request.loaded = nullptr;
                a.request.cancel = nullptr;
                if (a.inputsOk) {
                    summary = extractRankSummary(a, run.exitCode);
                    addRankBreakdown(a, summary); // the Ranks dock's overlap / exposed comm
                    addRankGpuTimeline(a, summary); // the Stragglers dock (JobRunOptions::gpuTimelines)
                    if (model) {
                        // Stage 2 on a copy: the stage-1 model may be in a partial timeline on the
                        // GUI thread (details, names) or in another worker's snapshot right now.
                        const CriticalPathResult *cp = a.criticalPath && a.criticalPath->success ? &*a.criticalPath : nullptr;
                        auto full = std::make_shared<TimelineModel>(*model);
                        full->edges = buildEdgeIndex(*full, a, cp);
                        full->criticalEvents = cp ? cp->criticalEvents : std::vector<uint32_t>{};
                        full->layout.setCritical(full->criticalEvents);
                        std::lock_guard<std::mutex> g(modelsLock);
                        result->rankModels[i] = std::move(full);
                    }
                    job.ranks[i].analysis = run.analysis;
                } else {
                    summary.diagnostics = a.diagnostics;
                    summary.hostPath = a.hostPath.empty() ? rank.hostPath : a.hostPath;
                    summary.devicePath = a.devicePath.empty() ? rank.devicePath : a.devicePath;
                    std::lock_guard<std::mutex> g(modelsLock);
                    result->rankModels[i].reset(); // a rank that failed shows no lanes
                }
                summary.rank = rank.rank;
                summary.exitCode = run.exitCode;
            } catch (const std::exception &e) {
                summary = RankSummary{};
                summary.rank = rank.rank;
                summary.exitCode = ExitInternal;
                summary.diagnostics.error("job.internal_error", "rank " + std::to_string(rank.rank) +
                                                                    " failed with an internal error: " + e.what());
            }
            fraction[i] = 1;
            ++analysed;
            qint64 last = lastTrimMs.load();
            if (const qint64 now = clock.elapsed(); now - last >= 250 && lastTrimMs.compare_exchange_strong(last, now))
                releaseFreedMemory(); // ...and back to the system
            postProgress(false);
        });
        releaseFreedMemory();
        postProgress(true);

        result->cancelled = cancelFlag->load();
        if (!result->cancelled) {
            QElapsedTimer t;
            t.start();
            std::vector<RankSummary> summaries;
            for (const JobRankData &r : job.ranks)
                summaries.push_back(r.summary);
            job.analysis = analyzeJob(analysableRanks(summaries), JobOptions{});
            result->analysisSeconds = secondsOf(t);
            result->model = buildJobModel(job, result->rankModels, false);
        }
        result->seconds = secondsOf(clock);
        QMetaObject::invokeMethod(
            this,
            [this, generation, result] {
                if (generation != m_generation)
                    return;
                m_busy = false;
                Q_EMIT finished(result);
            },
            Qt::QueuedConnection);
    });
}

} // namespace syncscope::ui
