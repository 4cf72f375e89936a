// SPDX-License-Identifier: MIT
// Rank summaries: the byte round trip (MPI transport), corrupt buffers, and the
// job analysis on bad and hand-made inputs (diagnostics, never crashes).
#include "analysis/busbw.h"
#include "analysis/collectivekernel.h"
#include "job/discovery.h"
#include "job/rankbreakdown.h"
#include "jobtestutil.h"

#include <QtTest>

#include <cmath>

using namespace syncscope;

namespace {

RankCollective coll(const std::string &name, int64_t startNs, int64_t endNs, const std::string &pg = {},
                    int64_t seq = -1, int64_t peer = -1)
{
    RankCollective c;
    c.collectiveName = name;
    c.kernelName = "ncclDevKernel_" + name;
    c.processGroup = pg;
    c.seq = seq;
    c.peer = peer;
    c.startNs = startNs;
    c.endNs = endNs;
    return c;
}

RankSummary rank(int64_t r, std::vector<RankCollective> cs)
{
    RankSummary s;
    s.rank = r;
    s.devicePath = "rank" + std::to_string(r) + ".json";
    s.collectives = std::move(cs);
    return s;
}

} // namespace

class TestJobSummary : public QObject
{
    Q_OBJECT
private slots:
    void kernelNames();
    void collectiveArgsParsed();
    void roundTrip();
    void roundTripBreakdownAndSizes();
    void fuzzSeedsAreCurrent();
    void corruptBuffersRejected();
    void hostileValuesRejected();
    void rankWithoutCollectives();
    void mismatchedCounts();
    void duplicateRank();
    void emptyJob();
    void sendRecvPairs();
    void alignmentThroughOtherRanks();
    void outlierRobust();
    void stepMismatch();
};

void TestJobSummary::kernelNames()
{
    QVERIFY(isCollectiveKernel("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)"));
    QVERIFY(isCollectiveKernel("ncclDevKernel_AllGather_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"));
    QVERIFY(isCollectiveKernel("void ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)"));
    QVERIFY(isCollectiveKernel("rcclGenericKernel"));
    QVERIFY(!isCollectiveKernel("void at::native::vectorized_elementwise_kernel<4>"));
    QCOMPARE(collectiveFromKernel("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*)"), std::string("allreduce"));
    QCOMPARE(collectiveFromKernel("ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL"), std::string("reducescatter"));
    QCOMPARE(collectiveFromKernel("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t"), std::string("sendrecv"));
    QCOMPARE(collectiveFromKernel("ncclDevKernel_Broadcast_RING_LL"), std::string("broadcast"));
    QCOMPARE(collectiveFromKernel("ncclDevKernel_Generic"), std::string());
}

void TestJobSummary::collectiveArgsParsed()
{
    // The Kineto args of NCCL kernels in their spellings: string and array rank lists, "Seq" and
    // "seq", numbers as strings; a CPU op with "Collective name" is not a kernel.
    const std::string path = testutil::tempDir() + "/comm.kineto.json";
    testutil::writeText(path, R"json({"distributedInfo": {"rank": 1, "world_size": 2}, "traceEvents": [
 {"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 9, "tid": 9, "ts": 100, "dur": 50,
  "args": {"Collective name": "send", "Seq": 3}},
 {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)", "pid": 0, "tid": 20,
  "ts": 120, "dur": 30, "args": {"stream": 20, "device": 0, "correlation": 1, "Collective name": "send",
  "Process Group Name": "3", "Process Group Ranks": [0, 1], "seq": 7, "Dst Rank": 0}},
 {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)", "pid": 0, "tid": 20,
  "ts": 160, "dur": 10, "args": {"stream": 20, "device": 0, "correlation": 2, "Collective name": "recv",
  "Process Group Name": "3", "Process Group Ranks": "[0, 1]", "Seq": "8", "Src Rank": "0"}},
 {"ph": "X", "cat": "kernel", "name": "ncclKernel_AllGather_RING_LL_Sum_int8_t(ncclDevComm*)", "pid": 0, "tid": 20,
  "ts": 200, "dur": 5, "args": {"stream": 20, "correlation": 3}},
 {"ph": "X", "cat": "kernel", "name": "volta_sgemm_128x64_nn", "pid": 0, "tid": 7, "ts": 210, "dur": 5,
  "args": {"stream": 7, "correlation": 4}},
 {"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 9, "tid": 9, "ts": 300, "dur": 20,
  "args": {"External id": 77, "Collective name": "allreduce", "Process Group Name": "5", "Seq": 11}},
 {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*)", "pid": 0, "tid": 21,
  "ts": 310, "dur": 40, "args": {"External id": 77, "stream": 21, "correlation": 6}}
]})json");
    const RankSummary s = jobtest::summarize(path);
    QCOMPARE(s.rank, int64_t(1));
    QCOMPARE(s.collectives.size(), size_t(4));
    const RankCollective &send = s.collectives[0];
    QCOMPARE(send.collectiveName, std::string("send"));
    QCOMPARE(send.processGroup, std::string("3"));
    QCOMPARE(send.groupRanks, std::string("[0,1]"));
    QCOMPARE(send.groupSize, int64_t(2));
    QCOMPARE(send.seq, int64_t(7));
    QCOMPARE(send.peer, int64_t(0));
    QCOMPARE(send.stream, int64_t(20));
    QCOMPARE(send.startNs, int64_t(120000));
    QCOMPARE(send.endNs, int64_t(150000));
    const RankCollective &recv = s.collectives[1];
    QCOMPARE(recv.collectiveName, std::string("recv"));
    QCOMPARE(recv.groupRanks, std::string("[0, 1]"));
    QCOMPARE(recv.seq, int64_t(8));
    QCOMPARE(recv.peer, int64_t(0));
    const RankCollective &old = s.collectives[2];
    QCOMPARE(old.collectiveName, std::string("allgather"));
    QVERIFY(old.processGroup.empty());
    QCOMPARE(old.seq, int64_t(-1));
    QCOMPARE(old.groupSize, int64_t(-1));
    // No args on the kernel: its launcher's (same External id) stand in.
    const RankCollective &inherited = s.collectives[3];
    QCOMPARE(inherited.collectiveName, std::string("allreduce"));
    QCOMPARE(inherited.processGroup, std::string("5"));
    QCOMPARE(inherited.seq, int64_t(11));
}

void TestJobSummary::roundTrip()
{
    RankSummary s = jobtest::summarize(testutil::fixture("jobs/param_dlrm_8rank/rank1.kineto.json.gz"));
    s.outputs.emplace_back("et_plus", "out/linked.1.json");
    s.baseTimeNanoseconds = 123;
    QVERIFY(s.criticalPath.valid);
    QVERIFY(!s.diagnostics.items().empty());
    const std::string bytes = serializeRankSummary(s);
    RankSummary back;
    std::string error;
    QVERIFY2(deserializeRankSummary(bytes, back, error), error.c_str());
    QCOMPARE(serializeRankSummary(back), bytes);
    QCOMPARE(back.rank, int64_t(1));
    QCOMPARE(back.collectives.size(), s.collectives.size());
    QCOMPARE(back.collectives[3].kernelName, s.collectives[3].kernelName);
    QCOMPARE(back.criticalPath.edges.size(), s.criticalPath.edges.size());
    QCOMPARE(back.criticalPath.weightUs, s.criticalPath.weightUs);
    QCOMPARE(back.diagnostics.items().size(), s.diagnostics.items().size());
    QCOMPARE(back.diagnostics.items()[0].count, s.diagnostics.items()[0].count);
    QCOMPARE(back.outputs, s.outputs);
    QCOMPARE(back.baseTimeNanoseconds.value_or(0), int64_t(123));
    // The job analysis of deserialised summaries is the one of the originals.
    std::vector<RankSummary> ranks = jobtest::dlrmJob(), copies;
    for (const RankSummary &r : ranks) {
        RankSummary c;
        QVERIFY(deserializeRankSummary(serializeRankSummary(r), c, error));
        copies.push_back(std::move(c));
    }
    const JobAnalysis a = analyzeJob(ranks, {}), b = analyzeJob(copies, {});
    QCOMPARE(a.criticalPath.weightUs, b.criticalPath.weightUs);
    QCOMPARE(a.ranks[4].clockOffsetUs, b.ranks[4].clockOffsetUs);
}

void TestJobSummary::roundTripBreakdownAndSizes()
{
    // Version 3: each collective's bus type and message size, and the rank's breakdowns
    // (HTA's NaN kept as NaN), survive the MPI transport.
    AnalysisRequest request;
    request.devicePath = testutil::fixture("jobs/param_dlrm_8rank/rank2.kineto.json.gz");
    const auto analysis = runAnalysis(request);
    RankSummary s = extractRankSummary(*analysis, 0);
    QVERIFY(!s.collectives.empty());
    // DLRM's first collective is an ncclKernel_SendRecv, which the .et calls ALL_TO_ALL: busbw is
    // measured as an all-to-all ((n-1)/n), as the Collectives dock and the SQLite export do.
    QCOMPARE(collectiveTypeOf(s.collectives[0].kernelName), CollectiveType::SendRecv);
    QCOMPARE(CollectiveType(s.collectives[0].busType), CollectiveType::AllToAll);
    s.collectives[0].messageBytes = 4096;
    addRankBreakdown(*analysis, s);
    QVERIFY(s.breakdown && s.breakdown->valid && !s.breakdown->idle.empty() && !s.breakdown->topKernels.empty());
    s.breakdown->idle[0].ratio = std::nan(""); // a stream without idle time (HTA: 0/0)
    const std::string bytes = serializeRankSummary(s);
    RankSummary back;
    std::string error;
    QVERIFY2(deserializeRankSummary(bytes, back, error), error.c_str());
    QCOMPARE(serializeRankSummary(back), bytes);
    QCOMPARE(back.collectives[0].messageBytes, int64_t(4096));
    QCOMPARE(back.collectives[1].messageBytes, s.collectives[1].messageBytes);
    QCOMPARE(back.collectives[0].busType, s.collectives[0].busType);
    QVERIFY(back.breakdown);
    QCOMPARE(rankBreakdownJson(*back.breakdown).dump(), rankBreakdownJson(*s.breakdown).dump());
    QVERIFY(std::isnan(back.breakdown->idle[0].ratio));
    QCOMPARE(back.breakdown->topKernels.size(), s.breakdown->topKernels.size());
    // Without breakdowns (a plain job run) the summary carries none.
    s.breakdown.reset();
    QVERIFY(deserializeRankSummary(serializeRankSummary(s), back, error));
    QVERIFY(!back.breakdown);
    // An unknown collective type is refused, not trusted.
    s.collectives[0].busType = 200;
    QVERIFY(!deserializeRankSummary(serializeRankSummary(s), back, error));
    QVERIFY(error.find("unknown type") != std::string::npos);
}

void TestJobSummary::fuzzSeedsAreCurrent()
{
    // fuzz_jobsummary's serialised seeds are of the current format (a stale version would
    // stop every run at the version check and fuzz nothing behind it).
    for (const char *seed : {"mini-trace-rank0.ssrs", "trace-link-rank0.ssrs"}) {
        const std::string bytes = testutil::readText(testutil::fixture(std::string("../../fuzz/corpus/jobsummary/") + seed));
        RankSummary s;
        std::string error;
        QVERIFY2(deserializeRankSummary(bytes, s, error), (std::string(seed) + ": " + error).c_str());
        QCOMPARE(serializeRankSummary(s), bytes);
    }
}

void TestJobSummary::corruptBuffersRejected()
{
    const RankSummary s = jobtest::summarize(testutil::fixture("jobs/param_dlrm_8rank/rank0.kineto.json.gz"));
    const std::string bytes = serializeRankSummary(s);
    RankSummary out;
    std::string error;
    // Every truncation fails cleanly.
    for (size_t n = 0; n < bytes.size(); n += std::max<size_t>(1, bytes.size() / 251)) {
        QVERIFY(!deserializeRankSummary(std::string_view(bytes).substr(0, n), out, error));
        QVERIFY(error.find("corrupt rank summary") == 0);
    }
    QVERIFY(!deserializeRankSummary(bytes + "x", out, error));
    QVERIFY(error.find("left over") != std::string::npos);
    std::string bad = bytes;
    bad[0] = 'X';
    QVERIFY(!deserializeRankSummary(bad, out, error));
    QVERIFY(error.find("magic") != std::string::npos);
    bad = bytes;
    bad[4] = 9; // version
    QVERIFY(!deserializeRankSummary(bad, out, error));
    QVERIFY(error.find("version") != std::string::npos);
    // A huge string length right after the header.
    bad = bytes;
    for (int k = 0; k < 4; ++k)
        bad[8 + 8 + 9 + k] = char(0xff);
    QVERIFY(!deserializeRankSummary(bad, out, error));
    // Flipped bytes anywhere: either a clean failure or a summary, never a crash.
    for (size_t k = 8; k < bytes.size(); k += std::max<size_t>(1, bytes.size() / 307)) {
        bad = bytes;
        bad[k] = char(bad[k] ^ 0x5a);
        deserializeRankSummary(bad, out, error);
    }
}

void TestJobSummary::hostileValuesRejected()
{
    // A summary read back holds only what a loaded trace can (issue 22): no negative rank (it
    // made the first arriver the "last arrival" with a negative wait), no time outside the
    // readers' range, no NaN; an implausible world_size is dropped as discovery drops it.
    const RankSummary good = jobtest::summarize(testutil::fixture("jobs/param_dlrm_8rank/rank0.kineto.json.gz"));
    QVERIFY(!good.collectives.empty() && good.criticalPath.valid);
    RankSummary out;
    std::string error;
    auto refused = [&](const RankSummary &s, const char *why) {
        const bool ok = deserializeRankSummary(serializeRankSummary(s), out, error);
        return !ok && error.find(why) != std::string::npos;
    };
    RankSummary s = good;
    s.rank = -1;
    QVERIFY2(refused(s, "rank -1 is not a rank"), error.c_str());
    s.rank = kMaxJobWorldSize;
    QVERIFY2(refused(s, "is not a rank"), error.c_str());
    s = good;
    s.collectives[0].startNs = INT64_MAX;
    QVERIFY2(refused(s, "a collective start"), error.c_str());
    s = good;
    s.traceStartNs = INT64_MIN;
    QVERIFY2(refused(s, "the trace start"), error.c_str());
    s = good;
    s.criticalPath.weightUs = std::nan("");
    QVERIFY2(refused(s, "not a finite number"), error.c_str());
    s = good;
    s.ops.at(0).durNs = INT64_MAX;
    QVERIFY2(refused(s, "an op duration"), error.c_str());
    s = good;
    s.worldSize = int64_t(1e18);
    QVERIFY2(deserializeRankSummary(serializeRankSummary(s), out, error), error.c_str());
    QVERIFY(!out.worldSize);
    QVERIFY(deserializeRankSummary(serializeRankSummary(good), out, error)); // the real one passes
}

void TestJobSummary::rankWithoutCollectives()
{
    std::vector<RankSummary> ranks = jobtest::dlrmJob();
    ranks[6].collectives.clear();
    for (RankCpOp &op : ranks[6].criticalPath.ops)
        op.collective = -1;
    const JobAnalysis job = analyzeJob(ranks, {});
    QVERIFY(job.diagnostics.find("job.no_collectives"));
    QVERIFY(job.diagnostics.find("job.incomplete_collectives"));
    QCOMPARE(job.collectives.size(), size_t(8));
    QCOMPARE(job.collectives[0].ranks.size(), size_t(7));
    QVERIFY(!job.collectives[0].complete);
    QCOMPARE(jobtest::stats(job, 6).offsetSamples, int64_t(0));
    QVERIFY(job.criticalPath.valid);
}

void TestJobSummary::mismatchedCounts()
{
    std::vector<RankSummary> ranks = jobtest::dlrmJob();
    // Rank 2 lost its first all-reduce kernel: order matching shifts by one.
    auto &cs = ranks[2].collectives;
    const auto it = std::find_if(cs.begin(), cs.end(), [](const RankCollective &c) { return c.collectiveName == "allreduce"; });
    QVERIFY(it != cs.end());
    cs.erase(it);
    for (RankCpOp &op : ranks[2].criticalPath.ops)
        op.collective = -1;
    const JobAnalysis job = analyzeJob(ranks, {});
    const Diagnostic *d = job.diagnostics.find("job.mismatched_collective_counts");
    QVERIFY(d);
    QVERIFY2(d->message.find("rank 2 has 2") != std::string::npos, d->message.c_str());
    QVERIFY(job.diagnostics.find("job.incomplete_collectives"));
    QCOMPARE(job.collectives.size(), size_t(8));
}

void TestJobSummary::duplicateRank()
{
    std::vector<RankSummary> ranks = jobtest::dlrmJob();
    ranks.push_back(ranks[3]);
    ranks.back().devicePath = "copy.json";
    const JobAnalysis job = analyzeJob(ranks, {});
    const Diagnostic *d = job.diagnostics.find("job.duplicate_rank");
    QVERIFY(d);
    QCOMPARE(d->severity, Severity::Error);
    QCOMPARE(job.collectives.size(), size_t(8));
    QCOMPARE(job.collectives[0].ranks.size(), size_t(8));
    QCOMPARE(job.ranks.size(), size_t(9));
}

void TestJobSummary::emptyJob()
{
    const JobAnalysis none = analyzeJob({}, {});
    QVERIFY(!none.criticalPath.valid);
    QVERIFY(none.collectives.empty());
    // Ranks with nothing at all.
    const JobAnalysis bare = analyzeJob({rank(0, {}), rank(1, {})}, {});
    QVERIFY(bare.collectives.empty());
    QVERIFY(!bare.criticalPath.valid);
    QVERIFY(bare.diagnostics.find("job.no_collectives"));
}

void TestJobSummary::sendRecvPairs()
{
    // Pipeline stages: 0 -> 1 -> 2, twice; rank r's clock is r ms ahead.
    const int64_t ms = 1'000'000;
    std::vector<RankSummary> ranks = {
        rank(0, {coll("send", 100, 500, "0", 0, 1), coll("send", 1000, 1500, "0", 1, 1)}),
        rank(1, {coll("recv", 300 + ms, 500 + ms, "0", 0, 0), coll("send", 600 + ms, 900 + ms, "0", 1, 2),
                 coll("recv", 1200 + ms, 1500 + ms, "0", 2, 0), coll("send", 1600 + ms, 1900 + ms, "0", 3, 2)}),
        rank(2, {coll("recv", 650 + 2 * ms, 900 + 2 * ms, "0", 0, 1), coll("recv", 1650 + 2 * ms, 1900 + 2 * ms, "0", 1, 1)}),
    };
    const JobAnalysis job = analyzeJob(ranks, {});
    QCOMPARE(job.collectives.size(), size_t(4));
    for (const MatchedCollective &c : job.collectives) {
        QCOMPARE(c.matchedBy, std::string("p2p_order"));
        QCOMPARE(c.ranks.size(), size_t(2));
        QVERIFY(c.complete);
    }
    QVERIFY(std::abs(jobtest::stats(job, 1).clockOffsetUs + 1000.0) < 1e-9);
    QVERIFY(std::abs(jobtest::stats(job, 2).clockOffsetUs + 2000.0) < 1e-9);
    // The first send: rank 0 arrived at 0.1 us, rank 1 at 0.3 us: rank 0 waited 0.2 us.
    QVERIFY(std::abs(job.collectives[0].waitUs.at(0) - 0.2) < 1e-9);
    QCOMPARE(job.collectives[0].lastArrivalRank, int64_t(1));
}

void TestJobSummary::alignmentThroughOtherRanks()
{
    // Groups {0,1} and {1,2}: rank 2 shares nothing with the reference 0.
    const int64_t off1 = 5'000'000, off2 = -7'000'000; // ns the ranks' clocks read ahead
    std::vector<RankSummary> ranks = {
        rank(0, {coll("allreduce", 0, 1000, "a", 0), coll("allreduce", 5000, 6000, "a", 1)}),
        rank(1, {coll("allreduce", 200 + off1, 1000 + off1, "a", 0), coll("allgather", 2000 + off1, 3000 + off1, "b", 0),
                 coll("allreduce", 5500 + off1, 6000 + off1, "a", 1)}),
        rank(2, {coll("allgather", 2100 + off2, 3000 + off2, "b", 0)}),
    };
    const JobAnalysis job = analyzeJob(ranks, {});
    QCOMPARE(job.collectives.size(), size_t(3));
    QVERIFY(std::abs(jobtest::stats(job, 1).clockOffsetUs + off1 / 1000.0) < 1e-9);
    QVERIFY(std::abs(jobtest::stats(job, 2).clockOffsetUs + off2 / 1000.0) < 1e-9);
    QCOMPARE(jobtest::stats(job, 2).offsetSamples, int64_t(1));
    QVERIFY(!job.diagnostics.find("job.rank_not_aligned"));
    // A rank in a group of its own stays unaligned, with a diagnostic.
    ranks.push_back(rank(3, {coll("allreduce", 0, 10, "c", 0)}));
    ranks.push_back(rank(4, {coll("allreduce", 0, 10, "c", 0)}));
    const JobAnalysis split = analyzeJob(ranks, {});
    QVERIFY(split.diagnostics.find("job.rank_not_aligned"));
}

void TestJobSummary::outlierRobust()
{
    // Five collectives; one has a bad end on rank 1 (a trace artefact): the median ignores it.
    std::vector<RankCollective> a, b;
    for (int k = 0; k < 5; ++k) {
        a.push_back(coll("allreduce", k * 10000, k * 10000 + 1000, "0", k));
        b.push_back(coll("allreduce", k * 10000 + 300 + 777000, k * 10000 + 1000 + 777000 + (k == 2 ? 400000 : 0), "0", k));
    }
    const JobAnalysis job = analyzeJob({rank(0, a), rank(1, b)}, {});
    QVERIFY(std::abs(jobtest::stats(job, 1).clockOffsetUs + 777.0) < 1e-9);
    QVERIFY(jobtest::stats(job, 1).clockSpreadUs < 1e-9); // MAD: 4 of 5 agree exactly
}

void TestJobSummary::stepMismatch()
{
    std::vector<RankSummary> ranks = jobtest::dlrmJob();
    QCOMPARE(ranks[0].criticalPath.windowStep, int64_t(10));
    ranks[2].criticalPath.windowStep = 11; // rank 2's trace started a step later
    const JobAnalysis job = analyzeJob(ranks, {});
    const Diagnostic *d = job.diagnostics.find("job.step_mismatch");
    QVERIFY(d);
    QVERIFY2(d->message.find("1 rank(s) analysed another window than ProfilerStep#10") != std::string::npos,
             d->message.c_str());
    QVERIFY(job.criticalPath.valid);
    for (const JobCriticalPathRow &row : job.criticalPath.path)
        QVERIFY(row.rank != 2);
}

QTEST_GUILESS_MAIN(TestJobSummary)
#include "tst_jobsummary.moc"
