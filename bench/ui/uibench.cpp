// SPDX-License-Identifier: MIT
// GUI benchmarks (issue 4), not tests: prints figures.
//   syncscope-uibench [WORK_DIR]
//     1. a full repaint of the timeline zoomed out (and zoomed in) at 1M and 10M
//        events, built in memory (synthmodel.h): median and worst of 15 repaints;
//     2. start to first paint of a 500 MB pair (generated with tracegen into
//        WORK_DIR unless p500.{et,kineto}.json are there), in a child process,
//        with the longest stall of the GUI thread during the load.
//     3. jobs (issue 14): a generated job of 8 ranks x ~50 MB and one of 64 ranks
//        x ~3.5 MB opened as `syncscope DIR` does, in a child process: first paint,
//        all analyses done, longest GUI stall, repaint at fit-all (folded ranks),
//        the raw-clocks rebuild, peak RSS.
//     4. the job overview (issue 23): 64 ranks and 1,024 generated ranks loaded as
//        the GUI loads them (JobLoader), time to the overview's first paint.
//   syncscope-uibench --job [WORK_DIR]            (only the job figures)
//   syncscope-uibench --overview [WORK_DIR]       (only the overview figures)
//   syncscope-uibench --first-paint HOST DEVICE   (the child; prints one line)
//   syncscope-uibench --job-first-paint DIR       (the child; prints one line)
//   syncscope-uibench --overview-first-paint DIR  (the child; prints one line)
// Run with QT_QPA_PLATFORM=offscreen on a headless machine.
#include "synthmodel.h"
#include "uibenchhang.h"

#include "document/jobdocument.h"
#include "document/pairdocument.h"
#include "job/jobloader.h"
#include "job/joboverview.h"
#include "mainwindow.h"
#include "timeline/timelineview.h"
#include "tracegen.h"

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

using namespace syncscope::ui;
using uibench::rssMb;

// Seconds since this process started, from /proc (includes loading the libraries).
double secondsSinceProcessStart()
{
    std::ifstream stat("/proc/self/stat");
    std::string s((std::istreambuf_iterator<char>(stat)), {});
    const auto close = s.rfind(')');
    std::vector<std::string> f;
    size_t pos = close + 2;
    while (pos < s.size()) {
        const size_t sp = s.find(' ', pos);
        f.push_back(s.substr(pos, sp - pos));
        if (sp == std::string::npos)
            break;
        pos = sp + 1;
    }
    const double start = std::stod(f[19]) / double(sysconf(_SC_CLK_TCK)); // field 22 (starttime)
    std::ifstream up("/proc/uptime");
    double uptime = 0;
    up >> uptime;
    return uptime - start;
}

struct Figures {
    double median = 0, worst = 0, drawList = 0;
    size_t boxes = 0, edges = 0;
};

Figures measureRepaint(TimelinePlot *plot, int runs)
{
    std::vector<double> ms, dl;
    plot->replot(QCustomPlot::rpImmediateRefresh); // warm up
    Figures f;
    for (int i = 0; i < runs; ++i) {
        QElapsedTimer t;
        t.start();
        plot->replot(QCustomPlot::rpImmediateRefresh);
        ms.push_back(t.nsecsElapsed() / 1e6);
        dl.push_back(plot->lastPaintStats().drawListMs);
    }
    std::sort(ms.begin(), ms.end());
    std::sort(dl.begin(), dl.end());
    f.median = ms[ms.size() / 2];
    f.worst = ms.back();
    f.drawList = dl[dl.size() / 2];
    f.boxes = plot->lastPaintStats().boxes;
    for (size_t e : plot->lastPaintStats().edges)
        f.edges += e;
    return f;
}

void repaintBench(size_t events, double target)
{
    QElapsedTimer build;
    build.start();
    uibench::SynthOptions o;
    o.events = events;
    auto model = uibench::synthModel(o);
    const double buildS = build.nsecsElapsed() / 1e9;
    TimelineView view;
    view.resize(1600, 1000);
    view.show();
    QCoreApplication::processEvents();
    view.setModel(model);
    QCoreApplication::processEvents();
    TimelinePlot *plot = view.plot();
    const Figures out = measureRepaint(plot, 15);
    std::printf("  %5.1fM events, zoomed out  : repaint median %6.2f ms, worst %6.2f ms (draw list %5.2f ms, %zu boxes, "
                "%zu arrows)  target <= %.0f ms  [%s]\n",
                model->layout.itemCount / 1e6, out.median, out.worst, out.drawList, out.boxes, out.edges, target,
                out.median <= target ? "ok" : "MISSED");
    for (double frac : {0.01, 0.0001}) {
        const double span = model->spanNs() * frac, mid = model->spanNs() / 2;
        plot->setRange({mid - span / 2, mid + span / 2});
        const Figures in = measureRepaint(plot, 15);
        std::printf("  %5.1fM events, %6.2f %% view: repaint median %6.2f ms, worst %6.2f ms (draw list %5.2f ms, %zu "
                    "boxes, %zu arrows)\n",
                    model->layout.itemCount / 1e6, frac * 100, in.median, in.worst, in.drawList, in.boxes, in.edges);
    }
    std::printf("  (model built in memory in %.2f s: %zu lanes, %zu rows, %zu launch edges; peak RSS %.0f MB)\n", buildS,
                model->layout.groups.size(), model->layout.rows.size(), model->edges.total(), rssMb());
}

// The child: open the pair, report first paint and the end of the analysis.
int firstPaint(const QString &host, const QString &device)
{
    MainWindow w;
    w.setInteractive(false);
    w.resize(1600, 1000);
    w.show();
    QElapsedTimer clock;
    clock.start();
    const double t0 = secondsSinceProcessStart();
    double shown = -1, painted = -1, done = -1;
    qint64 last = 0, worstGap = 0;
    QTimer ticker;
    QObject::connect(&ticker, &QTimer::timeout, [&] {
        worstGap = std::max(worstGap, clock.elapsed() - last);
        last = clock.elapsed();
    });
    ticker.start(5);
    TimelinePlot *plot = w.timeline()->plot();
    QObject::connect(&w, &MainWindow::timelineShown, [&] { shown = secondsSinceProcessStart(); });
    QObject::connect(plot, &QCustomPlot::afterReplot, [&] {
        if (shown >= 0 && painted < 0)
            painted = secondsSinceProcessStart();
    });
    QObject::connect(&w, &MainWindow::loadFinished, [&](bool ok) {
        done = ok ? secondsSinceProcessStart() : -1;
        QTimer::singleShot(50, qApp, &QCoreApplication::quit);
    });
    w.openFiles(host, device);
    QApplication::exec();
    std::printf("%.3f %.3f %.3f %.3f %lld %.0f\n", t0, shown, painted, done, worstGap, rssMb());
    return done > 0 ? 0 : 1;
}

// Issue 41: a device trace recorded with Python stacks, opened in a 1600x1000 window: when the
// timeline is first painted, and whether a GPU lane is on that first screen (its row's top,
// scrolled to the top, within the visible height) — before issue 41 a with_stack=True trace
// showed 40-80 rows of Python frames and no GPU lane.
int gpuLaneFirstScreen(const QString &device)
{
    MainWindow w;
    w.setInteractive(false);
    w.setRecordRecent(false);
    w.resize(1600, 1000);
    w.show();
    TimelinePlot *plot = w.timeline()->plot();
    double shown = -1, painted = -1;
    int gpuY = -1, visible = 0;
    QObject::connect(&w, &MainWindow::timelineShown, [&] { shown = secondsSinceProcessStart(); });
    QObject::connect(plot, &QCustomPlot::afterReplot, [&] {
        if (shown < 0 || painted >= 0 || !plot->model())
            return;
        painted = secondsSinceProcessStart();
        const auto &groups = plot->model()->layout.groups;
        for (const RowGeometry::Item &it : plot->geometry().items)
            if (!it.header && it.groupFirst && groups[it.group].gpu) {
                gpuY = it.y;
                break;
            }
        visible = plot->visibleHeight();
    });
    QObject::connect(&w, &MainWindow::loadFinished, [&](bool) { QTimer::singleShot(50, qApp, &QCoreApplication::quit); });
    w.openFiles(QString(), device);
    QApplication::exec();
    const bool onScreen = gpuY >= 0 && gpuY + plot->rowHeight() <= visible;
    std::printf("  %s: timeline painted %.2f s after process start; first GPU lane at y = %d px of %d visible: %s\n",
                qPrintable(QFileInfo(device).fileName()), painted, gpuY, visible,
                onScreen ? "on the first screen [ok]" : "below the fold [MISSED]");
    return onScreen ? 0 : 1;
}

void firstPaintBench(const QString &self, const QString &work)
{
    QString host = work + QStringLiteral("/p500.et.json"), device = work + QStringLiteral("/p500.kineto.json");
    if (!QFileInfo::exists(host) || !QFileInfo::exists(device)) {
        tracegen::Options o;
        o.prefix = (work + QStringLiteral("/p500")).toStdString();
        o.targetMb = 500;
        o.steps = 0;
        const tracegen::Result r = tracegen::generate(o);
        host = QString::fromStdString(r.hostPath);
        device = QString::fromStdString(r.devicePath);
    }
    const double mb = (QFileInfo(host).size() + QFileInfo(device).size()) / 1e6;
    // Twice: the first run reads the files from disk, the second from the page cache.
    for (int run = 0; run < 2; ++run) {
        QProcess p;
        p.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        p.start(self, {QStringLiteral("--first-paint"), host, device});
        if (!p.waitForFinished(600000) || p.exitCode() != 0) {
            std::printf("  first paint: the child failed\n");
            return;
        }
        double t0, shown, painted, done, rss;
        long long gap;
        if (std::sscanf(p.readAllStandardOutput().constData(), "%lf %lf %lf %lf %lld %lf", &t0, &shown, &painted,
                        &done, &gap, &rss) != 6)
            return;
        std::printf("  %.0f MB pair (%s): window up %.2f s, timeline painted %.2f s, analysis done %.2f s after process "
                    "start; longest GUI stall %lld ms; peak RSS %.0f MB  target first paint <= 5 s  [%s]\n",
                    mb, run == 0 ? "cold" : "warm", t0, painted, done, gap, rss, painted <= 5 ? "ok" : "MISSED");
    }
}

// The child: open the job, report first paint, the end of all analyses, the
// longest GUI stall, and repaints at fit-all (ranks folded, then expanded).
int jobFirstPaint(const QString &dir)
{
    MainWindow w;
    w.setInteractive(false);
    w.setRecordRecent(false);
    w.resize(1600, 1000);
    w.show();
    QCoreApplication::processEvents();
    QElapsedTimer clock;
    double shown = -1, painted = -1, done = -1;
    qint64 last = 0, worstGap = 0;
    QTimer ticker;
    QObject::connect(&ticker, &QTimer::timeout, [&] {
        worstGap = std::max(worstGap, clock.elapsed() - last);
        last = clock.elapsed();
    });
    TimelinePlot *plot = w.timeline()->plot();
    QObject::connect(&w, &MainWindow::timelineShown, [&] { shown = clock.nsecsElapsed() / 1e9; });
    QObject::connect(plot, &QCustomPlot::afterReplot, [&] {
        if (shown >= 0 && painted < 0)
            painted = clock.nsecsElapsed() / 1e9;
    });
    bool ok = false;
    Figures folded, expanded;
    QElapsedTimer raw;
    double rawMs = -1;
    // After the load: repaints at fit-all, then raw clocks (rebuilt off the GUI thread) until shown.
    QObject::connect(w.job(), &JobDocument::jobTimelineChanged, [&] {
        rawMs = raw.nsecsElapsed() / 1e6;
        QTimer::singleShot(0, qApp, &QCoreApplication::quit);
    });
    QObject::connect(&w, &MainWindow::loadFinished, [&](bool success) {
        ok = success;
        done = clock.nsecsElapsed() / 1e9;
        QTimer::singleShot(50, [&] {
            ticker.stop();
            if (!ok) {
                QCoreApplication::quit();
                return;
            }
            plot->fitAll();
            QCoreApplication::processEvents();
            folded = measureRepaint(plot, 15);
            plot->setAllRanksExpanded(true);
            expanded = measureRepaint(plot, 15);
            plot->setAllRanksExpanded(false);
            raw.start();
            w.setRawClocks(true);
        });
    });
    clock.start();
    ticker.start(5);
    w.openJob(dir);
    QApplication::exec();
    if (!ok)
        return 1;
    const JobLoadResult *r = w.job()->loadResult();
    std::printf("%.3f %.3f %.3f %lld %.0f %.2f %.2f %.2f %.2f %zu %zu %.3f %.2f %.2f\n", shown, painted, done, worstGap,
                rssMb(), folded.median, folded.worst, expanded.median, expanded.worst, plot->model()->layout.itemCount,
                plot->model()->parts.size(), r ? r->firstTimelineSeconds : -1.0, r ? r->analysisSeconds * 1000 : -1.0,
                rawMs);
    return 0;
}

void jobBenchOne(const QString &self, const QString &dir, const char *what, double repaintTarget)
{
    qint64 bytes = 0;
    for (const QFileInfo &f : QDir(dir).entryInfoList(QDir::Files))
        bytes += f.size();
    for (int run = 0; run < 2; ++run) {
        QProcess p;
        p.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        p.start(self, {QStringLiteral("--job-first-paint"), dir});
        if (!p.waitForFinished(600000) || p.exitCode() != 0) {
            std::printf("  %s: the child failed\n", what);
            return;
        }
        double shown, painted, done, rss, fMed, fWorst, eMed, eWorst, firstTimeline, analysisMs, rawMs;
        long long gap;
        size_t items, ranks;
        if (std::sscanf(p.readAllStandardOutput().constData(), "%lf %lf %lf %lld %lf %lf %lf %lf %lf %zu %zu %lf %lf %lf",
                        &shown, &painted, &done, &gap, &rss, &fMed, &fWorst, &eMed, &eWorst, &items, &ranks,
                        &firstTimeline, &analysisMs, &rawMs) != 14)
            return;
        std::printf("  %s, %zu ranks, %.0f MB, %.2fM ops (%s): first ranks on screen %.2f s (first job timeline built "
                    "%.2f s), all analyses done %.2f s (cross-rank %.1f ms); longest GUI stall %lld ms; peak RSS %.0f MB\n",
                    what, ranks, bytes / 1e6, items / 1e6, run == 0 ? "cold" : "warm", painted, firstTimeline, done,
                    analysisMs, gap, rss);
        std::printf("      repaint at fit-all: folded median %.2f ms (worst %.2f), expanded median %.2f ms (worst %.2f); "
                    "raw clocks shown after %.1f ms  target repaint <= %.0f ms [%s]\n",
                    fMed, fWorst, eMed, eWorst, rawMs, repaintTarget, fMed <= repaintTarget ? "ok" : "MISSED");
    }
}

void jobBench(const QString &self, const QString &work)
{
    struct Job {
        const char *name, *what;
        int ranks, steps, layers;
        double target;
    };
    // ~50 MB per rank (host + device, plain JSON); 64 ranks of ~3.5 MB for the many-ranks view.
    for (const Job &j : {Job{"job8x50", "8 ranks x ~50 MB", 8, 40, 64, 16},
                         Job{"job64x3", "64 ranks x ~3.5 MB", 64, 6, 32, 33}}) {
        const QString dir = work + QLatin1Char('/') + QLatin1String(j.name);
        if (!QFileInfo::exists(dir + QStringLiteral("/rank0.kineto.json"))) {
            tracegen::JobOptions o;
            o.dir = dir.toStdString();
            o.ranks = j.ranks;
            o.steps = j.steps;
            o.layers = j.layers;
            o.gzip = false;
            o.straggler = j.ranks / 2 + 1;
            tracegen::generateJob(o);
        }
        jobBenchOne(self, dir, j.what, j.target);
    }
}

// Issue 23, item 4: the dense job overview. The child loads the job as the GUI
// does (JobLoader, no main window), then shows a JobOverview and paints it once;
// prints when each stage ended (s since process start) and where the load went.
int overviewFirstPaint(const QString &dir)
{
    const double t0 = secondsSinceProcessStart();
    QElapsedTimer clock;
    clock.start();
    // 1,024 ranks at one pixel row each: a tall window, up (and painted empty) before the load.
    JobOverview overview;
    overview.resize(1600, 1100);
    overview.show();
    while (overview.stats().paints == 0 && clock.elapsed() < 10000)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
    // Paints now; whether it did (an unexposed widget does not).
    auto paintNow = [&] {
        const int before = overview.stats().paints;
        overview.canvas()->repaint();
        return overview.stats().paints > before;
    };
    JobLoader loader;
    std::shared_ptr<JobLoadResult> result;
    double firstProgress = -1, firstPaint = -1, firstPaintMs = -1;
    size_t firstRanks = 0;
    QObject::connect(&loader, &JobLoader::progress, [&] {
        if (firstProgress < 0) // the ranks' loads have begun: discovery is over
            firstProgress = clock.nsecsElapsed() / 1e9;
    });
    // As the main timeline does: the ranks read so far (own clocks, no waits yet), each
    // time the loader posts them; when every rank was first on screen.
    std::vector<std::pair<size_t, double>> partials; // ranks painted, when
    QObject::connect(&loader, &JobLoader::timelineReady, [&](std::shared_ptr<TimelineModel> model) {
        if (!model || model->parts.empty())
            return;
        QElapsedTimer t;
        t.start();
        overview.setJob(nullptr, model);
        if (!paintNow())
            return;
        partials.emplace_back(model->parts.size(), clock.nsecsElapsed() / 1e9);
        if (firstPaint < 0) {
            firstPaint = partials.back().second;
            firstPaintMs = t.nsecsElapsed() / 1e6;
            firstRanks = model->parts.size();
        }
    });
    QEventLoop loop; // not QCoreApplication::quit(): in Qt 6 it closes the windows
    QObject::connect(&loader, &JobLoader::finished, [&](std::shared_ptr<JobLoadResult> r) {
        result = std::move(r);
        loop.quit();
    });
    loader.start({dir.toStdString()}, syncscope::AnalysisRequest{});
    loop.exec();
    if (!result || !result->model)
        return 1;
    const double loaded = clock.nsecsElapsed() / 1e9;
    QElapsedTimer paint;
    paint.start();
    overview.setJob(result->job, result->model);
    const bool painted = paintNow();
    const double complete = clock.nsecsElapsed() / 1e9;
    const double paintMs = paint.nsecsElapsed() / 1e6;
    const JobOverview::Stats activity = overview.stats();
    paint.restart();
    overview.setMode(JobOverview::Mode::Waits);
    paintNow();
    const double heatMs = paint.nsecsElapsed() / 1e6;
    const JobOverview::Stats heat = overview.stats();
    double allRanks = -1;
    for (const auto &[ranks, at] : partials)
        if (ranks == result->model->parts.size() && allRanks < 0)
            allRanks = at;
    // Where the load went, measured again after it (warm cache): discovery and the job model.
    QElapsedTimer part;
    part.start();
    const syncscope::JobDiscovery discovery = syncscope::discoverJob({dir.toStdString()});
    const double discoveryS = part.nsecsElapsed() / 1e9;
    part.restart();
    const auto model = buildJobModel(*result->job, result->rankModels, false);
    const double modelS = part.nsecsElapsed() / 1e9;
    std::printf("%.3f %.3f %zu %.2f %.3f %.3f %.3f %.3f %.3f %.3f %.3f %.3f %.2f %.2f %.2f %.2f %.2f %d %zu %zu %zu %.0f\n",
                t0, firstPaint < 0 ? -1.0 : t0 + firstPaint, firstRanks, firstPaintMs, allRanks < 0 ? -1.0 : t0 + allRanks,
                t0 + loaded, t0 + complete,
                firstProgress, result->seconds, result->analysisSeconds, discoveryS, modelS, paintMs, activity.binMs,
                activity.composeMs, heatMs, heat.binMs, overview.canvas()->height(), result->model->parts.size(),
                result->job->analysis.collectives.size(), discovery.ranks.size(), rssMb());
    return painted && model ? 0 : 1;
}

void overviewBenchOne(const QString &self, const QString &dir, const char *what, double target)
{
    qint64 bytes = 0;
    for (const QFileInfo &f : QDir(dir).entryInfoList(QDir::Files))
        bytes += f.size();
    for (int run = 0; run < 2; ++run) {
        QProcess p;
        p.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        p.start(self, {QStringLiteral("--overview-first-paint"), dir});
        if (!p.waitForFinished(600000) || p.exitCode() != 0) {
            std::printf("  overview %s: the child failed\n", what);
            return;
        }
        double t0, first, firstMs, allRanks, loaded, complete, firstProgress, loadS, analysisS, discoveryS, modelS, paintMs,
            binMs, composeMs, heatMs, heatBinMs, rss;
        int height;
        size_t firstRanks, ranks, collectives, discovered;
        if (std::sscanf(p.readAllStandardOutput().constData(),
                        "%lf %lf %zu %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %d %zu %zu %zu %lf", &t0,
                        &first, &firstRanks, &firstMs, &allRanks, &loaded, &complete, &firstProgress, &loadS, &analysisS,
                        &discoveryS, &modelS, &paintMs, &binMs, &composeMs, &heatMs, &heatBinMs, &height, &ranks,
                        &collectives, &discovered, &rss) != 22)
            return;
        std::printf("  overview, %s, %.0f MB (%s): first paint %.2f s (%zu of %zu ranks read, %.1f ms), every rank "
                    "%.2f s (own clocks), the complete job (aligned, waits) %.2f s after process start (process up "
                    "%.2f s)  target first paint <= %.0f s [%s], complete job [%s]\n",
                    what, bytes / 1e6, run == 0 ? "cold" : "warm", first, firstRanks, ranks, firstMs, allRanks,
                    complete, t0, target, first >= 0 && first <= target ? "ok" : "MISSED",
                    complete <= target ? "ok" : "MISSED");
        std::printf("      load %.2f s: discovery ~%.2f s (rank loads began after %.2f s), rank loads + analyses "
                    "~%.2f s, cross-rank %.2f s, job model ~%.2f s; overview: complete paint %.1f ms (bins %.1f, image "
                    "%.1f; %d px tall), waits heatmap %.1f ms (bins %.1f, %zu collectives); peak RSS %.0f MB\n",
                    loadS, discoveryS, firstProgress, std::max(0.0, loadS - firstProgress - analysisS - modelS),
                    analysisS, modelS, paintMs, binMs, composeMs, height, heatMs, heatBinMs, collectives, rss);
    }
}

// Generates a job of tiny ranks unless it is there (rank0 first, so a half-written one is redone).
QString ensureJob(const QString &work, const char *name, int ranks, int steps, int layers)
{
    const QString dir = work + QLatin1Char('/') + QLatin1String(name);
    if (!QFileInfo::exists(dir + QStringLiteral("/rank%1.kineto.json").arg(ranks - 1))) {
        QElapsedTimer t;
        t.start();
        tracegen::JobOptions o;
        o.dir = dir.toStdString();
        o.ranks = ranks;
        o.steps = steps;
        o.layers = layers;
        o.gzip = false;
        o.straggler = ranks / 2 + 1;
        tracegen::generateJob(o);
        std::printf("  (generated %s in %.1f s)\n", name, t.nsecsElapsed() / 1e9);
    }
    return dir;
}

void overviewBench(const QString &self, const QString &work)
{
    // The 64-rank job of jobBench (same generator settings), and 1,024 ranks of ~220 KB.
    overviewBenchOne(self, ensureJob(work, "job64x3", 64, 6, 32), "64 ranks x ~3.5 MB", 2);
    overviewBenchOne(self, ensureJob(work, "job1024", 1024, 2, 4), "1,024 ranks x ~0.2 MB", 10);
}

} // namespace

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    QStandardPaths::setTestModeEnabled(true); // no recent-file entries from benchmarks
    const QStringList args = app.arguments();
    if (args.size() == 4 && args[1] == QStringLiteral("--first-paint"))
        return firstPaint(args[2], args[3]);
    if (args.size() == 3 && args[1] == QStringLiteral("--job-first-paint"))
        return jobFirstPaint(args[2]);
    if (args.size() >= 2 && args[1] == QStringLiteral("--job")) {
        std::printf("Jobs: open a folder of ranks (1600x1000 window, %s platform, %u cores)\n",
                    qPrintable(QGuiApplication::platformName()), std::thread::hardware_concurrency());
        jobBench(args[0], args.size() > 2 ? args[2] : QStringLiteral("/tmp/syncscope-bench"));
        overviewBench(args[0], args.size() > 2 ? args[2] : QStringLiteral("/tmp/syncscope-bench"));
        return 0;
    }
    if (args.size() == 3 && args[1] == QStringLiteral("--hang-first-paint"))
        return uibench::hangFirstPaint(args[2]);
    if (args.size() >= 2 && args[1] == QStringLiteral("--hang")) {
        std::printf("Hang view: open a folder of flight recorder dumps (%s platform, %u cores)\n",
                    qPrintable(QGuiApplication::platformName()), std::thread::hardware_concurrency());
        uibench::hangBench(args[0], args.size() > 2 ? args[2] : QStringLiteral("/tmp/syncscope-bench"));
        return 0;
    }
    if (args.size() == 3 && args[1] == QStringLiteral("--overview-first-paint"))
        return overviewFirstPaint(args[2]);
    if (args.size() >= 2 && args[1] == QStringLiteral("--overview")) {
        std::printf("Job overview (%s platform, %u cores)\n", qPrintable(QGuiApplication::platformName()),
                    std::thread::hardware_concurrency());
        overviewBench(args[0], args.size() > 2 ? args[2] : QStringLiteral("/tmp/syncscope-bench"));
        return 0;
    }
    if (args.size() == 3 && args[1] == QStringLiteral("--gpu-lane")) {
        std::printf("GPU lane on the first screen (1600x1000 window, %s platform)\n",
                    qPrintable(QGuiApplication::platformName()));
        return gpuLaneFirstScreen(args[2]);
    }
    if (args.size() == 2 && args[1] == QStringLiteral("--repaint")) { // the repaint figures alone
        std::printf("Timeline repaint (1600x1000 window, %s platform)\n", qPrintable(QGuiApplication::platformName()));
        repaintBench(1'000'000, 16);
        repaintBench(10'000'000, 33);
        return 0;
    }
    const QString work = args.size() > 1 ? args[1] : QStringLiteral("/tmp/syncscope-bench");
    std::printf("Timeline repaint (1600x1000 window, %s platform)\n", qPrintable(QGuiApplication::platformName()));
    repaintBench(1'000'000, 16);
    repaintBench(10'000'000, 33);
    std::printf("Start to first paint\n");
    firstPaintBench(args[0], work);
    std::printf("Jobs\n");
    jobBench(args[0], work);
    std::printf("Job overview\n");
    overviewBench(args[0], work);
    return 0;
}
