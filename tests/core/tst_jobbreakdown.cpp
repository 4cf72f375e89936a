// SPDX-License-Identifier: MIT
// Job mode of issue 25 (docs/breakdowns.md, "Job mode"): each rank's whole-trace
// breakdowns kept in its summary, and per collective instance the message size,
// transfer time, algbw / busbw (nccl-tests) and the slow-busbw flag, checked on
// jobs whose values are known by construction, a generated job through the whole
// pipeline and the real DLRM rank 0 against HTA's own numbers.
#include "jobtestutil.h"
#include "analysis/htabreakdown.h"
#include "analysis/htarows.h"
#include "job/collectivebw.h"
#include "job/jobbandwidthreport.h"
#include "job/jobdocument.h"
#include "job/jobrunner.h"
#include "job/rankbreakdown.h"
#include "report/breakdownreport.h"
#include "tracegen.h"

#include <QtTest>

#include <cmath>

using namespace syncscope;

namespace {

// A 4-rank job on one clock: instance k, rank r arrives at k ms + 10r µs (rank 3
// last), every rank ends `transferUs[k]` after rank 3's arrival; all-reduce of `bytes`.
std::vector<RankSummary> handJob(const std::vector<double> &transferUs, int64_t bytes)
{
    RankCollective proto; // (std::string temporaries: gcc 12 warns on literal assignment here)
    proto.kernelName = std::string("ncclDevKernel_AllReduce_Sum_f32_RING_LL");
    proto.collectiveName = std::string("allreduce");
    proto.processGroup = std::string("0");
    proto.groupRanks = std::string("[0, 1, 2, 3]");
    proto.groupSize = 4;
    std::vector<RankSummary> ranks(4);
    for (int r = 0; r < 4; ++r) {
        RankSummary &s = ranks[size_t(r)];
        s.rank = r;
        s.worldSize = 4;
        s.traceStartNs = 0;
        s.traceEndNs = int64_t(transferUs.size() + 1) * 1000000;
        for (size_t k = 0; k < transferUs.size(); ++k) {
            RankCollective c = proto;
            c.seq = int64_t(k);
            c.stream = 20;
            c.startNs = int64_t(k) * 1000000 + r * 10000;
            c.endNs = int64_t(k) * 1000000 + 30000 + std::llround(transferUs[k] * 1000);
            c.event = uint32_t(k);
            c.busType = uint8_t(CollectiveType::AllReduce);
            c.messageBytes = bytes;
            s.collectives.push_back(c);
        }
    }
    return ranks;
}

} // namespace

class TestJobBreakdown : public QObject
{
    Q_OBJECT
private slots:
    void busBwByConstruction();
    void slowInstanceFlagged();
    void unknownSizeNeverFlagged();
    void generatedJobThroughPipeline();
    void realTraceMessageSizes();
    void rankBreakdownIsTheSingleRankOne();
    void runnerComputesBreakdownsOnlyWhenAsked();
    void jobReportAndSummary();
};

void TestJobBreakdown::busBwByConstruction()
{
    // 1e8 bytes in 100 µs: algbw 1000 GB/s; all-reduce of 4 ranks: busbw x 2(4-1)/4 = 1500 GB/s.
    const std::vector<RankSummary> ranks = handJob({100, 100, 100}, 100000000);
    const JobAnalysis job = analyzeJob(ranks, {});
    QCOMPARE(job.collectives.size(), size_t(3));
    const std::vector<CollectiveBandwidth> bw = jobCollectiveBandwidths(ranks, job);
    QCOMPARE(bw.size(), size_t(3));
    for (const CollectiveBandwidth &b : bw) {
        QCOMPARE(b.type, CollectiveType::AllReduce);
        QCOMPARE(b.groupSize, int64_t(4));
        QCOMPARE(b.messageBytes.value_or(-1), int64_t(100000000));
        QVERIFY2(std::fabs(b.transferUs - 100) < 1e-6, std::to_string(b.transferUs).c_str());
        QVERIFY(std::fabs(b.algBwGBps - 1000) < 1e-6);
        QVERIFY(std::fabs(b.busBwGBps - 1500) < 1e-6);
        QVERIFY(std::fabs(b.medianBusBwGBps - 1500) < 1e-6);
        QVERIFY(!b.slow);
        // Per rank: rank r waited 10 (3 - r) µs for rank 3; its kernel is wait + transfer.
        QCOMPARE(b.ranks.size(), size_t(4));
        for (const CollectiveRankBandwidth &r : b.ranks) {
            QVERIFY(std::fabs(r.waitUs - 10.0 * double(3 - r.rank)) < 1e-6);
            QVERIFY(std::fabs(r.transferUs - 100) < 1e-6);
            QVERIFY(std::fabs(r.kernelUs - r.waitUs - 100) < 1e-6);
            QVERIFY(std::fabs(r.busBwGBps - 1500) < 1e-6);
        }
    }
}

void TestJobBreakdown::slowInstanceFlagged()
{
    // Instance 2's transfer takes 4x as long: busbw 375 GB/s < 0.5 x the median 1500.
    const std::vector<RankSummary> ranks = handJob({100, 105, 400, 95, 100}, 100000000);
    const JobAnalysis job = analyzeJob(ranks, {});
    const std::vector<CollectiveBandwidth> bw = jobCollectiveBandwidths(ranks, job);
    QCOMPARE(bw.size(), size_t(5));
    for (size_t k = 0; k < bw.size(); ++k)
        QCOMPARE(bw[k].slow, k == 2);
    QVERIFY(std::fabs(bw[2].busBwGBps - 375) < 1e-6);
    QVERIFY(std::fabs(bw[2].medianBusBwGBps - 1500) < 1e-6);
    // A late rank is no slow link: waiting longer leaves the transfer, and the busbw, alone.
    std::vector<RankSummary> late = handJob({100, 100, 100, 100, 100}, 100000000);
    for (RankSummary &s : late)
        if (s.rank == 3) {
            s.collectives[2].startNs += 300000; // rank 3 arrives 300 µs later...
        }
    for (RankSummary &s : late)
        s.collectives[2].endNs += 300000; // ...and everybody ends 300 µs later
    const JobAnalysis lateJob = analyzeJob(late, {});
    const std::vector<CollectiveBandwidth> lateBw = jobCollectiveBandwidths(late, lateJob);
    QVERIFY(!lateBw[2].slow);
    QVERIFY(std::fabs(lateBw[2].transferUs - 100) < 1e-6);
    QVERIFY(lateBw[2].ranks[0].waitUs > 300);
    const std::vector<BusBwTypeSummary> types = busBwByType(bw);
    QCOMPARE(types.size(), size_t(1));
    QCOMPARE(types[0].instances, size_t(5));
    QCOMPARE(types[0].slow, size_t(1));
    QCOMPARE(types[0].worst, int64_t(2));
    const nlohmann::ordered_json j = jobBandwidthJson(bw);
    QCOMPARE(j["slow_busbw_count"].get<int>(), 1);
    QCOMPARE(j["slow_busbw"][0].get<int>(), 2);
    QCOMPARE(j["slow_busbw_ratio"].get<double>(), 0.5);
    const std::string text = formatJobBandwidth(bw);
    QVERIFY2(text.find("all_reduce") != std::string::npos && text.find("1 slow") != std::string::npos &&
                 text.find("worst #2: 375.00 GB/s vs 1500.00") != std::string::npos,
             text.c_str());
}

void TestJobBreakdown::unknownSizeNeverFlagged()
{
    // No message size: no bandwidth, no median, no flag; another size is its own group.
    std::vector<RankSummary> ranks = handJob({100, 400, 100}, -1);
    const JobAnalysis job = analyzeJob(ranks, {});
    for (const CollectiveBandwidth &b : jobCollectiveBandwidths(ranks, job)) {
        QVERIFY(!b.messageBytes);
        QCOMPARE(b.busBwGBps, -1.0);
        QVERIFY(!b.slow);
    }
    ranks = handJob({100, 400, 100}, 1000);
    for (RankSummary &s : ranks)
        s.collectives[1].messageBytes = 4000; // 4x the bytes in 4x the time: not slow
    const JobAnalysis job2 = analyzeJob(ranks, {});
    for (const CollectiveBandwidth &b : jobCollectiveBandwidths(ranks, job2))
        QVERIFY(!b.slow);
}

void TestJobBreakdown::generatedJobThroughPipeline()
{
    // tracegen: all-reduce of 262144 Float (1 MiB, Kineto args), group of 4, each instance
    // k lasting collectiveUs x (1 + 0.05 (k mod 5)) after the last arrival.
    tracegen::JobOptions o;
    o.dir = testutil::tempDir() + "/jobbw4";
    o.ranks = 4;
    o.steps = 2;
    o.layers = 2;
    o.collectiveUs = 200;
    const tracegen::JobResult gen = tracegen::generateJob(o);
    std::vector<RankSummary> ranks;
    for (const auto &r : gen.ranks)
        ranks.push_back(jobtest::summarize(r.devicePath, r.hostPath));
    for (const RankSummary &s : ranks)
        for (const RankCollective &c : s.collectives) {
            QCOMPARE(c.messageBytes, int64_t(1048576));
            QCOMPARE(CollectiveType(c.busType), CollectiveType::AllReduce);
        }
    JobAnalysis job = analyzeJob(ranks, {});
    QVERIFY(!job.collectives.empty());
    std::vector<CollectiveBandwidth> bw = jobCollectiveBandwidths(ranks, job);
    for (size_t k = 0; k < bw.size(); ++k) {
        const double transfer = o.collectiveUs * (1.0 + 0.05 * double(k % 5));
        QVERIFY2(std::fabs(bw[k].transferUs - transfer) < 1.0, std::to_string(bw[k].transferUs).c_str());
        const double busbw = 1048576.0 / (transfer * 1e-6) / 1e9 * 1.5;
        QVERIFY2(std::fabs(bw[k].busBwGBps - busbw) < 1e-3 * busbw, std::to_string(bw[k].busBwGBps).c_str());
        QVERIFY(!bw[k].slow);
    }
    // Instance 1 made 4x slower (its transfer, on every rank): flagged, and only it.
    const MatchedCollective &c = job.collectives[1];
    const double extraNs = 3 * o.collectiveUs * 1.05 * 1000;
    for (size_t p = 0; p < c.ranks.size(); ++p)
        for (RankSummary &s : ranks)
            if (s.rank == c.ranks[p])
                s.collectives[c.index[p]].endNs += std::llround(extraNs);
    job = analyzeJob(ranks, {});
    bw = jobCollectiveBandwidths(ranks, job);
    for (size_t k = 0; k < bw.size(); ++k)
        QCOMPARE(bw[k].slow, k == 1);
}

void TestJobBreakdown::realTraceMessageSizes()
{
    // HTA's hta_nccl_data (rank 0 of 2): S from the kernels' Kineto args, busbw over the transfer.
    REQUIRE_SHARED_DATA();
    std::vector<RankSummary> ranks{jobtest::summarize(testutil::sharedData("device_only/hta_nccl_data.kineto.json.gz"))};
    const std::vector<RankCollective> cs = ranks[0].collectives;
    QCOMPARE(cs.size(), size_t(21));
    // Broadcast of 53120 Float, of 53 Long, all-reduce of 2049000 Float.
    QCOMPARE(CollectiveType(cs[0].busType), CollectiveType::Broadcast);
    QCOMPARE(cs[0].messageBytes, int64_t(53120 * 4));
    QCOMPARE(cs[1].messageBytes, int64_t(53 * 8));
    QCOMPARE(CollectiveType(cs[2].busType), CollectiveType::AllReduce);
    QCOMPARE(cs[2].messageBytes, int64_t(2049000 * 4));
    for (const RankCollective &c : cs)
        QVERIFY(c.messageBytes > 0 && c.groupSize == 2);
    // Its peer as a copy of it (same clock, same kernels): every instance matched, both
    // ranks arriving together, so the transfer is the kernel.
    ranks.push_back(ranks[0]);
    ranks[1].rank = 1;
    const JobAnalysis job = analyzeJob(ranks, {});
    QCOMPARE(job.collectives.size(), cs.size());
    const std::vector<CollectiveBandwidth> bw = jobCollectiveBandwidths(ranks, job);
    for (size_t k = 0; k < bw.size(); ++k) {
        const RankCollective &c = cs[job.collectives[k].index[0]];
        const double kernelUs = double(c.endNs - c.startNs) / 1000;
        QVERIFY(std::fabs(bw[k].transferUs - kernelUs) < 1e-3);
        // n = 2: all-reduce 2(n-1)/n = 1, broadcast 1: busbw = algbw = S / t.
        QVERIFY(std::fabs(bw[k].busBwGBps - double(c.messageBytes) / (bw[k].transferUs * 1e-6) / 1e9) <
                1e-9 * bw[k].busBwGBps);
        QVERIFY(!bw[k].slow || bw[k].busBwGBps < 0.5 * bw[k].medianBusBwGBps);
    }
}

void TestJobBreakdown::rankBreakdownIsTheSingleRankOne()
{
    // The real DLRM rank 0: the job's rank breakdown is HTA f4d0062's (its golden: span
    // 13,009 µs, idle 49.34 %, compute 7.95 %, non-compute 42.71 %, overlap 4.50 %) and the
    // single-rank report's, key for key.
    AnalysisRequest request;
    request.devicePath = testutil::fixture("jobs/param_dlrm_8rank/rank0.kineto.json.gz");
    const auto analysis = runAnalysis(request);
    RankSummary s = extractRankSummary(*analysis, 0);
    QVERIFY(!s.breakdown);
    addRankBreakdown(*analysis, s);
    QVERIFY(s.breakdown && s.breakdown->valid);
    const RankBreakdown &b = *s.breakdown;
    QCOMPARE(b.kernelUs, 13009.0);
    QCOMPARE(b.idleUs, 6419.0);
    QCOMPARE(b.computeUs, 1034.0);
    QCOMPARE(b.idlePct, 49.34);
    QCOMPARE(b.computePct, 7.95);
    QCOMPARE(b.nonComputePct, 42.71);
    QCOMPARE(b.overlapPct, 4.5);
    QVERIFY(b.exposedCommUs > 0 && b.exposedCommUs <= b.commUs);
    QVERIFY(!b.topKernels.empty() && b.topKernels.size() <= kMaxRankTopKernels);
    for (size_t k = 1; k < b.topKernels.size(); ++k)
        QVERIFY(b.topKernels[k - 1].sumUs >= b.topKernels[k].sumUs);

    Diagnostics scratch;
    const hta::RowTable rows(*analysis->device, hta::RowOptions{}, scratch);
    const nlohmann::ordered_json single = breakdownJson(computeBreakdownSet(rows));
    const nlohmann::ordered_json ours = rankBreakdownJson(b);
    for (const char *key : {"temporal", "idle_time", "comm_comp_overlap_pct", "comm_time_us", "exposed_comm_us"})
        QVERIFY2(ours[key] == single[key], key);
    QCOMPARE(ours["kernels"]["by_type"], single["kernels"]["by_type"]);
    // by_kernel keeps the largest rows of the single-rank list, unchanged.
    for (const auto &row : ours["kernels"]["by_kernel"]) {
        bool found = false;
        for (const auto &full : single["kernels"]["by_kernel"])
            found = found || full == row;
        QVERIFY(found);
    }
    QVERIFY(!ours.contains("launch_stats") && !ours.contains("queue_length"));
}

void TestJobBreakdown::runnerComputesBreakdownsOnlyWhenAsked()
{
    JobRank rank;
    rank.rank = 0;
    rank.devicePath = testutil::fixture("jobs/param_dlrm_8rank/rank0.kineto.json.gz");
    JobRunOptions options;
    QVERIFY(!runJobRank(rank, options).breakdown); // a plain job run keeps its speed
    options.breakdowns = true;
    const RankSummary s = runJobRank(rank, options);
    QVERIFY(s.breakdown && s.breakdown->valid);
    QCOMPARE(s.breakdown->kernelUs, 13009.0);
    // When the pipeline computed them (the CLI's request does for --report) they are reused: same numbers.
    options.request.breakdowns = true;
    const RankSummary reused = runJobRank(rank, options);
    QVERIFY(reused.breakdown);
    QCOMPARE(rankBreakdownJson(*reused.breakdown).dump(), rankBreakdownJson(*s.breakdown).dump());
}

void TestJobBreakdown::jobReportAndSummary()
{
    std::vector<RankSummary> ranks = handJob({100, 105, 400, 95, 100}, 100000000);
    RankBreakdown b;
    b.valid = true;
    b.kernelUs = 1000;
    b.computeUs = 600;
    b.idleUs = 100;
    b.exposedCommUs = 250;
    b.memcpyUs = 50;
    b.overlapPct = std::nan("");
    ranks[1].breakdown = b;
    const JobAnalysis job = analyzeJob(ranks, {});
    JobDiscovery discovery;
    for (const RankSummary &s : ranks)
        discovery.ranks.push_back({s.rank, {}, "rank" + std::to_string(s.rank) + ".json"});
    JobReportInput in;
    in.discovery = &discovery;
    in.ranks = &ranks;
    in.analysis = &job;
    const auto report = nlohmann::json::parse(buildJobReportJson(in));
    QVERIFY(report["ranks"][0]["breakdown"].is_null());
    const auto &rb = report["ranks"][1]["breakdown"];
    QCOMPARE(rb["temporal"]["kernel_time_us"].get<double>(), 1000.0);
    QCOMPARE(rb["exposed_comm_us"].get<double>(), 250.0);
    QVERIFY(rb["comm_comp_overlap_pct"].is_null()); // HTA's NaN: no communication time
    const auto &c2 = report["collectives"][2];
    QCOMPARE(c2["message_bytes"].get<int64_t>(), int64_t(100000000));
    QCOMPARE(c2["transfer_us"].get<double>(), 400.0);
    QCOMPARE(c2["transfer_us_by_rank"]["3"].get<double>(), 400.0);
    QCOMPARE(c2["algbw_gbps"].get<double>(), 250.0);
    QCOMPARE(c2["busbw_gbps"].get<double>(), 375.0);
    QCOMPARE(c2["median_busbw_gbps"].get<double>(), 1500.0);
    QCOMPARE(c2["bus_type"].get<std::string>(), std::string("all_reduce"));
    QVERIFY(c2["slow_busbw"].get<bool>());
    QVERIFY(!report["collectives"][0]["slow_busbw"].get<bool>());
    QCOMPARE(report["job"]["collective_bandwidth"]["slow_busbw"], nlohmann::json::array({2}));
    const std::string text = formatJobSummary(in);
    QVERIFY2(text.find("GPU per rank") != std::string::npos, text.c_str());
    // rank 1: compute 60 %, comm exposed 25 %, memcpy 5 %, idle 10 %, overlap undefined.
    QVERIFY2(text.find("     1       60.0            25.0       5.0    10.0                    -") != std::string::npos,
             text.c_str());
    QVERIFY2(text.find("Collective busbw") != std::string::npos && text.find("1 slow") != std::string::npos,
             text.c_str());
}

QTEST_GUILESS_MAIN(TestJobBreakdown)
#include "tst_jobbreakdown.moc"
