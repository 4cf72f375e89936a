// SPDX-License-Identifier: MIT
#include "guimain.h"

#include "batch.h"
#include "clirequest.h"
#include "mainwindow.h"
#include "timeline/timelineview.h"

#include <QApplication>
#include <QEventLoop>
#include <QPixmap>
#include <QTimer>

#include <iostream>

namespace syncscope {

namespace {

bool haveDisplay()
{
    return !qEnvironmentVariableIsEmpty("DISPLAY") || !qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY") ||
           !qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM");
}

// Loads, renders the window offscreen and saves it; no user interaction.
int screenshot(ui::MainWindow &window, const ui::GuiCli &cli)
{
    window.setInteractive(false);
    window.setRecordRecent(false);
    window.resize(cli.width, cli.height);
    window.show();
    QCoreApplication::processEvents();
    window.applyDefaultLayout();
    QEventLoop loop;
    bool ok = false;
    QObject::connect(&window, &ui::MainWindow::loadFinished, &loop, [&](bool success) {
        ok = success;
        loop.quit();
    });
    window.openRequest(cli.request);
    loop.exec();
    if (!ok)
        std::cerr << "syncscope: the traces could not be loaded; the screenshot shows the diagnostics\n";
    if (!cli.select.empty() && !window.selectByName(QString::fromStdString(cli.select)))
        std::cerr << "syncscope: no op named '" << cli.select << "' to select\n";
    // Let layouts settle and queued replots run before grabbing.
    for (int i = 0; i < 5; ++i) {
        QCoreApplication::processEvents();
        window.timeline()->plot()->replot(QCustomPlot::rpImmediateRefresh);
    }
    const QPixmap pixmap = window.grab();
    if (pixmap.isNull() || !pixmap.save(QString::fromStdString(cli.screenshot), "PNG")) {
        std::cerr << "syncscope: could not write " << cli.screenshot << "\n";
        return ExitOutput;
    }
    return ok ? ExitOk : ExitBadInput;
}

} // namespace

int runGui(int argc, char **argv, const CliArgs &args)
{
    ui::GuiCli cli;
    std::string error;
    if (!ui::guiCliFromArgs(args, argc > 0 ? argv[0] : nullptr, cli, error)) {
        std::cerr << "syncscope: " << error << "\nTry 'syncscope --help' for more information.\n";
        return ExitUsage;
    }
    const bool headless = !cli.screenshot.empty();
    if (headless && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    if (!headless && !haveDisplay()) {
        std::cerr << "syncscope: no display (DISPLAY/WAYLAND_DISPLAY unset); use --batch, or --screenshot "
                     "FILE to render the window to an image\n";
        return ExitUsage;
    }
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("syncscope"));
    QApplication::setApplicationName(QStringLiteral("syncscope"));
    QApplication::setApplicationVersion(QStringLiteral(SYNCSCOPE_VERSION));

    ui::MainWindow window;
    const SamplePair sample = findSamplePair(argc > 0 ? argv[0] : nullptr);
    window.setSamplePair(QString::fromStdString(sample.host), QString::fromStdString(sample.device));
    AnalysisRequest options = cli.request;
    options.hostPath.clear();
    options.devicePath.clear();
    window.setRequestTemplate(options);
    if (headless)
        return screenshot(window, cli);
    window.show();
    window.restoreLayout();
    if (cli.hasInputs)
        window.openRequest(cli.request);
    return app.exec();
}

} // namespace syncscope
