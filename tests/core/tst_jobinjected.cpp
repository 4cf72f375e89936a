// SPDX-License-Identifier: MIT
// Issue 20 on generated jobs whose causes are injected, so the truth is known: a
// rank that starts late (start skew at the window edge, not a straggler), one
// rank's kernel slowed (the root cause, its excess, its delay cost, on the job
// path), and pairs of ranks where a wait hands the lateness on (propagation).
#include "job/jobinternal.h"
#include "jobtestutil.h"
#include "tracegen.h"

#include <QtTest>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

using namespace syncscope;

namespace {

const char *const kLoss = "MeanOps";           // the loss kernel: once per step, before the first bucket
const char *const kRelu = "threshold_kernel_impl"; // ReLU backward: once per layer

std::vector<RankSummary> generate(const tracegen::JobOptions &o)
{
    std::vector<RankSummary> out;
    for (const auto &rank : tracegen::generateJob(o).ranks)
        out.push_back(jobtest::summarize(rank.devicePath, rank.hostPath));
    return out;
}

const RankSummary &summaryOf(const std::vector<RankSummary> &ranks, int64_t rank)
{
    return *std::find_if(ranks.begin(), ranks.end(), [&](const RankSummary &s) { return s.rank == rank; });
}

// The collective of `job` where `rank` came last that cost the most waits.
const MatchedCollective *worstBy(const JobAnalysis &job, int64_t rank)
{
    const MatchedCollective *worst = nullptr;
    for (const MatchedCollective &c : job.collectives)
        if (c.lastArrivalRank == rank && (!worst || waitCausedUs(c) > waitCausedUs(*worst)))
            worst = &c;
    return worst;
}

} // namespace

class TestJobInjected : public QObject
{
    Q_OBJECT
private slots:
    void startSkewIsNotAStraggler_data();
    void startSkewIsNotAStraggler();
    void slowedKernelIsTheRootCause_data();
    void slowedKernelIsTheRootCause();
    void propagationChain_data();
    void propagationChain();
    void extremeClockOffsetsStayDefined_data();
    void extremeClockOffsetsStayDefined();
    void negativeDurationsCauseNoWaits();
};

void TestJobInjected::startSkewIsNotAStraggler_data()
{
    QTest::addColumn<int>("ranks");
    QTest::addColumn<int>("late");
    QTest::addColumn<double>("skewUs");
    QTest::newRow("8 ranks, rank 3 starts 2 ms late") << 8 << 3 << 2000.0;
    QTest::newRow("4 ranks, rank 1 starts 0.8 ms late") << 4 << 1 << 800.0;
    QTest::newRow("8 ranks, rank 7 starts 5 ms late") << 8 << 7 << 5000.0;
}

void TestJobInjected::startSkewIsNotAStraggler()
{
    QFETCH(int, ranks);
    QFETCH(int, late);
    QFETCH(double, skewUs);
    tracegen::JobOptions o;
    o.dir = testutil::tempDir() + "/skew" + std::to_string(ranks) + "_" + std::to_string(late);
    o.ranks = ranks;
    o.steps = 1;
    o.layers = 4;
    o.startSkewRank = late;
    o.startSkewUs = skewUs;
    const JobAnalysis job = analyzeJob(generate(o), {});
    // The first collective waits for the late rank: its lateness is start skew at the
    // window edge, the injected amount within 10 %.
    const MatchedCollective &first = job.collectives.front();
    QCOMPARE(first.lastArrivalRank, int64_t(late));
    QVERIFY(first.windowEdge);
    const RankLateness &l = first.lateness.at(late);
    QVERIFY2(std::abs(l.startSkewUs - skewUs) <= 0.1 * skewUs, qPrintable(QString::number(l.startSkewUs)));
    QVERIFY(l.workExcessUs <= 0.1 * l.lateUs);
    // Not a straggler: listed for start skew instead, and no op of it is blamed.
    QVERIFY(std::find(job.stragglers.begin(), job.stragglers.end(), int64_t(late)) == job.stragglers.end());
    QVERIFY(!job.startSkewed.empty());
    QCOMPARE(job.startSkewed.front(), int64_t(late));
    for (const DelayCost &d : job.delayCosts)
        QVERIFY2(d.rank != late || d.directUs + d.propagatedUs < 0.05 * waitCausedUs(first), d.op.c_str());
    // The step walked back ends on the late rank: the time before its start is the skew.
    const JobStepTime &st = job.criticalPath.stepTime;
    QVERIFY(st.valid);
    QVERIFY2(std::abs(st.outsideWindowUs - skewUs) <= 0.1 * skewUs, qPrintable(QString::number(st.outsideWindowUs)));
    QVERIFY(std::abs(job.criticalPath.weightUs + st.outsideWindowUs - st.stepTimeUs) <= 0.01 * st.stepTimeUs);
}

void TestJobInjected::slowedKernelIsTheRootCause_data()
{
    QTest::addColumn<int>("ranks");
    QTest::addColumn<int>("slow");
    QTest::addColumn<QString>("kernel");
    QTest::addColumn<double>("scale");
    QTest::newRow("8 ranks, rank 3's loss kernel x300") << 8 << 3 << kLoss << 300.0;
    QTest::newRow("4 ranks, rank 0's loss kernel x150") << 4 << 0 << kLoss << 150.0;
    QTest::newRow("8 ranks, rank 6's ReLU backward x60") << 8 << 6 << kRelu << 60.0;
    QTest::newRow("6 ranks, rank 5's ReLU backward x30") << 6 << 5 << kRelu << 30.0;
}

void TestJobInjected::slowedKernelIsTheRootCause()
{
    QFETCH(int, ranks);
    QFETCH(int, slow);
    QFETCH(QString, kernel);
    QFETCH(double, scale);
    tracegen::JobOptions o;
    o.dir = testutil::tempDir() + "/slow" + std::to_string(ranks) + "_" + std::to_string(slow) + kernel.toStdString();
    o.ranks = ranks;
    o.steps = 2;
    o.layers = 4;
    o.slowRank = slow;
    o.slowKernel = kernel.toStdString();
    o.slowKernelScale = scale;
    const std::vector<RankSummary> summaries = generate(o);
    const JobAnalysis job = analyzeJob(summaries, {});
    QVERIFY(!job.stragglers.empty());
    QCOMPARE(job.stragglers.front(), int64_t(slow));
    const MatchedCollective *c = worstBy(job, slow);
    QVERIFY(c);
    QVERIFY(!c->windowEdge);
    // The truth: the slowed kernels of the interval before it ran (1 - 1/scale) of
    // their duration longer than they would have.
    const RankSummary &s = summaryOf(summaries, slow);
    bool fromWindowStart = false;
    const size_t pos = size_t(std::find(c->ranks.begin(), c->ranks.end(), slow) - c->ranks.begin());
    const int64_t from = syncscope::job::previousSyncNs(s, c->index[pos], fromWindowStart);
    const int64_t to = s.collectives[c->index[pos]].startNs;
    double truth = 0;
    std::string name;
    for (const RankOp &op : s.ops)
        if (op.gpu && op.startNs >= from && op.startNs < to && s.opNames[op.name].find(kernel.toStdString()) != std::string::npos) {
            truth += double(op.durNs) / 1000.0 * (1.0 - 1.0 / scale);
            name = s.opNames[op.name];
        }
    QVERIFY(truth > 0);
    // Named with its excess within 10 %: the op itself, or all its occurrences by name.
    const double found = !c->rootCauses.empty() && c->rootCauses.front().op == name && c->topOpByName != name
                             ? c->rootCauses.front().excessUs
                             : (c->topOpByName == name ? c->topOpExcessUs : 0.0);
    QVERIFY2(std::abs(found - truth) <= 0.1 * truth,
             qPrintable(QString("%1: %2 us found, %3 us injected").arg(QString::fromStdString(name)).arg(found).arg(truth)));
    QCOMPARE(c->rootCauses.front().rank, int64_t(slow));
    // It carries the largest delay cost, and the job's critical path runs through it.
    QVERIFY(!job.delayCosts.empty());
    QCOMPARE(job.delayCosts.front().rank, int64_t(slow));
    QCOMPARE(job.delayCosts.front().op, name);
    bool onPath = false;
    for (const JobCriticalPathRow &row : job.criticalPath.path)
        onPath |= row.rank == slow && row.op == name;
    QVERIFY2(onPath, "the job critical path misses the slowed kernel");
    const JobStepTime &st = job.criticalPath.stepTime;
    QVERIFY(std::abs(st.workUs + st.waitUs + st.outsideWindowUs - st.stepTimeUs) <= 0.01 * st.stepTimeUs);
}

void TestJobInjected::propagationChain_data()
{
    QTest::addColumn<int>("ranks");
    QTest::addColumn<int>("slow");
    QTest::newRow("4 ranks in pairs, rank 1 slowed") << 4 << 1;
    QTest::newRow("8 ranks in pairs, rank 4 slowed") << 8 << 4;
}

void TestJobInjected::propagationChain()
{
    // Pairs {0,1},{2,3},... then {1,2},{3,0},...: the slowed rank's partner waits at the
    // first collective and, leaving it late, makes its next partner wait too. That second
    // wait is the slowed kernel's propagated cost (Scalasca), not the partner's fault.
    QFETCH(int, ranks);
    QFETCH(int, slow);
    tracegen::JobOptions o;
    o.dir = testutil::tempDir() + "/pairs" + std::to_string(ranks) + "_" + std::to_string(slow);
    o.ranks = ranks;
    o.steps = 1;
    o.layers = 4;
    o.pairs = true;
    o.slowRank = slow;
    o.slowKernel = kLoss;
    o.slowKernelScale = 400;
    const JobAnalysis job = analyzeJob(generate(o), {});
    for (const MatchedCollective &c : job.collectives)
        QCOMPARE(c.ranks.size(), size_t(2));
    const int partner = tracegen::jobPartner(o, slow, 0);
    const int next = tracegen::jobPartner(o, partner, 1);
    // The partner's late arrival at its second collective carries on the first one's end.
    const MatchedCollective *hop = nullptr;
    for (const MatchedCollective &c : job.collectives)
        if (c.lastArrivalRank == partner && std::find(c.ranks.begin(), c.ranks.end(), next) != c.ranks.end())
            hop = &c;
    QVERIFY(hop);
    const RankLateness &l = hop->lateness.at(partner);
    QVERIFY2(l.startSkewUs >= 0.9 * l.lateUs, qPrintable(QString("%1 of %2").arg(l.startSkewUs).arg(l.lateUs)));
    QVERIFY(!hop->windowEdge);
    QVERIFY(hop->skewFrom >= 0);
    const MatchedCollective &from = job.collectives[size_t(hop->skewFrom)];
    QCOMPARE(from.lastArrivalRank, int64_t(slow));
    // The slowed kernel is charged the first wait directly and the second as propagated.
    QVERIFY(!job.delayCosts.empty());
    const DelayCost &top = job.delayCosts.front();
    QCOMPARE(top.rank, int64_t(slow));
    QVERIFY2(top.op.find(kLoss) != std::string::npos, top.op.c_str());
    QVERIFY2(top.directUs >= 0.9 * waitCausedUs(from) * from.lateness.at(slow).workExcessUs / from.lateness.at(slow).lateUs,
             qPrintable(QString::number(top.directUs)));
    // The slowed rank itself left the first collective late too (it came last there),
    // so its next partner's wait is the same kernel's propagated cost.
    const int own = tracegen::jobPartner(o, slow, 1);
    const MatchedCollective *self = nullptr;
    for (const MatchedCollective &c : job.collectives)
        if (c.lastArrivalRank == slow && std::find(c.ranks.begin(), c.ranks.end(), own) != c.ranks.end())
            self = &c;
    QVERIFY(self);
    QCOMPARE(self->skewFrom, hop->skewFrom);
    const RankLateness &m = self->lateness.at(slow);
    const double carried = waitCausedUs(*hop) * l.startSkewUs / l.lateUs + waitCausedUs(*self) * m.startSkewUs / m.lateUs;
    QVERIFY2(top.propagatedUs >= 0.9 * carried,
             qPrintable(QString("%1 propagated of %2").arg(top.propagatedUs).arg(carried)));
    // The partner is no straggler: its lateness there was not its work.
    QVERIFY(std::find(job.stragglers.begin(), job.stragglers.end(), int64_t(partner)) == job.stragglers.end());
}

// Issue 22, class 3: rank clocks at the two ends of the timestamp range the reader
// accepts ([-2^60, 2^62] ns) are still one job: alignment removes the offsets, every
// figure is finite and the step is the unshifted one (runs under UBSan in CI).
void TestJobInjected::extremeClockOffsetsStayDefined_data()
{
    QTest::addColumn<bool>("align");
    QTest::addColumn<int>("seed");
    for (int seed = 1; seed <= 4; ++seed) {
        QTest::addRow("aligned, seed %d", seed) << true << seed;
        QTest::addRow("trusted clocks, seed %d", seed) << false << seed;
    }
}

void TestJobInjected::extremeClockOffsetsStayDefined()
{
    QFETCH(bool, align);
    QFETCH(int, seed);
    tracegen::JobOptions o;
    o.dir = testutil::tempDir() + "/extreme" + (align ? "a" : "t") + std::to_string(seed);
    o.seed = uint64_t(seed);
    o.ranks = 4;
    o.slowRank = 2;
    o.slowKernel = kRelu;
    o.slowKernelScale = 3;
    std::vector<RankSummary> ranks = generate(o);
    JobOptions options;
    options.clocks = align ? ClockMode::Align : ClockMode::Trust;
    const JobAnalysis plain = analyzeJob(ranks, options);
    QVERIFY(plain.criticalPath.valid);
    constexpr int64_t kMax = int64_t(1) << 62, kMin = -(int64_t(1) << 60);
    jobtest::shiftClock(ranks[0], kMax - ranks[0].traceEndNs);     // ends at the top of the range
    jobtest::shiftClock(ranks[1], kMin - ranks[1].traceStartNs);   // starts at the bottom
    jobtest::shiftClock(ranks[3], kMax / 2 - ranks[3].traceStartNs);
    WhatIfRule rule;
    std::string error;
    QVERIFY2(parseWhatIfRule("rank=2*0.5", rule, error), error.c_str());
    options.whatIf = {rule};
    const JobAnalysis job = analyzeJob(ranks, options);
    auto finite = [](double v) { return std::isfinite(v); };
    for (const auto &r : job.ranks)
        QVERIFY(finite(r.clockOffsetUs) && finite(r.collectiveWaitUs) && finite(r.startOffsetUs) &&
                finite(r.workDelayCostUs));
    for (const auto &c : job.collectives) {
        QVERIFY(finite(c.spreadUs));
        for (const auto &[rank, l] : c.lateness)
            QVERIFY(rank >= 0 && l.lateUs >= 0 && finite(l.lateUs) && finite(l.startSkewUs) && finite(l.workExcessUs));
    }
    for (const auto &row : job.criticalPath.path)
        QVERIFY(finite(row.startUs) && finite(row.durUs) && row.durUs >= 0);
    QVERIFY(finite(job.criticalPath.weightUs));
    if (align) {
        // The offsets are taken out again: the same step as before the shift, to what a
        // double holds near 2^62 ns (1,024 ns per value; a figure adds a few of them).
        constexpr double kUlpUs = 1.024;
        QVERIFY(job.criticalPath.valid);
        QVERIFY2(std::abs(job.criticalPath.stepTime.stepTimeUs - plain.criticalPath.stepTime.stepTimeUs) < 4 * kUlpUs,
                 qPrintable(QString::number(job.criticalPath.stepTime.stepTimeUs)));
        QVERIFY(job.whatIf);
        QVERIFY2(job.whatIf->ok, job.whatIf->error.c_str());
        QVERIFY2(finite(job.whatIf->projectedUs) && job.whatIf->projectedUs <= job.whatIf->baselineUs + 8 * kUlpUs,
                 qPrintable(QString::number(job.whatIf->projectedUs) + " > " + QString::number(job.whatIf->baselineUs)));
    }
}

// A negative duration (the reader takes it, warns, and draws it with zero width) is
// no work: NCCL kernels written with dur = -10^9 us on one rank end where they start,
// so they move no clock and make no rank "cause" waits beyond what the step holds
// (they made rank 1 "cause" 18,000 s of waits in a 1.5 ms step).
void TestJobInjected::negativeDurationsCauseNoWaits()
{
    tracegen::JobOptions o;
    o.dir = testutil::tempDir() + "/negdur";
    o.ranks = 4;
    o.gzip = false;
    const tracegen::JobResult gen = tracegen::generateJob(o);
    std::vector<RankSummary> ranks;
    for (const auto &rank : gen.ranks) {
        if (&rank == &gen.ranks[1]) {
            nlohmann::json trace = nlohmann::json::parse(testutil::readText(rank.devicePath));
            int negative = 0;
            for (auto &e : trace["traceEvents"])
                if (e.value("cat", "") == "kernel" && e.value("name", "").find("nccl") != std::string::npos) {
                    e["dur"] = -1e9;
                    ++negative;
                }
            QVERIFY(negative > 0);
            testutil::writeText(rank.devicePath, trace.dump());
        }
        ranks.push_back(jobtest::summarize(rank.devicePath, rank.hostPath));
    }
    const JobAnalysis job = analyzeJob(ranks, {});
    QVERIFY(job.criticalPath.valid);
    const double step = job.criticalPath.stepTime.stepTimeUs;
    QVERIFY2(step > 0 && step < 1e5, qPrintable(QString::number(step)));
    for (const auto &r : job.ranks)
        QVERIFY2(std::abs(r.clockOffsetUs) < 1e4 && r.collectiveWaitCausedUs <= step * o.ranks &&
                     r.collectiveWaitUs <= step,
                 qPrintable(QString::number(r.collectiveWaitCausedUs)));
    for (const auto &row : job.criticalPath.path)
        QVERIFY(row.durUs >= 0);
}

QTEST_GUILESS_MAIN(TestJobInjected)
#include "tst_jobinjected.moc"
