// SPDX-License-Identifier: MIT
#include "loader.h"

#include <QElapsedTimer>
#include <QMetaObject>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <future>
#include <mutex>

namespace syncscope::ui {

double overallProgress(const char *stage, double f)
{
    f = std::clamp(f, 0.0, 1.0);
    if (std::strncmp(stage, "load", 4) == 0)
        return 0.6 * f;
    if (std::strcmp(stage, "sync") == 0)
        return 0.6 + 0.1 * f;
    if (std::strcmp(stage, "critical path") == 0)
        return 0.7 + 0.2 * f;
    if (std::strcmp(stage, "link") == 0)
        return 0.9 + 0.1 * f;
    return f;
}

Loader::Loader(QObject *parent)
    : QObject(parent)
{
}

Loader::~Loader()
{
    cancel();
    join();
}

void Loader::join()
{
    if (m_thread.joinable())
        m_thread.join();
}

void Loader::cancel()
{
    if (m_cancel)
        m_cancel->store(true);
}

void Loader::abandon()
{
    cancel();
    ++m_generation;
    m_busy = false;
}

void Loader::start(AnalysisRequest request)
{
    cancel();
    join();
    const quint64 generation = ++m_generation;
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    m_busy = true;
    Q_EMIT started();
    auto cancelFlag = m_cancel;
    m_thread = std::thread([this, generation, cancelFlag, afterLoaded = m_afterLoaded,
                            request = std::move(request)]() mutable {
        QElapsedTimer clock;
        clock.start();
        // Progress: at most one update per percent and per 50 ms, so the GUI queue stays short.
        struct Throttle {
            std::mutex lock;
            int lastPercent = -1;
            qint64 lastMs = -1000;
        };
        auto throttle = std::make_shared<Throttle>();
        // Host and device load at once; the two loaders report separately.
        auto hostF = std::make_shared<std::atomic<double>>(0.0);
        auto deviceF = std::make_shared<std::atomic<double>>(0.0);
        const bool twoFiles = !request.hostPath.empty();
        request.keepRawEvents = true;
        request.cancel = cancelFlag.get();
        request.progress = [this, generation, throttle, hostF, deviceF, twoFiles, &clock](const char *stage,
                                                                                          double f) {
            double overall;
            QString name = QString::fromUtf8(stage);
            if (std::strcmp(stage, "load host") == 0 || std::strcmp(stage, "load device") == 0) {
                (stage[5] == 'h' ? *hostF : *deviceF) = f;
                const double both = twoFiles ? (hostF->load() + deviceF->load()) / 2 : deviceF->load();
                overall = overallProgress("load", both);
                name = QStringLiteral("loading");
            } else {
                overall = overallProgress(stage, f);
            }
            const int percent = int(overall * 100);
            {
                std::lock_guard<std::mutex> g(throttle->lock);
                const qint64 now = clock.elapsed();
                if (percent == throttle->lastPercent || now - throttle->lastMs < 50)
                    return;
                throttle->lastPercent = percent;
                throttle->lastMs = now;
            }
            QMetaObject::invokeMethod(
                this,
                [this, generation, name, overall] {
                    if (generation == m_generation)
                        Q_EMIT progress(name, overall);
                },
                Qt::QueuedConnection);
        };
        // Stage 1: build the timeline alongside the analysis as soon as the traces are in.
        std::future<std::shared_ptr<TimelineModel>> modelFuture;
        request.loaded = [&](const std::shared_ptr<const KinetoTrace> &device, const std::shared_ptr<const HostTrace> &) {
            modelFuture = std::async(std::launch::async, [this, generation, device] {
                auto model = buildTimelineModel(device);
                QMetaObject::invokeMethod(
                    this,
                    [this, generation, model] {
                        if (generation == m_generation)
                            Q_EMIT timelineReady(model);
                    },
                    Qt::QueuedConnection);
                return model;
            });
            if (afterLoaded)
                afterLoaded(*cancelFlag);
        };
        auto result = std::make_shared<LoadResult>();
        std::shared_ptr<Analysis> analysis;
        try {
            analysis = runAnalysis(request);
        } catch (const std::exception &e) {
            analysis = std::make_shared<Analysis>();
            analysis->request = request;
            analysis->diagnostics.error("internal.exception", std::string("internal error: ") + e.what());
        }
        // The callbacks refer to this thread's locals: drop them from the stored request.
        analysis->request.progress = nullptr;
        analysis->request.loaded = nullptr;
        analysis->request.cancel = nullptr;
        if (modelFuture.valid())
            result->model = modelFuture.get();
        if (result->model && analysis->inputsOk) {
            const CriticalPathResult *cp =
                analysis->criticalPath && analysis->criticalPath->success ? &*analysis->criticalPath : nullptr;
            result->edges = buildEdgeIndex(*result->model, *analysis, cp);
        }
        result->analysis = analysis;
        result->seconds = clock.elapsed() / 1000.0;
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
