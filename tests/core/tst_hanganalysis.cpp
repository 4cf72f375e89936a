// SPDX-License-Identifier: MIT
// The cross-rank hang analysis (issue 29, part 2) on generated flight recorder dump sets
// whose answer is known: who never entered, who entered differently, who waits, and which
// finding is the root cause of the others.
#include "hang/hanganalysis.h"
#include "hang/hangfolder.h"
#include "hangreference.h"
#include "testutil.h"
#include "tracegen.h"

#include <QtTest>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <set>

using namespace syncscope;

namespace {

std::string key(const std::string &pg, bool p2p) { return pg + (p2p ? "/p2p" : ""); }

std::string describe(const HangSuspect &s)
{
    auto list = [](const std::vector<int64_t> &v) {
        std::string o = "[";
        for (size_t i = 0; i < v.size(); ++i)
        {
            if (i)
                o += ',';
            o += std::to_string(v[i]);
        }
        return o + "]";
    };
    return key(s.pgName, s.p2p) + " " + s.kind + " seq " + std::to_string(s.p2p ? s.p2pSeqId : s.collectiveSeqId) +
           " missing " + list(s.missingRanks) + " mismatched " + list(s.mismatchedRanks) + " waiting " +
           list(s.waitingRanks) + (s.root ? " root" : " consequence");
}

std::string describe(const tracegen::HangExpected &e)
{
    HangSuspect s;
    s.pgName = e.pgName;
    s.p2p = e.p2p;
    s.kind = e.kind;
    (e.p2p ? s.p2pSeqId : s.collectiveSeqId) = e.seq;
    s.missingRanks = e.missing;
    s.mismatchedRanks = e.mismatched;
    s.waitingRanks = e.waiting;
    s.root = e.root;
    return describe(s);
}

// Empty when the analysis equals the known answer, else what differs.
std::string compare(const HangAnalysis &a, const tracegen::HangCase &c)
{
    std::string out;
    if (a.suspects.size() != c.expected.size()) {
        out += "suspects: " + std::to_string(a.suspects.size()) + ", expected " + std::to_string(c.expected.size()) + "\n";
        for (const auto &s : a.suspects)
            out += "  got " + describe(s) + "\n";
        return out;
    }
    size_t roots = 0;
    for (const auto &e : c.expected)
        roots += e.root ? 1 : 0;
    if (a.roots() != roots)
        out += "roots: " + std::to_string(a.roots()) + ", expected " + std::to_string(roots) + "\n";
    // Roots in the expected order first; consequences as a set.
    std::set<size_t> used;
    for (size_t i = 0; i < c.expected.size(); ++i) {
        const auto &e = c.expected[i];
        std::optional<size_t> hit;
        if (e.root) {
            if (describe(a.suspects[i]) == describe(e))
                hit = i;
        } else {
            for (size_t j = roots; j < a.suspects.size(); ++j)
                if (!used.count(j) && describe(a.suspects[j]) == describe(e))
                    hit = j;
        }
        if (!hit) {
            out += "expected " + describe(e) + (e.root ? " at " + std::to_string(i) + ", got " + describe(a.suspects[i]) : std::string(", not found")) + "\n";
            continue;
        }
        used.insert(*hit);
        std::multiset<std::string> want(e.explains.begin(), e.explains.end()), got;
        for (size_t x : a.suspects[*hit].explains)
            got.insert(a.suspects[x].pgName);
        if (want != got) {
            out += describe(e) + ": explains";
            for (const auto &g : got)
                out += " " + g;
            out += ", expected";
            for (const auto &g : want)
                out += " " + g;
            out += "\n";
        }
    }
    return out;
}

} // namespace

class TestHangAnalysis : public QObject
{
    Q_OBJECT
private slots:
    void generatedCases_data();
    void generatedCases();
    void nestedRootLeadsTheSummary();
    void jsonKeys();
    void writtenDumpsHaveTheLayout();
    void explanationNeedsTheStuckRank();
    void noHang();
    void p2pPeerFromTheName();
    void completedDisagreementIsNoHang();
    void coalescedBlocks();
    void batchP2pMarker();
    void throughTheReader_data();
    void throughTheReader();
    void scaleTiming();
    void realActiveOnlyDumps_data();
    void realActiveOnlyDumps();
    void allEnteredIsAWarning();
    void pgStatusKeyedByUid();
    void warningsAreAggregated();
    void inconsistentPgStatusHidesNothing();
};

void TestHangAnalysis::generatedCases_data()
{
    QTest::addColumn<int>("index");
    const auto cases = tracegen::generateHangCases();
    for (size_t i = 0; i < cases.size(); ++i)
        QTest::newRow(cases[i].name.c_str()) << int(i);
    QTest::newRow("scale_64x40") << -1;
}

void TestHangAnalysis::generatedCases()
{
    QFETCH(int, index);
    const tracegen::HangCase c = index >= 0 ? tracegen::generateHangCases()[size_t(index)] : tracegen::generateHangScale(64, 40);
    const HangAnalysis a = analyzeHang(c.dumps, c.missingDumps, c.worldSize);
    const std::string diff = compare(a, c);
    if (!diff.empty())
        qWarning("%s\n%s", diff.c_str(), hangSummaryText(a).c_str());
    QVERIFY2(diff.empty(), diff.c_str());
    // Every member of every configured group has a status row.
    QVERIFY(!a.groups.empty());
    for (const auto &g : a.groups)
        for (const auto &m : g.members)
            QVERIFY(m.state == "completed" || m.state == "started" || m.state == "scheduled" || m.state == "never");
}

void TestHangAnalysis::nestedRootLeadsTheSummary()
{
    const auto cases = tracegen::generateHangCases();
    const auto &c = cases.back();
    QCOMPARE(c.name, std::string("nested_ep"));
    const HangAnalysis a = analyzeHang(c.dumps, c.missingDumps, c.worldSize);
    QVERIFY(!a.suspects.empty());
    QCOMPARE(a.suspects[0].pgDesc, std::string("EXPERT_MODEL_PARALLEL_GROUP"));
    QCOMPARE(a.suspects[0].op, std::string("nccl:all_to_all"));
    const std::string text = hangSummaryText(a);
    qInfo("%s", text.c_str());
    const std::string first = text.substr(0, text.find('\n'));
    QCOMPARE(first, std::string("hang: pg 9 EXPERT_MODEL_PARALLEL_GROUP nccl:all_to_all 4027x5120 bf16 seq 3 - "
                                "rank 12 never entered; 1 rank waits [missing] (explains 3 other findings)"));
    QVERIFY(text.find("5 consequences:") != std::string::npos);
    // Rank 12's group status: it completed TP's step 2 and never reached step 3.
    bool seen = false;
    for (const auto &g : a.groups) {
        if (g.pgName != "4")
            continue;
        for (const auto &m : g.members) {
            if (m.rank == 12) {
                seen = true;
                QCOMPARE(m.lastEnqueued, int64_t(3));
                QCOMPARE(m.lastCompleted, int64_t(3));
                QCOMPARE(m.state, std::string("completed"));
            } else {
                QCOMPARE(m.lastEnqueued, int64_t(4));
                QCOMPARE(m.state, std::string("started"));
            }
        }
    }
    QVERIFY(seen);
    // Desync text names the other size.
    const auto b = analyzeHang(cases[1].dumps, cases[1].missingDumps, cases[1].worldSize);
    const std::string bt = hangSummaryText(b);
    QVERIFY2(bt.rfind("hang: pg 0 default_pg nccl:all_reduce 1024 f32 seq 4 - rank 2 entered nccl:all_reduce 2048 f32; 3 ranks wait", 0) == 0, bt.c_str());
}

void TestHangAnalysis::jsonKeys()
{
    const auto cases = tracegen::generateHangCases();
    const auto &c = cases.back();
    const nlohmann::json j = hangAnalysisJson(analyzeHang(c.dumps, c.missingDumps, c.worldSize));
    for (const char *k : {"suspects", "groups", "warnings", "summary"})
        QVERIFY2(j.contains(k), k);
    QCOMPARE(j["suspects"].size(), size_t(6));
    for (const auto &s : j["suspects"])
        for (const char *k : {"pg_id", "pg_desc", "op", "input_sizes", "dtype", "collective_seq_id", "missing_ranks",
                              "mismatched_ranks", "waiting_ranks", "kind", "explains"})
            QVERIFY2(s.contains(k), k);
    const auto &root = j["suspects"][0];
    QCOMPARE(root["pg_id"].get<std::string>(), std::string("9"));
    QCOMPARE(root["missing_ranks"], nlohmann::json::array({12}));
    QCOMPARE(root["input_sizes"], nlohmann::json::parse("[[4027,5120]]"));
    QCOMPARE(root["dtype"].get<std::string>(), std::string("BFloat16"));
    QCOMPARE(root["explains"].size(), size_t(3));
    QCOMPARE(j["groups"].size(), size_t(17));
    for (const auto &g : j["groups"]) {
        QVERIFY(g.contains("pg_id") && g.contains("pg_desc") && g.contains("ranks"));
        for (const auto &r : g["ranks"])
            for (const char *k : {"rank", "last_enqueued", "last_started", "last_completed", "state"})
                QVERIFY2(r.contains(k), k);
    }
}

void TestHangAnalysis::writtenDumpsHaveTheLayout()
{
    const auto cases = tracegen::generateHangCases();
    const auto &c = cases[3]; // p2p_desync
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    std::string error;
    QVERIFY2(tracegen::writeHangDumps(c, dir.path().toStdString(), error), error.c_str());
    QFile f(dir.filePath("rank0.json"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const auto j = nlohmann::json::parse(f.readAll().toStdString());
    QCOMPARE(j["version"].get<std::string>(), std::string("2.4"));
    QCOMPARE(j["rank"].get<int64_t>(), int64_t(0));
    QCOMPARE(j["pg_config"]["0"]["ranks"].get<std::string>(), std::string("[0, 1, 2, 3]")); // ranks_str's form
    QVERIFY(j["pg_status"]["0"].contains("last_completed_collective"));
    const auto &e = j["entries"][0];
    for (const char *k : {"record_id", "pg_id", "process_group", "collective_seq_id", "p2p_seq_id", "op_id",
                          "profiling_name", "time_created_ns", "input_sizes", "input_dtypes", "output_sizes",
                          "output_dtypes", "state", "time_discovered_started_ns", "time_discovered_completed_ns",
                          "retired", "timeout_ms", "is_p2p", "duration_ms"})
        QVERIFY2(e.contains(k), k);
    QVERIFY(!e.contains("frames")); // dump_json writes no stacks
    QCOMPARE(e["profiling_name"].get<std::string>(), std::string("nccl:send 0->1"));
    QCOMPARE(e["process_group"], nlohmann::json::parse(R"(["0","default_pg"])"));
}

// Without the EP finding (rank 8's dump says its all_to_all completed), DP's missing rank 8
// is no longer stuck anywhere: DP must become a root (the rule can fail).
void TestHangAnalysis::explanationNeedsTheStuckRank()
{
    auto cases = tracegen::generateHangCases();
    auto c = cases.back();
    for (auto &d : c.dumps)
        if (d.rank == 8)
            for (auto &e : d.entries)
                if (e.pgName == "9")
                    e.state = "completed";
    for (auto &d : c.dumps)
        if (d.rank == 8)
            for (auto &s : d.pgStatus)
                if (s.name == "9")
                    s.lastCompleted = s.lastEnqueued;
    const HangAnalysis a = analyzeHang(c.dumps, c.missingDumps, c.worldSize);
    // EP still has rank 12 missing (rank 8 enqueued seq 3), but nobody waits there now.
    bool dpRoot = false;
    for (const auto &s : a.suspects)
        if (s.pgName == "13")
            dpRoot = s.root;
    QVERIFY2(dpRoot, hangSummaryText(a).c_str());
}

void TestHangAnalysis::noHang()
{
    tracegen::HangCase c = tracegen::generateHangScale(16, 8);
    for (auto &d : c.dumps) // everyone completes the last op; the culprit too
        for (auto &e : d.entries)
            e.state = "completed";
    for (auto &d : c.dumps)
        for (auto &s : d.pgStatus)
            s.lastCompleted = s.lastEnqueued;
    // The culprit's missing last op is still visible (last enqueued lower): drop it from its peers.
    const int64_t culprit = 16 / 2 + 3;
    for (auto &d : c.dumps)
        if (*d.rank / 8 == culprit / 8 && *d.rank != culprit) {
            d.entries.pop_back();
            for (auto &s : d.pgStatus)
                if (s.name != "0")
                    s.lastEnqueued = s.lastStarted = s.lastCompleted = s.lastEnqueued - 1;
        }
    const HangAnalysis a = analyzeHang(c.dumps, c.missingDumps, c.worldSize);
    QVERIFY2(a.suspects.empty(), hangSummaryText(a).c_str());
    QVERIFY(hangSummaryText(a).rfind("no hang found", 0) == 0);
}

void TestHangAnalysis::p2pPeerFromTheName()
{
    // A 2-rank subgroup of global ranks {6, 9}: "nccl:send 0->1" is group rank 0 -> 1.
    FrDump a, b;
    a.rank = 6;
    b.rank = 9;
    a.pgConfig = b.pgConfig = {{"3", "PIPELINE_MODEL_PARALLEL_GROUP", {6, 9}}};
    FrEntry e;
    e.pgName = "3";
    e.pgDesc = "PIPELINE_MODEL_PARALLEL_GROUP";
    e.isP2p = true;
    e.p2pSeqId = 1;
    e.profilingName = "nccl:send 0->1";
    e.inputSizes = {{4, 4}};
    e.inputDtypes = {"Float"};
    e.state = "started";
    e.timeCreatedNs = 100;
    a.entries.push_back(e);
    // Rank 9 completed an older transfer only.
    e.profilingName = "nccl:recv 1<-0";
    e.state = "completed";
    e.p2pSeqId = 0;
    b.entries.push_back(e);
    a.entries.insert(a.entries.begin(), a.entries[0]);
    a.entries[0].state = "completed";
    a.entries[0].p2pSeqId = 0;
    const HangAnalysis h = analyzeHang({a, b});
    QCOMPARE(h.suspects.size(), size_t(1));
    QVERIFY(h.suspects[0].p2p);
    QCOMPARE(h.suspects[0].kind, std::string("missing"));
    QCOMPARE(h.suspects[0].missingRanks, std::vector<int64_t>({9}));
    QCOMPARE(h.suspects[0].waitingRanks, std::vector<int64_t>({6}));
    QCOMPARE(h.suspects[0].p2pSeqId, int64_t(1));
}

// Seq 1 was recorded with another dtype by rank 1 but both completed it: a warning only; the
// hang is seq 2, which rank 1 never entered.
void TestHangAnalysis::completedDisagreementIsNoHang()
{
    std::vector<FrDump> dumps(2);
    for (int64_t r = 0; r < 2; ++r) {
        FrDump &d = dumps[size_t(r)];
        d.rank = r;
        d.pgConfig = {{"0", "default_pg", {0, 1}}};
        for (int64_t seq = 1; seq <= (r == 0 ? 2 : 1); ++seq) {
            FrEntry e;
            e.pgName = "0";
            e.pgDesc = "default_pg";
            e.recordId = seq;
            e.collectiveSeqId = seq;
            e.profilingName = "nccl:all_reduce";
            e.inputSizes = {{16}};
            e.inputDtypes = {seq == 1 && r == 1 ? "Half" : "Float"};
            e.state = seq == 2 ? "started" : "completed";
            e.timeCreatedNs = seq * 1000;
            d.entries.push_back(e);
        }
    }
    const HangAnalysis a = analyzeHang(dumps);
    QCOMPARE(a.suspects.size(), size_t(1));
    QCOMPARE(a.suspects[0].kind, std::string("missing"));
    QCOMPARE(a.suspects[0].collectiveSeqId, int64_t(2));
    QCOMPARE(a.suspects[0].missingRanks, std::vector<int64_t>({1}));
    QCOMPARE(a.suspects[0].waitingRanks, std::vector<int64_t>({0}));
    QCOMPARE(a.warnings.size(), size_t(1));
    // Not completed by rank 1: then it is the desync.
    dumps[1].entries[0].state = "started";
    const HangAnalysis b = analyzeHang(dumps);
    QCOMPARE(b.suspects.size(), size_t(1));
    QCOMPARE(b.suspects[0].kind, std::string("desync"));
    QCOMPARE(b.suspects[0].collectiveSeqId, int64_t(1));
    QCOMPARE(b.suspects[0].mismatchedRanks, std::vector<int64_t>({1})); // a tie: the lowest rank's op is the reference
    QVERIFY(b.suspects[0].waitingRanks.empty()); // rank 0 completed its seq 1
}

tracegen::HangCase caseNamed(const std::string &name)
{
    for (auto &c : tracegen::generateHangCases())
        if (c.name == name)
            return c;
    qFatal("no case %s", name.c_str());
    return {};
}

bool anyWarning(const HangAnalysis &a, const char *text)
{
    return std::any_of(a.warnings.begin(), a.warnings.end(), [&](const std::string &w) { return w.find(text) != std::string::npos; });
}

// A coalesced block (members, then the marker, one collective_seq_id) is one op across ranks.
void TestHangAnalysis::coalescedBlocks()
{
    // The desync names the block, its members' inputs, and the odd rank's block.
    const auto d = caseNamed("coalesced_other_size");
    const HangAnalysis a = analyzeHang(d.dumps, d.missingDumps, d.worldSize);
    QCOMPARE(a.suspects.size(), size_t(1));
    const HangSuspect &s = a.suspects[0];
    QCOMPARE(s.op, std::string("nccl:ALLGATHER_coalesced [nccl:_broadcast_oop, nccl:_broadcast_oop]"));
    QCOMPARE(s.inputSizes, std::vector<std::vector<int64_t>>({{4, 4}, {5, 5}}));
    QCOMPARE(s.dtype, std::string("Float,Float"));
    QCOMPARE(s.mismatches.size(), size_t(1));
    QCOMPARE(s.mismatches[0].rank, int64_t(2));
    QCOMPARE(s.mismatches[0].op, s.op);
    QCOMPARE(s.mismatches[0].inputSizes, std::vector<std::vector<int64_t>>({{4, 4}, {6, 5}}));
    QVERIFY(hangSummaryText(a).find("4x4,5x5") != std::string::npos);

    // Healthy blocks: no disagreement, not even a completed one; the block that ranks 0, 2, 3
    // entered alike is no desync when rank 1 never entered it.
    const auto h = caseNamed("coalesced_healthy");
    HangAnalysis b = analyzeHang(h.dumps, h.missingDumps, h.worldSize);
    QVERIFY(!anyWarning(b, "different ops"));
    const auto n = caseNamed("coalesced_never_entered");
    const HangAnalysis c = analyzeHang(n.dumps, n.missingDumps, n.worldSize);
    QCOMPARE(c.suspects.size(), size_t(1));
    QCOMPARE(c.suspects[0].op, std::string("nccl:coalesced [nccl:all_reduce, nccl:all_reduce]"));
    QVERIFY(c.suspects[0].mismatches.empty());

    // Without pg_status, progress comes from the entries: a block's state is its marker's
    // (the members stay "scheduled" in these dumps), so seq 5 counts as completed.
    auto dumps = h.dumps;
    for (auto &dd : dumps)
        dd.pgStatus.clear();
    b = analyzeHang(dumps, h.missingDumps, h.worldSize);
    QCOMPARE(b.suspects.size(), size_t(1));
    QCOMPARE(b.suspects[0].collectiveSeqId, int64_t(6));
    QCOMPARE(b.groups[0].members[3].lastCompleted, int64_t(5));
    QCOMPARE(b.groups[0].members[0].lastEnqueued, int64_t(6));

    // The fused ops ("nccl:allreduce_coalesced": one entry) are no block: compared as any op.
    auto o = caseNamed("other_size");
    for (auto &dd : o.dumps)
        for (auto &e : dd.entries)
            e.profilingName = "nccl:allreduce_coalesced";
    const HangAnalysis f = analyzeHang(o.dumps, o.missingDumps, o.worldSize);
    QCOMPARE(f.suspects.size(), size_t(1));
    QCOMPARE(f.suspects[0].op, std::string("nccl:allreduce_coalesced"));
    QCOMPARE(f.suspects[0].mismatchedRanks, std::vector<int64_t>({2}));
}

// batch_isend_irecv: the marker gives the batch its state and is no unreadable p2p entry;
// with the members' own ("scheduled") state, rank 0's shorter ring buffer would leave
// rank 1's oldest receive without counterpart.
void TestHangAnalysis::batchP2pMarker()
{
    auto c = caseNamed("batch_p2p_healthy");
    const HangAnalysis a = analyzeHang(c.dumps, c.missingDumps, c.worldSize);
    QVERIFY(!anyWarning(a, "point-to-point"));
    QCOMPARE(a.suspects.size(), size_t(1));
    QVERIFY(!a.suspects[0].p2p);
    // A batch whose marker is not completed is pending: rank 3's last batch, its peer 2's
    // done, now waits for a receive rank 2 never posted.
    FrDump &d3 = *std::find_if(c.dumps.begin(), c.dumps.end(), [](const FrDump &d) { return d.rank == 3; });
    FrDump &d2 = *std::find_if(c.dumps.begin(), c.dumps.end(), [](const FrDump &d) { return d.rank == 2; });
    auto lastMarker = std::find_if(d3.entries.rbegin(), d3.entries.rend(), [](const FrEntry &e) { return e.profilingName == "nccl:coalesced"; });
    QVERIFY(lastMarker != d3.entries.rend());
    lastMarker->state = "started";
    // rank 2's last batch and the all_reduce after it disappear: it stopped before them.
    const int64_t seq = lastMarker->p2pSeqId;
    std::erase_if(d2.entries, [&](const FrEntry &e) { return e.p2pSeqId == seq && e.isP2p; });
    const HangAnalysis b = analyzeHang(c.dumps, c.missingDumps, c.worldSize);
    const auto p = std::find_if(b.suspects.begin(), b.suspects.end(), [](const HangSuspect &s) { return s.p2p; });
    QVERIFY(p != b.suspects.end());
    QCOMPARE(p->missingRanks, std::vector<int64_t>({2}));
    QCOMPARE(p->waitingRanks, std::vector<int64_t>({3}));
}

// Every case written as JSON (rank<N>.json) and as torch's pickle (rank<N>, with stack
// frames), read back as a folder, gives the same answer as in memory.
void TestHangAnalysis::throughTheReader_data()
{
    QTest::addColumn<bool>("pickle");
    QTest::newRow("json") << false;
    QTest::newRow("pickle") << true;
}

void TestHangAnalysis::throughTheReader()
{
    QFETCH(bool, pickle);
    auto cases = tracegen::generateHangCases();
    cases.push_back(tracegen::generateHangScale(64, 40));
    for (const auto &c : cases) {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        std::string error;
        QVERIFY2(tracegen::writeHangDumps(c, dir.path().toStdString(), error,
                                          pickle ? tracegen::HangDumpFormat::Pickle : tracegen::HangDumpFormat::Json),
                 error.c_str());
        HangFolder folder;
        QVERIFY2(readHangFolder(dir.path().toStdString(), folder, error), error.c_str());
        QCOMPARE(folder.dumps.size(), c.dumps.size());
        QVERIFY(folder.refused.empty());
        for (const FrDump &r : folder.dumps) {
            QCOMPARE(r.json, !pickle);
            const FrDump &d = *std::find_if(c.dumps.begin(), c.dumps.end(), [&](const FrDump &x) { return x.rank == r.rank; });
            QCOMPARE(r.entries.size(), d.entries.size());
            QCOMPARE(r.pgConfig.size(), d.pgConfig.size());
            for (const FrProcessGroup &g : r.pgConfig) { // written as a JSON object: sorted by name
                const auto w = std::find_if(d.pgConfig.begin(), d.pgConfig.end(), [&](const FrProcessGroup &x) { return x.name == g.name; });
                QVERIFY(w != d.pgConfig.end());
                QCOMPARE(g.ranks.get(), w->ranks.get());
            }
            for (size_t k = 0; k < r.entries.size(); ++k) {
                QCOMPARE(r.entries[k].profilingName, d.entries[k].profilingName);
                QCOMPARE(r.entries[k].inputSizes, d.entries[k].inputSizes);
                QCOMPARE(r.entries[k].timeCreatedNs, d.entries[k].timeCreatedNs);
                QCOMPARE(r.entries[k].frames, pickle ? d.entries[k].frames : std::vector<std::string>());
            }
        }
        const HangAnalysis a = analyzeHang(folder.dumps, folder.missing, folder.worldSize);
        const std::string diff = compare(a, c);
        QVERIFY2(diff.empty(), (c.name + ": " + diff).c_str());
    }
}

void TestHangAnalysis::scaleTiming()
{
    // SYNCSCOPE_HANG_SCALE=RANKS,ENTRIES runs another size (10000,2000 for the benchmark).
    int ranks = 1000, entries = 500;
    if (const char *env = std::getenv("SYNCSCOPE_HANG_SCALE"))
        std::sscanf(env, "%d,%d", &ranks, &entries);
    const auto t0 = std::chrono::steady_clock::now();
    const tracegen::HangCase c = tracegen::generateHangScale(ranks, entries);
    const auto t1 = std::chrono::steady_clock::now();
    const HangAnalysis a = analyzeHang(c.dumps, c.missingDumps, c.worldSize);
    const auto t2 = std::chrono::steady_clock::now();
    const nlohmann::json j = hangAnalysisJson(a);
    const auto t3 = std::chrono::steady_clock::now();
    auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
    qInfo("%d ranks x %d entries: generate %.0f ms, analyze %.0f ms, json %.0f ms (%zu suspects)", ranks, entries,
          ms(t0, t1), ms(t1, t2), ms(t2, t3), a.suspects.size());
    const std::string diff = compare(a, c);
    QVERIFY2(diff.empty(), diff.c_str());
    QCOMPARE(j["groups"].size(), size_t(1 + c.worldSize / 8));
}

// Real dumps of a 16-rank MoE job that hung (nvidia-resiliency-ext's samples, active-only,
// format 2.9, tests/data/real/hang): the first suspect is the reference analyzer's answer,
// and no root blames a rank outside the injected faults (issue 39).
void TestHangAnalysis::realActiveOnlyDumps_data()
{
    QTest::addColumn<QString>("dir");
    QTest::addColumn<QString>("headline");
    QTest::newRow("gpu_error_1st") << "gpu_error_1st"
                                   << "hang: pg 74 EXPERT_MODEL_PARALLEL_GROUP nccl:all_to_all 4027x5120 bf16 seq 20537 - "
                                      "rank 12 never entered; 3 ranks wait [missing]";
    QTest::newRow("lock_gil_1st") << "lock_gil_1st"
                                  << "hang: pg 72 EXPERT_MODEL_PARALLEL_GROUP nccl:all_to_all 2048x5120 bf16 seq 45265 - "
                                     "ranks 9, 14 dumped no entries; 6 ranks wait [empty_dump]";
}

void TestHangAnalysis::realActiveOnlyDumps()
{
    QFETCH(QString, dir);
    QFETCH(QString, headline);
    const std::string path = testutil::fixture("real/hang/nvrx_16rank/" + dir.toStdString());
    HangFolder folder;
    std::string error;
    QVERIFY2(readHangFolder(path, folder, error), error.c_str());
    QCOMPARE(folder.dumps.size(), size_t(16));
    const HangAnalysis a = analyzeHang(folder.dumps, folder.missing, folder.worldSize);
    const testutil::HangReference ref = testutil::readHangReference(path);
    QVERIFY(ref.found && !ref.rows.empty() && !ref.faultRanks.empty());
    std::string diffs;
    for (const std::string &d : testutil::compareHangReference(a, ref))
        diffs += d + "\n";
    QVERIFY2(diffs.empty(), (diffs + hangSummaryText(a)).c_str());
    const std::string text = hangSummaryText(a);
    QVERIFY2(QString::fromStdString(text).startsWith(headline + " (explains"), text.c_str());
    QCOMPARE(a.roots(), size_t(1));
    // Why, beyond the reference: each missing rank's last entry, or its empty dump.
    const HangSuspect &root = a.suspects.front();
    QCOMPARE(root.lastEntries.size(), root.missingRanks.size());
    for (const HangLastEntry &l : root.lastEntries) {
        if (l.dump == "ok") {
            QCOMPARE(l.pgName, root.pgName); // rank 12 stopped after the group's previous all_to_all
            QCOMPARE(l.collectiveSeqId, root.collectiveSeqId - 1);
        } else {
            QCOMPARE(l.dump, std::string("empty"));
            QCOMPARE(l.groupLastEnqueued, root.collectiveSeqId - 1); // from pg_status, keyed by uid
        }
    }
    // The "hang inside the collective" warning belongs to dumps with no other answer.
    for (const std::string &w : a.warnings)
        QVERIFY2(w.find("none completed it") == std::string::npos, w.c_str());
}

void TestHangAnalysis::allEnteredIsAWarning()
{
    const auto cases = tracegen::generateHangCases();
    const auto c = std::find_if(cases.begin(), cases.end(), [](const auto &x) { return x.name == "all_entered_active_only"; });
    QVERIFY(c != cases.end());
    const HangAnalysis a = analyzeHang(c->dumps, c->missingDumps, c->worldSize);
    QVERIFY(a.suspects.empty());
    QCOMPARE(a.warnings.size(), size_t(1));
    QVERIFY2(a.warnings[0].find("pg 0 seq 5: every member entered it") != std::string::npos, a.warnings[0].c_str());
}

// pg_status is keyed by uid (nested_ep_active_only: rank 12's uids 0..3 are pgs 0, 4, 9, 13,
// while pgs "1".."3" are TP groups it is not in); its answer is checked in generatedCases.
// Keys that cannot be paired with pg_config (other counts) give a warning, and the progress
// comes from the entries alone.
void TestHangAnalysis::pgStatusKeyedByUid()
{
    const auto cases = tracegen::generateHangCases();
    auto c = *std::find_if(cases.begin(), cases.end(), [](const auto &x) { return x.name == "nested_ep_active_only"; });
    const FrDump &d12 = c.dumps[12];
    QCOMPARE(d12.pgStatus.size(), size_t(4));
    QCOMPARE(d12.pgStatus[2].name, std::string("2"));
    QCOMPARE(d12.pgConfig[2].name, std::string("9"));
    const HangAnalysis paired = analyzeHang(c.dumps, c.missingDumps, c.worldSize);
    QVERIFY(std::none_of(paired.warnings.begin(), paired.warnings.end(),
                         [](const std::string &w) { return w.find("cannot be paired") != std::string::npos; }));
    c.dumps[3].pgStatus.pop_back();
    const HangAnalysis unpaired = analyzeHang(c.dumps, c.missingDumps, c.worldSize);
    QVERIFY(std::any_of(unpaired.warnings.begin(), unpaired.warnings.end(),
                        [](const std::string &w) { return w.find("cannot be paired") != std::string::npos; }));
}

// Issue 40, class 10: one warning per seq is 200,000 lines at scale; of each kind the first
// three are kept and the rest counted.
void TestHangAnalysis::warningsAreAggregated()
{
    std::vector<FrDump> dumps(2);
    for (int r = 0; r < 2; ++r) {
        FrDump &d = dumps[size_t(r)];
        d.rank = r;
        d.pgConfig = {{"0", "default_pg", {0, 1}}};
        for (int seq = 1; seq <= 10; ++seq) {
            FrEntry e;
            e.pgName = "0";
            e.collectiveSeqId = seq;
            e.profilingName = "nccl:all_reduce";
            e.inputSizes = {{r == 1 ? 2048 : 1024}}; // every seq disagrees, every one completed
            e.inputDtypes = {"Float"};
            e.state = "completed";
            d.entries.push_back(e);
        }
    }
    const HangAnalysis a = analyzeHang(dumps);
    QVERIFY(a.suspects.empty());
    QCOMPARE(a.warnings.size(), size_t(4));
    QVERIFY2(a.warnings[3] == "... and 7 more warning(s) like the one above", a.warnings[3].c_str());
}

// Issue 40, class 10: a pg_status that claims seqs no dump holds and nobody waits in made the
// root "? seq N, 0 ranks wait" and hid the real hang. It is a warning now.
void TestHangAnalysis::inconsistentPgStatusHidesNothing()
{
    const auto cases = tracegen::generateHangCases();
    tracegen::HangCase c = cases.front(); // never_enters: rank 5 stops before seq 7 of pg 0
    for (FrDump &d : c.dumps) {
        d.pgConfig.push_back({"9", "TENSOR_MODEL_PARALLEL_GROUP", {0, 1}});
        if (*d.rank == 0)
            d.pgStatus.push_back({"9", 1000, 1000, 1000}); // pg 9 was never used by anyone
        if (*d.rank == 1)
            d.pgStatus.push_back({"9", 3, 3, 3});
    }
    const HangAnalysis a = analyzeHang(c.dumps, c.missingDumps, c.worldSize);
    QVERIFY(!a.suspects.empty());
    QCOMPARE(a.suspects.front().pgName, std::string("0"));
    QCOMPARE(a.suspects.front().missingRanks, (std::vector<int64_t>{5}));
    QVERIFY(std::none_of(a.suspects.begin(), a.suspects.end(), [](const HangSuspect &s) { return s.pgName == "9"; }));
    QVERIFY(std::any_of(a.warnings.begin(), a.warnings.end(), [](const std::string &w) {
        return w.find("pg 9 seq 4: pg_status counts it as enqueued") != std::string::npos;
    }));
}

QTEST_GUILESS_MAIN(TestHangAnalysis)
#include "tst_hanganalysis.moc"
