// SPDX-License-Identifier: MIT
// Hang mode end to end (syncscope --batch --flight-recorder DIR, issue 29): generated
// dump sets with a known hang give the known root cause first in the report and the text
// summary; a hostile pickle beside a good dump is a warning naming it and the analysis
// still runs; a missing directory is exit 3 naming it; the report is written atomically;
// --flight-recorder is exclusive with the other modes.
#include "testutil.h"
#include "tracegen.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;

namespace {

struct Run {
    int code = -1;
    QString err, out;
};

Run execute(const QStringList &args)
{
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("DISPLAY"));
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(SYNCSCOPE_BINARY), args);
    if (!p.waitForFinished(120000))
        p.kill();
    Run r;
    r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

tracegen::HangCase hangCase(const std::string &name)
{
    for (auto &c : tracegen::generateHangCases())
        if (c.name == name)
            return c;
    return {};
}

nlohmann::json readJson(const std::string &path)
{
    std::ifstream f(path);
    return nlohmann::json::parse(f, nullptr, false);
}

std::vector<std::string> listDir(const std::string &dir)
{
    std::vector<std::string> names;
    for (const auto &e : fs::directory_iterator(dir))
        names.push_back(e.path().filename().string());
    return names;
}

} // namespace

class TestBatchHang : public QObject {
    Q_OBJECT
private slots:
    void knownRoot_data();
    void knownRoot();
    void hostilePickleBesideGoodDump();
    void tracesBesideTheDumps();
    void missingDirectory();
    void exclusiveWithOtherModes();
};

void TestBatchHang::knownRoot_data()
{
    QTest::addColumn<QString>("name");
    QTest::newRow("nested_ep") << QStringLiteral("nested_ep");
    QTest::newRow("p2p_desync") << QStringLiteral("p2p_desync");
}

void TestBatchHang::knownRoot()
{
    QFETCH(QString, name);
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const tracegen::HangCase c = hangCase(name.toStdString());
    QVERIFY(!c.expected.empty());
    const std::string dumps = tmp.filePath(QStringLiteral("dumps")).toStdString();
    const std::string outDir = tmp.filePath(QStringLiteral("out")).toStdString();
    fs::create_directories(outDir);
    std::string error;
    QVERIFY2(tracegen::writeHangDumps(c, dumps, error), error.c_str());
    const std::string report = outDir + "/hang.json";
    const Run r = execute({"--batch", "--flight-recorder", QString::fromStdString(dumps), "--report",
                           QString::fromStdString(report)});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.out.startsWith(QStringLiteral("hang: pg ")), qPrintable(r.out));
    const nlohmann::json j = readJson(report);
    QVERIFY(j.is_object());
    QCOMPARE(j.value("exit_code", -1), 0);
    const auto &s = j["hang"]["suspects"][0];
    const tracegen::HangExpected &e = c.expected.front();
    QCOMPARE(s["pg_id"].get<std::string>(), e.pgName);
    QCOMPARE(s["kind"].get<std::string>(), e.kind);
    QCOMPARE(s["root"].get<bool>(), true);
    QCOMPARE(s["missing_ranks"].get<std::vector<int64_t>>(), e.missing);
    QCOMPARE(s["mismatched_ranks"].get<std::vector<int64_t>>(), e.mismatched);
    QCOMPARE(s["waiting_ranks"].get<std::vector<int64_t>>(), e.waiting);
    QCOMPARE(j["inputs"]["files"].size(), c.dumps.size());
    // Atomic: only the report in its folder, no temporary file left.
    QCOMPARE(listDir(outDir), std::vector<std::string>{"hang.json"});

    // --quiet: nothing on stdout or stderr, same exit code.
    const Run q = execute({"--batch", "--flight-recorder", QString::fromStdString(dumps), "--quiet"});
    QCOMPARE(q.code, 0);
    QVERIFY2(q.out.isEmpty() && q.err.isEmpty(), qPrintable(q.out + q.err));
}

void TestBatchHang::hostilePickleBesideGoodDump()
{
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const tracegen::HangCase c = hangCase("p2p_desync");
    QVERIFY(!c.dumps.empty());
    const std::string all = tmp.filePath(QStringLiteral("all")).toStdString();
    std::string error;
    QVERIFY2(tracegen::writeHangDumps(c, all, error), error.c_str());
    const std::string dir = tmp.filePath(QStringLiteral("dumps")).toStdString();
    fs::create_directories(dir + "/sub");
    fs::copy_file(all + "/rank0.json", dir + "/nccl_trace_rank_0");
    // A pickle that would run os.system through GLOBAL + REDUCE: refused at the GLOBAL.
    const std::string hostile = dir + "/sub/nccl_trace_rank_1";
    {
        std::ofstream f(hostile, std::ios::binary);
        static const char bytes[] = "\x80\x02" "cposix\nsystem\n" "X\x02\x00\x00\x00id" "\x85" "R.";
        f << std::string(bytes, sizeof bytes - 1);
    }
    std::ofstream(dir + "/README.txt") << "not a dump\n";
    const std::string report = tmp.filePath(QStringLiteral("hang.json")).toStdString();
    const Run r = execute({"--batch", "--flight-recorder", QString::fromStdString(dir), "--report",
                           QString::fromStdString(report)});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains(QStringLiteral("warning: ") + QString::fromStdString(hostile)), qPrintable(r.err));
    QVERIFY2(r.err.contains(QStringLiteral("info: ")) && r.err.contains(QStringLiteral("README.txt")), qPrintable(r.err));
    QVERIFY2(r.out.startsWith(QStringLiteral("hang: pg ")), qPrintable(r.out));
    const nlohmann::json j = readJson(report);
    QVERIFY(j.is_object());
    QCOMPARE(j["inputs"]["files"].size(), size_t(1));
    QCOMPARE(j["inputs"]["refused"].size(), size_t(2));
    bool named = false;
    for (const auto &d : j["diagnostics"])
        if (d["severity"] == "warning" && d.value("file", "") == hostile)
            named = true;
    QVERIFY(named);
    // Rank 1's dump was refused: it counts as having none.
    const auto missing = j["inputs"]["missing_dumps"].get<std::vector<int64_t>>();
    QVERIFY(std::find(missing.begin(), missing.end(), 1) != missing.end());
    QVERIFY(!j["hang"]["suspects"].empty());
}

// A job's Kineto and execution traces beside its dumps (pickles, as torch writes them) are
// skipped by their first keys, unread, and the answer is the same.
void TestBatchHang::tracesBesideTheDumps()
{
    QTemporaryDir tmp;
    const std::string dir = tmp.path().toStdString();
    const tracegen::HangCase c = hangCase("nested_ep");
    std::string error;
    QVERIFY2(tracegen::writeHangDumps(c, dir, error, tracegen::HangDumpFormat::Pickle), error.c_str());
    std::ofstream(dir + "/rank0.kineto.json") << R"({"schemaVersion": 1, "distributedInfo": {"rank": 0, "pg_config": []}, "traceEvents": []})";
    std::ofstream(dir + "/rank0.et.json") << R"({"schema": "1.1.1-chakra.0.0.4", "pid": 1, "nodes": []})";
    const std::string report = dir + "/hang.report.json.out";
    const Run r = execute({"--batch", "--flight-recorder", QString::fromStdString(dir), "--report", QString::fromStdString(report), "--quiet"});
    QCOMPARE(r.code, 0);
    const nlohmann::json j = readJson(report);
    QCOMPARE(j["inputs"]["files"].size(), c.dumps.size());
    for (const auto &f : j["inputs"]["files"])
        QCOMPARE(f["format"].get<std::string>(), std::string("pickle"));
    size_t traces = 0;
    for (const auto &d : j["diagnostics"])
        if (d["code"] == "hang.trace_file") {
            QCOMPARE(d["severity"].get<std::string>(), std::string("info"));
            ++traces;
        }
    QCOMPARE(traces, size_t(2));
    QCOMPARE(j["hang"]["suspects"][0]["pg_id"].get<std::string>(), c.expected[0].pgName);
    QCOMPARE(j["hang"]["suspects"][0]["missing_ranks"].get<std::vector<int64_t>>(), c.expected[0].missing);
}

void TestBatchHang::missingDirectory()
{
    QTemporaryDir tmp;
    const QString dir = tmp.filePath(QStringLiteral("no-such-dumps"));
    const QString report = tmp.filePath(QStringLiteral("hang.json"));
    const Run r = execute({"--batch", "--flight-recorder", dir, "--report", report});
    QCOMPARE(r.code, 3);
    QVERIFY2(r.err.contains(dir), qPrintable(r.err));
    QVERIFY(!QFileInfo::exists(report));
    // A folder without a dump: exit 3 too, and the report says so.
    const QString empty = tmp.filePath(QStringLiteral("empty"));
    QVERIFY(QDir().mkpath(empty));
    std::ofstream(empty.toStdString() + "/notes.txt") << "nothing\n";
    const Run e = execute({"--batch", "--flight-recorder", empty, "--report", report});
    QCOMPARE(e.code, 3);
    QVERIFY2(e.err.contains(empty), qPrintable(e.err));
    const nlohmann::json j = readJson(report.toStdString());
    QCOMPARE(j.value("exit_code", -1), 3);
}

void TestBatchHang::exclusiveWithOtherModes()
{
    QTemporaryDir tmp;
    for (const QStringList &extra : {QStringList{"--job", tmp.path()}, QStringList{"--inspect", "x.et"},
                                     QStringList{"--device", "x.json"}}) {
        const Run r = execute(QStringList{"--batch", "--flight-recorder", tmp.path()} + extra);
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains(QStringLiteral("--flight-recorder")) && r.err.contains(extra.front()), qPrintable(r.err));
    }
    const Run g = execute({"--flight-recorder", tmp.path()});
    QCOMPARE(g.code, 2);
    QVERIFY2(g.err.contains(QStringLiteral("--batch")), qPrintable(g.err));
}

QTEST_GUILESS_MAIN(TestBatchHang)
#include "tst_batchhang.moc"
