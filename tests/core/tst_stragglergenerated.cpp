// SPDX-License-Identifier: MIT
// The straggler what-if on generated data- and pipeline-parallel jobs whose S, S per
// step, S_t, S_w, S per stage, M_W and M_S are known by construction (tracegen's
// study jobs: its own simulation of the schedule, written to the traces as Kineto
// would record them, clocks shifted). The figures must come out within 2 %.
#include "job/discovery.h"
#include "job/jobanalysis.h"
#include "job/jobrunner.h"
#include "testutil.h"
#include "tracegen.h"

#include <QtTest>

#include <cmath>

using namespace syncscope;

namespace {

struct Case {
    const char *name;
    tracegen::StudyJobOptions options;
    std::string parallelism; // --parallelism, else pg_config / inferred
    std::string layoutSource;
};

// Relative difference, 2 % allowed; M values (shares around 1) within 0.02.
bool within(double got, double want, double tol = 0.02)
{
    return std::abs(got - want) <= tol * std::max(1.0, std::abs(want));
}

// Syncscope's type for a generated one: the kernel name, or "send/recv ..." /
// "_reduce_scatter_base ..." with its message size.
double sOfType(const StragglerWhatIf &w, const std::string &truthType)
{
    const std::string prefix = truthType.substr(0, truthType.find(' '));
    const std::string want = prefix == "sendrecv" ? "send/recv" : prefix;
    for (const StragglerOpType &t : w.byOpType)
        if (t.type == want || t.type.rfind(want + " ", 0) == 0)
            return t.slowdown;
    return std::nan("");
}

double sOf(const std::vector<std::pair<int64_t, double>> &rows, int64_t key)
{
    for (const auto &[k, v] : rows)
        if (k == key)
            return v;
    return std::nan("");
}

} // namespace

class TestStragglerGenerated : public QObject {
    Q_OBJECT
private slots:
    void figures_data();
    void figures();
};

void TestStragglerGenerated::figures_data()
{
    QTest::addColumn<int>("index");
    for (int i = 0; i < 5; ++i)
        QTest::newRow(std::to_string(i).c_str()) << i;
}

void TestStragglerGenerated::figures()
{
    QFETCH(int, index);
    std::vector<Case> cases(5);
    cases[0] = {"dp8 slow worker", {}, {}, "pg_config"};
    cases[0].options.dp = 8;
    cases[0].options.slowRank = 5;
    cases[0].options.slowFactor = 2;
    cases[1] = {"dp2 x pp4 slow last stage", {}, {}, "pg_config"};
    cases[1].options.dp = 2;
    cases[1].options.pp = 4;
    cases[1].options.slowStage = 3;
    cases[1].options.stageFactor = 1.5;
    cases[2] = {"dp4 x pp2 imbalanced op, inferred layout, gzip", {}, {}, "inferred"};
    cases[2].options.dp = 4;
    cases[2].options.pp = 2;
    cases[2].options.slowOp = "bwd_gemm_kernel";
    cases[2].options.opFactor = 2;
    cases[2].options.pgConfig = false;
    cases[2].options.gzip = true;
    cases[3] = {"dp4 x pp4 slow worker and stage, --parallelism", {}, "dp=4,pp=4", "parallelism"};
    cases[3].options.dp = 4;
    cases[3].options.pp = 4;
    cases[3].options.slowRank = 6;
    cases[3].options.slowFactor = 3;
    cases[3].options.slowStage = 0;
    cases[3].options.stageFactor = 1.2;
    cases[3].options.microbatches = 6;
    cases[4] = {"dp2 x pp2 inferred stages, no slowdown", {}, {}, "inferred"};
    cases[4].options.dp = 2;
    cases[4].options.pp = 2;
    cases[4].options.pgConfig = false;
    Case c = cases[size_t(index)];
    c.options.dir = testutil::tempDir() + "/study" + std::to_string(index);
    c.options.truthPath = c.options.dir + ".truth.json";
    const tracegen::StudyJobResult truth = tracegen::generateStudyJob(c.options);

    // The product path: discovery, every rank's pipeline with its GPU timeline, the job.
    const JobDiscovery discovery = discoverJob({c.options.dir});
    QCOMPARE(discovery.ranks.size(), size_t(truth.world));
    JobRunOptions run;
    run.gpuTimelines = true;
    const std::vector<RankSummary> ranks = runJobRanks(discovery.ranks, run);
    JobOptions options;
    options.stragglerWhatIf = true;
    std::string error;
    if (!c.parallelism.empty())
        QVERIFY(parseParallelism(c.parallelism, options.straggler.parallelism, error));
    const JobAnalysis job = analyzeJob(ranks, options);
    QVERIFY(job.straggler);
    const StragglerWhatIf &w = *job.straggler;
    QVERIFY2(w.ok, w.error.c_str());
    const QString what = QString("%1: S %2 vs %3").arg(c.name).arg(w.slowdown).arg(truth.slowdown);
    QCOMPARE(w.layout.source, c.layoutSource);
    QCOMPARE(w.layout.dpSize, int64_t(truth.dp));
    QCOMPARE(w.layout.ppSize, int64_t(truth.pp));
    QVERIFY2(w.replayErrorPct < 0.1, qPrintable(what));
    QVERIFY2(within(w.slowdown, truth.slowdown), qPrintable(what));
    QVERIFY(within(w.measuredStepUs, truth.measuredStepUs));
    QVERIFY(within(w.idealStepUs, truth.idealStepUs));
    QCOMPARE(w.steps.size(), truth.stepSlowdown.size());
    for (size_t s = 0; s < w.steps.size(); ++s) {
        QCOMPARE(w.steps[s].number, int64_t(s));
        QVERIFY2(within(w.steps[s].slowdown, truth.stepSlowdown[s]), qPrintable(what));
    }
    for (const auto &[type, s] : truth.byOpType)
        QVERIFY2(within(sOfType(w, type), s), qPrintable(what + " S_t " + QString::fromStdString(type)));
    QCOMPARE(w.byDpRank.size(), truth.byDpRank.size());
    for (size_t d = 0; d < truth.byDpRank.size(); ++d)
        QVERIFY2(within(sOf(w.byDpRank, int64_t(d)), truth.byDpRank[d]), qPrintable(what + " S_w " + QString::number(d)));
    QCOMPARE(w.byStage.size(), truth.byStage.size());
    for (size_t p = 0; p < truth.byStage.size(); ++p)
        QVERIFY2(within(sOf(w.byStage, int64_t(p)), truth.byStage[p]), qPrintable(what + " stage " + QString::number(p)));
    QCOMPARE(bool(w.mW), bool(truth.mW));
    QCOMPARE(bool(w.mS), bool(truth.mS));
    // The removal shares divide by (measured - ideal): compared where that is a real slowdown.
    if (truth.slowdown > 1.05) {
        QVERIFY2(within(*w.mW, *truth.mW), qPrintable(what + " M_W " + QString::number(*w.mW) + " vs " +
                                                      QString::number(*truth.mW)));
        if (truth.mS)
            QVERIFY2(within(*w.mS, *truth.mS), qPrintable(what + " M_S " + QString::number(*w.mS) + " vs " +
                                                          QString::number(*truth.mS)));
        std::vector<int64_t> worst(truth.worstRanks.begin(), truth.worstRanks.end());
        QCOMPARE(w.worstRanks, worst);
    }
}

QTEST_APPLESS_MAIN(TestStragglerGenerated)
#include "tst_stragglergenerated.moc"
