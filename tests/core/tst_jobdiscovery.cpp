// SPDX-License-Identifier: MIT
// Job discovery: classification by content, ranks from distributedInfo or the
// file name, host/device pairing by pid and rank, and one clear diagnostic per
// problem (no traces, unreadable file, duplicate rank, missing ranks, two jobs,
// host without device) while the healthy ranks are still found.
#include "testutil.h"
#include "tracebuilder.h"

#include "job/discovery.h"

#include <QtTest>

#include <filesystem>

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
    QVERIFY(d.missingRanks.empty());
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
    QCOMPARE(d.missingRanks, std::vector<int64_t>{2});
    const Diagnostic *w = find(d, "job.missing_ranks");
    QVERIFY(w && w->severity == Severity::Warning);
    QVERIFY(w->message.find("world_size is 4 but 3") != std::string::npos);
    QVERIFY(w->message.find("missing: 2") != std::string::npos);
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
    QVERIFY(find(discoverJob({dir}), "job.duplicate_rank")); // without the exclusion it would count twice
}

QTEST_GUILESS_MAIN(TestJobDiscovery)
#include "tst_jobdiscovery.moc"
