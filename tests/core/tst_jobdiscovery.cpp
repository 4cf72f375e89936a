// SPDX-License-Identifier: MIT
// Job discovery: classification by content, ranks from distributedInfo or the
// file name, host/device pairing by pid and rank, and one clear diagnostic per
// problem (no traces, unreadable file, duplicate rank, missing ranks, two jobs,
// host without device) while the healthy ranks are still found. Hostile job
// folders (issue 22): absurd world_size, negative rank, distributedInfo after
// traceEvents, a name disagreeing with the trace, the same folder twice,
// symlinked and unreadable sub-folders, and Syncscope's own outputs.
#include "testutil.h"
#include "tracebuilder.h"

#include "job/discovery.h"

#include <QtTest>

#include <chrono>
#include <filesystem>
#include <unistd.h>

using namespace syncscope;

namespace {

// A Kineto trace of `rank` (omitted when < 0) in a job of `world`, its CPU
// events in process `pid`, starting at `startUs` (µs since the epoch).
std::string device(int64_t rank, int64_t world, int64_t pid = 100, double startUs = 1.7e15)
{
    testutil::KinetoBuilder b;
    if (rank >= 0)
        b.topLevel("distributedInfo", R"({"backend": "nccl", "rank": )" + std::to_string(rank) +
                                          R"(, "world_size": )" + std::to_string(world) + "}");
    b.raw(R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": )" + std::to_string(pid) +
          R"(, "tid": 1, "ts": )" + QString::number(startUs, 'f', 0).toStdString() + R"(, "dur": 10})");
    return b.json();
}

// A Kineto trace whose distributedInfo (raw JSON) follows traceEvents when `after`.
std::string deviceWithInfo(const std::string &info, bool after, int64_t pid = 100)
{
    const std::string events = R"("traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": )" +
                               std::to_string(pid) + R"(, "tid": 1, "ts": 1700000000000000, "dur": 10}])";
    const std::string dist = R"("distributedInfo": )" + info;
    return "{\"schemaVersion\": 1, " + (after ? events + ", " + dist : dist + ", " + events) + "}";
}

std::string host(int64_t pid = 100)
{
    std::string s = testutil::HostBuilder().thread(2, 1).op(3, "aten::mm", 2, 1).json();
    const std::string from = "\"pid\": 100";
    s.replace(s.find(from), from.size(), "\"pid\": " + std::to_string(pid));
    return s;
}

std::string put(const std::string &dir, const std::string &name, const std::string &text)
{
    const std::string path = dir + "/" + name;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    testutil::writeText(path, text);
    return path;
}

const Diagnostic *find(const JobDiscovery &d, const std::string &code)
{
    return d.diagnostics.find(code);
}

std::string name(const std::string &path)
{
    return std::filesystem::path(path).filename().string();
}

} // namespace

class TestJobDiscovery : public QObject
{
    Q_OBJECT
private slots:
    void rankFromFileNames_data();
    void rankFromFileNames();
    void headOnlyLoads();
    void realEightRankJob();
    void pairsByPidWhenNamesSayNothing();
    void listFileAndRepeatedInputs();
    void deviceOnlyRanks();
    void noTraces();
    void notATraceIsSkipped();
    void unreadableFileFailsItsRankOnly();
    void duplicateRank();
    void missingRanks();
    void twoJobsByWorldSize();
    void twoJobsByStartTime();
    void hostWithoutDevice();
    void deviceWithoutRank();
    void outputDirectoryIsNotSearched();
    void absurdWorldSizeIsIgnored();
    void missingRanksAreRanges();
    void negativeRankIsRefused();
    void distributedInfoAfterTraceEvents();
    void traceRankWinsOverName();
    void sameFolderTwice();
    void sameFileTwice();
    void symlinkedFolders();
    void unreadableSubfolder();
    void ownOutputsAreSkipped();
};

void TestJobDiscovery::rankFromFileNames_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("rank"); // -1: none
    QTest::newRow("rank-N") << "job/rank-3.json" << 3;
    QTest::newRow("rankN") << "rank12.et.json.gz" << 12;
    QTest::newRow("_rank_N") << "kineto_rank_7_step.json" << 7;
    QTest::newRow("NAME.N.json") << "workload.5.json" << 5;
    QTest::newRow("NAME_N.pt.trace.json") << "host_worker_9.pt.trace.json.gz" << 9;
    QTest::newRow("Rank upper case") << "RANK-4.json" << 4;
    QTest::newRow("no rank") << "trace.json" << -1;
    QTest::newRow("not a word") << "frank3.json" << -1;
    QTest::newRow("digits elsewhere") << "step_12_trace.json" << -1;
    QTest::newRow("second rank word") << "frank_rank_6.json" << 6;
    QTest::newRow("rank with a dash, no digits") << "rank-x.3.json" << 3;
    QTest::newRow("ten digits") << "rank1234567890.json" << -1;
    QTest::newRow("date, not a rank") << "trace.20240101.json" << -1; // >= kMaxJobWorldSize
    QTest::newRow("largest rank") << "trace.1048575.json" << 1048575;
    QTest::newRow("pt.trace without underscore") << "worker3.pt.trace.json" << -1;
}

void TestJobDiscovery::rankFromFileNames()
{
    QFETCH(QString, file);
    QFETCH(int, rank);
    const auto got = rankFromFileName(std::filesystem::path(file.toStdString()).filename().string());
    QCOMPARE(got ? static_cast<int>(*got) : -1, rank);
}

void TestJobDiscovery::headOnlyLoads()
{
    // Classification reads the header (and a Kineto trace's first events), never the whole file.
    const std::string dir = testutil::tempDir();
    LoadOptions head;
    head.headOnly = true;
    Diagnostics diag;
    const LoadedTrace h = loadTrace(put(dir, "h.json", host(4242)), diag, head);
    QCOMPARE(h.kind, TraceKind::Host);
    QVERIFY(h.complete);
    QCOMPARE(h.host->pid, int64_t(4242));
    QVERIFY(h.host->nodes.empty()); // stopped at "nodes"
    const LoadedTrace d = loadTrace(put(dir, "d.json", device(3, 4, 77)), diag, head);
    QCOMPARE(d.kind, TraceKind::Device);
    QVERIFY(d.complete);
    QCOMPARE(*d.device->distributed.rank, int64_t(3));
    QCOMPARE(d.device->events.front().pid, int64_t(77));
    const LoadedTrace junk = loadTrace(put(dir, "j.json", R"({"a": 1})"), diag, head);
    QCOMPARE(junk.kind, TraceKind::Unknown);
    QVERIFY(diag.find("input.not_a_trace"));
}

void TestJobDiscovery::realEightRankJob()
{
    REQUIRE_SHARED_DATA();
    const std::string dir = testutil::sharedData("pairs/param_dlrm_8rank");
    const JobDiscovery d = discoverJob({dir});
    QCOMPARE(d.files.size(), size_t(16));
    QVERIFY(d.worldSize && *d.worldSize == 8);
    QCOMPARE(d.ranks.size(), size_t(8));
    for (int r = 0; r < 8; ++r) {
        QCOMPARE(d.ranks[r].rank, int64_t(r));
        QCOMPARE(name(d.ranks[r].hostPath), "rank" + std::to_string(r) + ".et.json.gz");
        QCOMPARE(name(d.ranks[r].devicePath), "rank" + std::to_string(r) + ".kineto.json.gz");
    }
    for (const auto &f : d.files) {
        QVERIFY(f.kind != TraceKind::Unknown);
        QVERIFY(f.pid > 0);
        if (f.kind == TraceKind::Device)
            QVERIFY(!f.rankFromName && f.startUs && *f.startUs > 1.6e15); // distributedInfo, epoch µs
    }
    QVERIFY(d.missingRankRanges.empty());
    QCOMPARE(d.missingRankCount, int64_t(0));
    QCOMPARE(d.diagnostics.count(Severity::Error) + d.diagnostics.count(Severity::Warning), 0);
}

void TestJobDiscovery::pairsByPidWhenNamesSayNothing()
{
    const std::string dir = testutil::tempDir();
    const std::string d0 = put(dir, "a/gpu-trace-x.json", device(0, 2, 501));
    const std::string d1 = put(dir, "b/gpu-trace-y.json", device(1, 2, 502));
    const std::string h1 = put(dir, "a/host-p.json", host(502));
    const std::string h0 = put(dir, "b/host-q.json", host(501));
    const JobDiscovery d = discoverJob({dir});
    QCOMPARE(d.ranks.size(), size_t(2));
    QCOMPARE(d.ranks[0].hostPath, h0);
    QCOMPARE(d.ranks[0].devicePath, d0);
    QCOMPARE(d.ranks[1].hostPath, h1);
    QCOMPARE(d.ranks[1].devicePath, d1);
    QVERIFY(!d.diagnostics.hasErrors());
}

void TestJobDiscovery::listFileAndRepeatedInputs()
{
    const std::string dir = testutil::tempDir();
    put(dir, "one/rank0.kineto.json", device(0, 3));
    put(dir, "two/rank1.kineto.json", device(1, 3));
    const std::string third = put(dir, "three/rank2.kineto.json", device(2, 3));
    const std::string list = put(dir, "ranks.txt", "# job inputs\none\n\n  two  \n");
    const JobDiscovery d = discoverJob({list, third});
    QCOMPARE(d.ranks.size(), size_t(3));
    QVERIFY(!d.diagnostics.hasErrors());
}

void TestJobDiscovery::deviceOnlyRanks()
{
    const std::string dir = testutil::tempDir();
    put(dir, "rank0.json", device(0, 2, 501));
    put(dir, "rank1.json", device(1, 2, 502));
    put(dir, "host0.json", host(501));
    const JobDiscovery d = discoverJob({dir});
    QCOMPARE(d.ranks.size(), size_t(2));
    QVERIFY(d.ranks[1].hostPath.empty());
    const Diagnostic *w = find(d, "job.device_only_ranks");
    QVERIFY(w && w->severity == Severity::Warning && w->message.find("ranks 1 ") != std::string::npos);
    QVERIFY(!d.diagnostics.hasErrors());
}

void TestJobDiscovery::noTraces()
{
    const std::string dir = testutil::tempDir();
    put(dir, "notes.txt", "hello");
    const JobDiscovery d = discoverJob({dir});
    QVERIFY(d.ranks.empty());
    const Diagnostic *e = find(d, "job.no_traces");
    QVERIFY(e && e->severity == Severity::Error && e->message.find(dir) != std::string::npos);

    const JobDiscovery missing = discoverJob({dir + "/nowhere"});
    QVERIFY(find(missing, "job.missing_input"));
}

void TestJobDiscovery::notATraceIsSkipped()
{
    const std::string dir = testutil::tempDir();
    put(dir, "rank0.json", device(0, 1));
    const std::string report = put(dir, "report.json", R"({"job": {"world_size": 1}})");
    const JobDiscovery d = discoverJob({dir});
    QCOMPARE(d.ranks.size(), size_t(1));
    const Diagnostic *w = find(d, "job.not_a_trace");
    QVERIFY(w && w->file == report && w->severity == Severity::Warning);
    QVERIFY(!d.diagnostics.hasErrors());
}

void TestJobDiscovery::unreadableFileFailsItsRankOnly()
{
    const std::string dir = testutil::tempDir();
    put(dir, "rank0.kineto.json", device(0, 2));
    const std::string bad = put(dir, "rank1.kineto.json", "{\"traceEvents\": [{\"ph\": \"X\", \"ts\": oops");
    const JobDiscovery d = discoverJob({dir});
    const Diagnostic *e = find(d, "job.unreadable");
    QVERIFY(e && e->severity == Severity::Error && e->file == bad);
    QVERIFY(e->message.find("rank 1") != std::string::npos);
    // Rank 1 still has a row: its run fails with the reader's message; rank 0 is healthy.
    QCOMPARE(d.ranks.size(), size_t(2));
    QCOMPARE(d.ranks[1].devicePath, bad);
}

void TestJobDiscovery::duplicateRank()
{
    const std::string dir = testutil::tempDir();
    const std::string first = put(dir, "a/trace.json", device(0, 2, 501));
    const std::string second = put(dir, "b/trace.json", device(0, 2, 502));
    put(dir, "c/trace.json", device(1, 2, 503));
    const JobDiscovery d = discoverJob({dir});
    const Diagnostic *e = find(d, "job.duplicate_rank");
    QVERIFY(e && e->severity == Severity::Error);
    QVERIFY(e->message.find(first) != std::string::npos && e->message.find(second) != std::string::npos);
    QCOMPARE(d.ranks.size(), size_t(2));
    QCOMPARE(d.ranks[0].devicePath, first);
}

void TestJobDiscovery::missingRanks()
{
    const std::string dir = testutil::tempDir();
    for (int r : {0, 1, 3})
        put(dir, "rank" + std::to_string(r) + ".json", device(r, 4, 500 + r));
    const JobDiscovery d = discoverJob({dir});
    QCOMPARE(d.missingRankRanges, (std::vector<RankRange>{{2, 2}}));
    QCOMPARE(d.missingRankCount, int64_t(1));
    const Diagnostic *w = find(d, "job.missing_ranks");
    QVERIFY(w && w->severity == Severity::Warning);
    QVERIFY(w->message.find("world_size is 4 but 3") != std::string::npos);
    QVERIFY(w->message.find("missing: 2 (1 rank(s))") != std::string::npos);
}

void TestJobDiscovery::twoJobsByWorldSize()
{
    const std::string dir = testutil::tempDir();
    put(dir, "x/rank0.json", device(0, 2, 501));
    put(dir, "x/rank1.json", device(1, 2, 502));
    const std::string odd = put(dir, "y/rank2.json", device(2, 4, 503));
    const JobDiscovery d = discoverJob({dir});
    const Diagnostic *e = find(d, "job.mixed_jobs");
    QVERIFY(e && e->severity == Severity::Error && e->file == odd);
    QVERIFY(e->message.find("world_size 4") != std::string::npos);
    QVERIFY(d.worldSize && *d.worldSize == 2);
}

void TestJobDiscovery::twoJobsByStartTime()
{
    const std::string dir = testutil::tempDir();
    put(dir, "rank0.json", device(0, 3, 501, 1.7e15));
    put(dir, "rank1.json", device(1, 3, 502, 1.7e15 + 2e6));
    const std::string late = put(dir, "rank2.json", device(2, 3, 503, 1.7e15 + 5 * 3600e6));
    const JobDiscovery d = discoverJob({dir});
    const Diagnostic *e = find(d, "job.mixed_jobs");
    QVERIFY(e && e->file == late);
    QVERIFY(e->message.find("5.0 hours after") != std::string::npos);
    QCOMPARE(d.ranks.size(), size_t(3)); // reported, still analysed
}

void TestJobDiscovery::hostWithoutDevice()
{
    const std::string dir = testutil::tempDir();
    put(dir, "rank0.kineto.json", device(0, 2, 501));
    put(dir, "rank0.et.json", host(501));
    const std::string lonely = put(dir, "rank1.et.json", host(777));
    const JobDiscovery d = discoverJob({dir});
    const Diagnostic *e = find(d, "job.host_without_device");
    QVERIFY(e && e->severity == Severity::Error && e->file == lonely);
    QCOMPARE(d.ranks.size(), size_t(2));
    QCOMPARE(d.ranks[1].hostPath, lonely);
    QVERIFY(d.ranks[1].devicePath.empty());
}

void TestJobDiscovery::deviceWithoutRank()
{
    const std::string dir = testutil::tempDir();
    const std::string anon = put(dir, "profile.json", device(-1, 0));
    const JobDiscovery d = discoverJob({dir});
    const Diagnostic *e = find(d, "job.no_rank");
    QVERIFY(e && e->file == anon);
    QVERIFY(d.ranks.empty());
}

void TestJobDiscovery::outputDirectoryIsNotSearched()
{
    const std::string dir = testutil::tempDir();
    put(dir, "rank0.json", device(0, 1));
    put(dir, "out/trace.0.overlay.json", device(0, 1)); // an earlier run's overlay: a Kineto trace too
    DiscoveryOptions opts;
    opts.exclude = {dir + "/out"};
    const JobDiscovery d = discoverJob({dir}, opts);
    QCOMPARE(d.files.size(), size_t(1));
    QVERIFY(!d.diagnostics.hasErrors());
    // Without the exclusion the overlay is still not a second rank 0: its name says it is ours.
    const JobDiscovery all = discoverJob({dir});
    QVERIFY(!find(all, "job.duplicate_rank"));
    QCOMPARE(all.files.size(), size_t(1));
    QVERIFY(find(all, "job.own_output"));
}

void TestJobDiscovery::absurdWorldSizeIsIgnored()
{
    // A 3 KB trace saying world_size 1e18 once took a minute, 1.5 GB and a 257 MB report.
    const std::string dir = testutil::tempDir();
    const std::string odd =
        put(dir, "rank0.json", deviceWithInfo(R"({"backend": "nccl", "rank": 0, "world_size": 1e18})", false));
    const auto t0 = std::chrono::steady_clock::now();
    const JobDiscovery d = discoverJob({dir});
    QVERIFY(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5));
    QCOMPARE(d.ranks.size(), size_t(1));
    QVERIFY(!d.worldSize);
    QVERIFY(d.missingRankRanges.empty());
    const Diagnostic *w = find(d, "job.bad_world_size");
    QVERIFY(w && w->severity == Severity::Warning && w->file == odd);
    QVERIFY2(w->message.find("1000000000000000000") != std::string::npos, w->message.c_str());
    for (const char *bad : {"0", "-4", "1048577", "\"many\""}) {
        const std::string sub = testutil::tempDir();
        put(sub, "rank0.json", deviceWithInfo(std::string(R"({"rank": 0, "world_size": )") + bad + "}", false));
        const JobDiscovery e = discoverJob({sub});
        QVERIFY2(!e.worldSize && e.missingRankCount == 0, bad);
    }
}

void TestJobDiscovery::missingRanksAreRanges()
{
    // The largest world_size taken: 2^20 ranks, two of them found. The missing ones are
    // two ranges, not a list of a million numbers.
    const std::string dir = testutil::tempDir();
    put(dir, "rank0.json", device(0, kMaxJobWorldSize, 501));
    put(dir, "rank7.json", device(7, kMaxJobWorldSize, 502));
    const auto t0 = std::chrono::steady_clock::now();
    const JobDiscovery d = discoverJob({dir});
    QVERIFY(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5));
    QVERIFY(d.worldSize && *d.worldSize == kMaxJobWorldSize);
    QCOMPARE(d.missingRankRanges, (std::vector<RankRange>{{1, 6}, {8, kMaxJobWorldSize - 1}}));
    QCOMPARE(d.missingRankCount, kMaxJobWorldSize - 2);
    const Diagnostic *w = find(d, "job.missing_ranks");
    QVERIFY(w && w->message.size() < 200);
    QVERIFY2(w->message.find("missing: 1-6, 8-1048575 (1048574 rank(s))") != std::string::npos, w->message.c_str());
    // Many gaps: the message names at most 20 ranges.
    std::vector<RankRange> many;
    for (int64_t r = 0; r < 100; ++r)
        many.push_back({2 * r, 2 * r});
    const std::string text = formatRankRanges(many);
    QVERIFY2(text.find("... (100 ranges in all)") != std::string::npos && text.size() < 200, text.c_str());
}

void TestJobDiscovery::negativeRankIsRefused()
{
    // A negative rank once made the first arriver the "last arrival" with a negative wait.
    const std::string dir = testutil::tempDir();
    put(dir, "rank0.json", device(0, 2, 501));
    const std::string neg =
        put(dir, "rank-1.json", deviceWithInfo(R"({"rank": -1, "world_size": 2})", false, 502));
    const std::string huge =
        put(dir, "trace.json", deviceWithInfo(R"({"rank": 4000000000, "world_size": 2})", true, 503));
    const JobDiscovery d = discoverJob({dir});
    QCOMPARE(d.ranks.size(), size_t(1));
    QCOMPARE(d.ranks[0].rank, int64_t(0));
    int refused = 0;
    for (const Diagnostic &x : d.diagnostics.items()) {
        QVERIFY2(x.code != "job.no_rank", x.message.c_str()); // the name's "rank-1" does not stand in
        if (x.code == "job.bad_rank") {
            QVERIFY(x.severity == Severity::Error);
            QVERIFY(x.file == neg || x.file == huge);
            QVERIFY(x.message.find("not analysed") != std::string::npos);
            ++refused;
        }
    }
    QCOMPARE(refused, 2);
}

void TestJobDiscovery::distributedInfoAfterTraceEvents()
{
    // Valid JSON in any key order: the rank is found wherever the value stands, plain or gzip'd.
    const std::string dir = testutil::tempDir();
    put(dir, "a/gpu.json", deviceWithInfo(R"({"rank": 0, "world_size": 2})", true, 501));
    testutil::writeText(dir + "/a/other.json.gz",
                        testutil::gzipped(deviceWithInfo(R"({"rank": 1, "world_size": 2})", true, 502)));
    const JobDiscovery d = discoverJob({dir + "/a"});
    QCOMPARE(d.ranks.size(), size_t(2));
    QCOMPARE(d.ranks[0].rank, int64_t(0));
    QCOMPARE(d.ranks[1].rank, int64_t(1));
    QVERIFY(d.worldSize && *d.worldSize == 2);
    QVERIFY(!d.diagnostics.hasErrors());
    for (const auto &f : d.files)
        QVERIFY(!f.rankFromName);
}

void TestJobDiscovery::traceRankWinsOverName()
{
    const std::string dir = testutil::tempDir();
    const std::string before = put(dir, "rank-3.json", deviceWithInfo(R"({"rank": 5, "world_size": 8})", false, 501));
    const std::string after = put(dir, "rank-4.json", deviceWithInfo(R"({"rank": 6, "world_size": 8})", true, 502));
    const JobDiscovery d = discoverJob({dir});
    QCOMPARE(d.ranks.size(), size_t(2));
    QCOMPARE(d.ranks[0].rank, int64_t(5));
    QCOMPARE(d.ranks[0].devicePath, before);
    QCOMPARE(d.ranks[1].rank, int64_t(6));
    QCOMPARE(d.ranks[1].devicePath, after);
    int warned = 0;
    for (const Diagnostic &x : d.diagnostics.items())
        if (x.code == "job.rank_name_mismatch") {
            QVERIFY(x.severity == Severity::Warning);
            QVERIFY(x.file == before || x.file == after);
            const bool first = x.file == before;
            QVERIFY2(x.message.find(first ? "says rank 3" : "says rank 4") != std::string::npos, x.message.c_str());
            QVERIFY2(x.message.find(first ? "rank 5 was used" : "rank 6 was used") != std::string::npos,
                     x.message.c_str());
            ++warned;
        }
    QCOMPARE(warned, 2);
}

void TestJobDiscovery::sameFolderTwice()
{
    const std::string dir = testutil::tempDir();
    put(dir, "job/rank0.json", device(0, 2, 501));
    put(dir, "job/sub/rank1.json", device(1, 2, 502));
    const std::string job = dir + "/job";
    const JobDiscovery d = discoverJob({job, job + "/.", job + "/sub", dir + "/job/../job/"});
    QCOMPARE(d.files.size(), size_t(2));
    QCOMPARE(d.ranks.size(), size_t(2));
    QVERIFY(!d.diagnostics.hasErrors()); // no false job.duplicate_rank, no job.no_traces for the repeats
}

void TestJobDiscovery::sameFileTwice()
{
    // A file named twice (a path, a symlink, a hard link) is one file.
    const std::string dir = testutil::tempDir();
    const std::string real = put(dir, "job/rank0.json", device(0, 1));
    std::filesystem::create_symlink(real, dir + "/job/link.json");
    std::filesystem::create_hard_link(real, dir + "/job/hard.json");
    const JobDiscovery d = discoverJob({dir + "/job", real, dir + "/job/./rank0.json"});
    QCOMPARE(d.files.size(), size_t(1));
    QCOMPARE(d.ranks.size(), size_t(1));
    QVERIFY(!d.diagnostics.hasErrors());
}

void TestJobDiscovery::symlinkedFolders()
{
    // Symbolic links to folders are followed (documented), each folder searched once:
    // a link into the tree, a link out of it, and a loop neither double-count nor hang.
    const std::string dir = testutil::tempDir();
    put(dir, "job/real/rank0.json", device(0, 2, 501));
    const std::string outside = put(dir, "elsewhere/rank1.json", device(1, 2, 502));
    namespace fs = std::filesystem;
    fs::create_directory_symlink(dir + "/job/real", dir + "/job/alias");
    fs::create_directory_symlink(dir + "/elsewhere", dir + "/job/more");
    fs::create_directory_symlink(dir + "/job", dir + "/job/real/loop");
    const JobDiscovery d = discoverJob({dir + "/job"});
    QCOMPARE(d.ranks.size(), size_t(2));
    QCOMPARE(name(d.ranks[1].devicePath), std::string("rank1.json"));
    QVERIFY(!d.diagnostics.hasErrors());
    QVERIFY(find(d, "job.symlink_seen")); // said, not silent
    // A folder holding only a link to a folder of traces is not "without traces".
    fs::create_directories(dir + "/only");
    fs::create_directory_symlink(dir + "/elsewhere", dir + "/only/link");
    const JobDiscovery e = discoverJob({dir + "/only"});
    QCOMPARE(e.ranks.size(), size_t(1));
    QVERIFY(!find(e, "job.no_traces"));
}

void TestJobDiscovery::unreadableSubfolder()
{
    if (::geteuid() == 0)
        QSKIP("running as root: every folder is readable");
    const std::string dir = testutil::tempDir();
    put(dir, "job/rank0.json", device(0, 2, 501));
    put(dir, "job/locked/rank1.json", device(1, 2, 502));
    namespace fs = std::filesystem;
    fs::permissions(dir + "/job/locked", fs::perms::none);
    const JobDiscovery d = discoverJob({dir + "/job"});
    fs::permissions(dir + "/job/locked", fs::perms::owner_all);
    const Diagnostic *e = find(d, "job.unreadable");
    QVERIFY(e && e->severity == Severity::Error && e->file == dir + "/job/locked");
    QVERIFY2(e->message.find("Permission denied") != std::string::npos, e->message.c_str());
    QVERIFY(!find(d, "job.no_traces"));
    QCOMPARE(d.ranks.size(), size_t(1));
}

void TestJobDiscovery::ownOutputsAreSkipped()
{
    // An earlier run's outputs in the job folder: an ET+ (a host trace) listed in the folder's
    // output list, an overlay (a Kineto trace of rank 0 too) and reports. None is a trace to analyse.
    const std::string dir = testutil::tempDir();
    const std::string d0 = put(dir, "rank0.kineto.json", device(0, 1, 501));
    const std::string h0 = put(dir, "rank0.et.json", host(501));
    put(dir, "trace.0.json", host(501));                      // would be a second host of rank 0
    put(dir, "trace.0.overlay.json", device(0, 1, 501));      // would be a second rank 0
    put(dir, "trace.0.critical_path.json", R"({"tool": "syncscope", "version": "0.1.0"})");
    put(dir, std::string(kOutputManifestName), "# list\ntrace.0.json\n");
    const std::string report = put(dir, "job.json", "{\n  \"job\": {\n    \"syncscope_version\": \"0.1.0\"}}");
    const std::string pair = put(dir, "pair.json", "{\n  \"syncscope\": {\"version\": \"0.1.0\"}}");
    const JobDiscovery d = discoverJob({dir});
    QCOMPARE(d.ranks.size(), size_t(1));
    QCOMPARE(d.ranks[0].devicePath, d0);
    QCOMPARE(d.ranks[0].hostPath, h0);
    QVERIFY(!d.diagnostics.hasErrors());
    QVERIFY(!find(d, "job.not_a_trace"));
    const Diagnostic *w = find(d, "job.own_output");
    QVERIFY(w && w->message.find("3 file(s) Syncscope wrote") != std::string::npos);
    QCOMPARE(d.ownOutputs.size(), size_t(5));
    // The list is written by recordOwnOutputs, merged with what it held.
    QCOMPARE(recordOwnOutputs(dir, {"trace.1.json", "bad/name"}), std::string());
    const std::string list = testutil::readText(dir + "/" + kOutputManifestName);
    QVERIFY(list.find("\ntrace.0.json\n") != std::string::npos && list.find("\ntrace.1.json\n") != std::string::npos);
    QVERIFY(list.find("bad/name") == std::string::npos);
}

QTEST_GUILESS_MAIN(TestJobDiscovery)
#include "tst_jobdiscovery.moc"
