// SPDX-License-Identifier: MIT
// --sqlite (issue 24, docs/sqlite.md): every example query of the docs, read from
// docs/sqlite.md itself, run with the sqlite3 CLI and with Python's sqlite3 on the
// databases of the sample pair, a shared HTA pair and the DLRM 8-rank job; both must
// agree, and with the JSON report's numbers. Row counts against the analysis, and
// the output rules: atomic replacement, never over an input, bad paths.
#include "testutil.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <cmath>
#include <map>

using json = nlohmann::json;

class TestSqlite : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void samplePair();
    void htaPair();
    void dlrmJob();
    void replacesOnlyWhenComplete();
    void neverOverAnInput();
    void badPathIsAnOutputError();

private:
    std::map<std::string, std::string> m_queries; // docs/sqlite.md's example queries by name
    json query(const std::string &db, const std::string &name);
    void checkPair(const std::string &db, const json &report, const json &cp);
};

namespace {

struct Run {
    int code = -1;
    QString err;
};

Run run(const QString &program, const QStringList &args, int timeoutMs = 300000)
{
    QProcess p;
    p.start(program, args);
    Run r;
    if (!p.waitForFinished(timeoutMs))
        return r;
    r.err = QString::fromUtf8(p.readAllStandardError());
    r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2;
    if (r.code != 0)
        r.err += QString::fromUtf8(p.readAllStandardOutput());
    return r;
}

Run syncscope(const QStringList &args)
{
    return run(QStringLiteral(SYNCSCOPE_BINARY), args);
}

QString q(const std::string &s)
{
    return QString::fromStdString(s);
}

// Runs `sql` with /usr/bin/sqlite3 -json: an array of row objects ([] when no row).
json viaCli(const std::string &db, const std::string &sql)
{
    QProcess p;
    p.start(QStringLiteral("/usr/bin/sqlite3"), {QStringLiteral("-json"), q(db), q(sql)});
    if (!p.waitForFinished(60000) || p.exitCode() != 0)
        return json("sqlite3 failed: " + p.readAllStandardError().toStdString());
    const QByteArray out = p.readAllStandardOutput().trimmed();
    return out.isEmpty() ? json::array() : json::parse(out.toStdString());
}

// The same with Python's sqlite3 module.
json viaPython(const std::string &db, const std::string &sql)
{
    static const char *script = "import json, sqlite3, sys\n"
                                "con = sqlite3.connect('file:' + sys.argv[1] + '?mode=ro', uri=True)\n"
                                "cur = con.execute(sys.argv[2])\n"
                                "cols = [d[0] for d in cur.description]\n"
                                "print(json.dumps([dict(zip(cols, r)) for r in cur]))\n";
    QProcess p;
    p.start(QStringLiteral("/usr/bin/python3"), {QStringLiteral("-c"), QString::fromUtf8(script), q(db), q(sql)});
    if (!p.waitForFinished(60000) || p.exitCode() != 0)
        return json("python3 failed: " + p.readAllStandardError().toStdString());
    return json::parse(p.readAllStandardOutput().toStdString());
}

bool near(double a, double b, double tol = 1e-6)
{
    return std::fabs(a - b) <= tol * std::max(1.0, std::max(std::fabs(a), std::fabs(b)));
}

// Same rows, numbers equal up to printing (sqlite3 prints 17 digits, Python repr).
bool sameRows(const json &a, const json &b)
{
    if (a.is_number() && b.is_number())
        return near(a.get<double>(), b.get<double>(), 1e-12);
    if (a.type() != b.type() || a.size() != b.size())
        return false;
    if (a.is_array()) {
        for (size_t k = 0; k < a.size(); ++k)
            if (!sameRows(a[k], b[k]))
                return false;
        return true;
    }
    if (a.is_object()) {
        for (const auto &[key, value] : a.items())
            if (!b.contains(key) || !sameRows(value, b.at(key)))
                return false;
        return true;
    }
    return a == b;
}

int64_t count(const std::string &db, const std::string &sql)
{
    const json rows = viaCli(db, sql);
    return rows.is_array() && rows.size() == 1 ? rows[0].begin()->get<int64_t>() : -1;
}

// The job report's per-rank summary keeps HTA's unnamed dependency bucket as "" (the
// database and the single-pair report call it "dependency").
std::string jobBoundKey(const json &summary, const std::string &b)
{
    return b == "dependency" && !summary.contains(b) ? std::string() : b;
}

// Kernels per (step, name) straight from the Kineto JSON, by their start inside the
// CPU-side ProfilerStep#N: what top_kernels_per_step must return, computed without Syncscope.
json kernelsFromTrace(const std::string &kineto)
{
    static const char *script =
        "import gzip, json, sys\n"
        "raw = open(sys.argv[1], 'rb').read()\n"
        "t = json.loads(gzip.decompress(raw) if raw[:2] == b'\\x1f\\x8b' else raw)\n"
        "ev = t['traceEvents'] if isinstance(t, dict) else t\n"
        "steps = [e for e in ev if e.get('cat') == 'user_annotation' and e.get('name', '').startswith('ProfilerStep#')]\n"
        "out = {}\n"
        "for s in steps:\n"
        "    n = int(s['name'].split('#')[1])\n"
        "    for e in ev:\n"
        "        if e.get('cat') == 'kernel' and s['ts'] <= e['ts'] < s['ts'] + s['dur']:\n"
        "            k = '%d|%s' % (n, e['name'])\n"
        "            c, d = out.get(k, (0, 0.0))\n"
        "            out[k] = (c + 1, d + e.get('dur', 0))\n"
        "print(json.dumps(out))\n";
    QProcess p;
    p.start(QStringLiteral("/usr/bin/python3"), {QStringLiteral("-c"), QString::fromUtf8(script), q(kineto)});
    if (!p.waitForFinished(60000) || p.exitCode() != 0)
        return json();
    return json::parse(p.readAllStandardOutput().toStdString());
}

bool noTemporaryFiles(const QString &dir)
{
    return QDir(dir).entryList(QDir::Files | QDir::Hidden).filter(QStringLiteral(".tmp-")).isEmpty();
}

} // namespace

void TestSqlite::initTestCase()
{
    // Every ```sql block after a "<!-- query: NAME -->" line of docs/sqlite.md.
    const QString doc = q(testutil::readText(SYNCSCOPE_SOURCE_DIR "/docs/sqlite.md"));
    static const QRegularExpression re(QStringLiteral("<!-- query: (\\w+) -->\\s*```sql\\n(.*?)```"),
                                       QRegularExpression::DotMatchesEverythingOption);
    for (auto it = re.globalMatch(doc); it.hasNext();) {
        const auto m = it.next();
        m_queries[m.captured(1).toStdString()] = m.captured(2).toStdString();
    }
    for (const char *name : {"top_kernels_per_step", "steps", "critical_path_by_bound_by", "ops_on_critical_path",
                             "sync_waits_by_kind", "waits_per_collective_and_rank", "waits_caused_by_rank"})
        QVERIFY2(m_queries.count(name), name);
}

// A documented query through both clients, which must agree.
json TestSqlite::query(const std::string &db, const std::string &name)
{
    const json cli = viaCli(db, m_queries.at(name)), py = viaPython(db, m_queries.at(name));
    if (!cli.is_array() || !sameRows(cli, py)) {
        qWarning("%s: sqlite3 %s\npython %s", name.c_str(), cli.dump().substr(0, 2000).c_str(),
                 py.dump().substr(0, 2000).c_str());
        return json("the sqlite3 CLI and Python disagree on " + name);
    }
    return cli;
}

// Every documented query on a pair's database, against the report and the critical-path JSON.
void TestSqlite::checkPair(const std::string &db, const json &report, const json &cp)
{
    for (const auto &[name, sql] : m_queries)
        QVERIFY2(query(db, name).is_array(), name.c_str());
    // Row counts: the analysis'.
    QCOMPARE(count(db, "SELECT COUNT(*) FROM events"), report["inputs"]["device"]["events"].get<int64_t>());
    QCOMPARE(count(db, "SELECT COUNT(*) FROM sync_edges"), report["sync"]["edges"].get<int64_t>());
    QCOMPARE(count(db, "SELECT COUNT(*) FROM critical_path"), cp["critical_path"]["edges"].get<int64_t>());
    QCOMPARE(count(db, "SELECT COUNT(*) FROM ranks"), int64_t(1));
    const json &link = report["link"];
    if (link.is_object()) {
        QVERIFY(count(db, "SELECT COUNT(*) FROM links WHERE gpu_event IS NULL") >= link["host_ops_linked"].get<int64_t>());
        QCOMPARE(count(db, "SELECT COUNT(*) FROM links WHERE gpu_event IS NOT NULL AND et_plus_id IS NOT NULL"),
                 link["gpu_ops_linked"].get<int64_t>());
        QCOMPARE(count(db, "SELECT host_ops_linked FROM ranks"), link["host_ops_linked"].get<int64_t>());
    }
    // Sync edges per kind and source: the report's by_kind.
    std::map<std::string, std::pair<int64_t, int64_t>> bySource; // kind -> recorded, inferred
    for (const json &row : query(db, "sync_waits_by_kind"))
        (row["source"] == "inferred" ? bySource[row["kind"]].second : bySource[row["kind"]].first) +=
            row["edges"].get<int64_t>();
    for (const auto &[kind, k] : report["sync"]["by_kind"].items()) {
        QCOMPARE(bySource[kind].first, k["recorded"].get<int64_t>());
        QCOMPARE(bySource[kind].second, k["inferred"].get<int64_t>());
    }
    // The critical path by bound-by: the report's summary, in percent.
    const json bound = query(db, "critical_path_by_bound_by");
    const json &summary = report["critical_path"]["summary"];
    QCOMPARE(bound.size(), summary.size());
    for (const json &row : bound) {
        const std::string b = row["bound_by"];
        QVERIFY2(summary.contains(b), b.c_str());
        const double pct = row["percent"].is_null() ? 0.0 : row["percent"].get<double>();
        QVERIFY2(near(pct, summary[b].get<double>()), qPrintable(q(b) + " " + QString::number(pct)));
    }
    double onPath = 0;
    for (const json &row : query(db, "ops_on_critical_path"))
        onPath += row["on_path_us"].get<double>();
    QVERIFY(onPath <= report["critical_path"]["weight_us"].get<double>() + 1e-6);
    // The window's step: its critical path, and with --step all every step's.
    std::map<std::string, double> stepWeights;
    if (report["critical_path"].contains("steps"))
        for (const json &s : report["critical_path"]["steps"])
            stepWeights[s["name"]] = s["weight_us"].get<double>();
    const json window = report["critical_path"]["window"];
    bool windowSeen = false;
    for (const json &row : query(db, "steps")) {
        if (stepWeights.count(row["name"]))
            QVERIFY(near(row["critical_path_us"].get<double>(), stepWeights[row["name"]]));
        if (window["kind"] == "step" && row["step"] == window["step"]) {
            QVERIFY(near(row["critical_path_us"].get<double>(), report["critical_path"]["weight_us"].get<double>()));
            windowSeen = true;
        }
    }
    QCOMPARE(windowSeen, window["kind"] == "step");
}

void TestSqlite::samplePair()
{
    const std::string dir = testutil::tempDir(), db = dir + "/sample.db";
    const std::string device = SYNCSCOPE_SAMPLE_DIR "/sample.kineto.json.gz";
    const Run r = syncscope({"--batch", "--host", SYNCSCOPE_SAMPLE_DIR "/sample.et.json.gz", "--device", q(device),
                             "--step", "all", "--sqlite", q(db), "--report", q(dir + "/r.json"), "--critical-path",
                             q(dir + "/cp.json")});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const json report = json::parse(testutil::readText(dir + "/r.json"));
    checkPair(db, report, json::parse(testutil::readText(dir + "/cp.json")));
    // The report lists the database with its write time.
    bool listed = false;
    for (const json &o : report["outputs"])
        listed |= o["kind"] == "sqlite" && o["status"] == "written" && o["write_s"].get<double>() >= 0 &&
                  o["bytes"].get<int64_t>() > 0;
    QVERIFY(listed);
    QVERIFY2(r.err.contains("sqlite"), qPrintable(r.err));
    // Top kernels per step: what the trace file itself says.
    const json expected = kernelsFromTrace(device);
    QVERIFY(expected.is_object() && !expected.empty());
    size_t rows = 0;
    for (const json &row : query(db, "top_kernels_per_step")) {
        const std::string key = std::to_string(row["step"].get<int64_t>()) + "|" + row["name"].get<std::string>();
        QVERIFY2(expected.contains(key), key.c_str());
        QCOMPARE(row["kernels"].get<int64_t>(), expected[key][0].get<int64_t>());
        QVERIFY(near(row["total_us"].get<double>(), expected[key][1].get<double>()));
        ++rows;
    }
    QCOMPARE(rows, expected.size());
    // meta: the report's window and the schema version.
    QCOMPARE(count(db, "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'schema_version'"), int64_t(1));
    const json meta = viaCli(db, "SELECT value FROM meta WHERE key = 'window'");
    QCOMPARE(json::parse(meta[0]["value"].get<std::string>()), report["critical_path"]["window"]);
}

void TestSqlite::htaPair()
{
    REQUIRE_SHARED_DATA();
    const std::string dir = testutil::tempDir(), db = dir + "/hta.db";
    const std::string pair = testutil::sharedData("pairs/hta_simple_add");
    const Run r = syncscope({"--batch", "--host", q(pair + "/simple_add.et.json.gz"), "--device",
                             q(pair + "/simple_add.kineto.json.gz"), "--sqlite", q(db), "--report", q(dir + "/r.json"),
                             "--critical-path", q(dir + "/cp.json"), "--quiet"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    checkPair(db, json::parse(testutil::readText(dir + "/r.json")),
              json::parse(testutil::readText(dir + "/cp.json")));
}

void TestSqlite::dlrmJob()
{
    REQUIRE_SHARED_DATA();
    const std::string dir = testutil::tempDir(), db = dir + "/job.db";
    const Run r = syncscope({"--batch", "--job", q(testutil::sharedData("pairs/param_dlrm_8rank")), "--jobs", "2",
                             "--sqlite", q(db), "--report", q(dir + "/job.json"), "--quiet"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const json report = json::parse(testutil::readText(dir + "/job.json"));
    for (const auto &[name, sql] : m_queries)
        QVERIFY2(query(db, name).is_array(), name.c_str());
    QCOMPARE(count(db, "SELECT COUNT(*) FROM ranks"), int64_t(report["ranks"].size()));
    QCOMPARE(count(db, "SELECT COUNT(DISTINCT rank) FROM events"), int64_t(8));
    QCOMPARE(count(db, "SELECT COUNT(*) FROM collectives"), int64_t(report["collectives"].size()));
    QVERIFY(report["outputs"][0]["kind"] == "sqlite" && report["outputs"][0]["status"] == "written");
    // Waits per collective and rank: the report's collectives[].wait_us.
    size_t arrivals = 0;
    for (const json &row : query(db, "waits_per_collective_and_rank")) {
        const json &c = report["collectives"][row["collective"].get<size_t>()];
        QCOMPARE(row["name"], c["name"]);
        const std::string rank = std::to_string(row["rank"].get<int64_t>());
        QVERIFY(near(row["wait_us"].get<double>(), c["wait_us"][rank].get<double>(), 1e-9));
        QCOMPARE(row["is_last"].get<int>() == 1, c["last_arrival_rank"].get<int64_t>() == row["rank"].get<int64_t>());
        if (!row["late_us"].is_null())
            QVERIFY(near(row["late_us"].get<double>(), c["lateness"][rank]["late_us"].get<double>(), 1e-9));
        ++arrivals;
    }
    QVERIFY(arrivals >= report["collectives"].size() * 2);
    // Per rank: waits caused, step time, each rank's critical path by bound-by.
    const json ranks = query(db, "waits_caused_by_rank");
    const json bound = query(db, "critical_path_by_bound_by");
    for (size_t k = 0; k < ranks.size(); ++k) {
        const json &rr = report["ranks"][k];
        QCOMPARE(ranks[k]["rank"], rr["rank"]);
        QVERIFY(near(ranks[k]["collective_wait_caused_us"].get<double>(), rr["collective_wait_caused_us"].get<double>(), 1e-9));
        QVERIFY(near(ranks[k]["collective_wait_us"].get<double>(), rr["collective_wait_us"].get<double>(), 1e-9));
        const std::string r = std::to_string(rr["rank"].get<int64_t>());
        QVERIFY(near(viaCli(db, "SELECT step_time_us FROM ranks WHERE rank = " + r)[0]["step_time_us"].get<double>(),
                     rr["step_time_us"].get<double>()));
        size_t buckets = 0;
        for (const json &row : bound)
            if (row["rank"] == rr["rank"]) {
                const double pct = row["percent"].is_null() ? 0.0 : row["percent"].get<double>();
                const json &summary = rr["critical_path"]["summary"];
                QVERIFY(near(pct, summary[jobBoundKey(summary, row["bound_by"])].get<double>()));
                ++buckets;
            }
        QCOMPARE(buckets, rr["critical_path"]["summary"].size());
    }
    QCOMPARE(count(db, "SELECT COUNT(*) FROM job_critical_path"),
             int64_t(report["job_critical_path"]["path"].size()));
    QVERIFY(count(db, "SELECT COUNT(*) FROM delays") >= int64_t(report["delay_costs"].size()));
    const json meta = viaCli(db, "SELECT value FROM meta WHERE key = 'window'");
    QCOMPARE(json::parse(meta[0]["value"].get<std::string>()), report["job"]["window"]);
}

void TestSqlite::replacesOnlyWhenComplete()
{
    const QString dir = q(testutil::tempDir()), db = dir + "/out.db";
    testutil::writeText(db.toStdString(), "old contents\n");
    // A write over `ulimit -f` (50 KB) fails: exit 5, the old file stays, no temporary file is left.
    const Run failed = run(QStringLiteral("/bin/sh"),
                           {QStringLiteral("-c"), QStringLiteral("ulimit -f 100; exec \"$0\" --batch --sample --sqlite \"$1\""),
                            QStringLiteral(SYNCSCOPE_BINARY), db});
    QVERIFY2(failed.code == 5, qPrintable(failed.err));
    QCOMPARE(testutil::readText(db.toStdString()), std::string("old contents\n"));
    QVERIFY(noTemporaryFiles(dir));
    // A complete write replaces it.
    const Run ok = syncscope({"--batch", "--sample", "--sqlite", db, "--quiet"});
    QVERIFY2(ok.code == 0, qPrintable(ok.err));
    QVERIFY(testutil::readText(db.toStdString()).rfind("SQLite format 3", 0) == 0);
    QVERIFY(noTemporaryFiles(dir));
    QVERIFY(count(db.toStdString(), "SELECT COUNT(*) FROM events") > 0);
}

void TestSqlite::neverOverAnInput()
{
    const std::string dir = testutil::tempDir();
    const std::string device = dir + "/device.json";
    testutil::writeText(device, testutil::readText(SYNCSCOPE_SAMPLE_DIR "/sample.kineto.json.gz"));
    const std::string before = testutil::readText(device);
    Run r = syncscope({"--batch", "--device", q(device), "--sqlite", q(device), "--report", q(dir + "/r.json")});
    QCOMPARE(r.code, 5);
    QVERIFY2(r.err.contains("refusing to overwrite an input"), qPrintable(r.err));
    QCOMPARE(testutil::readText(device), before);
    const json report = json::parse(testutil::readText(dir + "/r.json"));
    QCOMPARE(report["outputs"][0]["status"].get<std::string>(), std::string("failed"));
    // Job mode: a database naming a rank's trace is a usage error before anything is written.
    REQUIRE_SHARED_DATA();
    const std::string job = testutil::sharedData("pairs/param_dlrm_8rank");
    const QStringList files = QDir(q(job)).entryList(QDir::Files);
    QVERIFY(!files.isEmpty());
    const std::string input = job + "/" + files.front().toStdString();
    const std::string original = testutil::readText(input);
    r = syncscope({"--batch", "--job", q(job), "--sqlite", q(input), "--quiet"});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("SQLite database"), qPrintable(r.err));
    QCOMPARE(testutil::readText(input), original);
}

void TestSqlite::badPathIsAnOutputError()
{
    const Run r = syncscope({"--batch", "--sample", "--sqlite", "/nonexistent-folder/x.db"});
    QCOMPARE(r.code, 5);
    QVERIFY2(r.err.contains("/nonexistent-folder/x.db"), qPrintable(r.err));
    const Run empty = syncscope({"--batch", "--sample", "--sqlite", ""});
    QCOMPARE(empty.code, 2);
    const QString dir = q(testutil::tempDir());
    const Run isDir = syncscope({"--batch", "--sample", "--sqlite", dir});
    QCOMPARE(isDir.code, 5);
    QVERIFY2(isDir.err.contains("is a directory"), qPrintable(isDir.err));
}

QTEST_GUILESS_MAIN(TestSqlite)
#include "tst_sqlite.moc"
