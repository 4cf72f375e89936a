// SPDX-License-Identifier: MIT
// What-if (issue 15): exactness, bounds, monotonicity, a dropped wait computed
// by hand, rule parsing, and the projected timeline.
#include "analysis/whatif.h"
#include "cptestutil.h"
#include "tracebuilder.h"

#include <QtTest>

#include <cmath>
#include <set>

using namespace syncscope;

class TestWhatIf : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void factorOneIsTheBaseline();
    void offPathRuleLeavesTheWeight();
    void boundAndMonotonicity();
    void droppedWaitByHand();
    void setDurationByHand();
    void parsing_data();
    void parsing();
    void ruleMatchingNothingIsAnError();

private:
    std::shared_ptr<KinetoTrace> m_sample;
    CriticalPathResult m_cp;
};

namespace {

// One launch, a 1000 us kernel, a cudaStreamSynchronize that waits for it, then
// a 50 us op. Hand-computed: launch start -20-> kernel start -1000-> kernel end
// -sync-> cudaStreamSynchronize end -0-> op -50-> = 1070 us.
std::string waitTrace()
{
    testutil::KinetoBuilder b;
    b.runtime("cudaLaunchKernel", 1, 10, 10, 1)
        .kernel("gemm", 7, 30, 1000, 1)
        .runtime("cudaStreamSynchronize", 1, 25, 1010, 2)
        .sync("Stream Sync", 7, 25, 1010, 2)
        .cpu("after", 1, 1040, 50);
    return b.json();
}

CriticalPathResult wholeTrace(const KinetoTrace &t)
{
    CriticalPathOptions o;
    o.annotation = "";
    Diagnostics diag;
    return analyzeCriticalPath(t, o, diag);
}

WhatIfRule rule(const std::string &text)
{
    WhatIfRule r;
    std::string error;
    if (!parseWhatIfRule(text, r, error))
        qFatal("bad rule %s: %s", text.c_str(), error.c_str());
    return r;
}

// The selected events' own time on the baseline path (operator edges).
double selectedOnPath(const KinetoTrace &t, const CriticalPathResult &cp, EventKind kind)
{
    double sum = 0;
    for (int32_t e : cp.pathEdges)
        if (cp.graph.edgeType[e] == CpEdgeType::OperatorKernel && cp.graph.edgeEvent[e] >= 0 &&
            t.events[static_cast<size_t>(cp.graph.edgeEvent[e])].kind == kind)
            sum += cp.graph.edgeWeight[e];
    return sum;
}

} // namespace

void TestWhatIf::initTestCase()
{
    Diagnostics diag;
    m_sample = cptest::load(SYNCSCOPE_SAMPLE_DIR "/sample.kineto.json.gz", diag);
    QVERIFY(m_sample);
    m_cp = analyzeCriticalPath(*m_sample, {}, diag);
    QVERIFY2(m_cp.success, m_cp.reason.c_str());
}

void TestWhatIf::factorOneIsTheBaseline()
{
    WhatIfEngine engine(*m_sample, m_cp);
    const WhatIfResult r = engine.evaluate({rule("cat=kernel*1"), rule("cat=cpu_op*1")});
    QVERIFY2(r.ok, r.error.c_str());
    QCOMPARE(r.projectedUs, m_cp.weightUs); // exactly, not approximately
    QCOMPARE(r.pathNodes, m_cp.pathNodes);
    QVERIFY(r.topMoved.empty());
    for (double s : r.nodeShiftUs)
        QCOMPARE(s, 0.0);
}

void TestWhatIf::offPathRuleLeavesTheWeight()
{
    // Every kernel name that has no operator edge on the critical path.
    std::set<std::string_view> onPath, all;
    for (int32_t e : m_cp.pathEdges)
        if (m_cp.graph.edgeEvent[e] >= 0)
            onPath.insert(m_sample->str(m_sample->events[static_cast<size_t>(m_cp.graph.edgeEvent[e])].name));
    for (int32_t e = 0; e < m_cp.graph.edgeCount(); ++e)
        if (m_cp.graph.edgeType[e] == CpEdgeType::OperatorKernel && m_cp.graph.edgeEvent[e] >= 0) {
            const auto &ev = m_sample->events[static_cast<size_t>(m_cp.graph.edgeEvent[e])];
            if (ev.kind == EventKind::Kernel && !onPath.count(m_sample->str(ev.name)))
                all.insert(m_sample->str(ev.name));
        }
    QVERIFY2(!all.empty(), "the sample has no kernel off the critical path");
    WhatIfEngine engine(*m_sample, m_cp);
    for (std::string_view name : all) {
        const WhatIfResult r = engine.evaluate({rule("name=" + std::string(name) + "*0.5")});
        QVERIFY2(r.ok, r.error.c_str());
        QVERIFY(r.rules[0].matched > 0);
        QVERIFY2(r.projectedUs <= m_cp.weightUs, std::string(name).c_str());
        // Shorter work off the path can only leave the path as it is.
        QCOMPARE(r.projectedUs, m_cp.weightUs);
    }
}

void TestWhatIf::boundAndMonotonicity()
{
    WhatIfEngine engine(*m_sample, m_cp);
    const double selected = selectedOnPath(*m_sample, m_cp, EventKind::Kernel);
    QVERIFY(selected > 0);
    double previous = -1;
    for (double f : {0.0, 0.25, 0.5, 0.75, 1.0}) {
        const WhatIfResult r = engine.evaluate({rule("cat=kernel*" + std::to_string(f))});
        QVERIFY2(r.ok, r.error.c_str());
        const double lower = m_cp.weightUs - (1 - f) * selected;
        QVERIFY2(r.projectedUs >= lower - 1e-6, qPrintable(QString("F=%1: %2 < %3").arg(f).arg(r.projectedUs).arg(lower)));
        QVERIFY(r.projectedUs <= m_cp.weightUs + 1e-6);
        QVERIFY2(r.projectedUs >= previous - 1e-6, "not monotonic in the factor");
        previous = r.projectedUs;
    }
}

void TestWhatIf::droppedWaitByHand()
{
    Diagnostics diag;
    auto t = cptest::loadInline(waitTrace(), diag);
    QVERIFY(t);
    const CriticalPathResult cp = wholeTrace(*t);
    QVERIFY2(cp.success, cp.reason.c_str());
    QCOMPARE(cp.weightUs, 1070.0);
    WhatIfEngine engine(*t, cp);
    const WhatIfResult r = engine.evaluate({rule("sync:cudaStreamSynchronize=drop")});
    QVERIFY2(r.ok, r.error.c_str());
    QCOMPARE(r.rules[0].matched, int64_t(1));
    // Without the wait the kernel itself is the longest chain: 20 + 1000.
    QCOMPARE(r.projectedUs, 1020.0);
    // "after" no longer waits: it starts right after the (now instant) sync call.
    bool found = false;
    for (const auto &m : r.topMoved)
        if (t->str(t->events[m.event].name) == "after") {
            QCOMPARE(m.shiftUs, -1010.0);
            QCOMPARE(m.projectedStartUs, 30.0);
            found = true;
        }
    QVERIFY(found);
}

void TestWhatIf::setDurationByHand()
{
    Diagnostics diag;
    auto t = cptest::loadInline(waitTrace(), diag);
    const CriticalPathResult cp = wholeTrace(*t);
    WhatIfEngine engine(*t, cp);
    // The kernel at half its time: 20 + 500 + 50.
    QCOMPARE(engine.evaluate({rule("name~^gem*0.5")}).projectedUs, 570.0);
    // Set to 100 us: 20 + 100 + 50; removed entirely: 20 + 0 + 50.
    QCOMPARE(engine.evaluate({rule("gemm=100")}).projectedUs, 170.0);
    QCOMPARE(engine.evaluate({rule("cat=kernel=0.1ms")}).projectedUs, 170.0);
    QCOMPARE(engine.evaluate({rule("gemm=0")}).projectedUs, 70.0);
    // "after" at 10x: 20 + 1000 + 500.
    QCOMPARE(engine.evaluate({rule("cat=cpu_op&name=after*10")}).projectedUs, 1520.0);
}

void TestWhatIf::parsing_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("ok");
    QTest::newRow("scale") << "name~gemm.**0.5" << true;
    QTest::newRow("set with unit") << "cat=kernel=2ms" << true;
    QTest::newRow("drop") << "sync:cudaStreamSynchronize=drop" << true;
    QTest::newRow("combined") << "comm&stream=7*0" << true;
    QTest::newRow("rank") << "rank=3&compute*1.1" << true;
    QTest::newRow("no action") << "cat=kernel" << false;
    QTest::newRow("bad factor") << "cat=kernel*fast" << false;
    QTest::newRow("negative factor") << "cat=kernel*-1" << false;
    QTest::newRow("bad category") << "cat=gpu*0.5" << false;
    QTest::newRow("bad regex") << "name~([*0.5" << false;
    QTest::newRow("sync without drop") << "sync:cudaStreamSynchronize=0" << false;
    QTest::newRow("empty term") << "comm&*0.5" << false;
    QTest::newRow("unknown key") << "tid=3*0.5" << false;
}

void TestWhatIf::parsing()
{
    QFETCH(QString, text);
    QFETCH(bool, ok);
    WhatIfRule r;
    std::string error;
    QCOMPARE(parseWhatIfRule(text.toStdString(), r, error), ok);
    if (!ok)
        QVERIFY2(error.find(text.toStdString()) != std::string::npos, error.c_str());
}

void TestWhatIf::ruleMatchingNothingIsAnError()
{
    WhatIfEngine engine(*m_sample, m_cp);
    const WhatIfResult r = engine.evaluate({rule("cat=kernel*0.5"), rule("name=no_such_op*0.5")});
    QVERIFY(!r.ok);
    QVERIFY2(r.error.find("name=no_such_op*0.5") != std::string::npos, r.error.c_str());
    QCOMPARE(r.rules.size(), size_t(2));
    QCOMPARE(r.rules[1].matched, int64_t(0));
}

QTEST_GUILESS_MAIN(TestWhatIf)
#include "tst_whatif.moc"
