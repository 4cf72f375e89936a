// SPDX-License-Identifier: MIT
// The What-if panel (issue 15): rules by hand and from the selection, results
// computed off the GUI thread, factor 1 equals the baseline, bad rules refused,
// a click on a moved op asks for it, and the main window wires it up.
#include "document/jobdocument.h"
#include "document/pairdocument.h"
#include "mainwindow.h"
#include "panels/whatifpanel.h"
#include "timeline/selection.h"
#include "timeline/timelineplot.h"
#include "timeline/timelineview.h"
#include "uitestutil.h"

#include <QCheckBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QtTest>

using namespace syncscope;
using namespace syncscope::ui;

Q_DECLARE_METATYPE(std::shared_ptr<const syncscope::EventShifts>)

class TestWhatIfPanel : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void factorOneIsTheBaseline();
    void rulesChangeTheProjection();
    void badRuleIsRefused();
    void hostileRulesAreRefusedAtOnce();
    void rulesFromTheSelection();
    void movedOpsJump();
    void mainWindowHasThePanel();
    void projectedTimeline();

private:
    bool waitForResult(WhatIfPanel &panel);
    std::shared_ptr<Analysis> m_analysis;
    std::shared_ptr<const CriticalPathResult> m_cp;
};

void TestWhatIfPanel::initTestCase()
{
    m_analysis = uitest::sampleAnalysis();
    QVERIFY(m_analysis && m_analysis->criticalPath && m_analysis->criticalPath->success);
    m_cp = std::make_shared<const CriticalPathResult>(*m_analysis->criticalPath);
}

bool TestWhatIfPanel::waitForResult(WhatIfPanel &panel)
{
    QSignalSpy spy(&panel, &WhatIfPanel::resultChanged);
    return spy.wait(10000) && panel.result() != nullptr;
}

void TestWhatIfPanel::factorOneIsTheBaseline()
{
    WhatIfPanel panel;
    panel.setContext(m_analysis->device, m_cp);
    QVERIFY(panel.summaryLabel()->text().contains(QStringLiteral("Baseline")));
    QVERIFY(panel.addRule(QStringLiteral("cat=kernel*1")));
    QVERIFY(waitForResult(panel));
    QVERIFY(panel.result()->ok);
    QCOMPARE(panel.result()->projectedUs, m_cp->weightUs);
    QCOMPARE(panel.movedView()->model()->rowCount(), 0);
}

void TestWhatIfPanel::rulesChangeTheProjection()
{
    WhatIfPanel panel;
    panel.setContext(m_analysis->device, m_cp);
    panel.ruleEdit()->setText(QStringLiteral("cat=kernel*0.5"));
    QSignalSpy spy(&panel, &WhatIfPanel::resultChanged);
    QTest::keyClick(panel.ruleEdit(), Qt::Key_Return);
    QVERIFY(spy.wait(10000));
    QCOMPARE(panel.rules(), QStringList{QStringLiteral("cat=kernel*0.5")});
    QVERIFY(panel.ruleEdit()->text().isEmpty());
    QVERIFY(panel.result()->projectedUs < m_cp->weightUs);
    QVERIFY2(panel.summaryLabel()->text().contains(QStringLiteral("faster")), qPrintable(panel.summaryLabel()->text()));
    QVERIFY(panel.movedView()->model()->rowCount() > 0);
    // Removing the rule goes back to the baseline text.
    panel.removeRule(0);
    QVERIFY(panel.result() == nullptr);
    QVERIFY(panel.summaryLabel()->text().contains(QStringLiteral("Baseline")));
}

void TestWhatIfPanel::badRuleIsRefused()
{
    WhatIfPanel panel;
    panel.setContext(m_analysis->device, m_cp);
    QVERIFY(!panel.addRule(QStringLiteral("cat=kernel*fast")));
    QVERIFY(panel.rules().isEmpty());
    QVERIFY(panel.summaryLabel()->text().contains(QStringLiteral("fast")));
    // A rule that parses but matches nothing says so.
    QVERIFY(panel.addRule(QStringLiteral("name=no_such_op*0.5")));
    QVERIFY(waitForResult(panel));
    QVERIFY(!panel.result()->ok);
    QVERIFY(panel.summaryLabel()->text().contains(QStringLiteral("matches nothing")));
}

void TestWhatIfPanel::hostileRulesAreRefusedAtOnce()
{
    // The panel parses as the rule is entered: the issue-22 rules are refused by the
    // parser with a short sentence (std::regex ran for minutes on ".**x" or crashed on
    // 20,000 nested parentheses); "(.*)*x" is evaluated, linearly.
    WhatIfPanel panel;
    panel.setContext(m_analysis->device, m_cp);
    const QString deep = "name~" + QString(20000, '(') + "gemm" + QString(20000, ')') + "*0.5";
    for (const auto &[rule, says] : {std::pair<QString, QString>{"name~.**x*0.5", "RE2"},
                                     {deep, "at most 4096 bytes"},
                                     {"name~(a)\\99999999*0.5", "back-references"},
                                     {"cat=kernel*1e308", "[0, 1e6]"},
                                     {"cat=kernel=1e303s", "2^60 ns"}}) {
        QVERIFY2(!panel.addRule(rule), qPrintable(rule.left(40)));
        const QString text = panel.summaryLabel()->text();
        QVERIFY2(text.contains(says) && text.size() < 1000, qPrintable(text.left(300)));
    }
    QVERIFY(panel.rules().isEmpty());
    QVERIFY(panel.addRule(QStringLiteral("name~(.*)*gemm*0.5")));
    QVERIFY(waitForResult(panel));
}

void TestWhatIfPanel::rulesFromTheSelection()
{
    WhatIfPanel panel;
    panel.setContext(m_analysis->device, m_cp);
    QVERIFY(!panel.thisOpButton()->isEnabled());
    // The first kernel on the critical path.
    qint64 kernel = -1;
    for (uint32_t ev : m_cp->criticalEvents)
        if (m_analysis->device->events[ev].kind == EventKind::Kernel) {
            kernel = ev;
            break;
        }
    QVERIFY(kernel >= 0);
    panel.setSelectedEvent(kernel);
    QVERIFY(panel.thisOpButton()->isEnabled());
    QTest::mouseClick(panel.thisOpButton(), Qt::LeftButton);
    QTest::mouseClick(panel.allLikeButton(), Qt::LeftButton);
    const QString name = QString::fromUtf8(m_analysis->device->str(m_analysis->device->events[kernel].name));
    QCOMPARE(panel.rules().value(0), QStringLiteral("event=%1*0.5").arg(kernel));
    QCOMPARE(panel.rules().value(1), QStringLiteral("name=%1*0.5").arg(name));
    QVERIFY(waitForResult(panel));
    QVERIFY2(panel.result()->ok, panel.result()->error.c_str());
    QVERIFY(panel.result()->projectedUs < m_cp->weightUs);
}

void TestWhatIfPanel::movedOpsJump()
{
    WhatIfPanel panel;
    panel.setContext(m_analysis->device, m_cp);
    panel.addRule(QStringLiteral("cat=kernel*0.1"));
    QVERIFY(waitForResult(panel));
    QVERIFY(panel.movedView()->model()->rowCount() > 0);
    QSignalSpy asked(&panel, &WhatIfPanel::eventRequested);
    panel.show();
    QTableView *view = panel.movedView();
    const QRect cell = view->visualRect(view->model()->index(0, 0));
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, cell.center());
    QCOMPARE(asked.count(), 1);
    QCOMPARE(asked.first().first().toLongLong(), static_cast<qint64>(panel.result()->topMoved.front().event));
}

void TestWhatIfPanel::mainWindowHasThePanel()
{
    QStandardPaths::setTestModeEnabled(true);
    MainWindow w;
    w.setInteractive(false);
    w.setRecordRecent(false);
    w.setSamplePair(QString::fromStdString(uitest::sampleHost()), QString::fromStdString(uitest::sampleDevice()));
    QSignalSpy done(&w, &MainWindow::loadFinished);
    w.openSample();
    QVERIFY(done.wait(60000));
    WhatIfPanel *panel = w.whatIfPanel();
    QVERIFY(panel);
    QVERIFY(panel->summaryLabel()->text().contains(QStringLiteral("Baseline")));
    // Selecting an op on the timeline enables the selection buttons.
    const uint32_t ev = w.pair()->criticalPath()->criticalEvents.front();
    w.timeline()->plot()->selection()->setEvent(ev);
    QVERIFY(panel->thisOpButton()->isEnabled());
}

void TestWhatIfPanel::projectedTimeline()
{
    WhatIfPanel panel;
    panel.setContext(m_analysis->device, m_cp);
    QSignalSpy projection(&panel, &WhatIfPanel::projectionChanged);
    panel.addRule(QStringLiteral("cat=kernel*0.5"));
    QVERIFY(waitForResult(panel));
    QVERIFY(!projection.isEmpty());
    auto shifts = projection.last().first().value<std::shared_ptr<const EventShifts>>();
    QVERIFY(shifts && !shifts->empty());
    // Every moved op of the table has its shift, start moved by the same amount (ns).
    for (const auto &m : panel.result()->topMoved) {
        auto it = shifts->find(m.event);
        QVERIFY(it != shifts->end());
        QCOMPARE(it->second.first, m.shiftUs * 1000.0);
    }
    // The toggle takes it away and brings it back.
    panel.projectionBox()->setChecked(false);
    QVERIFY(!projection.last().first().value<std::shared_ptr<const EventShifts>>());
    panel.projectionBox()->setChecked(true);
    QVERIFY(projection.last().first().value<std::shared_ptr<const EventShifts>>());

    // In the window, the timeline draws the outlines.
    QStandardPaths::setTestModeEnabled(true);
    MainWindow w;
    w.setInteractive(false);
    w.setRecordRecent(false);
    w.setSamplePair(QString::fromStdString(uitest::sampleHost()), QString::fromStdString(uitest::sampleDevice()));
    w.resize(1400, 900);
    w.show();
    QSignalSpy done(&w, &MainWindow::loadFinished);
    w.openSample();
    QVERIFY(done.wait(60000));
    QSignalSpy result(w.whatIfPanel(), &WhatIfPanel::resultChanged);
    w.whatIfPanel()->addRule(QStringLiteral("cat=kernel*0.5"));
    QVERIFY(result.wait(10000));
    QVERIFY(w.timeline()->plot()->hasProjection());
    w.timeline()->plot()->replot(QCustomPlot::rpImmediateRefresh);
    QVERIFY(w.timeline()->plot()->lastPaintStats().ghosts > 0);
}

QTEST_MAIN(TestWhatIfPanel)
#include "tst_whatifpanel.moc"
