// SPDX-License-Identifier: MIT
// The GUI's exports and --screenshot follow the output rules of batch mode:
// no write over any input of the loaded pair (host included), symlinks kept.
#include "exporter.h"
#include "testutil.h"
#include "uitestutil.h"

#include <QPixmap>
#include <QProcess>
#include <QtTest>

#include <filesystem>

using namespace syncscope;
namespace fs = std::filesystem;

namespace {

// The sample pair copied to a fresh directory and analysed from there.
struct Copied {
    std::string dir, host, device;
    std::shared_ptr<Analysis> analysis;
};

Copied copiedSample()
{
    Copied c;
    c.dir = testutil::tempDir();
    c.host = c.dir + "/host.json.gz";
    c.device = c.dir + "/device.json.gz";
    fs::copy_file(uitest::sampleHost(), c.host);
    fs::copy_file(uitest::sampleDevice(), c.device);
    AnalysisRequest req;
    req.hostPath = c.host;
    req.devicePath = c.device;
    c.analysis = runAnalysis(req);
    return c;
}

} // namespace

class TestExportSafety : public QObject
{
    Q_OBJECT
private slots:
    void exportsNeverReplaceAnInput();
    void screenshotNeverReplacesAnInput();
    void screenshotKeepsASymlink();
    void screenshotCommandLineRefusesAnInput();
};

void TestExportSafety::exportsNeverReplaceAnInput()
{
    const Copied c = copiedSample();
    QVERIFY(c.analysis->inputsOk);
    const std::string host = testutil::readText(c.host), device = testutil::readText(c.device);
    const CriticalPathResult *cp = c.analysis->criticalPath ? &*c.analysis->criticalPath : nullptr;
    for (ui::ExportKind kind : ui::availableExportKinds())
        for (const std::string &target : {c.host, c.device}) {
            const ui::ExportOutcome out = ui::runExport(*c.analysis, cp, kind, target);
            QVERIFY2(!out.ok, qPrintable(ui::exportTitle(kind) + " over " + QString::fromStdString(target)));
            QVERIFY2(out.message.contains("refusing to overwrite an input"), qPrintable(out.message));
        }
    QCOMPARE(testutil::readText(c.host), host);
    QCOMPARE(testutil::readText(c.device), device);
}

void TestExportSafety::screenshotNeverReplacesAnInput()
{
    const std::string dir = testutil::tempDir();
    const std::string input = dir + "/host.json";
    testutil::writeText(input, "{}");
    QPixmap pixmap(16, 16);
    pixmap.fill(Qt::red);
    const QString error = ui::saveScreenshot(pixmap, input, {input, dir + "/device.json"});
    QVERIFY2(error.contains("refusing to overwrite an input"), qPrintable(error));
    QCOMPARE(testutil::readText(input), std::string("{}"));
}

void TestExportSafety::screenshotKeepsASymlink()
{
    const std::string dir = testutil::tempDir();
    fs::create_symlink("shots/window.png", dir + "/latest.png");
    fs::create_directory(dir + "/shots");
    QPixmap pixmap(16, 16);
    pixmap.fill(Qt::blue);
    QCOMPARE(ui::saveScreenshot(pixmap, dir + "/latest.png", {}), QString());
    QVERIFY(fs::is_symlink(dir + "/latest.png"));
    QVERIFY(!QPixmap(QString::fromStdString(dir + "/shots/window.png")).isNull());
}

void TestExportSafety::screenshotCommandLineRefusesAnInput()
{
    const Copied c = copiedSample();
    const std::string host = testutil::readText(c.host);
    QProcess p;
    p.start(QStringLiteral(SYNCSCOPE_BIN), {QString::fromStdString(c.host), QString::fromStdString(c.device),
                                            "--screenshot", QString::fromStdString(c.host)});
    QVERIFY(p.waitForFinished(60000));
    const QString err = QString::fromUtf8(p.readAllStandardError());
    QCOMPARE(p.exitCode(), 5);
    QVERIFY2(err.contains("refusing to overwrite an input"), qPrintable(err));
    QCOMPARE(testutil::readText(c.host), host);
}

QTEST_MAIN(TestExportSafety)
#include "tst_exportsafety.moc"
