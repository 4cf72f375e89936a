// SPDX-License-Identifier: MIT
// The straggler what-if on hand-made jobs whose figures follow from the study's
// definitions by hand (docs/what_if.md, "Straggler what-if"), the layout sources,
// and the model's failure modes. Generated DP/PP jobs: tst_stragglergenerated.
#include "job/jobanalysis.h"
#include "job/jobreport.h"
#include "analysis/ranksummary.h"

#include <QtTest>

#include <algorithm>
#include <cmath>

using namespace syncscope;

namespace {

constexpr int64_t kUs = 1000;
constexpr int64_t kStepUs = 10000; // steps start 10 ms apart

// Data parallel, 4 ranks, 2 steps: fwd 100 µs, bwd 200 µs (rank 2: both twice as
// long), an all-reduce that ends 50 µs after the last arrival, an optimizer of 30 µs.
// Each rank's clock reads true time - offset(r).
int64_t offsetNs(int64_t r) { return r * 1234567 - 2000000; }

RankSummary dpRank(int64_t r, double slow, const std::string &pgConfigDesc = {}, int64_t lateUs = 0,
                   int64_t arEndUs = 650)
{
    RankSummary s;
    s.rank = r;
    s.worldSize = 4;
    s.devicePath = "rank" + std::to_string(r) + ".json";
    s.gpu.present = true;
    s.gpu.names = {"fwd_kernel", "bwd_kernel", "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "optimizer_kernel"};
    if (!pgConfigDesc.empty())
        s.processGroups.push_back({"1", pgConfigDesc, 4, r});
    const int64_t own = -offsetNs(r);
    for (int step = 0; step < 2; ++step) {
        const int64_t step0 = step * kStepUs * kUs + own; // the job's step start
        const int64_t base = step0 + lateUs * kUs;         // this rank's first op (a late CPU: later)
        RankStep st;
        st.name = "ProfilerStep#" + std::to_string(step + 5);
        st.number = step + 5;
        st.startNs = step0 - 50 * kUs; // the CPU span holds the launches
        st.endNs = base + 5000 * kUs;
        s.steps.push_back(st);
        const int64_t f = int64_t(100 * slow) * kUs, b = int64_t(200 * slow) * kUs;
        RankCollective c;
        c.kernelName = s.gpu.names[2];
        c.collectiveName = "allreduce";
        c.processGroup = "1";
        c.groupRanks = "[0, 1, 2, 3]";
        c.groupSize = 4;
        c.busType = 1; // AllReduce
        c.seq = step;
        c.messageBytes = 1 << 20;
        c.startNs = base + f + b;
        c.endNs = step0 + arEndUs * kUs;
        c.step = step;
        s.collectives.push_back(c);
        auto op = [&](uint32_t name, int64_t start, int64_t end, int32_t coll) {
            s.gpu.ops.push_back({name, 7, 0, step, coll, start, end - start});
        };
        op(0, base, base + f, -1);
        op(1, base + f, base + f + b, -1);
        op(2, c.startNs, c.endNs, int32_t(s.collectives.size() - 1));
        op(3, c.endNs, c.endNs + 30 * kUs, -1);
    }
    return s;
}

std::vector<RankSummary> dpJob(const std::string &pgConfigDesc = {})
{
    std::vector<RankSummary> ranks;
    for (int64_t r = 0; r < 4; ++r)
        ranks.push_back(dpRank(r, r == 2 ? 2.0 : 1.0, pgConfigDesc));
    return ranks;
}

JobAnalysis analyze(const std::vector<RankSummary> &ranks, const std::string &parallelism = {})
{
    JobOptions o;
    o.stragglerWhatIf = true;
    if (!parallelism.empty()) {
        std::string error;
        if (!parseParallelism(parallelism, o.straggler.parallelism, error))
            qFatal("%s", error.c_str());
    }
    return analyzeJob(ranks, o);
}

double sOf(const std::vector<std::pair<int64_t, double>> &rows, int64_t key)
{
    for (const auto &[k, v] : rows)
        if (k == key)
            return v;
    return std::nan("");
}

double sOfType(const StragglerWhatIf &w, const std::string &type)
{
    for (const StragglerOpType &t : w.byOpType)
        if (t.type == type)
            return t.slowdown;
    return std::nan("");
}

bool near(double a, double b, double tol = 1e-9) { return std::abs(a - b) <= tol * std::max(1.0, std::abs(b)); }

} // namespace

class TestStragglerWhatIf : public QObject {
    Q_OBJECT
private slots:
    void dataParallelByHand();
    void reportObject();
    void layoutSources();
    void parallelismParsed();
    void withoutTimelinesFails();
    void unslowedJobHasNoRemovalShares();
    void lateCpuInTheLaunchDecomposition();
    void summaryRoundTripsTheTimeline();
};

// Measured step: rank 2 arrives at 600 µs, the all-reduce ends at 650, the optimizer
// at 680. Ideal: fwd = mean(100, 100, 200, 100) = 125, bwd = 250, everyone arrives at
// 375, ends 425, optimizer 455. S = 680/455; S_w(2) = 680/455 (its own durations
// back), S_w(others) = 1; S_t(fwd) = (200+250+80)/455, S_t(bwd) = (125+400+80)/455;
// M_W (rank 2 ideal, the rest measured) = (680-455)/(680-455) = 1.
void TestStragglerWhatIf::dataParallelByHand()
{
    const JobAnalysis job = analyze(dpJob());
    QVERIFY(job.straggler);
    const StragglerWhatIf &w = *job.straggler;
    QVERIFY2(w.ok, w.error.c_str());
    QVERIFY2(near(w.slowdown, 680.0 / 455.0), qPrintable(QString::number(w.slowdown, 'f', 9)));
    QVERIFY(near(w.measuredStepUs, 680));
    QVERIFY(near(w.idealStepUs, 455));
    QCOMPARE(w.steps.size(), size_t(2));
    QCOMPARE(w.steps[0].number, int64_t(5));
    QCOMPARE(w.steps[1].number, int64_t(6));
    for (const StragglerStep &s : w.steps)
        QVERIFY(near(s.slowdown, 680.0 / 455.0));
    QVERIFY(w.replayErrorPct < 1e-9);
    QVERIFY(near(w.launchSlowdown, 1));
    QCOMPARE(w.layout.dpSize, int64_t(4));
    QCOMPARE(w.layout.ppSize, int64_t(1));
    QCOMPARE(w.byDpRank.size(), size_t(4));
    QCOMPARE(w.byDpRank.front().first, int64_t(2));
    QVERIFY(near(sOf(w.byDpRank, 2), 680.0 / 455.0));
    for (int64_t r : {0, 1, 3})
        QVERIFY(near(sOf(w.byDpRank, r), 1.0));
    QVERIFY(w.byStage.empty());
    QVERIFY(near(sOfType(w, "fwd_kernel"), 530.0 / 455.0));
    QVERIFY(near(sOfType(w, "bwd_kernel"), 605.0 / 455.0));
    QVERIFY(near(sOfType(w, "optimizer_kernel"), 1.0));
    QVERIFY(near(sOfType(w, "allreduce 1.0 MiB"), 1.0));
    QCOMPARE(w.byOpType.front().type, std::string("bwd_kernel"));
    QVERIFY(w.mW && near(*w.mW, 1.0));
    QCOMPARE(w.worstRanks, std::vector<int64_t>{2});
    QVERIFY(!w.mS);
    QCOMPARE(w.ops, int64_t(4 * 2 * 4));
    QCOMPARE(w.commOps, int64_t(4 * 2));
}

void TestStragglerWhatIf::reportObject()
{
    const nlohmann::json j = jobAnalysisJson(analyze(dpJob())).at("straggler_whatif");
    QVERIFY(j.at("ok").get<bool>());
    QCOMPARE(j.at("slowdown").get<double>(), std::round(680.0 / 455.0 * 1e6) / 1e6);
    QCOMPARE(j.at("step_slowdown").size(), size_t(2));
    QVERIFY(j.at("step_slowdown").contains("5") && j.at("step_slowdown").contains("6"));
    QCOMPARE(j.at("by_dp_rank").at("2").get<double>(), j.at("slowdown").get<double>());
    QCOMPARE(j.at("M_W").get<double>(), 1.0);
    QVERIFY(j.at("M_S").is_null());
    QCOMPARE(j.at("ideal_step_us").get<double>(), 455.0);
    QCOMPARE(j.at("layout").at("source").get<std::string>(), "inferred");
    QVERIFY(j.at("by_op_type").contains("fwd_kernel"));
    // Without the flag there is no object.
    QVERIFY(!jobAnalysisJson(analyzeJob(dpJob(), {})).contains("straggler_whatif"));
}

void TestStragglerWhatIf::layoutSources()
{
    // pg_config's DATA_PARALLEL_GROUP places the ranks; the figures do not change.
    const JobAnalysis fromConfig = analyze(dpJob("DATA_PARALLEL_GROUP"));
    QVERIFY(fromConfig.straggler && fromConfig.straggler->ok);
    QCOMPARE(fromConfig.straggler->layout.source, std::string("pg_config"));
    QVERIFY(near(fromConfig.straggler->slowdown, 680.0 / 455.0));
    // --parallelism dp=2,pp=2: ranks 0,1 are stage 0 and 2,3 stage 1 (Megatron order),
    // so the slow rank 2 is dp rank 0 of the last stage: S per stage and M_S appear.
    const JobAnalysis given = analyze(dpJob(), "dp=2,pp=2");
    const StragglerWhatIf &w = *given.straggler;
    QVERIFY2(w.ok, w.error.c_str());
    QCOMPARE(w.layout.source, std::string("parallelism"));
    QCOMPARE(w.layout.dpRank, (std::vector<int64_t>{0, 1, 0, 1}));
    QCOMPARE(w.layout.stage, (std::vector<int64_t>{0, 0, 1, 1}));
    QCOMPARE(w.byStage.size(), size_t(2));
    QCOMPARE(w.byStage.front().first, int64_t(1));
    QVERIFY(near(sOf(w.byStage, 1), 680.0 / 455.0));
    QVERIFY(near(sOf(w.byDpRank, 0), 680.0 / 455.0)); // ranks 0 and 2
    QVERIFY(w.mS && near(*w.mS, 1.0));
    // A pg_config that does not fit the world is refused like --parallelism (issue 40): it
    // says dp 4 and pp 2 on a 4-rank job.
    std::vector<RankSummary> lying = dpJob("DATA_PARALLEL_GROUP");
    for (RankSummary &r : lying)
        r.processGroups.push_back({"9", "PIPELINE_MODEL_PARALLEL_GROUP", 2, r.rank % 2});
    const JobAnalysis lied = analyze(lying);
    QVERIFY(lied.straggler && !lied.straggler->ok);
    const auto &lyingItems = lied.diagnostics.items();
    QVERIFY(std::any_of(lyingItems.begin(), lyingItems.end(), [](const Diagnostic &d) {
        return d.code == "straggler.bad_layout" && d.message.find("= 8 but the job has 4 ranks") != std::string::npos;
    }));
    // A size that does not fit the world is refused.
    const JobAnalysis bad = analyze(dpJob(), "dp=3");
    QVERIFY(bad.straggler && !bad.straggler->ok);
    const auto &items = bad.diagnostics.items();
    QVERIFY(std::any_of(items.begin(), items.end(),
                        [](const Diagnostic &d) { return d.code == "straggler.bad_parallelism"; }));
}

void TestStragglerWhatIf::parallelismParsed()
{
    ParallelismSpec spec;
    std::string error;
    QVERIFY(parseParallelism("dp=4,pp=2,tp=8", spec, error));
    QCOMPARE(spec.dp, int64_t(4));
    QCOMPARE(spec.pp, int64_t(2));
    QCOMPARE(spec.tp, int64_t(8));
    for (const char *badText : {"", "dp=0", "dp=x", "ep=2", "dp=4,", "dp=2097152", "dp=4pp=2"}) {
        error.clear();
        QVERIFY2(!parseParallelism(badText, spec, error), badText);
        QVERIFY(error.find("--parallelism") != std::string::npos);
    }
}

void TestStragglerWhatIf::withoutTimelinesFails()
{
    std::vector<RankSummary> ranks = dpJob();
    for (RankSummary &r : ranks)
        r.gpu = {};
    const JobAnalysis job = analyze(ranks);
    QVERIFY(job.straggler && !job.straggler->ok);
    QVERIFY(job.straggler->error.find("GPU timelines") != std::string::npos);
}

void TestStragglerWhatIf::unslowedJobHasNoRemovalShares()
{
    std::vector<RankSummary> ranks;
    for (int64_t r = 0; r < 4; ++r)
        ranks.push_back(dpRank(r, 1.0));
    const JobAnalysis job = analyze(ranks);
    QVERIFY(job.straggler && job.straggler->ok);
    QVERIFY(near(job.straggler->slowdown, 1.0));
    QVERIFY(!job.straggler->mW); // (measured - ideal) is 0: no share to speak of
}

// Rank 1's GPU work starts 400 µs into every step (its CPU was late: a launch delay),
// so it arrives last at 700 and the all-reduce ends at 750. As the study: S leaves the
// launch delays out (the no-delay timeline is the job of dataParallelByHand, 680 µs), and
// launch_slowdown = 780/680 with dp rank 1 alone to blame in the launch decomposition.
void TestStragglerWhatIf::lateCpuInTheLaunchDecomposition()
{
    std::vector<RankSummary> ranks;
    for (int64_t r = 0; r < 4; ++r)
        ranks.push_back(dpRank(r, r == 2 ? 2.0 : 1.0, {}, r == 1 ? 400 : 0, 750));
    const JobAnalysis job = analyze(ranks);
    const StragglerWhatIf &w = *job.straggler;
    QVERIFY2(w.ok, w.error.c_str());
    QVERIFY(near(w.measuredStepUs, 780));
    QVERIFY(near(w.noDelayStepUs, 680));
    QVERIFY(near(w.slowdown, 680.0 / 455.0));
    QVERIFY(near(w.launchSlowdown, 780.0 / 680.0));
    QVERIFY(w.replayErrorPct < 1e-9);
    QCOMPARE(w.launchByDpRank.front().first, int64_t(1));
    QVERIFY(near(w.launchByDpRank.front().second, 780.0 / 680.0));
    for (const auto &[rank, s] : w.launchByDpRank)
        if (rank != 1)
            QVERIFY(near(s, 1.0));
    QCOMPARE(w.steps.size(), size_t(2));
    QVERIFY(near(w.steps[0].measuredUs, 780) && near(w.steps[0].noDelayUs, 680) && near(w.steps[0].idealUs, 455));
    const std::string text = stragglerWhatIfText(w);
    QVERIFY2(text.find("launch delays (dp rank): 1 1.147") != std::string::npos, text.c_str());
}

void TestStragglerWhatIf::summaryRoundTripsTheTimeline()
{
    RankSummary s = dpRank(1, 1.0, "DATA_PARALLEL_GROUP");
    s.gpu.deps.push_back({0, 3});
    RankSummary back;
    std::string error;
    QVERIFY2(deserializeRankSummary(serializeRankSummary(s), back, error), error.c_str());
    QCOMPARE(back.gpu.ops.size(), s.gpu.ops.size());
    QCOMPARE(back.gpu.names, s.gpu.names);
    QCOMPARE(back.gpu.deps.size(), size_t(1));
    QCOMPARE(back.processGroups.size(), size_t(1));
    QCOMPARE(back.processGroups[0].desc, std::string("DATA_PARALLEL_GROUP"));
    QCOMPARE(serializeRankSummary(back), serializeRankSummary(s));
    // A dependency out of range is refused.
    s.gpu.deps[0].to = 99;
    QVERIFY(!deserializeRankSummary(serializeRankSummary(s), back, error));
    QVERIFY(error.find("dependency") != std::string::npos);
}

QTEST_APPLESS_MAIN(TestStragglerWhatIf)
#include "tst_stragglerwhatif.moc"
