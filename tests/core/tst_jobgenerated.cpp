// SPDX-License-Identifier: MIT
// The job analysis on generated jobs whose truth is known: clock offsets,
// the straggler, and a job critical path that runs through it.
#include "jobtestutil.h"
#include "job/jobreport.h"
#include "tracegen.h"

#include <QtTest>

#include <algorithm>
#include <cmath>

using namespace syncscope;

class TestJobGenerated : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void summaryOfARank();
    void offsetsRecovered();
    void stragglerNamed();
    void criticalPathThroughStraggler();
    void criticalPathWithoutStraggler();
    void reportJson();
    void manySmallRanks();
    void generatorDeterministic();

private:
    std::vector<RankSummary> generate(const tracegen::JobOptions &o, bool withHost)
    {
        const tracegen::JobResult r = tracegen::generateJob(o);
        std::vector<RankSummary> out;
        for (const auto &rank : r.ranks)
            out.push_back(jobtest::summarize(rank.devicePath, withHost ? rank.hostPath : std::string()));
        return out;
    }
    tracegen::JobOptions m_options;
    std::vector<RankSummary> m_ranks;
    JobAnalysis m_job;
};

void TestJobGenerated::initTestCase()
{
    m_options.dir = testutil::tempDir() + "/job8";
    m_options.ranks = 8;
    m_options.steps = 2;
    m_options.layers = 4;
    m_options.straggler = 5;
    m_ranks = generate(m_options, true);
    m_job = analyzeJob(m_ranks, {});
}

void TestJobGenerated::summaryOfARank()
{
    const RankSummary &s = m_ranks[2];
    QCOMPARE(s.rank, int64_t(2));
    QCOMPARE(s.worldSize.value_or(-1), int64_t(8));
    QCOMPARE(s.exitCode, 0);
    QVERIFY(s.link.present);
    QVERIFY(s.link.coverage > 0.99);
    QCOMPARE(s.steps.size(), size_t(2));
    QCOMPARE(s.steps[1].number, int64_t(1));
    QCOMPARE(s.collectives.size(), size_t(4)); // 2 steps x 2 gradient buckets
    for (size_t k = 0; k < s.collectives.size(); ++k) {
        const RankCollective &c = s.collectives[k];
        QVERIFY(c.kernelName.rfind("ncclDevKernel_AllReduce", 0) == 0);
        QCOMPARE(c.collectiveName, std::string("allreduce"));
        QCOMPARE(c.processGroup, std::string("0"));
        QCOMPARE(c.groupRanks, std::string("[0, 1, 2, 3, 4, 5, 6, 7]"));
        QCOMPARE(c.groupSize, int64_t(8));
        QCOMPARE(c.seq, int64_t(k));
        QCOMPARE(c.step, int32_t(k / 2));
        QVERIFY(c.endNs > c.startNs);
    }
    // The critical path of step 0: nodes on the rank's own clock, inside the step.
    const RankCpGraph &g = s.criticalPath;
    QVERIFY(g.valid);
    QVERIFY(g.weightUs > 0);
    QVERIFY(!g.edges.empty());
    for (const RankCpNode &n : g.nodes) {
        QVERIFY(n.timeNs >= s.steps[0].startNs - 1000);
        QVERIFY(n.timeNs <= s.steps[0].endNs + 1000);
    }
    int kernels = 0;
    for (const RankCpOp &op : g.ops)
        kernels += op.collective >= 0 ? 1 : 0;
    QCOMPARE(kernels, 2); // step 0's two all-reduces
    QCOMPARE(g.windowStep, int64_t(0));
    QCOMPARE(s.steps[0].criticalPathUs, -1.0); // per-step paths only with allSteps
    // With allSteps, every step carries its own critical path.
    const RankSummary all = jobtest::summarize(m_ranks[2].devicePath, {}, true);
    for (const RankStep &st : all.steps) {
        QVERIFY(st.criticalPathUs > 0);
        QVERIFY(!st.summaryPct.empty());
    }
    QCOMPARE(all.steps[0].criticalPathUs, g.weightUs);
}

void TestJobGenerated::offsetsRecovered()
{
    QCOMPARE(m_job.clockReferenceRank, int64_t(0));
    QCOMPARE(m_job.collectives.size(), size_t(4));
    for (const MatchedCollective &c : m_job.collectives) {
        QCOMPARE(c.matchedBy, std::string("seq"));
        QCOMPARE(c.ranks.size(), size_t(8));
        QVERIFY(c.complete);
    }
    for (int r = 0; r < 8; ++r) {
        const double truth = -tracegen::jobClockOffsetUs(m_options, r);
        const RankJobStats &s = jobtest::stats(m_job, r);
        QVERIFY2(std::abs(s.clockOffsetUs - truth) < 1.0,
                 qPrintable(QString("rank %1: %2 vs %3").arg(r).arg(s.clockOffsetUs).arg(truth)));
        QVERIFY(s.clockSpreadUs < 1.0);
        QCOMPARE(s.offsetSamples, int64_t(4));
    }
    // Aligned ends agree within the generator's +-0.3 us.
    for (const MatchedCollective &c : m_job.collectives) {
        double lo = 1e300, hi = -1e300;
        for (const auto &[r, e] : c.endUs) {
            lo = std::min(lo, e);
            hi = std::max(hi, e);
        }
        QVERIFY2(hi - lo < 1.0, qPrintable(QString::number(hi - lo)));
    }
}

void TestJobGenerated::stragglerNamed()
{
    QVERIFY(!m_job.stragglers.empty());
    QCOMPARE(m_job.stragglers.front(), int64_t(5));
    const RankJobStats &s = jobtest::stats(m_job, 5);
    QCOMPARE(s.lastArrivals, int64_t(4));
    QVERIFY(s.collectiveWaitCausedUs > 0);
    QCOMPARE(s.collectiveWaitUs, 0.0);
    for (const MatchedCollective &c : m_job.collectives) {
        QCOMPARE(c.lastArrivalRank, int64_t(5));
        QCOMPARE(c.waitUs.at(5), 0.0);
        QVERIFY(c.waitUs.at(0) > 0);
    }
    // Everyone else suffered waits; the sum of waits caused equals the sum suffered.
    double suffered = 0, caused = 0;
    for (const RankJobStats &r : m_job.ranks) {
        suffered += r.collectiveWaitUs;
        caused += r.collectiveWaitCausedUs;
    }
    QVERIFY(std::abs(suffered - caused) < 1e-6);
    QCOMPARE(collectivesDelayedBy(m_job, 5, 10).size(), size_t(4));
    // The straggler's compute is slower: its lateness is work excess, never a window edge
    // (every rank starts its steps at the same aligned time).
    for (const MatchedCollective &c : m_job.collectives) {
        const RankLateness &l = c.lateness.at(5);
        QVERIFY(!c.windowEdge);
        QVERIFY2(l.workExcessUs >= 0.9 * l.lateUs, qPrintable(QString("%1 of %2").arg(l.workExcessUs).arg(l.lateUs)));
    }
    QVERIFY(s.workDelayCostUs >= 0.9 * s.collectiveWaitCausedUs);
    QVERIFY(m_job.startSkewed.empty());
    // Its slower compute kernels are the root causes, and carry the delay costs.
    for (const MatchedCollective &c : m_job.collectives) {
        QVERIFY(!c.rootCauses.empty());
        QCOMPARE(c.rootCauses.front().rank, int64_t(5));
        QVERIFY2(c.rootCauses.front().gpu, c.rootCauses.front().op.c_str());
        QVERIFY(c.rootCauses.front().excessUs > 0);
    }
    QVERIFY(!m_job.delayCosts.empty());
    double direct = 0;
    for (const DelayCost &d : m_job.delayCosts) {
        QCOMPARE(d.rank, int64_t(5));
        direct += d.directUs + d.propagatedUs;
    }
    QVERIFY2(std::abs(direct - s.workDelayCostUs) <= 0.01 * s.workDelayCostUs,
             qPrintable(QString("%1 vs %2").arg(direct).arg(s.workDelayCostUs)));
    // The step's time walked back through the waits: every collective's last arriver is
    // the straggler, so the walk stays on it, and the parts add up to the step.
    const JobStepTime &st = m_job.criticalPath.stepTime;
    QVERIFY(st.valid);
    QVERIFY(std::abs(st.workUs + st.waitUs + st.outsideWindowUs - st.stepTimeUs) <= 0.01 * st.stepTimeUs);
    double onStraggler = 0;
    for (const JobPathSegment &g : st.segments)
        onStraggler += g.rank == 5 && !g.collective ? g.endUs - g.startUs : 0.0;
    QVERIFY2(onStraggler >= 0.5 * st.workUs, qPrintable(QString("%1 of %2").arg(onStraggler).arg(st.workUs)));
}

void TestJobGenerated::criticalPathThroughStraggler()
{
    const JobCriticalPath &cp = m_job.criticalPath;
    QVERIFY2(cp.valid, cp.reason.c_str());
    QVERIFY(cp.weightUs > 0);
    QVERIFY(std::find(cp.ranksOnPath.begin(), cp.ranksOnPath.end(), 5) != cp.ranksOnPath.end());
    // It crosses step 0's last all-reduce (the first bucket overlaps the straggler's compute);
    // every collective it crosses waited for the straggler.
    QVERIFY(!cp.collectivesCrossed.empty());
    for (uint32_t k : cp.collectivesCrossed)
        QCOMPARE(m_job.collectives[k].lastArrivalRank, int64_t(5));
    // The path's compute before each crossed collective is the straggler's.
    bool stragglerCompute = false;
    for (const JobCriticalPathRow &row : cp.path)
        stragglerCompute |= row.rank == 5 && row.boundBy == "gpu_compute_bound";
    QVERIFY(stragglerCompute);
    // Longer than any single rank's critical path (the waits are not work, but the
    // straggler's compute plus everyone's collective end is at least its own path).
    QVERIFY(cp.weightUs >= m_ranks[5].criticalPath.weightUs - 1e-6);
    double pct = 0;
    for (const auto &[bound, p] : cp.summaryPct)
        pct += p;
    QVERIFY(std::abs(pct - 100.0) < 1e-6);
}

void TestJobGenerated::criticalPathWithoutStraggler()
{
    tracegen::JobOptions o;
    o.dir = testutil::tempDir() + "/even";
    o.ranks = 4;
    o.steps = 1;
    o.layers = 2;
    const JobAnalysis job = analyzeJob(generate(o, false), {});
    QVERIFY2(job.criticalPath.valid, job.criticalPath.reason.c_str());
    QCOMPARE(job.collectives.size(), size_t(2));
    for (int r = 0; r < 4; ++r)
        QVERIFY(std::abs(jobtest::stats(job, r).clockOffsetUs + tracegen::jobClockOffsetUs(o, r)) < 1.0);
}

void TestJobGenerated::reportJson()
{
    const nlohmann::json j = jobAnalysisJson(m_job);
    QCOMPARE(j.at("clock_reference_rank").get<int64_t>(), int64_t(0));
    const auto &c = j.at("collectives").at(0);
    QCOMPARE(c.at("name").get<std::string>(), std::string("allreduce"));
    QCOMPARE(c.at("process_group").get<std::string>(), std::string("0"));
    QCOMPARE(c.at("ranks").size(), size_t(8));
    QVERIFY(c.at("arrival_us").contains("5"));
    QVERIFY(c.at("end_us").contains("7"));
    QCOMPARE(c.at("wait_us").at("5").get<double>(), 0.0);
    QCOMPARE(c.at("last_arrival_rank").get<int64_t>(), int64_t(5));
    for (const char *key : {"lateness", "window_edge", "skew_from", "root_causes", "root_cause_by_name"})
        QVERIFY2(c.contains(key), key);
    QVERIFY(c.at("skew_from").is_null()); // the straggler's lateness is its work, not carried on
    QCOMPARE(j.at("stragglers").at(0).at("rank").get<int64_t>(), int64_t(5));
    const auto &cp = j.at("job_critical_path");
    QVERIFY(cp.at("weight_us").get<double>() > 0);
    QVERIFY(cp.at("summary").is_object());
    QVERIFY(!cp.at("ranks_on_path").empty());
    QVERIFY(!cp.at("collectives_crossed").empty());
    const auto &row = cp.at("path").at(0);
    QCOMPARE(row.size(), size_t(5));
    QVERIFY(row.at(0).is_number_integer() && row.at(1).is_string() && row.at(4).is_string());
    const nlohmann::json r = rankJobJson(jobtest::stats(m_job, 5));
    for (const char *key : {"clock_offset_us", "collective_wait_us", "collective_wait_caused_us", "last_arrivals"})
        QVERIFY2(r.contains(key), key);
    QCOMPARE(r.at("last_arrivals").get<int64_t>(), int64_t(4));
    // Deterministic: the same input gives the same document.
    QCOMPARE(jobAnalysisJson(analyzeJob(m_ranks, {})).dump(), j.dump());
}

void TestJobGenerated::manySmallRanks()
{
    // 64 one-layer ranks: offsets through one all-reduce per step, straggler found.
    tracegen::JobOptions o;
    o.dir = testutil::tempDir() + "/job64";
    o.ranks = 64;
    o.steps = 1;
    o.layers = 1;
    o.straggler = 41;
    const JobAnalysis job = analyzeJob(generate(o, false), {});
    QCOMPARE(job.collectives.size(), size_t(1));
    QVERIFY(job.collectives[0].complete);
    QCOMPARE(job.stragglers.front(), int64_t(41));
    for (int r = 0; r < 64; ++r)
        QVERIFY(std::abs(jobtest::stats(job, r).clockOffsetUs + tracegen::jobClockOffsetUs(o, r)) < 1.0);
    QVERIFY(job.criticalPath.valid);
    QVERIFY(std::find(job.criticalPath.ranksOnPath.begin(), job.criticalPath.ranksOnPath.end(), 41) !=
            job.criticalPath.ranksOnPath.end());
}

void TestJobGenerated::generatorDeterministic()
{
    tracegen::JobOptions o;
    o.ranks = 3;
    o.steps = 1;
    o.layers = 2;
    o.straggler = 1;
    o.dir = testutil::tempDir() + "/a";
    const tracegen::JobResult a = tracegen::generateJob(o);
    o.dir = testutil::tempDir() + "/b";
    const tracegen::JobResult b = tracegen::generateJob(o);
    QCOMPARE(a.collectiveEndsUs, b.collectiveEndsUs);
    for (int r = 0; r < 3; ++r) {
        QCOMPARE(testutil::readText(a.ranks[r].devicePath), testutil::readText(b.ranks[r].devicePath));
        QCOMPARE(testutil::readText(a.ranks[r].hostPath), testutil::readText(b.ranks[r].hostPath));
    }
    // Each collective ends on every rank after the last rank arrived.
    for (size_t k = 1; k < a.collectiveEndsUs.size(); ++k)
        QVERIFY(a.collectiveEndsUs[k] > a.collectiveEndsUs[k - 1]);
}

QTEST_GUILESS_MAIN(TestJobGenerated)
#include "tst_jobgenerated.moc"
