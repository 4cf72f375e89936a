// SPDX-License-Identifier: MIT
// What-if rules relative to the data (issue 26, docs/what_if.md "Relative to the
// data"): =median|mean|min and the coll=, pg=, step= selectors, on a hand-built
// trace (single rank) and on generated jobs whose ranks draw the same random
// durations, so a straggler's excess and a slow collective are known by construction.
#include "analysis/whatif.h"
#include "cptestutil.h"
#include "job/jobreport.h"
#include "jobtestutil.h"
#include "tracebuilder.h"
#include "tracegen.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <filesystem>

using namespace syncscope;

class TestWhatIfRelative : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void parsing_data();
    void parsing();
    void statistics();
    void meanOfTheNameByHand();
    void stepSelectsItsOps();
    void collAndPgSelectCollectives();
    void jobMeanRemovesTheStraggler();
    void jobMedianTransfer();
    void jobStepAndPg();

private:
    std::vector<RankSummary> m_straggler, m_even, m_slowColl;
};

namespace {

WhatIfRule rule(const std::string &text)
{
    WhatIfRule r;
    std::string error;
    if (!parseWhatIfRule(text, r, error))
        qFatal("bad rule %s: %s", text.c_str(), error.c_str());
    return r;
}

// waitTrace of tst_whatif (launch, a 1000 us gemm on stream 7, a stream sync that
// waits for it, a 50 us op: 20 + 1000 + 50 = 1070 us) plus two gemms off the path:
// 100 us on stream 8 and 400 us on stream 9, launched from thread 2. ProfilerStep#5
// covers [0, 28) us and ProfilerStep#6 [28, 2000) us (on thread 3): the stream-8 gemm
// starts in step 5, the other two in step 6.
std::string gemmTrace()
{
    testutil::KinetoBuilder b;
    b.annotation("ProfilerStep#5", 3, 0, 28)
        .annotation("ProfilerStep#6", 3, 28, 1972)
        .runtime("cudaLaunchKernel", 1, 10, 10, 1)
        .kernel("gemm", 7, 30, 1000, 1)
        .runtime("cudaStreamSynchronize", 1, 25, 1010, 2)
        .sync("Stream Sync", 7, 25, 1010, 2)
        .cpu("after", 1, 1040, 50)
        .runtime("cudaLaunchKernel", 2, 10, 10, 3)
        .kernel("gemm", 8, 22, 100, 3)
        .runtime("cudaLaunchKernel", 2, 25, 5, 4)
        .kernel("gemm", 9, 40, 400, 4);
    return b.json();
}

CriticalPathResult wholeTrace(const KinetoTrace &t)
{
    CriticalPathOptions o;
    o.annotation = "";
    Diagnostics diag;
    return analyzeCriticalPath(t, o, diag);
}

// A generated job like tracegen::generateJob, but every rank draws the same random
// durations (one seed), so ranks differ only by what the test changes: the straggler's
// compute kernels take `scale` times longer, collective `longK` lasts `longFactor`
// times the others after its last arrival.
std::vector<RankSummary> generateJob(const std::string &name, int straggler, double scale, int longK,
                                     double longFactor, int steps = 1)
{
    const int n = 4;
    const std::string dir = testutil::tempDir() + "/" + name;
    std::filesystem::create_directories(dir);
    std::vector<tracegen::JobTiming> timing(n);
    auto options = [&](int r) {
        tracegen::Options o;
        o.prefix = dir + "/rank" + std::to_string(r);
        o.steps = std::max(2, steps);
        o.layers = 8;
        o.rank = r;
        o.worldSize = n;
        o.seed = 7;
        o.job = &timing[size_t(r)];
        o.clockOffsetUs = 250.0 * r;
        timing[size_t(r)].groupRanks = "[0, 1, 2, 3]";
        timing[size_t(r)].computeScale = r == straggler ? scale : 1.0;
        return o;
    };
    std::vector<std::vector<double>> ends(n);
    for (int k = 0;; ++k) {
        std::vector<double> arrival(n, -1);
        int arrived = 0;
        for (int r = 0; r < n; ++r) {
            tracegen::JobTiming &t = timing[size_t(r)];
            t.dryRun = true;
            t.collectiveEndsUs = ends[size_t(r)];
            t.arrivalUs = -1;
            if (tracegen::generate(options(r)).stoppedAtCollective) {
                arrival[size_t(r)] = t.arrivalUs;
                ++arrived;
            }
        }
        if (arrived == 0)
            break;
        if (arrived != n)
            qFatal("the ranks launch different numbers of collectives");
        const double last = *std::max_element(arrival.begin(), arrival.end());
        for (int r = 0; r < n; ++r)
            ends[size_t(r)].push_back(last + 120.0 * (k == longK ? longFactor : 1.0));
    }
    std::vector<RankSummary> out;
    for (int r = 0; r < n; ++r) {
        timing[size_t(r)].dryRun = false;
        timing[size_t(r)].collectiveEndsUs = ends[size_t(r)];
        const tracegen::Result res = tracegen::generate(options(r));
        AnalysisRequest request;
        request.devicePath = res.devicePath;
        request.hostPath = res.hostPath;
        if (steps > 1) { // the window: every step
            request.window = WindowKind::Step;
            request.stepFirst = 0;
            request.stepLast = steps - 1;
        }
        out.push_back(extractRankSummary(*runAnalysis(request), 0));
    }
    return out;
}

JobAnalysis analyze(const std::vector<RankSummary> &ranks, const std::vector<std::string> &rules)
{
    JobOptions o;
    for (const std::string &text : rules)
        o.whatIf.push_back(rule(text));
    return analyzeJob(ranks, o);
}

// The projected job step under `rules` (fails the test when the what-if fails).
double projected(const std::vector<RankSummary> &ranks, const std::vector<std::string> &rules)
{
    const JobAnalysis job = analyze(ranks, rules);
    if (!job.whatIf || !job.whatIf->ok)
        qFatal("what-if failed: %s", job.whatIf ? job.whatIf->error.c_str() : "no what-if");
    return job.whatIf->projectedUs;
}

} // namespace

void TestWhatIfRelative::initTestCase()
{
    m_straggler = generateJob("relative_straggler", 3, 4.0, -1, 1);
    m_even = generateJob("relative_even", -1, 1.0, -1, 1);
    m_slowColl = generateJob("relative_slowcoll", -1, 1.0, 1, 4.0, 3);
    for (const auto *job : {&m_straggler, &m_even, &m_slowColl}) {
        QCOMPARE(job->size(), size_t(4));
        QVERIFY(analyzeJob(*job, {}).criticalPath.valid);
    }
}

void TestWhatIfRelative::parsing_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("ok");
    QTest::newRow("median") << "name=gemm=median" << true;
    QTest::newRow("mean, spaced") << "compute = mean " << true;
    QTest::newRow("min") << "comm=min" << true;
    QTest::newRow("coll") << "coll=allreduce=median" << true;
    QTest::newRow("pg and step") << "pg=0&step=12&comm*0.5" << true;
    QTest::newRow("sync on a step") << "sync:step=3&cudaStreamSynchronize=drop" << true;
    QTest::newRow("largest step") << "step=9007199254740992*1" << true;
    QTest::newRow("unknown statistic") << "compute=average" << false;
    QTest::newRow("statistic as factor") << "compute*median" << false;
    QTest::newRow("empty coll") << "coll=&comm*0.5" << false;
    QTest::newRow("empty pg") << "pg= *0.5" << false;
    QTest::newRow("negative step") << "step=-1*0.5" << false;
    QTest::newRow("step past 2^53") << "step=9007199254740993*0.5" << false;
    QTest::newRow("step overflow") << "step=99999999999999999999*0.5" << false;
    QTest::newRow("step not a number") << "step=two=mean" << false;
    QTest::newRow("sync with a statistic") << "sync:gemm=median" << false;
}

void TestWhatIfRelative::parsing()
{
    QFETCH(QString, text);
    QFETCH(bool, ok);
    WhatIfRule r;
    std::string error;
    QCOMPARE(parseWhatIfRule(text.toStdString(), r, error), ok);
    if (!ok) {
        QVERIFY2(error.find(text.toStdString()) != std::string::npos, error.c_str());
        return;
    }
    if (text.endsWith("mean ") || text.endsWith("median") || text.endsWith("min"))
        QCOMPARE(r.action, WhatIfRule::SetStatistic);
    const WhatIfRule m = rule("compute=mean"), md = rule("coll=allreduce=median"), mn = rule("comm=min");
    QCOMPARE(m.statistic, WhatIfRule::Mean);
    QCOMPARE(md.statistic, WhatIfRule::Median);
    QCOMPARE(mn.statistic, WhatIfRule::Min);
    QCOMPARE(md.selector.terms.size(), size_t(1));
    QCOMPARE(md.selector.terms[0].kind, WhatIfSelector::Term::Coll);
    QCOMPARE(md.selector.terms[0].text, std::string("allreduce"));
    QCOMPARE(rule("step=12*1").selector.terms[0].number, int64_t(12));
}

void TestWhatIfRelative::statistics()
{
    QCOMPARE(whatIfStatistic(WhatIfRule::Median, {5, 1, 3}), 3.0);
    QCOMPARE(whatIfStatistic(WhatIfRule::Median, {4, 1, 3, 10}), 3.5); // numpy: the two middle values' mean
    QCOMPARE(whatIfStatistic(WhatIfRule::Mean, {4, 1, 3, 10}), 4.5);
    QCOMPARE(whatIfStatistic(WhatIfRule::Min, {4, 1, 3, 10}), 1.0);
    QCOMPARE(whatIfStatistic(WhatIfRule::Mean, {}), 0.0);
    // Near the saturation bound the mean stays finite.
    QVERIFY(std::isfinite(whatIfStatistic(WhatIfRule::Mean, std::vector<double>(4, 1.7e308))));
}

void TestWhatIfRelative::meanOfTheNameByHand()
{
    Diagnostics diag;
    auto t = cptest::loadInline(gemmTrace(), diag);
    QVERIFY(t);
    const CriticalPathResult cp = wholeTrace(*t);
    QVERIFY2(cp.success, cp.reason.c_str());
    QCOMPARE(cp.weightUs, 1070.0);
    WhatIfEngine engine(*t, cp);
    // gemm own times 1000, 100, 400: mean 500, median 400, min 100; the path holds
    // the 1000 us gemm only: 20 + statistic + 50 (the others stay shorter).
    for (const auto &[text, expected] : {std::pair{"name=gemm=mean", 570.0}, {"gemm=median", 470.0},
                                         {"cat=kernel&name~^gemm$=min", 170.0}}) {
        const WhatIfResult r = engine.evaluate({rule(text)});
        QVERIFY2(r.ok, r.error.c_str());
        QCOMPARE(r.rules[0].matched, int64_t(3));
        QCOMPARE(r.projectedUs, expected);
    }
    // The statistic is of the own times after the rules before it: halved, mean 250.
    QCOMPARE(engine.evaluate({rule("gemm*0.5"), rule("gemm=mean")}).projectedUs, 320.0);
    // Over the matching ops only: stream 7 alone is its own mean (the baseline).
    QCOMPARE(engine.evaluate({rule("stream=7&gemm=mean")}).projectedUs, 1070.0);
    // No matching op: the usual no-match error.
    const WhatIfResult none = engine.evaluate({rule("name=conv=median")});
    QVERIFY(!none.ok);
    QVERIFY2(none.error.find("matches nothing") != std::string::npos, none.error.c_str());
}

void TestWhatIfRelative::stepSelectsItsOps()
{
    Diagnostics diag;
    auto t = cptest::loadInline(gemmTrace(), diag);
    const CriticalPathResult cp = wholeTrace(*t);
    QVERIFY2(cp.success, cp.reason.c_str());
    WhatIfEngine engine(*t, cp);
    auto hits = [&](const std::string &selectorRule) {
        const WhatIfRule r = rule(selectorRule);
        std::vector<int64_t> streams;
        for (uint32_t ev = 0; ev < t->events.size(); ++ev)
            if (engine.matches(r.selector, ev))
                streams.push_back(t->events[ev].htaStream());
        std::sort(streams.begin(), streams.end());
        return streams;
    };
    QCOMPARE(hits("step=5&gemm*1"), std::vector<int64_t>{8});
    QCOMPARE(hits("step=6&gemm*1"), (std::vector<int64_t>{7, 9}));
    QVERIFY(hits("step=7&gemm*1").empty());
    // Step 6's gemms alone: min(1000, 400) = 400 -> 20 + 400 + 50.
    const WhatIfResult r = engine.evaluate({rule("step=6&gemm=min")});
    QVERIFY2(r.ok, r.error.c_str());
    QCOMPARE(r.rules[0].matched, int64_t(2));
    QCOMPARE(r.projectedUs, 470.0);
    const WhatIfResult none = engine.evaluate({rule("step=7&gemm=min")});
    QVERIFY(!none.ok);
}

void TestWhatIfRelative::collAndPgSelectCollectives()
{
    // Two collective kernels: one with args (allreduce on group "dp"), one known by
    // its name only (all-gather, no group); and a gemm, which no coll= or pg= matches.
    testutil::KinetoBuilder b;
    b.runtime("cudaLaunchKernel", 1, 10, 10, 1)
        .raw(R"({"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "pid": 0, "tid": 20,
                 "ts": 30, "dur": 100, "args": {"device": 0, "stream": 20, "correlation": 1,
                 "Collective name": "allreduce", "Process Group Name": "dp"}})")
        .runtime("cudaLaunchKernel", 1, 25, 5, 2)
        .raw(R"({"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllGather_RING_LL", "pid": 0, "tid": 20,
                 "ts": 140, "dur": 50, "args": {"device": 0, "stream": 20, "correlation": 2}})")
        .runtime("cudaLaunchKernel", 1, 35, 5, 3)
        .kernel("gemm", 7, 45, 80, 3);
    Diagnostics diag;
    auto t = cptest::loadInline(b.json(), diag, "collpg.json");
    QVERIFY(t);
    const CriticalPathResult cp = wholeTrace(*t);
    QVERIFY2(cp.success, cp.reason.c_str());
    WhatIfEngine engine(*t, cp);
    auto names = [&](const std::string &text) {
        const WhatIfRule r = rule(text);
        std::vector<std::string> out;
        for (uint32_t ev = 0; ev < t->events.size(); ++ev)
            if (engine.matches(r.selector, ev))
                out.emplace_back(t->str(t->events[ev].name));
        return out;
    };
    QCOMPARE(names("coll=allreduce*1"), std::vector<std::string>{"ncclDevKernel_AllReduce_Sum_f32_RING_LL"});
    QCOMPARE(names("coll=allgather*1"), std::vector<std::string>{"ncclDevKernel_AllGather_RING_LL"});
    QCOMPARE(names("pg=dp*1"), std::vector<std::string>{"ncclDevKernel_AllReduce_Sum_f32_RING_LL"});
    QVERIFY(names("pg=tp*1").empty());
    QVERIFY(names("coll=gemm*1").empty());
    QVERIFY(names("coll=allreduce&pg=tp*1").empty());
    const WhatIfResult r = engine.evaluate({rule("coll=allreduce=0")});
    QVERIFY2(r.ok, r.error.c_str());
    QCOMPARE(r.rules[0].matched, int64_t(1));
}

void TestWhatIfRelative::jobMeanRemovesTheStraggler()
{
    // Every rank drew the same durations; rank 3's compute kernels take 4x. Per name,
    // the mean over the four ranks is (3 + 4) / 4 = 1.75 x the mean of the others, and
    // the min is the others' min: compute=mean is the job whose straggler runs at the
    // others' speed (rank=3&compute*0.25) under compute=mean then compute*1.75, and
    // compute=min that job under compute=min. Known by construction, within 1 %.
    const JobAnalysis base = analyze(m_straggler, {"compute*1"});
    const JobAnalysis even = analyze(m_even, {"compute*1"});
    QVERIFY(base.whatIf && base.whatIf->ok && even.whatIf && even.whatIf->ok);
    QVERIFY2(base.whatIf->baselineUs > 1.5 * even.whatIf->baselineUs,
             qPrintable(QString::number(base.whatIf->baselineUs)));

    const double mean = projected(m_straggler, {"compute=mean"});
    const double meanIdeal = projected(m_straggler, {"rank=3&compute*0.25", "compute=mean", "compute*1.75"});
    QVERIFY2(std::fabs(mean - meanIdeal) <= 0.01 * meanIdeal,
             qPrintable(QString("compute=mean %1 vs by construction %2").arg(mean).arg(meanIdeal)));
    const double min = projected(m_straggler, {"compute=min"});
    const double minIdeal = projected(m_straggler, {"rank=3&compute*0.25", "compute=min"});
    QVERIFY2(std::fabs(min - minIdeal) <= 0.01 * minIdeal,
             qPrintable(QString("compute=min %1 vs by construction %2").arg(min).arg(minIdeal)));
    QVERIFY(min < base.whatIf->baselineUs && mean < base.whatIf->baselineUs);
    // Taken over every rank's ops: without rank 3 the mean is the others' own (no change there).
    const JobAnalysis others = analyze(m_straggler, {"rank=0&compute=mean"});
    QVERIFY(others.whatIf && others.whatIf->ok);
    for (const JobWhatIfRank &r : others.whatIf->ranks)
        QVERIFY(r.rank == 0 ? r.matched > 0 : r.matched == 0);
    const JobAnalysis job = analyze(m_straggler, {"compute=mean"});
    for (const JobWhatIfRank &r : job.whatIf->ranks)
        QVERIFY(r.matched > 0);
}

void TestWhatIfRelative::jobMedianTransfer()
{
    // Three steps in the window, six allreduces; collective 1 lasts 4 x 120 us after
    // its last arrival, the others 120 us (+-0.6 us of generator jitter).
    const JobAnalysis slow = analyze(m_slowColl, {"comm*1"});
    QVERIFY(slow.whatIf && slow.whatIf->ok);
    const std::vector<uint8_t> use(m_slowColl.size(), 1);
    const auto transfers = jobTransfers(m_slowColl, use, slow.collectives);
    std::vector<double> measured;
    for (const auto &rank : transfers)
        for (const auto &[op, t] : rank)
            measured.push_back(t.transferUs);
    QCOMPARE(measured.size(), size_t(24)); // 6 instances x 4 ranks, all joined
    std::sort(measured.begin(), measured.end());
    QVERIFY2(std::fabs(measured.back() - 480.0) <= 2.0, qPrintable(QString::number(measured.back())));
    QVERIFY2(std::fabs(measured[19] - 120.0) <= 2.0, qPrintable(QString::number(measured[19])));
    const double median = (measured[11] + measured[12]) / 2; // 24 values: numpy's median
    double mean = 0;
    for (double t : measured)
        mean += t / double(measured.size());
    QVERIFY(std::fabs(median - 120.0) <= 1.2);  // within 1 % of the others' 120 us
    QVERIFY(std::fabs(mean - 180.0) <= 2.0);    // (20 x 120 + 4 x 480) / 24
    // After the rule every instance's transfer, as the replay computes it (measured
    // transfer x kernel weight / measured weight), is the statistic.
    for (const auto &[text, expected] : {std::pair{"coll=allreduce=median", median}, {"coll=allreduce=mean", mean}}) {
        std::vector<std::vector<int64_t>> matched;
        const auto weights = jobWhatIfAllWeights(m_slowColl, use, transfers, {rule(text)}, matched);
        for (size_t i = 0; i < transfers.size(); ++i) {
            QCOMPARE(matched[i][0], int64_t(6));
            for (const auto &[op, t] : transfers[i]) {
                const double was = m_slowColl[i].criticalPath.edges[size_t(t.edge)].weightUs;
                const double now = t.transferUs * weights[i][size_t(t.edge)] / was;
                QVERIFY2(std::fabs(now - expected) <= 1e-9 * expected,
                         qPrintable(QString("%1: %2 vs %3").arg(text).arg(now).arg(expected)));
            }
        }
    }
    // A measured transfer of 0 cannot be scaled: that kernel keeps its weight.
    {
        auto zero = transfers;
        auto &[op0, t0] = *zero[0].begin();
        t0.transferUs = 0;
        std::vector<std::vector<int64_t>> matched;
        const auto weights = jobWhatIfAllWeights(m_slowColl, use, zero, {rule("coll=allreduce=median")}, matched);
        QCOMPARE(weights[0][size_t(t0.edge)], m_slowColl[0].criticalPath.edges[size_t(t0.edge)].weightUs);
    }
    // Not joined (no transfers known): the kernels' own times, each set to the median
    // of all the allreduce kernels' own times.
    {
        std::vector<double> own;
        for (size_t i = 0; i < transfers.size(); ++i)
            for (const auto &[op, t] : transfers[i])
                own.push_back(m_slowColl[i].criticalPath.edges[size_t(t.edge)].weightUs);
        std::sort(own.begin(), own.end());
        const double ownMedian = (own[11] + own[12]) / 2;
        std::vector<std::vector<int64_t>> matched;
        const auto weights = jobWhatIfAllWeights(m_slowColl, use, JobTransfers(m_slowColl.size()),
                                                 {rule("coll=allreduce=median")}, matched);
        for (size_t i = 0; i < transfers.size(); ++i)
            for (const auto &[op, t] : transfers[i])
                QCOMPARE(weights[i][size_t(t.edge)], ownMedian);
    }
    // Each rank's own critical path that runs through the slow instance loses its
    // excess, 360 us within 1 %; none gets longer than the others' jitter (6 x 1 us).
    const JobAnalysis job = analyze(m_slowColl, {"coll=allreduce=median"});
    QVERIFY2(job.whatIf && job.whatIf->ok, job.whatIf ? job.whatIf->error.c_str() : "");
    int shrunk = 0;
    for (const JobWhatIfRank &r : job.whatIf->ranks) {
        QVERIFY2(r.projectedUs <= r.baselineUs + 6.0,
                 qPrintable(QString("rank %1: %2 -> %3").arg(r.rank).arg(r.baselineUs).arg(r.projectedUs)));
        shrunk += std::fabs(r.baselineUs - r.projectedUs - 360.0) <= 3.6 ? 1 : 0;
    }
    QVERIFY(shrunk >= 1);
    QVERIFY2(job.whatIf->projectedUs <= job.whatIf->baselineUs + 6.0,
             qPrintable(QString("%1 vs %2").arg(job.whatIf->projectedUs).arg(job.whatIf->baselineUs)));
    // A collective name the job does not have matches nothing.
    const JobAnalysis none = analyze(m_slowColl, {"coll=reduce_scatter=median"});
    QVERIFY(none.whatIf && !none.whatIf->ok);
    QVERIFY2(none.whatIf->error.find("matches nothing") != std::string::npos, none.whatIf->error.c_str());
}

void TestWhatIfRelative::jobStepAndPg()
{
    // Every rank's critical-path graph is its first ProfilerStep's window.
    const int64_t step = m_even.front().criticalPath.windowStep;
    QVERIFY(step >= 0);
    for (const RankSummary &s : m_even) {
        int64_t coll = 0, collInStep = 0, ops = 0, opsInStep = 0;
        for (const RankCpOp &op : s.criticalPath.ops) {
            const bool isColl = jobWhatIfMatches(rule("coll=allreduce*1").selector, s, op);
            coll += isColl;
            collInStep += isColl && jobWhatIfMatches(rule("step=" + std::to_string(step) + "&pg=0*1").selector, s, op);
            QVERIFY(!jobWhatIfMatches(rule("pg=1*1").selector, s, op));
            // Without the summary, coll=, pg= and step= hold for nothing.
            QVERIFY(!jobWhatIfMatches(rule("coll=allreduce*1").selector, op, s.rank));
            ++ops;
            opsInStep += jobWhatIfMatches(rule("step=" + std::to_string(step) + "*1").selector, s, op);
            QVERIFY(!jobWhatIfMatches(rule("step=" + std::to_string(step + 100) + "*1").selector, s, op));
        }
        QVERIFY(coll > 0);
        QCOMPARE(collInStep, coll); // every allreduce of the window, in group "0"
        QVERIFY(opsInStep > 0 && opsInStep <= ops);
    }
    // In the job: step=N of the window matches; another step number nothing.
    const JobAnalysis in = analyze(m_even, {"step=" + std::to_string(step) + "&compute*0.5"});
    QVERIFY2(in.whatIf && in.whatIf->ok, in.whatIf ? in.whatIf->error.c_str() : "");
    QVERIFY(in.whatIf->projectedUs < in.whatIf->baselineUs);
    const JobAnalysis out = analyze(m_even, {"step=" + std::to_string(step + 100) + "&compute*0.5"});
    QVERIFY(out.whatIf && !out.whatIf->ok);
    QVERIFY2(out.whatIf->error.find("matches nothing") != std::string::npos, out.whatIf->error.c_str());
    const JobAnalysis pg = analyze(m_even, {"pg=0=median"});
    QVERIFY2(pg.whatIf && pg.whatIf->ok, pg.whatIf ? pg.whatIf->error.c_str() : "");
    QVERIFY(pg.whatIf->rules[0].matched > 0);
    QCOMPARE(pg.whatIf->rules[0].matched, analyze(m_even, {"coll=allreduce*1"}).whatIf->rules[0].matched);
}

QTEST_GUILESS_MAIN(TestWhatIfRelative)
#include "tst_whatifrelative.moc"
