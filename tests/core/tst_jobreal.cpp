// SPDX-License-Identifier: MIT
// The job analysis on a real 8-rank job (PARAM DLRM: ncclKernel_* names, no
// process-group args): collectives matched by order, ends agree, and ranks
// shifted by known offsets are put back.
#include "jobtestutil.h"

#include <QtTest>

#include <algorithm>
#include <cmath>

using namespace syncscope;

class TestJobReal : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void collectivesMatched();
    void endsAgree();
    void shiftedRanksRecovered();
    void clockModes();
    void hostsMoveAsOne();
    void hostFromFileName();
    void referenceRankOption();
    void criticalPath();
    void latenessIsStartSkewAtTheWindowEdge();
    void slowedOpIsTheRootCause_data();
    void slowedOpIsTheRootCause();

private:
    std::vector<RankSummary> m_ranks;
    JobAnalysis m_job;
};

void TestJobReal::initTestCase()
{
    m_ranks = jobtest::dlrmJob();
    m_job = analyzeJob(m_ranks, {});
}

void TestJobReal::collectivesMatched()
{
    for (const RankSummary &s : m_ranks) {
        QCOMPARE(s.worldSize.value_or(-1), int64_t(8));
        QCOMPARE(s.collectives.size(), size_t(8)); // 3 all-reduce + 5 send/recv (all_to_all)
        for (const RankCollective &c : s.collectives) {
            QVERIFY(c.kernelName.rfind("ncclKernel_", 0) == 0);
            QVERIFY(c.processGroup.empty());
            QCOMPARE(c.seq, int64_t(-1));
            QVERIFY(c.collectiveName == "allreduce" || c.collectiveName == "sendrecv");
        }
    }
    QCOMPARE(m_job.collectives.size(), size_t(8));
    int allreduce = 0;
    for (const MatchedCollective &c : m_job.collectives) {
        QCOMPARE(c.matchedBy, std::string("kernel_order"));
        QCOMPARE(c.ranks.size(), size_t(8));
        QVERIFY(c.complete);
        allreduce += c.name == "allreduce" ? 1 : 0;
    }
    QCOMPARE(allreduce, 3);
    QVERIFY(!m_job.diagnostics.find("job.unmatched_collectives"));
    QVERIFY(!m_job.diagnostics.find("job.mismatched_collective_counts"));
}

void TestJobReal::endsAgree()
{
    // One machine: the clocks agree already, and the ends coincide within a few µs
    // while the starts spread by milliseconds.
    double maxStartSpread = 0;
    for (const MatchedCollective &c : m_job.collectives) {
        double lo = 1e300, hi = -1e300;
        for (const auto &[r, e] : c.endUs) {
            lo = std::min(lo, e);
            hi = std::max(hi, e);
        }
        QVERIFY2(hi - lo < 10.0, qPrintable(QString("%1: ends spread %2 us").arg(c.name.c_str()).arg(hi - lo)));
        maxStartSpread = std::max(maxStartSpread, c.spreadUs);
    }
    QVERIFY(maxStartSpread > 1000.0);
    for (const RankJobStats &s : m_job.ranks) {
        QVERIFY2(std::abs(s.clockOffsetUs) < 10.0, qPrintable(QString::number(s.clockOffsetUs)));
        QCOMPARE(s.offsetSamples, int64_t(8));
        QCOMPARE(s.collectives, int64_t(8));
    }
    QVERIFY(!m_job.stragglers.empty());
}

void TestJobReal::shiftedRanksRecovered()
{
    // Rank r's clock reads delta_r later (hosts hours and milliseconds apart): as if
    // each rank ran on a host of its own, whose name the traces do not give.
    const int64_t deltaNs[8] = {0, 3'600'000'000'123, -2'500'000'000, 7'000'456, -1'234'567'891, 42'000, -17, 5'000'000'000'000};
    std::vector<RankSummary> hostless = m_ranks;
    for (RankSummary &s : hostless)
        s.host.clear();
    std::vector<RankSummary> shifted = hostless;
    for (int r = 0; r < 8; ++r)
        jobtest::shiftClock(shifted[r], deltaNs[r]);
    JobOptions align;
    align.clocks = ClockMode::Align;
    const JobAnalysis base = analyzeJob(hostless, align);
    const JobAnalysis job = analyzeJob(shifted, align);
    QCOMPARE(job.collectives.size(), base.collectives.size());
    for (int r = 0; r < 8; ++r) {
        const double expected = jobtest::stats(base, r).clockOffsetUs - double(deltaNs[r]) / 1000.0;
        const double got = jobtest::stats(job, r).clockOffsetUs;
        QVERIFY2(std::abs(got - expected) < 0.01, qPrintable(QString("rank %1: %2 vs %3").arg(r).arg(got).arg(expected)));
    }
    // Waits and the last arrivers do not depend on the clocks.
    for (size_t k = 0; k < job.collectives.size(); ++k) {
        QCOMPARE(job.collectives[k].lastArrivalRank, base.collectives[k].lastArrivalRank);
        for (const auto &[r, w] : job.collectives[k].waitUs)
            QVERIFY(std::abs(w - base.collectives[k].waitUs.at(r)) < 0.01);
    }
    // --clocks auto shifts the ranks whose clocks are off by more than the
    // noise of their estimates and keeps the others' (-17 ns here).
    JobOptions autoClocks;
    autoClocks.clocks = ClockMode::Auto;
    const JobAnalysis autoJob = analyzeJob(shifted, autoClocks);
    for (int r = 1; r < 8; ++r) {
        const RankJobStats &s = jobtest::stats(autoJob, r);
        const bool off = std::abs(s.fittedOffsetUs) > std::max(kAutoClockFloorUs, kAutoClockSpreads * s.clockSpreadUs);
        QCOMPARE(QString::fromStdString(s.clock), QString(off ? "aligned" : "trusted"));
        QCOMPARE(s.clockOffsetUs, off ? s.fittedOffsetUs : 0.0);
        if (std::llabs(deltaNs[r]) >= 1'000'000) // a millisecond or more off: always shifted
            QCOMPARE(QString::fromStdString(s.clock), QString("aligned"));
    }
    QCOMPARE(QString::fromStdString(jobtest::stats(autoJob, 6).clock), QString("trusted"));
    QCOMPARE(QString::fromStdString(jobtest::stats(autoJob, 0).clock), QString("reference"));
    // Unaligned, the ends are hours apart and the waits meaningless.
    JobOptions raw;
    raw.clocks = ClockMode::Trust;
    const JobAnalysis unaligned = analyzeJob(shifted, raw);
    QVERIFY(unaligned.collectives.front().spreadUs > 1e6 || unaligned.collectives.size() != job.collectives.size());
}

// PARAM's DLRM job ran on one host: its ranks share a clock. The traces say so (8 GPUs
// seen, rank r on GPU r: "node@0"), so align keeps every clock too (the fit's offsets of a
// few µs are noise, reported as fitted_offset_us). Without the host: auto keeps every
// rank's clock, align shifts by the noise, trust fits nothing.
void TestJobReal::clockModes()
{
    for (const RankJobStats &s : m_job.ranks) {
        QCOMPARE(QString::fromStdString(s.host), QString("node@0"));
        QCOMPARE(s.clockOffsetUs, 0.0);
        QCOMPARE(QString::fromStdString(s.clock), QString(s.rank == 0 ? "reference" : "trusted"));
    }
    QVERIFY(m_job.diagnostics.find("job.clocks_by_host"));
    std::vector<RankSummary> hostless = m_ranks;
    for (RankSummary &s : hostless)
        s.host.clear();
    JobOptions autoClocks, trust;
    autoClocks.clocks = ClockMode::Auto;
    trust.clocks = ClockMode::Trust;
    const JobAnalysis au = analyzeJob(hostless, autoClocks), t = analyzeJob(hostless, trust);
    const JobAnalysis a = analyzeJob(hostless, {}); // align: the default
    QCOMPARE(a.clockMode, ClockMode::Align);
    bool anyShift = false;
    for (size_t i = 0; i < m_ranks.size(); ++i) {
        const bool ref = au.ranks[i].rank == au.clockReferenceRank;
        QCOMPARE(QString::fromStdString(au.ranks[i].clock), QString(ref ? "reference" : "trusted"));
        QCOMPARE(au.ranks[i].clockOffsetUs, 0.0);
        QCOMPARE(a.ranks[i].clockOffsetUs, a.ranks[i].fittedOffsetUs);
        QCOMPARE(QString::fromStdString(a.ranks[i].clock), QString(ref ? "reference" : "aligned"));
        anyShift = anyShift || a.ranks[i].clockOffsetUs != 0;
        QCOMPARE(t.ranks[i].clockOffsetUs, 0.0);
        QCOMPARE(t.ranks[i].offsetSamples, int64_t(0));
    }
    QVERIFY(anyShift); // align moves ranks by the noise auto leaves alone
    QVERIFY(au.diagnostics.find("job.clocks_kept"));
    QVERIFY(parseClockMode("trust", trust.clocks) && !parseClockMode("Trust", trust.clocks) &&
            !parseClockMode("", trust.clocks));
    QCOMPARE(QString(clockModeName(ClockMode::Align)), QString("align"));
}

// Two hosts of four ranks: host b's clock reads 5 s later, and rank 5's collective ends
// come 40 µs late on top (its own fit is off by that). The host moves as one, by the
// median of its ranks' fits: rank 5 is not shifted on its own.
void TestJobReal::hostsMoveAsOne()
{
    std::vector<RankSummary> ranks = m_ranks;
    for (int r = 0; r < 8; ++r) {
        ranks[r].host = r < 4 ? "a" : "b";
        if (r >= 4)
            jobtest::shiftClock(ranks[r], 5'000'000'000);
    }
    for (RankCollective &c : ranks[5].collectives)
        c.endNs += 40'000;
    const JobAnalysis job = analyzeJob(ranks, {});
    const double hostB = jobtest::stats(job, 4).clockOffsetUs;
    QVERIFY2(std::abs(hostB + 5e6) < 10, qPrintable(QString::number(hostB)));
    for (int r = 0; r < 8; ++r) {
        const RankJobStats &s = jobtest::stats(job, r);
        QCOMPARE(QString::fromStdString(s.host), QString(r < 4 ? "a" : "b"));
        QCOMPARE(s.clockOffsetUs, r < 4 ? 0.0 : hostB);
        if (r > 0)
            QCOMPARE(QString::fromStdString(s.clock), QString(r < 4 ? "trusted" : "aligned"));
    }
    QVERIFY(std::abs(jobtest::stats(job, 5).fittedOffsetUs - hostB + 40) < 10); // its own fit
    QVERIFY(job.diagnostics.find("job.clocks_by_host"));
    // The waits are those of the unshifted job: the 40 µs went nowhere.
    const JobAnalysis base = analyzeJob(m_ranks, {});
    for (size_t k = 0; k < job.collectives.size(); ++k)
        for (const auto &[r, w] : job.collectives[k].waitUs)
            QVERIFY(std::abs(w - base.collectives[k].waitUs.at(r)) < 10);
}

void TestJobReal::hostFromFileName()
{
    QCOMPARE(hostFromTraceName("./log/gpu-node-3_41234.1699999999123.pt.trace.json", 41234), std::string("gpu-node-3"));
    QCOMPARE(hostFromTraceName("/x/a_b_7.1.pt.trace.json.gz", 7), std::string("a_b"));
    QCOMPARE(hostFromTraceName("/x/a_b_7.1.pt.trace.json.gz", -1), std::string("a_b"));
    QCOMPARE(hostFromTraceName("./kineto/worker0_step_12.1694128201545.pt.trace.json", 991), std::string());
    QCOMPARE(hostFromTraceName("host_12.pt.trace.json", 12), std::string()); // no <ms> part
    QCOMPARE(hostFromTraceName("/tmp/libkineto_activities_1102.json", 1102), std::string());
    QCOMPARE(hostFromTraceName("_12.5.pt.trace.json", 12), std::string());
}

void TestJobReal::referenceRankOption()
{
    JobOptions o;
    o.clockReferenceRank = 3;
    const JobAnalysis job = analyzeJob(m_ranks, o);
    QCOMPARE(job.clockReferenceRank, int64_t(3));
    QCOMPARE(jobtest::stats(job, 3).clockOffsetUs, 0.0);
    // Offsets relative to rank 3 are the rank-0-relative ones minus rank 3's.
    for (int r = 0; r < 8; ++r)
        QVERIFY(std::abs(jobtest::stats(job, r).clockOffsetUs - (jobtest::stats(m_job, r).clockOffsetUs -
                                                                  jobtest::stats(m_job, 3).clockOffsetUs)) < 5.0);
}

void TestJobReal::criticalPath()
{
    // The ranks' ProfilerStep windows: the job path is valid and names ranks and collectives.
    const JobCriticalPath &cp = m_job.criticalPath;
    QVERIFY2(cp.valid, cp.reason.c_str());
    QVERIFY(!cp.path.empty());
    for (const JobCriticalPathRow &row : cp.path)
        QVERIFY(row.rank >= 0 && row.rank < 8);
    // Issue 20: the path is the step's walk through the waits (rank 7 -> 5 -> 4 here),
    // not a CPU chain of one rank: with the start skew before it, it is the job's step.
    const JobStepTime &st = cp.stepTime;
    QVERIFY(std::abs(cp.weightUs + st.outsideWindowUs - st.stepTimeUs) <= 0.01 * st.stepTimeUs);
    QCOMPARE(cp.ranksOnPath, (std::vector<int64_t>{7, 5, 4}));
    for (const RankSummary &r : m_ranks) // (the joined-graph path was 5.7 ms, shorter than rank 3's 11.2 ms)
        QVERIFY(cp.weightUs >= r.criticalPath.weightUs);
    std::vector<int64_t> segmentRanks;
    for (const JobPathSegment &g : st.segments)
        if (segmentRanks.empty() || segmentRanks.back() != g.rank)
            segmentRanks.push_back(g.rank);
    QCOMPARE(segmentRanks, cp.ranksOnPath);
    for (const JobCriticalPathRow &row : cp.path)
        QVERIFY(std::find(cp.ranksOnPath.begin(), cp.ranksOnPath.end(), row.rank) != cp.ranksOnPath.end());
    double pct = 0;
    for (const auto &[bound, p] : cp.summaryPct)
        pct += p;
    QVERIFY(std::abs(pct - 100.0) < 1e-6);
}

void TestJobReal::latenessIsStartSkewAtTheWindowEdge()
{
    // Issue 20: rank 7 arrives last at sendrecv #0 because it starts ProfilerStep#10
    // about 7.5 ms after the earliest ranks (its trace starts later too); the ~3.1-3.3 ms
    // of work before that collective is the same on every rank. That is start skew at
    // the window edge, not a slow rank.
    const MatchedCollective &first = m_job.collectives.front();
    QCOMPARE(first.name, std::string("sendrecv"));
    QCOMPARE(first.lastArrivalRank, int64_t(7));
    const RankLateness &l = first.lateness.at(7);
    QVERIFY2(l.startSkewUs > 7000 && l.startSkewUs > 0.9 * l.lateUs,
             qPrintable(QString("%1 of %2").arg(l.startSkewUs).arg(l.lateUs)));
    QVERIFY(l.workExcessUs < 500);
    QVERIFY(l.fromWindowStart);
    QVERIFY(first.windowEdge);
    // Later collectives have a previous collective: no window edge; their lateness is work.
    for (size_t k = 1; k < m_job.collectives.size(); ++k) {
        const MatchedCollective &c = m_job.collectives[k];
        QVERIFY(!c.windowEdge);
        const RankLateness &last = c.lateness.at(c.lastArrivalRank);
        QVERIFY(!last.fromWindowStart);
        QVERIFY2(last.workExcessUs >= 0.9 * last.lateUs, qPrintable(QString::number(k)));
    }
    // The parts add up for every rank of every collective, and the earliest arriver is 0.
    for (const MatchedCollective &c : m_job.collectives) {
        double minLate = 1e300;
        for (const auto &[r, x] : c.lateness) {
            QVERIFY(std::abs(x.startSkewUs + x.workExcessUs + x.unexplainedUs - x.lateUs) < 1e-6);
            QVERIFY(x.startSkewUs >= 0 && x.workExcessUs >= 0 && x.unexplainedUs >= 0);
            double earliest = 1e300;
            for (const auto &[q, a] : c.arrivalUs)
                earliest = std::min(earliest, a);
            QVERIFY(std::abs(x.lateUs - (c.arrivalUs.at(r) - earliest)) < 1e-6);
            minLate = std::min(minLate, x.lateUs);
        }
        QCOMPARE(minLate, 0.0);
    }
    // Stragglers by cause: rank 7 caused 35.6 ms of waits, 26 ms of them by starting
    // later; its extra work (9.5 ms) still makes it the top straggler. It is also the
    // only rank listed for start skew (the others' skews are clock noise).
    const RankJobStats &r7 = jobtest::stats(m_job, 7);
    QVERIFY(r7.startSkewCostUs > 25000 && r7.startSkewCostUs < 27000);
    QVERIFY(r7.workDelayCostUs > 8000 && r7.workDelayCostUs < 11000);
    QVERIFY(std::abs(r7.workDelayCostUs + r7.startSkewCostUs + r7.unexplainedCostUs - r7.collectiveWaitCausedUs) < 1e-6);
    QCOMPARE(m_job.stragglers.front(), int64_t(7));
    QCOMPARE(m_job.startSkewed, std::vector<int64_t>{7});
    for (int64_t r : m_job.stragglers)
        QVERIFY(jobtest::stats(m_job, r).workDelayCostUs >= 0.05 * jobtest::stats(m_job, r).collectiveWaitCausedUs);

    // Where the job's step went: work + collectives + before the window add up to the
    // step (earliest start to latest end), and the 7.5 ms before the window is rank 7's
    // start skew, where the walk back through the waits ends.
    const JobStepTime &st = m_job.criticalPath.stepTime;
    QVERIFY(st.valid);
    QVERIFY(std::abs(st.workUs + st.waitUs + st.outsideWindowUs - st.stepTimeUs) <= 0.01 * st.stepTimeUs);
    QVERIFY2(std::abs(st.outsideWindowUs - l.startSkewUs) < 1.0, qPrintable(QString::number(st.outsideWindowUs)));
    QCOMPARE(st.segments.front().rank, int64_t(7));
    for (size_t k = 1; k < st.segments.size(); ++k) // contiguous, in time order
        QVERIFY(std::abs(st.segments[k].startUs - st.segments[k - 1].endUs) < 1e-6);
}

void TestJobReal::slowedOpIsTheRootCause_data()
{
    QTest::addColumn<int>("rank");
    QTest::addColumn<int>("collective"); // the victim's collective index the slowed op precedes
    QTest::addColumn<double>("deltaMs");
    QTest::newRow("rank 2, before its 3rd collective, +3 ms") << 2 << 2 << 3.0;
    QTest::newRow("rank 5, before its 5th collective, +5 ms") << 5 << 4 << 5.0;
    QTest::newRow("rank 6, before its 7th collective, +2 ms") << 6 << 6 << 2.0;
    QTest::newRow("rank 0, before its 2nd collective, +4 ms") << 0 << 1 << 4.0;
}

void TestJobReal::slowedOpIsTheRootCause()
{
    // Issue 20: slow one CPU op on one rank consistently; the analysis must name that
    // rank and that op, with its excess within 10 %, as the root cause of the wait it
    // made at the next collective, and charge it the waits (delay cost).
    QFETCH(int, rank);
    QFETCH(int, collective);
    QFETCH(double, deltaMs);
    std::vector<RankSummary> ranks = m_ranks;
    size_t victim = 0;
    while (ranks[victim].rank != rank)
        ++victim;
    const RankSummary &v = ranks[victim];
    // The longest leaf CPU op between the launches of the collective before and this one.
    const int64_t from = collective > 0 ? v.collectives[size_t(collective - 1)].launchNs : v.ops.front().startNs;
    const int64_t to = v.collectives[size_t(collective)].launchNs;
    QVERIFY(from >= 0 && to > from);
    size_t op = v.ops.size();
    for (size_t k = 0; k < v.ops.size(); ++k) {
        const RankOp &o = v.ops[k];
        if (o.gpu || o.startNs < from || o.startNs + o.durNs >= to)
            continue;
        // An op whose time is its own work (not a copy or a wait for the GPU, which
        // differ between ranks by themselves).
        const std::string n = v.opNames[o.name];
        bool leaf = true;
        for (const char *waits : {"copy", "aten::to", "item", "ait", "ync", "scalar", "empty"})
            leaf &= n.find(waits) == std::string::npos;
        for (const RankOp &x : v.ops)
            leaf &= &x == &o || x.gpu || !(x.startNs >= o.startNs && x.startNs < o.startNs + o.durNs);
        if (leaf && (op == v.ops.size() || o.durNs > v.ops[op].durNs))
            op = k;
    }
    QVERIFY(op < v.ops.size());
    const std::string name = v.opNames[v.ops[op].name];
    const int64_t deltaNs = std::llround(deltaMs * 1e6);
    jobtest::slowOp(ranks, m_job, victim, op, deltaNs);
    const JobAnalysis job = analyzeJob(ranks, {});
    const MatchedCollective *c = nullptr;
    for (const MatchedCollective &m : job.collectives)
        for (size_t p = 0; p < m.ranks.size(); ++p)
            if (m.ranks[p] == rank && m.index[p] == uint32_t(collective))
                c = &m;
    QVERIFY(c);
    QCOMPARE(c->lastArrivalRank, int64_t(rank));
    QVERIFY(!c->windowEdge);
    bool named = false; // (the op may run more than once in the interval: one of them carries it)
    for (const RootCauseOp &r : c->rootCauses)
        named |= r.rank == rank && r.op == name && std::abs(r.excessUs - deltaMs * 1000.0) <= 0.1 * deltaMs * 1000.0;
    QVERIFY2(named, qPrintable(QString::fromStdString(name + " is not among the root causes with its excess")));
    // Issue 38: the op itself leads, not an ancestor whose excess only holds the op's
    // (the ancestors grew by the same delta); they are its context.
    const RootCauseOp &top = c->rootCauses.front();
    QVERIFY2(top.op == name, qPrintable(QString::fromStdString("top cause " + top.op + " (in " + top.context +
                                                               "), not the slowed " + name)));
    QVERIFY2(std::abs(top.selfExcessUs - deltaMs * 1000.0) <= 0.1 * deltaMs * 1000.0,
             qPrintable(QString("own excess %1 us for +%2 ms").arg(top.selfExcessUs).arg(deltaMs)));
    for (size_t k = 1; k < c->rootCauses.size(); ++k)
        QVERIFY2(c->rootCauses[k].selfExcessUs < 0.5 * deltaMs * 1000.0,
                 qPrintable(QString::fromStdString(c->rootCauses[k].op + " is charged the slowed op's time too")));
    // The op carries the delay cost of the waits its extra work caused.
    const DelayCost *cost = nullptr;
    for (const DelayCost &d : job.delayCosts)
        if (d.rank == rank && d.op == name)
            cost = &d;
    QVERIFY(cost);
    QVERIFY2(cost->directUs >= 0.5 * waitCausedUs(*c), qPrintable(QString("%1 of %2").arg(cost->directUs).arg(waitCausedUs(*c))));
    QVERIFY(std::find(job.stragglers.begin(), job.stragglers.end(), int64_t(rank)) != job.stragglers.end());
    // The step's path runs through the slowed op: a work stretch of that rank holds it.
    const double opStartUs = double(ranks[victim].ops[op].startNs) / 1000.0 + jobtest::stats(job, rank).clockOffsetUs;
    bool through = false;
    for (const JobPathSegment &g : job.criticalPath.stepTime.segments)
        through |= g.rank == rank && !g.collective && g.cpuStartUs <= opStartUs + 1 && g.cpuEndUs >= opStartUs;
    QVERIFY2(through, qPrintable(QString("the step path misses rank %1's %2").arg(rank).arg(QString::fromStdString(name))));
    // The job critical path names the op itself: the rank's own critical path over that
    // stretch (HTA's semantics inside the rank) runs through it.
    bool onPath = false;
    for (const JobCriticalPathRow &row : job.criticalPath.path)
        onPath |= row.rank == rank && row.op == name && std::abs(row.startUs - opStartUs) < 1.0;
    QVERIFY2(onPath, qPrintable(QString("the job critical path misses rank %1's %2").arg(rank).arg(QString::fromStdString(name))));
    const JobStepTime &st = job.criticalPath.stepTime;
    QVERIFY(std::abs(st.workUs + st.waitUs + st.outsideWindowUs - st.stepTimeUs) <= 0.01 * st.stepTimeUs);
}

QTEST_GUILESS_MAIN(TestJobReal)
#include "tst_jobreal.moc"
