// SPDX-License-Identifier: MIT
// What-if across a generated job with a known straggler (issue 15): factor 1 is
// the baseline exactly, scaling the straggler's work down shortens the job,
// projections are monotonic in the factor, and a rule matching nothing on every
// rank is an error naming the rule.
#include "jobtestutil.h"
#include "analysis/cpgraph.h"
#include "job/jobreport.h"
#include "tracegen.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <tuple>

using namespace syncscope;

class TestJobWhatIf : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void factorOneIsTheBaseline();
    void stragglerScaledDown();
    void monotonicInTheFactor();
    void ruleMatchingNothing();
    void droppedSyncNeverLengthens();
    void reportJson();
    // Issue 22.
    void hostileRulesStayFinite();
    void missingBaselineIsNotANoMatch();
    // Issue 26.
    void savingCrossesAnUnlinkedGap();

private:
    JobAnalysis analyze(const std::vector<std::string> &rules, const std::vector<RankSummary> &ranks = {})
    {
        JobOptions o;
        for (const std::string &text : rules) {
            WhatIfRule rule;
            std::string error;
            if (!parseWhatIfRule(text, rule, error))
                qFatal("%s", error.c_str());
            o.whatIf.push_back(std::move(rule));
        }
        return analyzeJob(ranks.empty() ? m_ranks : ranks, o);
    }
    static const JobWhatIfRank *rankRow(const JobWhatIf &w, int64_t rank)
    {
        for (const JobWhatIfRank &r : w.ranks)
            if (r.rank == rank)
                return &r;
        return nullptr;
    }
    std::vector<RankSummary> m_ranks;
    int64_t m_straggler = 3;
};

namespace {

// A hand-made rank: GPU ops on stream 7 as (name, start µs, end µs, collective index or -1),
// chained by HTA's edges except where `unlinked` says (HTA links a kernel to the previous
// one only within 1.5 ms: the second kernel is then a source of the graph).
RankSummary handRank(int64_t rank, const std::vector<std::tuple<std::string, int64_t, int64_t, int32_t>> &ops,
                     size_t unlinked)
{
    RankSummary s;
    s.rank = rank;
    s.worldSize = 2;
    s.devicePath = "rank" + std::to_string(rank) + ".json";
    RankCpGraph &g = s.criticalPath;
    g.valid = true;
    for (size_t k = 0; k < ops.size(); ++k) {
        const auto &[name, startUs, endUs, coll] = ops[k];
        g.ops.push_back({name, "kernel", startUs * 1000, (endUs - startUs) * 1000, 7, coll});
        g.nodes.push_back({startUs * 1000, int32_t(k), true});
        g.nodes.push_back({endUs * 1000, int32_t(k), false});
        const int32_t start = int32_t(2 * k), end = start + 1;
        g.edges.push_back({start, end, double(endUs - startUs), uint8_t(CpEdgeType::OperatorKernel), 0, int32_t(k)});
        if (k > 0 && k != unlinked)
            g.edges.push_back({start - 1, start, double(startUs - std::get<2>(ops[k - 1])),
                               uint8_t(CpEdgeType::KernelKernelDelay), 0, int32_t(k - 1)});
        if (coll >= 0) {
            RankCollective c;
            c.kernelName = "ncclDevKernel_AllReduce_Sum_f32_RING_LL";
            c.collectiveName = "allreduce";
            c.processGroup = "1";
            c.groupRanks = "[0, 1]";
            c.groupSize = 2;
            c.seq = coll;
            c.stream = 7;
            c.startNs = startUs * 1000;
            c.endNs = endUs * 1000;
            s.collectives.push_back(c);
        }
        s.traceEndNs = std::max(s.traceEndNs, endUs * 1000);
    }
    return s;
}

} // namespace

// Rank 0: gemm_a 0-1000 µs, then (2 ms later, so HTA links nothing to it) gemm_c 3000-4000,
// then the all-reduce to 4100. Rank 1 waits in the all-reduce from 500. Halving gemm_a
// moves gemm_c (stream order keeps its 2 ms gap), rank 0 arrives at 3500, the all-reduce
// ends 100 µs later: the job step goes 4100 -> 3600 µs.
void TestJobWhatIf::savingCrossesAnUnlinkedGap()
{
    const std::vector<RankSummary> ranks = {
        handRank(0, {{"gemm_a", 0, 1000, -1}, {"gemm_c", 3000, 4000, -1}, {"allreduce", 4000, 4100, 0}}, 1),
        handRank(1, {{"gemm_b", 0, 500, -1}, {"allreduce", 500, 4100, 0}}, 0)};
    const JobAnalysis base = analyze({"rank=0&name=gemm_a*1"}, ranks);
    QVERIFY2(base.whatIf && base.whatIf->ok, base.whatIf ? base.whatIf->error.c_str() : "no what-if");
    QCOMPARE(base.whatIf->baselineUs, 4100.0);
    QCOMPARE(base.whatIf->projectedUs, 4100.0);
    const JobAnalysis job = analyze({"rank=0&name=gemm_a*0.5"}, ranks);
    QVERIFY(job.whatIf && job.whatIf->ok);
    QVERIFY2(std::abs(job.whatIf->projectedUs - 3600.0) < 1e-6, qPrintable(QString::number(job.whatIf->projectedUs)));
}

void TestJobWhatIf::initTestCase()
{
    tracegen::JobOptions o;
    o.dir = testutil::tempDir() + "/jobwhatif";
    o.ranks = 4;
    o.steps = 2;
    o.layers = 4;
    o.straggler = static_cast<int>(m_straggler);
    for (const auto &rank : tracegen::generateJob(o).ranks)
        m_ranks.push_back(jobtest::summarize(rank.devicePath, rank.hostPath));
    const JobAnalysis job = analyzeJob(m_ranks, {});
    QVERIFY(job.criticalPath.valid);
    QVERIFY(!job.whatIf); // only with rules
}

void TestJobWhatIf::factorOneIsTheBaseline()
{
    for (const char *rule : {"compute*1", "rank=3&compute*1", "comm*1", "cat=cpu_op*1"}) {
        const JobAnalysis job = analyze({rule});
        QVERIFY2(job.whatIf && job.whatIf->ok, rule);
        QCOMPARE(job.whatIf->baselineUs, job.criticalPath.stepTime.stepTimeUs);
        QCOMPARE(job.whatIf->projectedUs, job.whatIf->baselineUs); // exactly, not fuzzily
        QCOMPARE(job.whatIf->speedup, 1.0);
        for (const JobWhatIfRank &r : job.whatIf->ranks)
            QCOMPARE(r.projectedUs, r.baselineUs);
    }
}

void TestJobWhatIf::stragglerScaledDown()
{
    const JobAnalysis job = analyze({"rank=" + std::to_string(m_straggler) + "&compute*0.5"});
    QVERIFY(job.whatIf && job.whatIf->ok);
    const JobWhatIf &w = *job.whatIf;
    QVERIFY2(w.projectedUs < w.baselineUs, qPrintable(QString("%1 vs %2").arg(w.projectedUs).arg(w.baselineUs)));
    QVERIFY(w.speedup > 1);
    QCOMPARE(w.rules.size(), size_t(1));
    QVERIFY(w.rules[0].matched > 0);
    // Only the straggler's own graph changes.
    for (const JobWhatIfRank &r : w.ranks) {
        if (r.rank == m_straggler) {
            QVERIFY(r.matched > 0);
            QVERIFY(r.projectedUs < r.baselineUs);
        } else {
            QCOMPARE(r.matched, int64_t(0));
            QCOMPARE(r.projectedUs, r.baselineUs);
        }
    }
    // The straggler's own critical path bounds what its speed-up can give the job.
    const JobWhatIfRank *s = rankRow(w, m_straggler);
    QVERIFY(s);
    QVERIFY2(w.baselineUs - w.projectedUs <= s->baselineUs - s->projectedUs + 1e-6,
             qPrintable(QString("job %1 -> %2, straggler %3 -> %4")
                            .arg(w.baselineUs).arg(w.projectedUs).arg(s->baselineUs).arg(s->projectedUs)));
}

void TestJobWhatIf::monotonicInTheFactor()
{
    double previous = 0;
    for (double f : {0.0, 0.25, 0.5, 0.75, 1.0}) {
        const JobAnalysis job = analyze({"compute*" + std::to_string(f)});
        QVERIFY(job.whatIf && job.whatIf->ok);
        QVERIFY(job.whatIf->projectedUs >= previous);
        QVERIFY(job.whatIf->projectedUs <= job.whatIf->baselineUs);
        previous = job.whatIf->projectedUs;
    }
}

void TestJobWhatIf::ruleMatchingNothing()
{
    const JobAnalysis job = analyze({"compute*0.5", "rank=42&compute*0.5"});
    QVERIFY(job.whatIf);
    QVERIFY(!job.whatIf->ok);
    QVERIFY(job.whatIf->error.find("rank=42&compute*0.5") != std::string::npos);
    QCOMPARE(job.whatIf->rules.size(), size_t(2));
    QCOMPARE(job.whatIf->rules[1].matched, int64_t(0));
    bool reported = false;
    for (const Diagnostic &d : job.diagnostics.items())
        reported |= d.severity == Severity::Error && d.code == "what_if.no_match";
    QVERIFY(reported);
}

void TestJobWhatIf::droppedSyncNeverLengthens()
{
    const JobAnalysis job = analyze({"sync:name~.*=drop"});
    QVERIFY(job.whatIf);
    if (!job.whatIf->ok) // a generated rank without sync edges on its path graph
        QSKIP("no sync edge in the generated graphs");
    QVERIFY(job.whatIf->projectedUs <= job.whatIf->baselineUs);
}

void TestJobWhatIf::reportJson()
{
    const JobAnalysis job = analyze({"rank=" + std::to_string(m_straggler) + "&compute*0.5"});
    const nlohmann::json j = jobAnalysisJson(job);
    QVERIFY(j.contains("what_if"));
    const auto &w = j.at("what_if");
    QVERIFY(w.at("ok").get<bool>());
    QVERIFY(w.at("projected_us").get<double>() < w.at("baseline_us").get<double>());
    QCOMPARE(w.at("rules")[0].at("rule").get<std::string>(), "rank=" + std::to_string(m_straggler) + "&compute*0.5");
    QCOMPARE(w.at("ranks").size(), m_ranks.size());
    QVERIFY(w.at("critical_path").at("ranks_on_path").is_array());
    QVERIFY(!jobAnalysisJson(analyzeJob(m_ranks, {})).contains("what_if"));
}

void TestJobWhatIf::hostileRulesStayFinite()
{
    // The rule parser is shared with pair mode: the bounds hold here too.
    WhatIfRule r;
    std::string error;
    QVERIFY(!parseWhatIfRule("compute*1e308", r, error));
    QVERIFY2(error.find("[0, 1e6]") != std::string::npos, error.c_str());
    QVERIFY(!parseWhatIfRule("compute=1e303s", r, error));
    QVERIFY2(error.find("2^60 ns") != std::string::npos, error.c_str());
    // The largest factor, compounded past double's range, and the longest duration:
    // the replayed job saturates, finite everywhere.
    std::vector<std::string> rules(60, "rank=" + std::to_string(m_straggler) + "&compute*1e6");
    for (const std::vector<std::string> &list :
         {rules, std::vector<std::string>{"compute=1152921504606846976ns", "cat=cpu_op*1e6"}}) {
        const JobAnalysis job = analyze(list);
        QVERIFY(job.whatIf);
        QVERIFY2(job.whatIf->ok, job.whatIf->error.c_str());
        const JobWhatIf &w = *job.whatIf;
        QVERIFY2(std::isfinite(w.projectedUs) && w.projectedUs > w.baselineUs,
                 qPrintable(QString::number(w.projectedUs)));
        QVERIFY(std::isfinite(w.speedup) && w.speedup > 0);
        for (const JobWhatIfRank &row : w.ranks)
            QVERIFY(std::isfinite(row.projectedUs));
        for (const auto &[bound, pct] : w.summaryPct)
            QVERIFY(std::isfinite(pct));
        const nlohmann::json j = jobAnalysisJson(job).at("what_if");
        QVERIFY(j.at("projected_us").is_number() && j.at("speedup").is_number());
    }
}

void TestJobWhatIf::missingBaselineIsNotANoMatch()
{
    // Ranks whose critical-path analysis failed: no graph for the rules to match.
    // That is reported as the missing critical path, not as a rule matching nothing.
    std::vector<RankSummary> ranks = m_ranks;
    for (RankSummary &r : ranks)
        r.criticalPath = RankCpGraph{};
    const JobAnalysis job = analyze({"compute*0.5"}, ranks);
    QVERIFY(job.whatIf);
    QVERIFY(!job.whatIf->ok);
    const std::string &e = job.whatIf->error;
    QVERIFY2(e.find("matches nothing") == std::string::npos, e.c_str());
    QVERIFY2(e.find("critical path") != std::string::npos && e.find("could not be computed") != std::string::npos,
             e.c_str());
    QVERIFY2(e.find("rank(s) without a critical-path graph: 0, 1, 2, 3") != std::string::npos, e.c_str());
    bool noPath = false, noMatch = false;
    for (const Diagnostic &d : job.diagnostics.items()) {
        noPath |= d.severity == Severity::Error && d.code == "what_if.no_critical_path";
        noMatch |= d.code == "what_if.no_match";
    }
    QVERIFY(noPath);
    QVERIFY(!noMatch);

    // One rank without a graph: a rule that matches nothing on the others says the
    // rank was not searched.
    ranks = m_ranks;
    ranks[1].criticalPath = RankCpGraph{};
    const JobAnalysis one = analyze({"rank=1&compute*0.5"}, ranks);
    QVERIFY(one.whatIf && !one.whatIf->ok);
    QVERIFY2(one.whatIf->error.find("matches nothing") != std::string::npos &&
                 one.whatIf->error.find("rank(s) 1 have no critical-path graph") != std::string::npos,
             one.whatIf->error.c_str());
}

QTEST_GUILESS_MAIN(TestJobWhatIf)
#include "tst_jobwhatif.moc"
