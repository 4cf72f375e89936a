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
    // Issue 22: the rule language on hostile input.
    void longNameMatchesWithoutRecursion();
    void catastrophicPatterns();
    void nestedParentheses();
    void backReferencesAndLookAroundAreRefused();
    void ruleAndPatternSizeBounds();
    void factorAndDurationBounds_data();
    void factorAndDurationBounds();
    void projectionSaturates();

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

// Two launches of kernels with 50,000-character names: "aaa...gemm" then "bbb...b";
// the first is on the critical path (hand-computed: 20 + 1000 + 20 + 500).
std::string longNameTrace()
{
    testutil::KinetoBuilder b;
    b.runtime("cudaLaunchKernel", 1, 10, 10, 1)
        .kernel(std::string(50000, 'a') + "gemm", 7, 30, 1000, 1)
        .runtime("cudaLaunchKernel", 1, 1030, 10, 2)
        .kernel(std::string(50000, 'b'), 7, 1050, 500, 2);
    return b.json();
}

// parseWhatIfRule's error for `text`, or "" when it parses.
std::string parseError(const std::string &text)
{
    WhatIfRule r;
    std::string error;
    return parseWhatIfRule(text, r, error) ? std::string() : (error.empty() ? std::string("?") : error);
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
    // A real trace with kernels off its path (PARAM DLRM rank 0; on the sample every kernel
    // name is on the path once each step's optimizer waits for its all-reduce).
    Diagnostics diag;
    const auto trace = cptest::load(testutil::fixture("pairs/param_dlrm_rank0/rank0.kineto.json.gz"), diag);
    QVERIFY(trace);
    const CriticalPathResult cp = analyzeCriticalPath(*trace, {}, diag);
    QVERIFY2(cp.success, cp.reason.c_str());
    // Every kernel name that has no operator edge on the critical path.
    std::set<std::string_view> onPath, all;
    for (int32_t e : cp.pathEdges)
        if (cp.graph.edgeEvent[e] >= 0)
            onPath.insert(trace->str(trace->events[static_cast<size_t>(cp.graph.edgeEvent[e])].name));
    for (int32_t e = 0; e < cp.graph.edgeCount(); ++e)
        if (cp.graph.edgeType[e] == CpEdgeType::OperatorKernel && cp.graph.edgeEvent[e] >= 0) {
            const auto &ev = trace->events[static_cast<size_t>(cp.graph.edgeEvent[e])];
            const std::string_view n = trace->str(ev.name);
            // (names the rule language can say whole: no operator characters in them)
            if (ev.kind == EventKind::Kernel && !onPath.count(n) && n.find_first_of("*&|=~!") == std::string_view::npos)
                all.insert(n);
        }
    QVERIFY2(!all.empty(), "the trace has no kernel off the critical path");
    WhatIfEngine engine(*trace, cp);
    for (std::string_view name : all) {
        const WhatIfResult r = engine.evaluate({rule("name=" + std::string(name) + "*0.5")});
        QVERIFY2(r.ok, r.error.c_str());
        QVERIFY(r.rules[0].matched > 0);
        QVERIFY2(r.projectedUs <= cp.weightUs, std::string(name).c_str());
        // Shorter work off the path can only leave the path as it is.
        QCOMPARE(r.projectedUs, cp.weightUs);
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

void TestWhatIf::longNameMatchesWithoutRecursion()
{
    // std::regex recursed once per character: a 50,000-character name with .*gemm
    // overflowed the stack. RE2 matches in linear time without recursion.
    Diagnostics diag;
    auto t = cptest::loadInline(longNameTrace(), diag);
    QVERIFY(t);
    const CriticalPathResult cp = wholeTrace(*t);
    QVERIFY2(cp.success, cp.reason.c_str());
    WhatIfEngine engine(*t, cp);
    for (const char *text : {"name~.*gemm*0", "name~^a*gemm$*0", "name~(.*)*gemm*0", "cat=kernel&name~a{3}.*g*0"}) {
        const WhatIfResult r = engine.evaluate({rule(text)});
        QVERIFY2(r.ok, (std::string(text) + ": " + r.error).c_str());
        QCOMPARE(r.rules[0].matched, int64_t(1)); // the "aaa...gemm" kernel only
        QVERIFY2(r.projectedUs < cp.weightUs, text);
    }
    // A pattern that matches neither long name is the usual "matches nothing".
    const WhatIfResult none = engine.evaluate({rule("name~.*gemm.*x*0")});
    QVERIFY(!none.ok);
    QVERIFY2(none.error.find("matches nothing") != std::string::npos, none.error.c_str());
    // Both long names.
    const WhatIfResult both = engine.evaluate({rule("name~^(a|b)+*0.5")});
    QVERIFY2(both.ok, both.error.c_str());
    QCOMPARE(both.rules[0].matched, int64_t(2));
    // matches() (the GUI's "all like this") uses the same search.
    WhatIfRule r = rule("name~.*gemm$*1");
    int hits = 0;
    for (uint32_t ev = 0; ev < t->events.size(); ++ev)
        hits += engine.matches(r.selector, ev) ? 1 : 0;
    QCOMPARE(hits, 1);
}

void TestWhatIf::catastrophicPatterns()
{
    // Exponential for a back-tracking engine; linear in RE2, so these finish at once
    // and answer correctly. The test asserts the answers, not the time.
    Diagnostics diag;
    auto t = cptest::loadInline(longNameTrace(), diag);
    QVERIFY(t);
    const CriticalPathResult cp = wholeTrace(*t);
    WhatIfEngine engine(*t, cp);
    for (const char *text : {"name~(.*)*x*0.5", "name~(a*)*z*0.5", "name~(a|aa)+z*0.5", "name~(b+)+\\d*0.5"}) {
        const WhatIfResult r = engine.evaluate({rule(text)});
        QVERIFY2(!r.ok, text);
        QVERIFY2(r.error.find("matches nothing") != std::string::npos, (std::string(text) + ": " + r.error).c_str());
    }
    QCOMPARE(engine.evaluate({rule("name~(a*)*gemm*0.5")}).rules[0].matched, int64_t(1));
    QCOMPARE(engine.evaluate({rule("name~(b+)+$*0.5")}).rules[0].matched, int64_t(1));
    // The typo ".**x" is not a pattern: a clear parse error, not minutes of matching.
    const std::string e = parseError("name~.**x*0.5");
    QVERIFY2(e.find("name~.**x*0.5") != std::string::npos && e.find("RE2") != std::string::npos &&
                 e.find("bad repetition operator") != std::string::npos,
             e.c_str());
}

void TestWhatIf::nestedParentheses()
{
    // 20,000 nested groups crashed std::regex's recursive compiler: refused by the rule
    // size bound, naming it.
    const std::string deep = "name~" + std::string(20000, '(') + "gemm" + std::string(20000, ')') + "*0.5";
    std::string e = parseError(deep);
    QVERIFY2(e.find("at most 4096 bytes") != std::string::npos && e.find("too long") != std::string::npos, e.c_str());
    QVERIFY2(e.size() < 400, e.c_str()); // quotes the start of the rule, not all of it
    // As deep as a 1 KiB pattern allows: accepted, and evaluates.
    const std::string ok = "name~" + std::string(500, '(') + "gemm" + std::string(500, ')') + "*0.5";
    WhatIfRule r;
    QVERIFY2(parseWhatIfRule(ok, r, e), e.c_str());
    WhatIfEngine engine(*m_sample, m_cp);
    const WhatIfResult res = engine.evaluate({r});
    QVERIFY2(res.ok, res.error.c_str());
    QVERIFY(res.rules[0].matched > 0);
    // Unbalanced ones are RE2 parse errors.
    e = parseError("name~" + std::string(300, '(') + "gemm*0.5");
    QVERIFY2(e.find("RE2") != std::string::npos && e.find("missing )") != std::string::npos, e.c_str());
}

void TestWhatIf::backReferencesAndLookAroundAreRefused()
{
    std::string e = parseError("name~(a)\\99999999*0.5");
    QVERIFY2(e.find("back-references") != std::string::npos && e.find("RE2") != std::string::npos, e.c_str());
    e = parseError("name~(g)\\1*0.5");
    QVERIFY2(e.find("back-references") != std::string::npos && e.find("name~(g)\\1*0.5") != std::string::npos,
             e.c_str());
    e = parseError("name~gemm(?=_)*0.5");
    QVERIFY2(e.find("look-ahead") != std::string::npos, e.c_str());
    e = parseError("name~(?<!x)gemm*0.5");
    QVERIFY2(e.find("look-behind") != std::string::npos, e.c_str());
    // What RE2 does have still works: classes, anchors, \d, \b, non-capturing groups.
    for (const char *text : {"name~\\bgemm\\d*\\b*0.5", "name~^(?:ampere|volta)_.*gemm*0.5", "name~(?i)GEMM*0.5"})
        QVERIFY2(parseError(text).empty(), parseError(text).c_str());
}

void TestWhatIf::ruleAndPatternSizeBounds()
{
    // A pattern of exactly 1024 bytes is accepted; 1025 is refused, naming the bound.
    QVERIFY2(parseError("name~" + std::string(1024, 'a') + "*0.5").empty(), "1024-byte pattern");
    std::string e = parseError("name~" + std::string(1025, 'a') + "*0.5");
    QVERIFY2(e.find("at most 1024 bytes") != std::string::npos, e.c_str());
    // A rule of exactly 4096 bytes (name=...) is accepted; one more byte is not.
    const std::string head = "name=", tail = "*0.5";
    QVERIFY(parseError(head + std::string(4096 - head.size() - tail.size(), 'x') + tail).empty());
    e = parseError(head + std::string(4097 - head.size() - tail.size(), 'x') + tail);
    QVERIFY2(e.find("at most 4096") != std::string::npos, e.c_str());
    // A program over RE2's memory bound (a huge repetition) is refused, not built.
    e = parseError("name~\\pL{1000}*0.5");
    QVERIFY2(e.find("too large") != std::string::npos, e.c_str());
    e = parseError("name~((a{100}){100}){100}*0.5");
    QVERIFY2(e.find("RE2") != std::string::npos, e.c_str());
}

void TestWhatIf::factorAndDurationBounds_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("ok");
    QTest::addColumn<QString>("bound"); // what the error must name
    QTest::newRow("factor 1e6") << "cat=kernel*1e6" << true << "";
    QTest::newRow("factor 0") << "cat=kernel*0" << true << "";
    QTest::newRow("factor 1e308") << "cat=kernel*1e308" << false << "[0, 1e6]";
    QTest::newRow("factor above 1e6") << "cat=kernel*1000001" << false << "[0, 1e6]";
    QTest::newRow("factor 1e400") << "cat=kernel*1e400" << false << "[0, 1e6]";
    QTest::newRow("factor inf") << "cat=kernel*inf" << false << "[0, 1e6]";
    QTest::newRow("factor nan") << "cat=kernel*nan" << false << "[0, 1e6]";
    QTest::newRow("factor negative") << "cat=kernel*-0.5" << false << "[0, 1e6]";
    QTest::newRow("duration 1e9 s") << "cat=kernel=1e9s" << true << "";
    QTest::newRow("duration 2^60 ns") << "cat=kernel=1152921504606846976ns" << true << "";
    QTest::newRow("duration 1e303 s") << "cat=kernel=1e303s" << false << "[0, 2^60 ns]";
    QTest::newRow("duration 2e9 s") << "cat=kernel=2e9s" << false << "[0, 2^60 ns]";
    QTest::newRow("duration 1e308 ms") << "cat=kernel=1e308ms" << false << "[0, 2^60 ns]";
    QTest::newRow("duration inf") << "cat=kernel=inf" << false << "[0, 2^60 ns]";
    QTest::newRow("duration nan us") << "cat=kernel=nanus" << false << "[0, 2^60 ns]";
    QTest::newRow("duration negative") << "cat=kernel=-1ms" << false << "[0, 2^60 ns]";
}

void TestWhatIf::factorAndDurationBounds()
{
    QFETCH(QString, text);
    QFETCH(bool, ok);
    QFETCH(QString, bound);
    const std::string e = parseError(text.toStdString());
    QVERIFY2(e.empty() == ok, e.c_str());
    if (!ok) {
        QVERIFY2(e.find(text.toStdString()) != std::string::npos, e.c_str()); // names the rule
        QVERIFY2(e.find(bound.toStdString()) != std::string::npos, e.c_str()); // and the bound
    }
}

void TestWhatIf::projectionSaturates()
{
    // The largest factor, applied 60 times (1e360 unbounded), and the longest duration:
    // the projection saturates and stays finite.
    WhatIfEngine engine(*m_sample, m_cp);
    std::vector<WhatIfRule> rules(60, rule("cat=kernel*1e6"));
    for (const std::vector<WhatIfRule> &list : {rules, std::vector<WhatIfRule>{rule("cat=kernel=1152921504606846976ns"),
                                                                                rule("cat=cpu_op=1e9s")}}) {
        const WhatIfResult r = engine.evaluate(list);
        QVERIFY2(r.ok, r.error.c_str());
        QVERIFY2(std::isfinite(r.projectedUs) && r.projectedUs > m_cp.weightUs,
                 qPrintable(QString::number(r.projectedUs)));
        QVERIFY(std::isfinite(r.speedup) && r.speedup > 0);
        for (double w : r.edgeWeight)
            QVERIFY(std::isnan(w) || std::fabs(w) <= kWhatIfMaxDurationUs);
        for (double s : r.nodeShiftUs)
            QVERIFY(std::isfinite(s));
        for (const WhatIfMovedOp &m : r.topMoved)
            QVERIFY(std::isfinite(m.projectedStartUs) && std::isfinite(m.shiftUs));
        for (const CpSummaryRow &row : r.summary)
            QVERIFY(std::isfinite(row.percent));
    }
    // A Set rule on an op whose own time is tiny: durationUs / own overflows; still finite.
    WhatIfRule set = rule("x=1e9s");
    QCOMPARE(whatIfPieceWeight(set, 2.0, 4.0, false), 5e14);
    QCOMPARE(whatIfPieceWeight(set, 0.0, 1e-320, false), 0.0);
    QCOMPARE(whatIfPieceWeight(set, 5.0, 1e-320, false), kWhatIfMaxDurationUs);
    QCOMPARE(whatIfPieceWeight(set, -0.5, 1e-320, false), -kWhatIfMaxDurationUs);
}

QTEST_GUILESS_MAIN(TestWhatIf)
#include "tst_whatif.moc"
