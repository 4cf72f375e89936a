// SPDX-License-Identifier: MIT
// The job runner: every rank through the per-rank pipeline on several workers,
// summaries in input order whatever order the workers finish in, a failing rank
// kept in its row without stopping the others, and the per-rank file names.
#include "testutil.h"

#include "job/jobrunner.h"
#include "session/exitcodes.h"

#include <QtTest>

#include <filesystem>

using namespace syncscope;

namespace {

JobRank dlrm(int rank)
{
    const std::string dir = testutil::fixture("pairs/param_dlrm_rank" + std::to_string(rank));
    return {rank, dir + "/rank" + std::to_string(rank) + ".et.json.gz",
            dir + "/rank" + std::to_string(rank) + ".kineto.json.gz"};
}

} // namespace

class TestJobRunner : public QObject
{
    Q_OBJECT
private slots:
    void outputNames();
    void ranksInOrderAndFailuresInTheirRows();
};

void TestJobRunner::outputNames()
{
    JobOutputOptions o;
    o.dir = "/out";
    o.prefix = "w";
    o.chakraEt = true;
    o.criticalPath = true;
    o.overlay = true;
    const RankOutputPaths withHost = jobRankOutputPaths(o, {12, "h.json", "d.json"});
    QCOMPARE(withHost.etPlus, std::string("/out/w.12.json"));
    QCOMPARE(withHost.chakraEt, std::string("/out/w.12.et"));
    QCOMPARE(withHost.criticalPath, std::string("/out/w.12.critical_path.json"));
    QCOMPARE(withHost.overlay, std::string("/out/w.12.overlay.json"));
    const RankOutputPaths deviceOnly = jobRankOutputPaths(o, {3, "", "d.json"});
    QVERIFY(deviceOnly.etPlus.empty() && deviceOnly.chakraEt.empty()); // both need a host trace
    QCOMPARE(deviceOnly.criticalPath, std::string("/out/w.3.critical_path.json"));
    QVERIFY(jobRankOutputPaths(JobOutputOptions{}, {0, "h.json", "d.json"}).etPlus.empty()); // no --output-dir
}

void TestJobRunner::ranksInOrderAndFailuresInTheirRows()
{
    const std::string out = testutil::tempDir();
    JobRunOptions opts;
    opts.workers = 3;
    opts.outputs.dir = out;
    size_t calls = 0;
    opts.rankDone = [&](size_t done, size_t total, const RankSummary &) {
        ++calls;
        QVERIFY(done <= total);
    };
    const std::vector<JobRank> ranks = {
        dlrm(1),
        {5, "", out + "/missing.kineto.json"},      // the device trace is not there
        {7, testutil::fixture("pairs/param_dlrm_rank0/rank0.et.json.gz"), ""}, // a host without a device
        dlrm(0),
    };
    const std::vector<RankSummary> s = runJobRanks(ranks, opts);
    QCOMPARE(calls, ranks.size());
    QCOMPARE(s.size(), ranks.size());
    QCOMPARE(s[0].rank, int64_t(1));
    QCOMPARE(s[0].exitCode, int(ExitOk));
    QCOMPARE(s[3].rank, int64_t(0));
    QCOMPARE(s[3].exitCode, int(ExitOk));
    QCOMPARE(s[3].outputs.size(), size_t(1));
    QCOMPARE(s[3].outputs[0].second, out + "/trace.0.json");
    QVERIFY(std::filesystem::exists(out + "/trace.1.json"));

    QCOMPARE(s[1].rank, int64_t(5));
    QCOMPARE(s[1].exitCode, int(ExitBadInput));
    QVERIFY(s[1].diagnostics.hasErrors());
    QVERIFY(s[1].diagnostics.items().front().message.find("missing.kineto.json") != std::string::npos);
    QCOMPARE(s[2].rank, int64_t(7));
    QCOMPARE(s[2].exitCode, int(ExitBadInput));
    QVERIFY(s[2].diagnostics.find("job.no_device"));
    QVERIFY(!std::filesystem::exists(out + "/trace.5.json") && !std::filesystem::exists(out + "/trace.7.json"));
}

QTEST_GUILESS_MAIN(TestJobRunner)
#include "tst_jobrunner.moc"
