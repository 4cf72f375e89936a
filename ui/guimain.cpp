// SPDX-License-Identifier: MIT
#include "guimain.h"

#include "diff/comparewindow.h"
#include "exporter.h"
#include "io/outputfile.h"
#include "hang/hangwindow.h"
#include "mainwindow.h"
#include "theme.h"
#include "session/exitcodes.h"
#include "session/samplepair.h"
#include "timeline/timelineview.h"

#include <QApplication>
#include <QIcon>
#include <QEventLoop>
#include <QFileInfo>
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

// A folder given alone is a job (every rank under it); else one pair.
bool isJobInput(const GuiOptions &cli)
{
    return cli.request.hostPath.empty() && QFileInfo(QString::fromStdString(cli.request.devicePath)).isDir();
}

void openInputs(ui::MainWindow &window, const GuiOptions &cli)
{
    if (cli.rankOrder == "step")
        window.setRankOrder(ui::RankOrder::ByStepTime);
    else if (cli.rankOrder == "waits")
        window.setRankOrder(ui::RankOrder::ByWaitsCaused);
    if (isJobInput(cli))
        window.openJob(QString::fromStdString(cli.request.devicePath));
    else
        window.openRequest(cli.request);
}

// Loads, renders the window offscreen and saves it; no user interaction.
int screenshot(ui::MainWindow &window, const GuiOptions &cli)
{
    const std::vector<std::string> inputs = {cli.request.hostPath, cli.request.devicePath};
    if (const std::string problem = outputPathProblem(cli.screenshot, inputs); !problem.empty()) {
        std::cerr << "syncscope: error: " << problem << "\n"; // before loading: nothing to lose
        return ExitOutput;
    }
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
    openInputs(window, cli);
    // A folder of flight recorder dumps opens the hang view: that window is the picture.
    if (ui::HangWindow *hang = window.hangWindow()) {
        QObject::connect(hang, &ui::HangWindow::loadFinished, &loop, [&](bool success) {
            ok = success;
            loop.quit();
        });
        hang->resize(cli.width, cli.height);
        loop.exec();
        if (!ok)
            std::cerr << "syncscope: the dumps could not be read; the screenshot shows the diagnostics\n";
        for (int i = 0; i < 5; ++i)
            QCoreApplication::processEvents();
        const QString error = ui::saveScreenshot(hang->grab(), cli.screenshot, inputs);
        if (!error.isEmpty()) {
            std::cerr << "syncscope: error: could not write the screenshot: " << error.toStdString() << "\n";
            return ExitOutput;
        }
        return ok ? ExitOk : ExitBadInput;
    }
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
    const QString error = ui::saveScreenshot(window.grab(), cli.screenshot, inputs);
    if (!error.isEmpty()) {
        std::cerr << "syncscope: error: could not write the screenshot: " << error.toStdString() << "\n";
        return ExitOutput;
    }
    return ok ? ExitOk : ExitBadInput;
}

// --diff with --screenshot: both runs analysed, the compare window rendered.
int compareScreenshot(const GuiOptions &cli)
{
    const std::vector<std::string> inputs = {cli.diffBaseline.hostPath, cli.diffBaseline.devicePath,
                                             cli.diffCandidate.hostPath, cli.diffCandidate.devicePath};
    if (const std::string problem = outputPathProblem(cli.screenshot, inputs); !problem.empty()) {
        std::cerr << "syncscope: error: " << problem << "\n";
        return ExitOutput;
    }
    ui::CompareWindow window;
    window.resize(cli.width, cli.height);
    window.show();
    QEventLoop loop;
    bool ok = false;
    QObject::connect(&window, &ui::CompareWindow::loadFinished, &loop, [&](bool success) {
        ok = success;
        loop.quit();
    });
    window.compare(cli.diffBaseline, cli.diffCandidate);
    loop.exec();
    if (!ok)
        std::cerr << "syncscope: the runs could not be compared: " << window.statusText().toStdString() << "\n";
    for (int i = 0; i < 5; ++i)
        QCoreApplication::processEvents();
    const QString error = ui::saveScreenshot(window.grab(), cli.screenshot, inputs);
    if (!error.isEmpty()) {
        std::cerr << "syncscope: error: could not write the screenshot: " << error.toStdString() << "\n";
        return ExitOutput;
    }
    return ok ? ExitOk : ExitBadInput;
}

} // namespace

int runGui(int argc, char **argv, const GuiOptions &cli)
{
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
    // Wayland matches windows to the desktop entry by this id; the icon comes from the
    // installed theme, else from the copy compiled into the binary.
    QGuiApplication::setDesktopFileName(QStringLiteral("io.github.syncscope.Syncscope"));
    QApplication::setWindowIcon(QIcon::fromTheme(QStringLiteral("io.github.syncscope.Syncscope"),
                                                 QIcon(QStringLiteral(":/icons/syncscope.png"))));

    // --theme for this run (screenshots in both palettes), else the saved one (not offscreen).
    if (cli.theme == "light" || cli.theme == "dark" || cli.theme == "system")
        ui::applyTheme(cli.theme == "light"  ? ui::ThemeChoice::Light
                       : cli.theme == "dark" ? ui::ThemeChoice::Dark
                                             : ui::ThemeChoice::System,
                       false);
    else if (!headless)
        ui::applyTheme(ui::savedTheme(), false);
    if (cli.diff && headless)
        return compareScreenshot(cli);
    if (cli.diff) {
        ui::CompareWindow compare;
        compare.show();
        compare.compare(cli.diffBaseline, cli.diffCandidate);
        return app.exec();
    }
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
        openInputs(window, cli);
    else if (cli.openPair)
        QTimer::singleShot(0, &window, &ui::MainWindow::showOpenDialog);
    return app.exec();
}

} // namespace syncscope
