// SPDX-License-Identifier: MIT
// Issue 22, class 8: the inspector on hostile jobs, run under ASan+UBSan in CI:
// rank clocks at the ends of the timestamp range, what-if rules whose arithmetic
// would overflow or whose patterns would backtrack, and a job of 1,000 ranks. Each
// must load (or be refused with a message), draw, and leave every figure finite.
#include "document/jobdocument.h"
#include "document/pairdocument.h"
#include "mainwindow.h"
#include "panels/whatifpanel.h"
#include "recentpairs.h"
#include "testutil.h"
#include "tracegen.h"

#include <QLabel>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QtTest>

#include <cmath>
#include <filesystem>
#include <memory>

using namespace syncscope;
using namespace syncscope::ui;

class TestHostileJobs : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void cleanup();
    void clocksAtTheEndsOfTheRange();
    void overflowingAndBacktrackingRules();
    void thousandRanks();

private:
    bool openJob(const QString &dir);
    void drawEveryStep();
    std::unique_ptr<MainWindow> m_w;
    std::string m_tmp;
};

void TestHostileJobs::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    clearRecentPairs();
    m_tmp = testutil::tempDir();
}

void TestHostileJobs::init()
{
    m_w = std::make_unique<MainWindow>();
    m_w->setInteractive(false);
    m_w->resize(1280, 720);
    m_w->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_w.get()));
}

void TestHostileJobs::cleanup()
{
    m_w.reset();
}

bool TestHostileJobs::openJob(const QString &dir)
{
    QSignalSpy done(m_w.get(), &MainWindow::loadFinished);
    m_w->openJob(dir);
    if (!done.wait(300000))
        return false;
    return done.first().first().toBool();
}

// Paints the window once per step choice (the paint path is where huge numbers meet pixels).
void TestHostileJobs::drawEveryStep()
{
    const QImage shot = m_w->grab().toImage();
    QVERIFY(!shot.isNull());
}

void TestHostileJobs::clocksAtTheEndsOfTheRange()
{
    // Offsets of up to 10^15 us (10^18 ns): rank timestamps near both ends of the
    // range the reader accepts ([-2^60, 2^62] ns), still valid input.
    tracegen::JobOptions o;
    o.dir = (std::filesystem::path(m_tmp) / "offsets").string();
    o.ranks = 4;
    o.gzip = false;
    o.maxClockOffsetUs = 1e15;
    tracegen::generateJob(o);
    QVERIFY(openJob(QString::fromStdString(o.dir)));
    const auto job = m_w->job()->data();
    QVERIFY(job);
    for (const auto &r : job->analysis.ranks)
        QVERIFY(std::isfinite(r.clockOffsetUs) && std::isfinite(r.startOffsetUs));
    const double step = job->analysis.criticalPath.stepTime.stepTimeUs;
    QVERIFY2(std::isfinite(step) && step >= 0, qPrintable(QString::number(step)));
    drawEveryStep();
}

void TestHostileJobs::overflowingAndBacktrackingRules()
{
    tracegen::JobOptions o;
    o.dir = (std::filesystem::path(m_tmp) / "rules").string();
    o.ranks = 4;
    o.gzip = false;
    o.straggler = 1;
    tracegen::generateJob(o);
    QVERIFY(openJob(QString::fromStdString(o.dir)));
    WhatIfPanel *panel = m_w->whatIfPanel();
    // Either refused with a message, or evaluated to a finite projection (or an
    // explained failure): never inf, NaN, a hang or a crash.
    const QStringList hostile = {
        QStringLiteral("*1e308"),         QStringLiteral("=1e303s"),
        QStringLiteral("+1e303s"),        QStringLiteral("cat=kernel*inf"),
        QStringLiteral("cat=kernel*nan"), QStringLiteral("name~(.*)*x*0.5"),
        QStringLiteral("name~.**x*0.5"),  QStringLiteral("name~") + QString(20000, QLatin1Char('(')) + QStringLiteral("*0.5"),
        QStringLiteral("name~(a)\\99999999*0.5"),
    };
    for (const QString &rule : hostile) {
        if (!panel->addRule(rule)) {
            QVERIFY2(!panel->summaryLabel()->text().isEmpty(), qPrintable(rule.left(40)));
            continue;
        }
        QTRY_VERIFY_WITH_TIMEOUT(panel->jobResult(), 60000);
        const auto r = panel->jobResult();
        if (r->ok)
            QVERIFY2(std::isfinite(r->projectedUs) && r->projectedUs >= 0, qPrintable(rule.left(40)));
        else
            QVERIFY(!r->error.empty());
        panel->removeRule(0);
        drawEveryStep();
    }
}

void TestHostileJobs::thousandRanks()
{
    tracegen::JobOptions o;
    o.dir = (std::filesystem::path(m_tmp) / "ranks1000").string();
    o.ranks = 1000;
    o.steps = 1;
    o.layers = 1;
    o.gzip = false;
    tracegen::generateJob(o);
    QVERIFY(openJob(QString::fromStdString(o.dir)));
    const auto job = m_w->job()->data();
    QVERIFY(job);
    QCOMPARE(int(job->analysis.ranks.size()), 1000);
    QVERIFY(std::isfinite(job->analysis.criticalPath.stepTime.stepTimeUs));
    drawEveryStep();
}

QTEST_MAIN(TestHostileJobs)
#include "tst_hostilejobs.moc"
