// SPDX-License-Identifier: MIT
// PyTorch NCCL flight-recorder dumps (issue 29): the pickle (protocols 2, 4, 5, as
// Python's pickle writes them; torch's own pickler writes protocol 2), the JSON form,
// gzip, an old dump without p2p_seq_id / pg_status, and hostile pickles that must be
// refused (naming the file and a byte offset) without running or crashing anything.
// Fixtures: tests/data/flightrecorder (make_fixtures.py).
#include "testutil.h"

#include "hang/flightrecorder.h"
#include "hang/hanganalysis.h"
#include "hang/hangfolder.h"

#include <nlohmann/json.hpp>

#include <zlib.h>

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <string>

using namespace syncscope;

namespace {

std::string fr(const char *name) { return testutil::fixture(std::string("flightrecorder/") + name); }

// A tiny pickle writer for the tests' own inputs.
struct Pickle {
    std::string b;
    Pickle &proto(int n) { b += '\x80'; b += char(n); return *this; }
    Pickle &op(char c) { b += c; return *this; }
    Pickle &str(const std::string &s)
    {
        b += 'X';
        for (int k = 0; k < 4; ++k)
            b += char((s.size() >> (8 * k)) & 0xff);
        b += s;
        return *this;
    }
    Pickle &integer(int32_t v)
    {
        b += 'J';
        for (int k = 0; k < 4; ++k)
            b += char((uint32_t(v) >> (8 * k)) & 0xff);
        return *this;
    }
    Pickle &put(uint8_t i) { b += 'q'; b += char(i); return *this; }
    Pickle &get(uint8_t i) { b += 'h'; b += char(i); return *this; }
};

std::string readBytes(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void checkV25(const FrDump &d, bool json)
{
    QCOMPARE(d.json, json);
    QCOMPARE(d.version, std::string("2.5"));
    QVERIFY(d.rank.has_value());
    QCOMPARE(*d.rank, int64_t(1));

    QCOMPARE(d.pgConfig.size(), size_t(2));
    QCOMPARE(d.pgConfig[0].name, std::string("0"));
    QCOMPARE(d.pgConfig[0].desc, std::string("default_pg"));
    QCOMPARE(d.pgConfig[0].ranks.get(), (std::vector<int64_t>{0, 1})); // "[0, 1]", as torch writes it
    QCOMPARE(d.pgConfig[1].name, std::string("1"));
    QCOMPARE(d.pgConfig[1].desc, std::string("EXPERT_MODEL_PARALLEL_GROUP"));
    QCOMPARE(d.pgConfig[1].ranks.get(), (std::vector<int64_t>{0, 1, 2, 3})); // a list

    QCOMPARE(d.pgStatus.size(), size_t(1));
    QCOMPARE(d.pgStatus[0].name, std::string("0"));
    QCOMPARE(d.pgStatus[0].lastEnqueued, int64_t(3)); // strings in the JSON form
    QCOMPARE(d.pgStatus[0].lastStarted, int64_t(2));
    QCOMPARE(d.pgStatus[0].lastCompleted, int64_t(2));

    QCOMPARE(d.entries.size(), size_t(3));
    const FrEntry &a = d.entries[0];
    QCOMPARE(a.recordId, int64_t(0));
    QCOMPARE(a.pgName, std::string("0"));
    QCOMPARE(a.pgDesc, std::string("default_pg"));
    QCOMPARE(a.pgId, int64_t(0));
    QCOMPARE(a.collectiveSeqId, int64_t(1));
    QCOMPARE(a.p2pSeqId, int64_t(0));
    QCOMPARE(a.opId, int64_t(1));
    QCOMPARE(a.profilingName, std::string("nccl:all_reduce"));
    QCOMPARE(a.timeCreatedNs, int64_t(1724779239936775119));
    QCOMPARE(a.inputSizes, (std::vector<std::vector<int64_t>>{{3, 4}}));
    QCOMPARE(a.outputSizes, (std::vector<std::vector<int64_t>>{{3, 4}}));
    QCOMPARE(a.inputDtypes, (std::vector<std::string>{"Float"}));
    QCOMPARE(a.outputDtypes, (std::vector<std::string>{"Float"}));
    QCOMPARE(a.state, std::string("completed"));
    QCOMPARE(a.timeDiscoveredStartedNs, std::optional<int64_t>(1724779239936776000));
    QCOMPARE(a.timeDiscoveredCompletedNs, std::optional<int64_t>(1724779239936777000));
    QVERIFY(a.durationMs.has_value());
    QCOMPARE(*a.durationMs, 0.25);
    QCOMPARE(a.timeoutMs, int64_t(600000));
    QVERIFY(!a.isP2p);
    QVERIFY(a.retired);
    if (json) {
        QVERIFY(a.frames.empty()); // dump_json writes no stacks
    } else {
        QCOMPARE(a.frames, (std::vector<std::string>{"all_reduce (torch/distributed/distributed_c10d.py:2501)",
                                                     "train_step (train.py:42)"}));
        QCOMPARE(d.entries[2].frames, a.frames); // the same list, through the memo
    }

    const FrEntry &b = d.entries[1];
    QCOMPARE(b.state, std::string("started"));
    QCOMPARE(b.collectiveSeqId, int64_t(2));
    QVERIFY(b.timeDiscoveredStartedNs.has_value());
    QVERIFY(!b.timeDiscoveredCompletedNs.has_value()); // None, or 0 in the JSON form
    QVERIFY(!b.durationMs.has_value());
    QVERIFY(!b.retired);

    const FrEntry &c = d.entries[2];
    QVERIFY(c.isP2p);
    QCOMPARE(c.pgName, std::string("1"));
    QCOMPARE(c.pgDesc, std::string("EXPERT_MODEL_PARALLEL_GROUP"));
    QCOMPARE(c.pgId, int64_t(1));
    QCOMPARE(c.p2pSeqId, int64_t(1));
    QCOMPARE(c.profilingName, std::string("nccl:send 1->0"));
    QCOMPARE(c.state, std::string("scheduled"));
    QVERIFY(!c.timeDiscoveredStartedNs.has_value());
    QVERIFY(!c.timeDiscoveredCompletedNs.has_value());
}

} // namespace

class TestFrReader : public QObject
{
    Q_OBJECT
private slots:
    void torchcommsJson();
    void ranksAreBounded();
    void textIsValidAndCapped();
    void gzipBombIsBounded();
    void folderSniffReadsHeadsOnly();
    void picklesRoundTrip_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("protocol 2") << "dump_v25.p2.pkl";
        QTest::newRow("protocol 4") << "dump_v25.p4.pkl";
        QTest::newRow("protocol 5") << "dump_v25.p5.pkl";
        QTest::newRow("gzip") << "dump_v25.pkl.gz";
    }
    void picklesRoundTrip()
    {
        QFETCH(QString, file);
        FrDump d;
        std::string error;
        const std::string path = fr(file.toUtf8().constData());
        QVERIFY2(readFlightRecorderDump(path, d, error), error.c_str());
        QVERIFY(error.empty());
        QCOMPARE(d.path, path);
        checkV25(d, false);
    }

    void jsonForm()
    {
        FrDump d;
        std::string error;
        QVERIFY2(readFlightRecorderDump(fr("dump_v25.json"), d, error), error.c_str());
        checkV25(d, true);
    }

    void oldVersionTakesDefaults()
    {
        FrDump d;
        std::string error;
        QVERIFY2(readFlightRecorderDump(fr("old_v20.pkl"), d, error), error.c_str());
        QCOMPARE(d.version, std::string("2.0"));
        QVERIFY(!d.rank.has_value());
        QCOMPARE(d.pgConfig.size(), size_t(1));
        QCOMPARE(d.pgConfig[0].ranks.get(), (std::vector<int64_t>{0, 1}));
        QVERIFY(d.pgStatus.empty());
        QCOMPARE(d.entries.size(), size_t(1));
        const FrEntry &e = d.entries[0];
        QCOMPARE(e.recordId, int64_t(5));
        QCOMPARE(e.collectiveSeqId, int64_t(7));
        QCOMPARE(e.p2pSeqId, int64_t(-1));
        QVERIFY(!e.isP2p);
        QVERIFY(!e.retired);
        QVERIFY(!e.timeDiscoveredStartedNs.has_value());
        QCOMPARE(e.timeDiscoveredCompletedNs, std::optional<int64_t>(20));
        QCOMPARE(e.durationMs, std::optional<double>(1.5));
        QVERIFY(e.frames.empty());
    }

    void wrongTypesAreSkipped()
    {
        // {"version": 7, "entries": [{"record_id": "x", "pg_id": 3, "input_sizes": 5}, 9], "pg_config": []}
        Pickle p;
        p.proto(2).op('}').op('(');
        p.str("version").integer(7);
        p.str("entries").op(']').op('(');
        p.op('}').op('(').str("record_id").str("x").str("pg_id").integer(3).str("input_sizes").integer(5).op('u');
        p.integer(9).op('e');
        p.str("pg_config").op(']');
        p.op('u').op('.');
        FrDump d;
        std::string error;
        QVERIFY2(parseFlightRecorderDump(p.b, "typed.pkl", d, error), error.c_str());
        QCOMPARE(d.version, std::string("7"));
        QCOMPARE(d.entries.size(), size_t(1));
        QCOMPARE(d.entries[0].recordId, int64_t(-1));
        QCOMPARE(d.entries[0].pgId, int64_t(3));
        QVERIFY(d.entries[0].inputSizes.empty());
        QVERIFY(d.pgConfig.empty());
    }

    void hostileRefused_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("expect"); // in the error, after the file name
        using namespace std::string_literals;
        // pickle.dumps of os.system("id") as Python writes it (posix.system, protocol 2).
        QTest::newRow("GLOBAL+REDUCE") << QByteArray("\x80\x02" "cposix\nsystem\nq\x00X\x02\x00\x00\x00idq\x01\x85q\x02Rq\x03.", 34)
                                       << "byte 2: opcode GLOBAL";
        QTest::newRow("STACK_GLOBAL+REDUCE")
            << QByteArray("\x80\x04\x8c\x02os\x8c\x06system\x93\x8c\x02id\x85R.", 22) << "byte 14: opcode STACK_GLOBAL";
        QTest::newRow("BUILD") << QByteArray("\x80\x02}q\x00}b.", 8) << "byte 6: opcode BUILD";
        QTest::newRow("INST") << QByteArray("\x80\x02(ios\nsystem\nS'id'\n.") << "byte 3: opcode INST";
        QTest::newRow("OBJ") << QByteArray("\x80\x02(]o.") << "byte 4: opcode OBJ";
        QTest::newRow("NEWOBJ") << QByteArray("\x80\x02])\x81.") << "byte 4: opcode NEWOBJ";
        QTest::newRow("EXT1") << QByteArray("\x80\x02\x82\x01.") << "byte 2: opcode EXT1";
        QTest::newRow("BINPERSID") << QByteArray("\x80\x02K\x01Q.") << "byte 4: opcode BINPERSID";
        QByteArray deep("\x80\x02");
        deep += QByteArray(10000, ']') + QByteArray(9999, 'a') + '.';
        QTest::newRow("nesting 10000 deep") << deep << "nesting deeper than 64";
        QTest::newRow("10000 MARKs") << (QByteArray("\x80\x02") + QByteArray(10000, '(')) << "byte 66: more than 64 nested MARKs";
        QByteArray huge("\x80\x04\x8d");
        huge += QByteArray("\x00\x00\x00\x00\x00\x00\x00\x10", 8) + "abc.";
        QTest::newRow("BINUNICODE8 of 2^60") << huge << "byte 2: truncated or corrupt: BINUNICODE8 of 1152921504606846976 bytes, only 4 left";
        const QByteArray whole = QByteArray::fromStdString(readBytes(fr("dump_v25.p2.pkl")));
        QTest::newRow("truncated") << whole.left(whole.size() / 2) << "truncated";
        QTest::newRow("unknown opcode") << QByteArray("\x80\x02\xff.") << "byte 2: unknown or unsupported opcode 0xff";
        QTest::newRow("empty") << QByteArray() << "byte 0: empty input";
        QTest::newRow("no STOP") << QByteArray("\x80\x02}") << "truncated: the pickle ends before its STOP";
        QTest::newRow("not a dict") << QByteArray("\x80\x02]q\x00.", 6) << "byte 0: the dump is not a dict";
        QTest::newRow("protocol 6") << QByteArray("\x80\x06}.") << "byte 0: pickle protocol 6";
        QTest::newRow("gzip truncated") << QByteArray::fromStdString(readBytes(fr("dump_v25.pkl.gz"))).left(100)
                                        << "truncated gzip";
        QTest::newRow("JSON 10000 deep") << (QByteArray(10000, '[').prepend('{')) << "nesting deeper than 64";
        QTest::newRow("JSON number out of range") << QByteArray("{\"entries\": [{\"duration_ms\": 1e400}]}")
                                                  << "not valid JSON";
        QTest::newRow("JSON broken") << QByteArray("{\"version\": ") << "not valid JSON";
        // One entry dict shared 2000 times through the memo: the output would grow
        // far past the input's size.
        Pickle p;
        p.proto(2).op('}').op('(').str("entries").op(']').op('(');
        p.op('}').put(1).op('(').str("input_sizes").op(']').op('(');
        for (int k = 0; k < 300; ++k)
            p.op('J').b += std::string("\x01\x00\x00\x00", 4);
        p.op('e').op('u');
        for (int k = 0; k < 2000; ++k)
            p.get(1);
        p.op('e').op('u').op('.');
        QTest::newRow("memo expansion") << QByteArray::fromStdString(p.b) << "expands to more than";
        // A dict of 20,000 keys shared by 3,000 entries: lookups would be quadratic.
        Pickle q;
        q.proto(2).op('}').op('(').str("entries").op(']').op('(');
        q.op('}').put(1).op('(').str("k").put(2).op('K').b += '\x01';
        for (int k = 0; k < 19999; ++k)
            q.get(2).op('K').b += '\x01';
        q.op('u');
        for (int k = 0; k < 3000; ++k)
            q.get(1);
        q.op('e').op('u').op('.');
        QTest::newRow("shared huge dict") << QByteArray::fromStdString(q.b) << "expands to more than";
    }
    void hostileRefused()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, expect);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string path = dir.filePath("rank0.pkl").toStdString();
        {
            std::ofstream out(path, std::ios::binary);
            out.write(bytes.constData(), bytes.size());
        }
        FrDump d;
        std::string error;
        QVERIFY(!readFlightRecorderDump(path, d, error));
        QVERIFY2(error.rfind(path + ": byte ", 0) == 0, error.c_str()); // names the file, then an offset
        QVERIFY2(error.find(expect.toStdString()) != std::string::npos, error.c_str());
        // The same bytes in memory.
        std::string again;
        QVERIFY(!parseFlightRecorderDump(std::string_view(bytes.constData(), size_t(bytes.size())), "mem", d, again));
        QVERIFY2(again.rfind("mem: byte ", 0) == 0, again.c_str());
    }

    // Every truncation and single-byte change of the fixtures: accepted, or refused with
    // the name and an offset; never a crash (the fuzz harness does the same at random).
    void mutationsNeverCrash()
    {
        size_t refused = 0, accepted = 0;
        for (const char *file : {"dump_v25.p2.pkl", "dump_v25.p4.pkl", "dump_v25.json", "old_v20.pkl"}) {
            const std::string whole = readBytes(fr(file));
            QVERIFY(!whole.empty());
            auto run = [&](const std::string &bytes) {
                FrDump d;
                std::string error;
                if (parseFlightRecorderDump(bytes, "m", d, error)) {
                    ++accepted;
                    QVERIFY(d.entries.size() <= 3 && d.pgConfig.size() <= 2);
                } else {
                    ++refused;
                    QVERIFY2(error.rfind("m: byte ", 0) == 0, error.c_str());
                }
            };
            for (size_t n = 0; n < whole.size(); ++n)
                run(whole.substr(0, n));
            for (size_t k = 0; k < whole.size(); ++k) {
                for (const uint8_t v : {uint8_t(0x00), uint8_t(0xff), uint8_t(0x7f), uint8_t(whole[k] ^ 0x01)}) {
                    std::string bytes = whole;
                    bytes[k] = char(v);
                    run(bytes);
                }
            }
        }
        QVERIFY(refused > 1000);
        QVERIFY(accepted > 100);
    }

    void missingFile()
    {
        FrDump d;
        std::string error;
        QVERIFY(!readFlightRecorderDump("/nonexistent/rank3.pkl", d, error));
        QVERIFY2(error.find("/nonexistent/rank3.pkl") == 0, error.c_str());
    }
};

namespace {

// One entry as torchcomms' FlightRecorderHook::dump_json writes it: "<backend>:<op>", the
// group as [comm name, backend], one collective_seq_id counter per process, p2p_seq_id 0.
std::string tcEntry(int64_t record, const std::string &pg, int64_t seq, const std::string &state)
{
    const bool world = pg == "world", done = state == "completed";
    std::string e = "{\"record_id\":";
    e += std::to_string(record);
    e += world ? ",\"pg_id\":0" : ",\"pg_id\":1";
    e += ",\"process_group\":[\"";
    e += pg;
    e += "\",\"ncclx\"],\"collective_seq_id\":";
    e += std::to_string(seq);
    e += ",\"p2p_seq_id\":0,\"op_id\":";
    e += std::to_string(record);
    e += world ? ",\"profiling_name\":\"ncclx:all_reduce\"" : ",\"profiling_name\":\"ncclx:all_gather\"";
    e += ",\"time_created_ns\":";
    e += std::to_string(1760000000000000000LL + record * 1000);
    e += ",\"input_sizes\":[[4]],\"input_dtypes\":[\"Float\"],\"output_sizes\":[[4]],\"output_dtypes\":[\"Float\"]";
    e += done ? ",\"state\":\"completed\",\"retired\":true" : ",\"state\":\"scheduled\",\"retired\":false";
    e += ",\"time_discovered_started_ns\":0,\"time_discovered_completed_ns\":0,\"timeout_ms\":600000,"
         "\"is_p2p\":false,\"thread_id\":\"1\",\"thread_name\":\"main\"}";
    return e;
}

} // namespace

// torchcomms (JSON, version 2.10, files comm_lib_trace_rank_<r> without a "rank" key): ranks
// 0 and 1 run world, pair, world; rank 2 (not in pair) stops after the first world op. Its
// process-wide numbers (0, 1, 2 against 0) are renumbered per group, so the hang is world's
// second all_reduce, rank 2 missing (by the raw numbers it would be a "seq 1" nobody ran).
void TestFrReader::torchcommsJson()
{
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const std::string head = "{\"version\":\"2.10\",\"comm_lib_version\":\"2.27.3\",\"pg_config\":{"
                             "\"world\":{\"name\":\"world\",\"desc\":\"ncclx\",\"ranks\":\"[0,1,2]\"},"
                             "\"pair\":{\"name\":\"pair\",\"desc\":\"ncclx\",\"ranks\":\"[0,1]\"}},\"pg_status\":{},"
                             "\"entries\":[";
    for (int r = 0; r < 3; ++r) {
        std::string body = tcEntry(0, "world", 0, "completed");
        if (r < 2) {
            body += ',';
            body += tcEntry(1, "pair", 1, "completed");
            body += ',';
            body += tcEntry(2, "world", 2, "scheduled");
        }
        std::ofstream(tmp.path().toStdString() + "/comm_lib_trace_rank_" + std::to_string(r)) << head << body << "]}";
    }
    HangFolder folder;
    std::string error;
    QVERIFY2(readHangFolder(tmp.path().toStdString(), folder, error), error.c_str());
    QCOMPARE(folder.dumps.size(), size_t(3));
    for (const FrDump &d : folder.dumps) {
        QCOMPARE(d.writer, std::string("torchcomms"));
        QVERIFY(d.seqRenumbered && d.seqFromStart);
        QCOMPARE(frFormatText(d), std::string("JSON 2.10, torchcomms, 2.27.3"));
    }
    QCOMPARE(hangFormatsText(folder), std::string("3 x JSON 2.10, torchcomms, 2.27.3"));
    QCOMPARE(folder.dumps[0].entries[2].collectiveSeqId, int64_t(2)); // world's second
    QCOMPARE(folder.dumps[0].entries[1].collectiveSeqId, int64_t(1)); // pair's first
    const HangAnalysis a = analyzeHang(folder.dumps, folder.missing, folder.worldSize);
    QVERIFY(!a.suspects.empty());
    const HangSuspect &s = a.suspects.front();
    QCOMPARE(s.pgName, std::string("world"));
    QCOMPARE(s.op, std::string("ncclx:all_reduce"));
    QCOMPARE(s.collectiveSeqId, int64_t(2));
    QCOMPARE(s.missingRanks, (std::vector<int64_t>{2}));
    QCOMPARE(s.waitingRanks, (std::vector<int64_t>{0, 1}));
    QCOMPARE(a.roots(), size_t(1));
}

// Issue 40, class 1: ranks and members a dump or a file name gives are bounded (0..kFrMaxRank,
// job mode's bound): out-of-range ranks are refused, members left out with one message, and
// the world size stays small (it was unbounded: out of memory; 2^63-1 overflowed).
void TestFrReader::ranksAreBounded()
{
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const std::string dir = tmp.path().toStdString();
    auto dump = [&](const std::string &name, const std::string &rank, const std::string &ranks) {
        std::ofstream(dir + "/" + name) << "{\"version\":\"2.4\",\"rank\":" << rank
                                        << ",\"pg_config\":{\"0\":{\"name\":\"0\",\"desc\":\"default_pg\",\"ranks\":\""
                                        << ranks << "\"}},\"entries\":[]}";
    };
    dump("good_0.json", "0", "[0, 1, 999999999999, 9223372036854775807, -4]");
    dump("huge.json", "1000000000000", "[0, 1]");
    dump("negative.json", "-3", "[0, 1]");
    dump("max.json", "9223372036854775807", "[0, 1]");
    std::ofstream(dir + "/broken_999999999") << "\x80\x02garbage"; // unreadable, its name's rank too large
    HangFolder folder;
    std::string error;
    QVERIFY2(readHangFolder(dir, folder, error), error.c_str());
    QCOMPARE(folder.dumps.size(), size_t(1));
    QCOMPARE(folder.worldSize, int64_t(2));
    QCOMPARE(folder.missing, (std::vector<int64_t>{1}));
    size_t outOfRange = 0;
    for (const HangFolderDiag &d : folder.diags) {
        outOfRange += d.code == "hang.rank_out_of_range" ? 1 : 0;
        if (d.code == "hang.member_out_of_range")
            // 999999999999 and -4; 2^63-1 does not fit the text parser's int64 and is dropped there
            QVERIFY2(d.message.find("2 pg_config member(s) outside 0..1048575") != std::string::npos, d.message.c_str());
    }
    QCOMPARE(outOfRange, size_t(3));
    // The analysis bounds what it is given directly too (Python, tests).
    std::vector<FrDump> dumps = folder.dumps;
    dumps.push_back(dumps.front());
    dumps.back().rank = int64_t(1) << 40;
    const HangAnalysis a = analyzeHang(dumps, {int64_t(1) << 50, -7}, int64_t(1) << 45);
    QVERIFY(std::any_of(a.warnings.begin(), a.warnings.end(),
                        [](const std::string &w) { return w.find("is outside 0..1048575") != std::string::npos; }));
    for (const HangSuspect &s : a.suspects)
        for (int64_t r : s.missingRanks)
            QVERIFY(r >= 0 && r <= kFrMaxRank);
}

// Issue 40, class 2: text from a dump (and a file name) is valid UTF-8 and capped before it
// reaches a message or a report: the report was not written ("internal error") and Python
// raised UnicodeDecodeError; a 20 MB string went whole into stderr and the report.
void TestFrReader::textIsValidAndCapped()
{
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const std::string bad = "nccl:all_reduce\xff\xfe\xc3(";
    const std::string huge(20000, 'x');
    auto one = [&](int rank, int seq) {
        Pickle p;
        p.proto(2).op('}').op('(');
        p.str("version").str("2.4").str("rank").integer(rank);
        p.str("pg_config").op('}').op('(').str("0").op('}').op('(').str("desc").str("default_pg\xe2\x82").str("ranks").str("[0, 1]").op('u').op('u');
        p.str("entries").op(']').op('(');
        for (int k = 1; k <= seq; ++k) {
            p.op('}').op('(').str("process_group").op(']').op('(').str("0").str(huge).op('e');
            p.str("collective_seq_id").integer(k).str("profiling_name").str(bad).str("state").str(k < seq ? "completed" : "scheduled");
            p.op('u');
        }
        p.op('e').op('u').op('.');
        return p.b;
    };
    std::ofstream(tmp.path().toStdString() + "/rank\xff_0", std::ios::binary) << one(0, 3);
    std::ofstream(tmp.path().toStdString() + "/rank_1", std::ios::binary) << one(1, 2);
    HangFolder folder;
    std::string error;
    QVERIFY2(readHangFolder(tmp.path().toStdString(), folder, error), error.c_str());
    QCOMPARE(folder.dumps.size(), size_t(2));
    const FrEntry &e = folder.dumps[0].entries[0];
    QCOMPARE(e.profilingName, std::string("nccl:all_reduce\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd("));
    QVERIFY(e.pgDesc.size() < kFrMaxTextBytes + 32);
    QVERIFY2(e.pgDesc.find("... (20000 bytes)") != std::string::npos, e.pgDesc.substr(e.pgDesc.size() - 40).c_str());
    const HangAnalysis a = analyzeHang(folder.dumps, folder.missing, folder.worldSize);
    QVERIFY(!a.suspects.empty());
    nlohmann::json files = nlohmann::json::array();
    for (const auto &f : folder.read)
        files.push_back(f.file);
    std::string text;
    try {
        text = hangAnalysisJson(a).dump() + files.dump();
    } catch (const std::exception &ex) {
        QFAIL(ex.what());
    }
    QVERIFY(text.size() < 200000);
}

// Issue 40, class 3: a gzip bomb (a JSON dump's start, then 300 MB of blanks, in about 300 KB) is refused at the
// inflated bound (kFrMaxDumpBytes, 256 MiB), naming the file, and the folder's other dumps
// are still read.
void TestFrReader::gzipBombIsBounded()
{
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const std::string dir = tmp.path().toStdString();
    {
        gzFile gz = gzopen((dir + "/nccl_trace_rank_1.gz").c_str(), "wb1");
        QVERIFY(gz);
        // A JSON dump's start (so it is read, not skipped as no dump), then 300 MB of blanks.
        const std::string head = "{\"version\":\"2.4\",\"rank\":1,\"entries\":[";
        QCOMPARE(gzwrite(gz, head.data(), unsigned(head.size())), int(head.size()));
        const std::string blanks(size_t(1) << 20, ' ');
        for (int k = 0; k < 300; ++k)
            QCOMPARE(gzwrite(gz, blanks.data(), unsigned(blanks.size())), int(blanks.size()));
        gzclose(gz);
    }
    std::ofstream(dir + "/nccl_trace_rank_0.json")
        << "{\"version\":\"2.4\",\"rank\":0,\"pg_config\":{\"0\":{\"name\":\"0\",\"desc\":\"default_pg\",\"ranks\":\"[0, 1]\"}},\"entries\":[]}";
    HangFolder folder;
    std::string error;
    QVERIFY2(readHangFolder(dir, folder, error), error.c_str());
    QCOMPARE(folder.dumps.size(), size_t(1));
    bool named = false;
    for (const HangFolderDiag &d : folder.diags)
        named |= d.code == "hang.dump_unreadable" && d.message.find("nccl_trace_rank_1.gz") != std::string::npos &&
                 d.message.find(std::to_string(kFrMaxDumpBytes)) != std::string::npos;
    QVERIFY(named);
    QCOMPARE(folder.missing, (std::vector<int64_t>{1}));
}

// Issue 40, class 5: whether a folder holds dumps is decided from each file's first 4 KB (the
// GUI asks on its own thread): a 64 MB file that starts like a pickled dump is not parsed there
// (the reader, off the GUI thread, refuses it later); JSON needs a flight recorder key, not just
// "version".
void TestFrReader::folderSniffReadsHeadsOnly()
{
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const std::string dir = tmp.path().toStdString();
    std::ofstream(dir + "/metadata.json") << "{\"metadata\": {\"version\": 3}, \"rows\": []}";
    QVERIFY(!folderHasFlightRecorderDumps(dir));
    {
        std::ofstream f(dir + "/nccl_trace_rank_0", std::ios::binary);
        f << std::string("\x80\x02}q\x00(X\x07\x00\x00\x00version", 19);
        const std::string junk(size_t(1) << 20, '\x00');
        for (int k = 0; k < 64; ++k)
            f << junk;
    }
    QVERIFY(folderHasFlightRecorderDumps(dir)); // the old check parsed all of it, and said no
    HangFolder folder;
    std::string error;
    QVERIFY2(readHangFolder(dir, folder, error), error.c_str());
    QVERIFY(folder.dumps.empty());
}

QTEST_GUILESS_MAIN(TestFrReader)
#include "tst_frreader.moc"
