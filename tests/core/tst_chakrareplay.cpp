// SPDX-License-Identifier: MIT
// Replay of hand-built .et graphs (issue 15): dependencies, resources, step
// windows, cycles and missing nodes.
#include "export/chakrareplay.h"
#include "export/chakrasummary.h"
#include "io/bytesource.h"
#include "proto/et_def.pb.h"
#include "testutil.h"

#include <QtTest>

using namespace syncscope;

class TestChakraReplay : public QObject
{
    Q_OBJECT
private slots:
    void launchAndChain();
    void streamIsAResource();
    void stepWindow();
    void cycleAndMissingDeps();
    void selfDependencyIsNotMissing();
    void duplicateIdsReplayOnce();
    void manyParentCycles();
    void sampleExportReplays();
};

namespace {

struct N {
    uint64_t id;
    std::string name;
    uint64_t dur;
    bool cpu = true;
    int64_t tidOrStream = 1;
    std::vector<uint64_t> ctrl = {}, data = {};
    uint64_t start = 0;
};

void putVarint(std::string &out, uint64_t v)
{
    while (v >= 0x80) {
        out.push_back(static_cast<char>((v & 0x7f) | 0x80));
        v >>= 7;
    }
    out.push_back(static_cast<char>(v));
}

std::string writeEt(const std::vector<N> &nodes)
{
    std::string bytes;
    ChakraProtoMsg::GlobalMetadata meta;
    meta.set_version("0.0.4");
    std::string m = meta.SerializeAsString();
    putVarint(bytes, m.size());
    bytes += m;
    for (const N &n : nodes) {
        ChakraProtoMsg::Node node;
        node.set_id(n.id);
        node.set_name(n.name);
        node.set_type(ChakraProtoMsg::COMP_NODE);
        node.set_duration_micros(n.dur);
        node.set_start_time_micros(n.start);
        for (uint64_t c : n.ctrl)
            node.add_ctrl_deps(c);
        for (uint64_t d : n.data)
            node.add_data_deps(d);
        auto *cpu = node.add_attr();
        cpu->set_name("is_cpu_op");
        cpu->set_bool_val(n.cpu);
        auto *where = node.add_attr();
        where->set_name(n.cpu ? "tid" : "stream");
        where->set_int64_val(n.tidOrStream);
        std::string s = node.SerializeAsString();
        putVarint(bytes, s.size());
        bytes += s;
    }
    const std::string path = testutil::tempDir() + "/t.et";
    testutil::writeText(path, bytes);
    return path;
}

const ReplayWindow *window(const ReplayResult &r, const std::string &name)
{
    for (const auto &w : r.windows)
        if (w.window == name)
            return &w;
    return nullptr;
}

} // namespace

void TestChakraReplay::launchAndChain()
{
    // A (10) launches K (100 on stream 7); B (20) follows A on the thread.
    const auto r = replayChakraEt(writeEt({{1, "A", 10}, {2, "B", 20, true, 1, {1}}, {3, "K", 100, false, 7, {}, {1}}}));
    QCOMPARE(r.nodes, int64_t(3));
    QCOMPARE(r.makespanUs, 110.0);
    QCOMPARE(r.unreachable, int64_t(0));
}

void TestChakraReplay::streamIsAResource()
{
    const auto same = replayChakraEt(writeEt({{1, "K1", 50, false, 7}, {2, "K2", 50, false, 7}}));
    QCOMPARE(same.makespanUs, 100.0);
    const auto two = replayChakraEt(writeEt({{1, "K1", 50, false, 7}, {2, "K2", 50, false, 8}}));
    QCOMPARE(two.makespanUs, 50.0);
    // Two threads run in parallel, one thread serialises.
    QCOMPARE(replayChakraEt(writeEt({{1, "a", 30, true, 1}, {2, "b", 30, true, 2}})).makespanUs, 30.0);
    QCOMPARE(replayChakraEt(writeEt({{1, "a", 30, true, 1}, {2, "b", 30, true, 1}})).makespanUs, 60.0);
}

void TestChakraReplay::stepWindow()
{
    // ProfilerStep#1 (5 us own time) with a child (10) that launches a kernel (40):
    // measured from the start times: 1000 .. 1055; replayed: 5 + 10 + 40.
    const auto r = replayChakraEt(writeEt({{1, "ProfilerStep#1", 5, true, 1, {}, {}, 1000},
                                          {2, "aten::mm", 10, true, 1, {1}, {}, 1005},
                                          {3, "gemm", 40, false, 7, {2}, {2}, 1015}}));
    const ReplayWindow *w = window(r, "ProfilerStep#1");
    QVERIFY(w);
    QCOMPARE(w->measuredUs, 55.0);
    QCOMPARE(w->replayedUs, 55.0);
    QCOMPARE(w->errorPct(), 0.0);
    QVERIFY(window(r, "overall"));
    // A measured time given by the caller wins (compat files have no start times).
    const auto given = replayChakraEt(writeEt({{1, "ProfilerStep#1", 5}, {2, "x", 10, true, 1, {1}}}),
                                      {{"ProfilerStep#1", 30.0}});
    QCOMPARE(window(given, "ProfilerStep#1")->measuredUs, 30.0);
    QCOMPARE(window(given, "ProfilerStep#1")->errorPct(), -50.0);
}

void TestChakraReplay::cycleAndMissingDeps()
{
    const auto r = replayChakraEt(writeEt({{1, "a", 10, true, 1, {}, {2}}, {2, "b", 10, true, 1, {}, {1}},
                                          {3, "c", 10, true, 1, {}, {99}}}));
    QCOMPARE(r.unreachable, int64_t(2));
    QCOMPARE(r.missingDeps, int64_t(1));
    QCOMPARE(r.makespanUs, 10.0);
    QVERIFY(formatReplay(r).find("never ready") != std::string::npos);
}

void TestChakraReplay::selfDependencyIsNotMissing()
{
    // A node on itself (ctrl or data) is dropped and counted as such, not as a missing node.
    const std::string path = writeEt({{1, "a", 10}, {2, "b", 10, true, 1, {2}}, {3, "c", 10, true, 1, {1}, {3, 99}}});
    const auto r = replayChakraEt(path);
    QCOMPARE(r.selfDeps, int64_t(2));
    QCOMPARE(r.missingDeps, int64_t(1));
    QCOMPARE(r.unreachable, int64_t(0));
    QCOMPARE(r.makespanUs, 30.0);
    const std::string text = formatReplay(r);
    QVERIFY2(text.find("2 self-dependencies") != std::string::npos, text.c_str());
    QVERIFY2(text.find("1 dependencies on missing nodes") != std::string::npos, text.c_str());
    const std::string summary = formatChakraEtSummary(summarizeChakraEt(path));
    QVERIFY2(summary.find("problem: 2 dependencies of a node on itself") != std::string::npos, summary.c_str());
}

void TestChakraReplay::duplicateIdsReplayOnce()
{
    // Two nodes with id 2: the first is replayed once, the second dropped with a count
    // (both used to become ready, and the first ran twice: 55 us instead of 35).
    const auto r = replayChakraEt(writeEt({{1, "a", 10}, {2, "b", 20, true, 1, {1}}, {2, "b again", 20, true, 1, {1}},
                                          {3, "c", 5, true, 1, {2}}}));
    QCOMPARE(r.duplicateIds, int64_t(1));
    QCOMPARE(r.nodes, int64_t(3));
    QCOMPARE(r.unreachable, int64_t(0));
    QCOMPARE(r.makespanUs, 35.0);
    QVERIFY(formatReplay(r).find("1 nodes with a duplicate id dropped") != std::string::npos);
}

void TestChakraReplay::manyParentCycles()
{
    // Two-node parent cycles, one hanging under a step, and a chain that ends in a
    // cycle: none of them belongs to the step, and the walk is linear (the memoised
    // parent walk used to go round each cycle up to the node count: quadratic, 45 s
    // at 64 k nodes; bench/stepscale.sh measures it).
    std::vector<N> nodes = {{1, "ProfilerStep#1", 5, true, 1, {}, {}, 1000}, {2, "x", 10, true, 1, {1}, {}, 1005},
                            {3, "y", 10, true, 1, {4}}, {4, "z", 10, true, 1, {3}}, {5, "w", 10, true, 1, {3}}};
    for (uint64_t k = 10; k < 20010; k += 2) {
        nodes.push_back({k, "a", 1, true, 1, {k + 1}});
        nodes.push_back({k + 1, "b", 1, true, 1, {k}});
    }
    const auto r = replayChakraEt(writeEt(nodes));
    QCOMPARE(r.unreachable, int64_t(3 + 20000));
    QCOMPARE(r.nodes, int64_t(5 + 20000));
    const ReplayWindow *step = window(r, "ProfilerStep#1");
    QVERIFY(step);
    QCOMPARE(step->replayedUs, 15.0);
    QCOMPARE(step->measuredUs, 15.0);
}

void TestChakraReplay::sampleExportReplays()
{
    // The reference converter's file for the golden pair replays completely.
    const auto r = replayChakraEt(testutil::fixture("golden/trace_link/chakra.0.et"));
    QCOMPARE(r.unreachable, int64_t(0));
    QVERIFY(r.makespanUs > 0);
    QVERIFY(window(r, "overall"));
}

QTEST_GUILESS_MAIN(TestChakraReplay)
#include "tst_chakrareplay.moc"
