// SPDX-License-Identifier: MIT
#include "uibenchhang.h"

#include "hang/hanggrid.h"
#include "hang/hangwindow.h"
#include "mainwindow.h"
#include "tracegen.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QDir>
#include <QProcess>
#include <QTimer>

#include <algorithm>
#include <cstdio>

namespace uibench {

using namespace syncscope::ui;

int hangFirstPaint(const QString &dir)
{
    MainWindow w;
    w.resize(1600, 1000);
    w.show();
    QElapsedTimer clock;
    qint64 last = 0, worstGap = 0;
    QTimer ticker;
    QObject::connect(&ticker, &QTimer::timeout, [&] {
        worstGap = std::max(worstGap, clock.elapsed() - last);
        last = clock.elapsed();
    });
    double loaded = -1, paintMs = -1;
    size_t ranks = 0, groups = 0, suspects = 0;
    bool ok = false;
    clock.start();
    ticker.start(5);
    HangWindow *h = w.openHang(dir);
    if (!h)
        return 1;
    h->resize(1600, 1000);
    QObject::connect(h, &HangWindow::loadFinished, [&](bool success) {
        ok = success;
        loaded = clock.nsecsElapsed() / 1e9;
        QTimer::singleShot(50, [&] {
            ticker.stop();
            QElapsedTimer p;
            p.start();
            for (int k = 0; k < 10; ++k)
                h->grid()->repaint();
            paintMs = p.nsecsElapsed() / 1e6 / 10;
            if (ok && h->analysis()) { // read now: quitting closes (and deletes) the window
                ranks = h->folder()->dumps.size();
                groups = h->analysis()->groups.size();
                suspects = h->analysis()->suspects.size();
            }
            QCoreApplication::quit();
        });
    });
    QApplication::exec();
    if (!ok)
        return 1;
    std::printf("%.3f %lld %.0f %.2f %zu %zu %zu\n", loaded, worstGap, rssMb(), paintMs, ranks, groups, suspects);
    return 0;
}

void hangBench(const QString &self, const QString &work)
{
    for (const bool pickle : {false, true}) {
        const QString dir = work + (pickle ? QStringLiteral("/hang-10000x100-pickle") : QStringLiteral("/hang-10000x100-json"));
        if (!QFileInfo::exists(dir + QStringLiteral("/expected.json"))) {
            QDir(dir).removeRecursively();
            std::string error;
            if (!tracegen::writeHangDumps(tracegen::generateHangScale(10000, 100), dir.toStdString(), error,
                                          pickle ? tracegen::HangDumpFormat::Pickle : tracegen::HangDumpFormat::Json)) {
                std::printf("  cannot write %s: %s\n", qPrintable(dir), error.c_str());
                return;
            }
        }
        for (int run = 0; run < 2; ++run) {
            QProcess p;
            p.setProcessChannelMode(QProcess::ForwardedErrorChannel);
            p.start(self, {QStringLiteral("--hang-first-paint"), dir});
            double loaded, rss, paint;
            long long gap;
            size_t ranks, groups, suspects;
            if (!p.waitForFinished(600000) || p.exitCode() != 0 ||
                std::sscanf(p.readAllStandardOutput().constData(), "%lf %lld %lf %lf %zu %zu %zu", &loaded, &gap, &rss,
                            &paint, &ranks, &groups, &suspects) != 7) {
                std::printf("  %s: the child failed\n", qPrintable(dir));
                return;
            }
            std::printf("  %zu ranks x 100 entries, %s, %zu groups: hang view loaded %.2f s (%zu suspects); longest GUI "
                        "stall %lld ms; grid repaint %.1f ms; peak RSS %.0f MB\n",
                        ranks, pickle ? "pickle with frames" : "JSON", groups, loaded, suspects, gap, paint, rss);
        }
    }
}

} // namespace uibench
