// SPDX-License-Identifier: MIT
// GUI benchmarks (issue 4), not tests: prints figures.
//   syncscope-uibench [WORK_DIR]
//     1. a full repaint of the timeline zoomed out (and zoomed in) at 1M and 10M
//        events, built in memory (synthmodel.h): median and worst of 15 repaints;
//     2. start to first paint of a 500 MB pair (generated with tracegen into
//        WORK_DIR unless p500.{et,kineto}.json are there), in a child process,
//        with the longest stall of the GUI thread during the load.
//   syncscope-uibench --first-paint HOST DEVICE   (the child; prints one line)
// Run with QT_QPA_PLATFORM=offscreen on a headless machine.
#include "synthmodel.h"

#include "mainwindow.h"
#include "timeline/timelineview.h"
#include "tracegen.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <unistd.h>
#include <vector>

namespace {

using namespace syncscope::ui;

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

double rssMb()
{
    std::ifstream st("/proc/self/status");
    std::string line;
    while (std::getline(st, line))
        if (line.rfind("VmHWM:", 0) == 0)
            return std::stod(line.substr(6)) / 1024.0;
    return 0;
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

} // namespace

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    QStandardPaths::setTestModeEnabled(true); // no recent-file entries from benchmarks
    const QStringList args = app.arguments();
    if (args.size() == 4 && args[1] == QStringLiteral("--first-paint"))
        return firstPaint(args[2], args[3]);
    const QString work = args.size() > 1 ? args[1] : QStringLiteral("/tmp/syncscope-bench");
    std::printf("Timeline repaint (1600x1000 window, %s platform)\n", qPrintable(QGuiApplication::platformName()));
    repaintBench(1'000'000, 16);
    repaintBench(10'000'000, 33);
    std::printf("Start to first paint\n");
    firstPaintBench(args[0], work);
    return 0;
}
