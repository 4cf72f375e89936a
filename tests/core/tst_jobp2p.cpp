// SPDX-License-Identifier: MIT
// Send/recv across ranks (docs/job_analysis.md, "Matching" and "Where the job's step
// time went"): both Kineto rank args kept, a send paired with its recv as one
// instance without a name conflict, and unmatched kernels counted as collective
// time on the job's step, not as work.
#include "analysis/criticalpath.h"
#include "jobtestutil.h"

#include <QtTest>

#include <cmath>

using namespace syncscope;

namespace {

RankCollective p2p(const std::string &name, int64_t startNs, int64_t endNs, int64_t src, int64_t dst)
{
    RankCollective c;
    c.collectiveName = name;
    c.kernelName = "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)";
    c.processGroup = "0";
    c.srcRank = src;
    c.dstRank = dst;
    c.startNs = startNs;
    c.endNs = endNs;
    return c;
}

RankCollective allreduce(const std::string &name, int64_t startNs, int64_t endNs, int64_t seq)
{
    RankCollective c;
    c.collectiveName = name;
    c.kernelName = "ncclDevKernel_" + name;
    c.processGroup = "1";
    c.seq = seq;
    c.startNs = startNs;
    c.endNs = endNs;
    return c;
}

RankSummary rank(int64_t r, int64_t traceEndNs, std::vector<RankCollective> cs)
{
    RankSummary s;
    s.rank = r;
    s.devicePath = "rank" + std::to_string(r) + ".json";
    s.traceEndNs = traceEndNs;
    s.collectives = std::move(cs);
    return s;
}

bool near(double a, double b) { return std::abs(a - b) < 1e-6; }

} // namespace

class TestJobP2p : public QObject {
    Q_OBJECT
private slots:
    void pipelineSendsMatchTheirRecvs();
    void inconsistentCollectiveStillFlagged();
    void kernelWithBothRanksMatches();
    void endsOfOneSide();
    void unmatchedIsCollectiveTimeNotWork();
    void roundTripKeepsBothRanks();
};

void TestJobP2p::pipelineSendsMatchTheirRecvs()
{
    // A 2-stage pipeline: rank 0 sends each of 4 micro-batches to rank 1 ("Dst Rank" only),
    // rank 1 receives them ("Src Rank" only); rank 1's clock reads 1 ms ahead.
    const int64_t ms = 1'000'000;
    std::vector<RankCollective> sends, recvs;
    for (int64_t m = 0; m < 4; ++m) {
        sends.push_back(p2p("send", 1000 + m * 10000, 3000 + m * 10000, -1, 1));
        recvs.push_back(p2p("recv", 2000 + m * 10000 + ms, 3000 + m * 10000 + ms, 0, -1));
    }
    const JobAnalysis job = analyzeJob({rank(0, 50000, sends), rank(1, 50000 + ms, recvs)}, {});
    QCOMPARE(job.collectives.size(), size_t(4));
    for (size_t m = 0; m < 4; ++m) {
        const MatchedCollective &c = job.collectives[m];
        QCOMPARE(c.matchedBy, std::string("p2p_order"));
        QCOMPARE(c.name, std::string("send")); // the first rank's side
        QCOMPARE(c.ranks, (std::vector<int64_t>{0, 1}));
        QCOMPARE(c.index, (std::vector<uint32_t>{uint32_t(m), uint32_t(m)})); // the m-th send with the m-th recv
        QVERIFY(c.complete);
        QCOMPARE(c.lastArrivalRank, int64_t(1)); // the receiver starts 1 µs after the sender
        QVERIFY(near(c.waitUs.at(0), 1.0));
    }
    QVERIFY(!job.diagnostics.find("job.inconsistent_collectives"));
    QVERIFY(!job.diagnostics.find("job.unmatched_collectives"));
    QVERIFY(!job.diagnostics.find("job.incomplete_collectives"));
}

void TestJobP2p::inconsistentCollectiveStillFlagged()
{
    // Two names at one (process group, seq) of a collective are still a conflict.
    const JobAnalysis job = analyzeJob(
        {rank(0, 10000, {allreduce("allreduce", 1000, 2000, 0)}), rank(1, 10000, {allreduce("allgather", 1500, 2000, 0)})},
        {});
    QCOMPARE(job.collectives.size(), size_t(1));
    QVERIFY(job.diagnostics.find("job.inconsistent_collectives"));
}

void TestJobP2p::kernelWithBothRanksMatches()
{
    // New-style args: a kernel carries both "Src Rank" and "Dst Rank" (here the own rank
    // last, which a single field kept); rank 1 answers with a kernel named by its kernel
    // name only (sendrecv) that carries both too.
    auto write = [](int r, const std::string &events) {
        const std::string path = testutil::tempDir() + "/p2p" + std::to_string(r) + ".kineto.json";
        testutil::writeText(path, R"({"distributedInfo": {"rank": )" + std::to_string(r) +
                                      R"(, "world_size": 2}, "traceEvents": [)" + events + "]}");
        return path;
    };
    const std::string kernel = R"j({"ph": "X", "cat": "kernel", "name": "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)", "pid": 0, "tid": 20, )j";
    const std::string rank0 = write(0, kernel + R"j("ts": 100, "dur": 50, "args": {"stream": 20, "correlation": 1, "Collective name": "send", "Process Group Name": "0", "Dst Rank": 1, "Src Rank": 0}},)j" +
                                           kernel + R"j("ts": 300, "dur": 50, "args": {"stream": 20, "correlation": 2, "Collective name": "recv", "Process Group Name": "0", "Src Rank": 1, "Dst Rank": 0}})j");
    const std::string rank1 = write(1, kernel + R"j("ts": 120, "dur": 30, "args": {"stream": 20, "correlation": 1, "Collective name": "recv", "Process Group Name": "0", "Dst Rank": 1, "Src Rank": 0}},)j" +
                                           kernel + R"j("ts": 310, "dur": 40, "args": {"stream": 20, "correlation": 2, "Process Group Name": "0", "Src Rank": 1, "Dst Rank": 0}})j");
    std::vector<RankSummary> ranks = {jobtest::summarize(rank0), jobtest::summarize(rank1)};
    QCOMPARE(ranks[0].collectives.size(), size_t(2));
    QCOMPARE(ranks[1].collectives.size(), size_t(2));
    const RankCollective &send = ranks[0].collectives[0];
    QCOMPARE(send.srcRank, int64_t(0));
    QCOMPARE(send.dstRank, int64_t(1));
    QCOMPARE(send.peer, int64_t(1));
    QCOMPARE(ranks[0].collectives[1].peer, int64_t(1)); // recv: the source
    const RankCollective &back = ranks[1].collectives[1];
    QCOMPARE(back.collectiveName, std::string("sendrecv"));
    QCOMPARE(back.srcRank, int64_t(1));
    QCOMPARE(back.dstRank, int64_t(0));
    QCOMPARE(back.peer, int64_t(0)); // by which rank is not its own
    const JobAnalysis job = analyzeJob(ranks, {});
    QCOMPARE(job.collectives.size(), size_t(2));
    for (const MatchedCollective &c : job.collectives) {
        QCOMPARE(c.matchedBy, std::string("p2p_order"));
        QCOMPARE(c.ranks.size(), size_t(2));
    }
    QVERIFY(!job.diagnostics.find("job.unmatched_collectives"));
    QVERIFY(!job.diagnostics.find("job.inconsistent_collectives"));
}

void TestJobP2p::endsOfOneSide()
{
    int64_t src = -1, dst = -1;
    QVERIFY(p2pEnds(p2p("sendrecv", 0, 1, -1, 4), 2, src, dst)); // one rank, not self: to it
    QCOMPARE(src, int64_t(2));
    QCOMPARE(dst, int64_t(4));
    QVERIFY(p2pEnds(p2p("sendrecv", 0, 1, 4, -1), 2, src, dst)); // from it
    QCOMPARE(src, int64_t(4));
    QCOMPARE(dst, int64_t(2));
    RankCollective old = p2p("recv", 0, 1, -1, -1); // a hand-made summary: peer only
    old.peer = 3;
    QVERIFY(p2pEnds(old, 2, src, dst));
    QCOMPARE(src, int64_t(3));
    QCOMPARE(dst, int64_t(2));
    QVERIFY(!p2pEnds(p2p("send", 0, 1, 1, 4), 2, src, dst));      // another rank's send
    QVERIFY(!p2pEnds(p2p("sendrecv", 0, 1, 2, -1), 2, src, dst)); // only its own rank
    QVERIFY(!p2pEnds(p2p("broadcast", 0, 1, 0, -1), 2, src, dst)); // a root, no p2p side
}

void TestJobP2p::unmatchedIsCollectiveTimeNotWork()
{
    // Whole traces, one clock. Rank 0: allreduce 2-3 µs, then a send to rank 5 (not in
    // the job) 5-8 µs, trace end 10 µs; rank 1: allreduce 2.5-3 µs, trace end 9 µs.
    // Walk from rank 0's end: work 8-10, unmatched send 5-8, work 3-5, allreduce from
    // rank 1's arrival 2.5-3, rank 1's work 0-2.5.
    std::vector<RankSummary> ranks = {
        rank(0, 10000, {allreduce("allreduce", 2000, 3000, 0), p2p("send", 5000, 8000, 0, 5)}),
        rank(1, 9000, {allreduce("allreduce", 2500, 3000, 0)}),
    };
    for (RankSummary &r : ranks) { // a one-op graph each, so that the job critical path is valid
        RankCpGraph &g = r.criticalPath;
        g.valid = true;
        g.ops = {{"compute", "cpu_op", 0, 1000, -1, -1}};
        g.nodes = {{0, 0, true}, {1000, 0, false}};
        g.edges = {{0, 1, 1.0, 0, uint8_t(CpBound::CpuBound), 0}};
        g.weightUs = 1.0;
    }
    const JobAnalysis job = analyzeJob(ranks, {});
    QVERIFY(job.diagnostics.find("job.unmatched_collectives"));
    const JobStepTime &st = job.criticalPath.stepTime;
    QVERIFY(st.valid);
    QVERIFY(near(st.stepTimeUs, 10.0));
    QVERIFY(near(st.workUs, 6.5));        // 9.5 µs when the send counted as work
    QVERIFY(near(st.waitUs, 3.5));        // allreduce 0.5 + unmatched send 3
    QVERIFY(near(st.unmatchedUs, 3.0));
    QVERIFY(near(st.workUs + st.waitUs + st.outsideWindowUs, st.stepTimeUs));
    bool found = false;
    for (size_t k = 0; k < st.segments.size(); ++k) {
        const JobPathSegment &g = st.segments[k];
        if (k > 0) // contiguous, in time order
            QVERIFY(near(g.startUs, st.segments[k - 1].endUs));
        if (g.collective && g.collectiveIndex < 0) {
            QCOMPARE(g.rank, int64_t(0));
            QVERIFY(near(g.startUs, 5.0) && near(g.endUs, 8.0));
            found = true;
        }
    }
    QVERIFY(found);
    // On the job critical path: the send's kernel, as communication.
    const JobCriticalPath &cp = job.criticalPath;
    QVERIFY2(cp.valid, cp.reason.c_str());
    QVERIFY(near(cp.weightUs, 10.0));
    bool onPath = false;
    for (const JobCriticalPathRow &row : cp.path)
        onPath |= row.rank == 0 && row.op == ranks[0].collectives[1].kernelName && near(row.startUs, 5.0) &&
                  row.boundBy == "gpu_communication_bound";
    QVERIFY(onPath);
    double comm = -1;
    for (const auto &[bound, pct] : cp.summaryPct)
        if (bound == "gpu_communication_bound")
            comm = pct;
    QVERIFY(near(comm, 35.0)); // (0.5 + 3) of 10 µs
}

void TestJobP2p::roundTripKeepsBothRanks()
{
    RankSummary s = rank(3, 10000, {p2p("send", 100, 200, 3, 7), p2p("sendrecv", 300, 400, 2, 3)});
    s.collectives[0].peer = 7;
    s.collectives[1].peer = 2;
    RankSummary back;
    std::string error;
    QVERIFY2(deserializeRankSummary(serializeRankSummary(s), back, error), error.c_str());
    QCOMPARE(back.collectives.size(), size_t(2));
    for (size_t k = 0; k < 2; ++k) {
        QCOMPARE(back.collectives[k].srcRank, s.collectives[k].srcRank);
        QCOMPARE(back.collectives[k].dstRank, s.collectives[k].dstRank);
        QCOMPARE(back.collectives[k].peer, s.collectives[k].peer);
    }
    QCOMPARE(serializeRankSummary(back), serializeRankSummary(s));
    s.collectives[1].dstRank = -2; // no rank
    QVERIFY(!deserializeRankSummary(serializeRankSummary(s), back, error));
    QVERIFY(error.find("rank -2") != std::string::npos);
}

QTEST_GUILESS_MAIN(TestJobP2p)
#include "tst_jobp2p.moc"
