// SPDX-License-Identifier: MIT
// HTA d731cc2e mode of the critical path (critical_path_spec.md 8), the HTA that
// Chakra pins: the three trace_link_d731 cases against chakra_trace_link's ET+
// and both HTA versions' critical-path summaries, and the d731cc2e numbers of
// HTA's test traces.
#include "cptestutil.h"

#include "export/etpluswriter.h"
#include "session/analysis.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <map>

using namespace syncscope;

namespace {

std::string caseFile(const QString &name, const std::string &file)
{
    return testutil::fixture("golden/trace_link_d731/" + name.toStdString() + "/" + file);
}

// Sorts the ids inside every "sync_dep": [...] list (the reference fills them from a
// thread pool, so only the set is meaningful); everything else is left as it is.
std::string sortSyncDeps(std::string text)
{
    const std::string key = "\"sync_dep\": [";
    for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + 1)) {
        const size_t open = at + key.size();
        const size_t close = text.find(']', open);
        if (close == std::string::npos)
            break;
        const std::string inner = text.substr(open, close - open);
        std::vector<long long> ids;
        for (size_t i = 0; i < inner.size();) {
            const size_t digit = inner.find_first_of("-0123456789", i);
            if (digit == std::string::npos)
                break;
            size_t used = 0;
            ids.push_back(std::stoll(inner.substr(digit), &used));
            i = digit + used;
        }
        std::sort(ids.begin(), ids.end());
        // Keep the layout: the whitespace before the first id and after the last.
        const size_t first = inner.find_first_not_of(" \n");
        const size_t last = inner.find_last_not_of(" \n");
        if (first == std::string::npos)
            continue;
        const std::string lead = inner.substr(0, first), tail = inner.substr(last + 1);
        std::string sorted = lead;
        for (size_t k = 0; k < ids.size(); ++k)
            sorted += (k ? "," + lead : std::string()) + std::to_string(ids[k]);
        sorted += tail;
        text.replace(open, close - open, sorted);
    }
    return text;
}

std::string pct(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4f", v);
    return buf;
}

std::string num(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

// One sync edge as a line: both ends with their names, categories, External ids and correlations.
std::string edgeLine(const KinetoTrace &t, uint32_t src, bool srcStart, uint32_t dst, bool dstStart)
{
    auto end = [&](uint32_t ev, bool start) {
        const KinetoEvent &e = t.events[ev];
        return std::to_string(ev) + (start ? " S " : " E ") + std::string(t.str(e.name)) + " [" +
               std::string(t.str(e.cat)) + "] ext " + std::to_string(e.externalId) + " corr " +
               std::to_string(e.correlation);
    };
    const bool gpuDst = t.events[dst].htaStream() != -1;
    return end(src, srcStart) + " -> " + end(dst, dstStart) + (gpuDst ? " gpu->gpu" : " gpu->cpu");
}

std::string jsonEdgeLine(const nlohmann::json &e)
{
    auto end = [&](const std::string &p) {
        return std::to_string(e[p].get<long long>()) + " " + e[p + "_node"].get<std::string>() + " " +
               e[p + "_name"].get<std::string>() + " [" + e[p + "_cat"].get<std::string>() + "] ext " +
               std::to_string(e[p + "_ext"].is_null() ? -1LL : e[p + "_ext"].get<long long>()) + " corr " +
               std::to_string(e[p + "_corr"].is_null() ? -1LL : e[p + "_corr"].get<long long>());
    };
    return end("src") + " -> " + end("dst") + " " + e["kind"].get<std::string>();
}

void addSorted(std::string &out, const std::string &title, std::vector<std::string> lines)
{
    std::sort(lines.begin(), lines.end());
    out += title + " " + std::to_string(lines.size()) + "\n";
    for (const auto &l : lines)
        out += "  " + l + "\n";
}

// The fields of cpa_hta_*.json as text, from our result.
std::string summaryOf(const KinetoTrace &t, const CriticalPathResult &r)
{
    const CpGraph &g = r.graph;
    std::string s = "node_list " + std::to_string(g.nodeCount()) + "\ngraph_nodes " +
                    std::to_string(r.graphNodeCount()) + "\ngraph_edges " + std::to_string(g.edgeCount()) + "\n";
    auto types = [&](const std::vector<size_t> &counts) {
        std::map<std::string, size_t> byName;
        for (int k = 0; k < kCpEdgeTypeCount; ++k)
            if (counts[static_cast<size_t>(k)] > 0)
                byName[cpEdgeTypeEnumName(static_cast<CpEdgeType>(k))] = counts[static_cast<size_t>(k)];
        std::string line;
        for (const auto &[name, n] : byName)
            line += " " + name + "=" + std::to_string(n);
        return line + "\n";
    };
    s += "graph_edges_by_type" + types(r.edgeCountsByType());
    s += "cp.nodes " + std::to_string(r.pathNodes.size()) + "\ncp.events " + std::to_string(r.criticalEvents.size()) +
         "\ncp.weight_us " + num(r.weightUs) + "\ncp.edges_by_type" + types(r.pathEdgeCountsByType());
    s += "cp.summary_pct";
    for (const auto &row : r.summary)
        s += " " + (row.boundBy.empty() ? std::string("(blank)") : row.boundBy) + "=" + pct(row.percent);
    s += "\ncp.node_sequence\n";
    for (int32_t n : r.pathNodes)
        s += "  " + std::to_string(g.nodeEvent[n]) + (g.nodeIsStart[n] ? " S\n" : " E\n");
    std::vector<std::string> all, critical;
    std::map<long long, std::vector<long long>> syncMap;
    for (int32_t e = 0; e < g.edgeCount(); ++e) {
        if (g.edgeType[e] != CpEdgeType::SyncDependency)
            continue;
        const int32_t u = g.edgeFrom[e], v = g.edgeTo[e];
        all.push_back(edgeLine(t, static_cast<uint32_t>(g.nodeEvent[u]), g.nodeIsStart[u],
                               static_cast<uint32_t>(g.nodeEvent[v]), g.nodeIsStart[v]));
        if (std::find(r.pathEdges.begin(), r.pathEdges.end(), e) == r.pathEdges.end())
            continue;
        critical.push_back(all.back());
        // trace_link: sync_deps[end External id] += start External id, unless equal or missing.
        const KinetoEvent &a = t.events[static_cast<size_t>(g.nodeEvent[u])];
        const KinetoEvent &b = t.events[static_cast<size_t>(g.nodeEvent[v])];
        if (a.has(KinetoEvent::HasExternalId) && b.has(KinetoEvent::HasExternalId) && a.externalId != b.externalId)
            syncMap[b.externalId].push_back(a.externalId);
    }
    addSorted(s, "sync_edges.all", all);
    addSorted(s, "sync_edges.critical", critical);
    s += "chakra_sync_map\n";
    for (auto &[end, starts] : syncMap) {
        std::sort(starts.begin(), starts.end());
        s += "  " + std::to_string(end) + ":";
        for (long long x : starts)
            s += " " + std::to_string(x);
        s += "\n";
    }
    return s;
}

// The same text from HTA's summary file.
std::string summaryOf(const nlohmann::json &d)
{
    std::string s = "node_list " + std::to_string(d["node_list"].get<long long>()) + "\ngraph_nodes " +
                    std::to_string(d["graph_nodes"].get<long long>()) + "\ngraph_edges " +
                    std::to_string(d["graph_edges"].get<long long>()) + "\n";
    auto types = [](const nlohmann::json &o) {
        std::map<std::string, long long> byName;
        for (const auto &[k, v] : o.items())
            if (v.get<long long>() > 0)
                byName[k] = v.get<long long>();
        std::string line;
        for (const auto &[name, n] : byName)
            line += " " + name + "=" + std::to_string(n);
        return line + "\n";
    };
    const nlohmann::json &cp = d["critical_path"];
    s += "graph_edges_by_type" + types(d["graph_edges_by_type"]);
    s += "cp.nodes " + std::to_string(cp["nodes"].get<long long>()) + "\ncp.events " +
         std::to_string(cp["events"].get<long long>()) + "\ncp.weight_us " + num(cp["weight_us"].get<double>()) +
         "\ncp.edges_by_type" + types(cp["edges_by_type"]);
    s += "cp.summary_pct";
    std::map<std::string, double> buckets; // sorted by name, "(blank)" first as "" sorts first
    for (const auto &[k, v] : cp["summary_pct"].items())
        buckets[k] = v.get<double>();
    for (const auto &[k, v] : buckets)
        s += " " + k + "=" + pct(v);
    s += "\ncp.node_sequence\n";
    for (const auto &n : cp["node_sequence"])
        s += "  " + std::to_string(n[0].get<long long>()) + " " + n[1].get<std::string>() + "\n";
    std::vector<std::string> all, critical;
    for (const auto &e : d["sync_edges"]["all"])
        all.push_back(jsonEdgeLine(e));
    for (const auto &e : d["sync_edges"]["critical"])
        critical.push_back(jsonEdgeLine(e));
    addSorted(s, "sync_edges.all", all);
    addSorted(s, "sync_edges.critical", critical);
    s += "chakra_sync_map\n";
    std::map<long long, std::vector<long long>> syncMap;
    for (const auto &[k, v] : d["chakra_sync_map"].items())
        syncMap[std::stoll(k)] = v.get<std::vector<long long>>();
    for (auto &[end, starts] : syncMap) {
        std::sort(starts.begin(), starts.end());
        s += "  " + std::to_string(end) + ":";
        for (long long x : starts)
            s += " " + std::to_string(x);
        s += "\n";
    }
    return s;
}

const char *kParamForward = "[param|pytorch.model.alex_net|0|0|0|measure|forward]";

} // namespace

class TestHtaD731 : public QObject
{
    Q_OBJECT
private slots:
    void chakraLinkedGolden_data();
    void chakraLinkedGolden();
    void summaries_data();
    void summaries();
    void conformance_data();
    void conformance();
    void lastStepFilterBySubstring();
    void eventZeroAndNegativeWeights();
    void versionNames();
};

void TestHtaD731::chakraLinkedGolden_data()
{
    QTest::addColumn<QString>("name");
    for (const char *c : {"fwd_bwd_merge", "memcpy_async_weight", "event_query_endpoint"})
        QTest::newRow(c) << c;
}

void TestHtaD731::chakraLinkedGolden()
{
    // --compat chakra equals chakra_trace_link run with HTA d731cc2e, sync_dep lists as sets.
    QFETCH(QString, name);
    AnalysisRequest req;
    req.hostPath = caseFile(name, "host.json.gz");
    req.devicePath = caseFile(name, "device.json.gz");
    req.mode = LinkMode::Chakra;
    req.criticalPath = false;
    const auto a = runAnalysis(req);
    QVERIFY(a->inputsOk);
    QVERIFY(a->link);
    const std::string actual = sortSyncDeps(etPlusToString(*a->host, *a->device, *a->link));
    const std::string expected = sortSyncDeps(testutil::readText(caseFile(name, "linked.json.gz")));
    std::string diff;
    const bool same = cptest::sameText(actual, expected, diff);
    if (!same)
        testutil::writeText(testutil::tempDir() + "/" + name.toStdString() + ".linked.actual.json", actual);
    QVERIFY2(same, diff.c_str());
}

void TestHtaD731::summaries_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("version");
    for (const char *c : {"fwd_bwd_merge", "memcpy_async_weight", "event_query_endpoint"})
        for (const char *v : {"d731cc2e", "f4d0062"})
            QTest::newRow(qPrintable(QString("%1 %2").arg(c, v))) << c << v;
}

void TestHtaD731::summaries()
{
    // Every field of HTA's own summary (the call trace_link makes), for each version.
    QFETCH(QString, name);
    QFETCH(QString, version);
    Diagnostics diag;
    auto t = cptest::load(caseFile(name, "device.json.gz"), diag);
    QVERIFY(t);
    CriticalPathOptions o;
    QVERIFY(parseHtaVersion(version.toStdString(), o.htaVersion));
    // Both HTAs' own numbers: these generated traces have DtoH .item() copies, which
    // the default mode gives inferred blocking-copy edges.
    o.htaExact = true;
    const CriticalPathResult r = analyzeCriticalPath(*t, o, diag);
    QVERIFY2(r.success, r.reason.c_str());
    const auto golden =
        nlohmann::json::parse(testutil::readText(caseFile(name, "cpa_hta_" + version.toStdString() + ".json")));
    const std::string actual = summaryOf(*t, r);
    std::string diff;
    const bool same = cptest::sameText(actual, summaryOf(golden), diff);
    if (!same)
        testutil::writeText(testutil::tempDir() + "/" + name.toStdString() + "." + version.toStdString() + ".txt",
                            actual);
    QVERIFY2(same, diff.c_str());
}

void TestHtaD731::conformance_data()
{
    // critical_path_spec 8: d731cc2e on HTA's test traces (zero-weight launch edges off).
    QTest::addColumn<QString>("trace");
    QTest::addColumn<QString>("annotation");
    QTest::addColumn<int>("instance");
    QTest::addColumn<int>("nodeList");
    QTest::addColumn<QString>("edges"); // OP/DEP/LAUNCH/KK/SYNC
    QTest::addColumn<int>("pathNodes");
    QTest::addColumn<int>("pathEvents");
    QTest::addColumn<double>("weight");
    QTest::addColumn<QString>("pathSync"); // SYNC edges on the path, "*" = not checked
    QTest::newRow("simple_add") << "device/hta_cpa_simple_add.kineto.json.gz" << kParamForward << 1 << 414
                                << "350/23/15/25/2" << 315 << 159 << 241724.0 << "";
    QTest::newRow("alexnet") << "device/hta_cpa_alexnet.kineto.json.gz" << kParamForward << 1 << 418
                             << "354/23/5/34/5" << 149 << 77 << 35834.0 << "1109->1161";
    QTest::newRow("cuda_event_sync") << "device/hta_cuda_event_sync.kineto.json.gz" << "ProfilerStep" << 0 << 54
                                     << "38/10/5/0/4" << 40 << 22 << 2401.0 << "23->29 33->41";
    QTest::newRow("multi_stream") << "device/hta_cuda_event_sync_multi_stream.kineto.json.gz" << "" << 0 << 76
                                  << "64/5/3/2/6" << 57 << 30 << 1168.0 << "";
    QTest::newRow("ns_resolution") << "shared:device_only/hta_ns_resolution.kineto.json.gz" << "ProfilerStep" << 1
                                   << 11228 << "9091/915/0/1218/0" << 2438 << 1219 << 95735.0 << "*";
}

void TestHtaD731::conformance()
{
    QFETCH(QString, trace);
    QFETCH(QString, annotation);
    QFETCH(int, instance);
    std::string path = trace.toStdString();
    if (trace.startsWith("shared:")) {
        REQUIRE_SHARED_DATA();
        path = testutil::sharedData(path.substr(7));
    } else {
        path = testutil::fixture(path);
    }
    Diagnostics diag;
    auto t = cptest::load(path, diag);
    QVERIFY(t);
    CriticalPathOptions o;
    o.htaVersion = HtaVersion::D731cc2e;
    o.annotation = annotation.toStdString();
    o.instanceFirst = o.instanceLast = instance;
    const CriticalPathResult r = analyzeCriticalPath(*t, o, diag);
    QVERIFY2(r.success, r.reason.c_str());
    QTEST(int(r.graph.nodeCount()), "nodeList");
    QCOMPARE(r.graphNodeCount(), size_t(r.graph.nodeCount())); // networkx holds every created node
    QTEST(QString::fromStdString(cptest::counts(r.edgeCountsByType())), "edges");
    QTEST(int(r.pathNodes.size()), "pathNodes");
    QTEST(int(r.criticalEvents.size()), "pathEvents");
    QTEST(r.weightUs, "weight");
    QFETCH(QString, pathSync);
    if (pathSync != "*") {
        std::vector<std::pair<uint32_t, uint32_t>> onPath;
        for (int32_t e : r.pathEdges)
            if (r.graph.edgeType[e] == CpEdgeType::SyncDependency)
                onPath.emplace_back(r.graph.nodeEvent[r.graph.edgeFrom[e]], r.graph.nodeEvent[r.graph.edgeTo[e]]);
        QCOMPARE(QString::fromStdString(cptest::syncList(onPath)), pathSync);
    }
}

void TestHtaD731::lastStepFilterBySubstring()
{
    // d731cc2e drops the last step by every name containing "ProfilerStep"; f4d0062 only
    // counts ProfilerStep#N names, and with one of them filters nothing (spec 1.7).
    const std::string json = R"J({"traceEvents": [
 {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100,"args":{}},
 {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":10,"dur":40,"args":{}},
 {"ph":"X","cat":"user_annotation","name":"ProfilerStep (warm-up)","pid":1,"tid":1,"ts":200,"dur":100,"args":{}},
 {"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":210,"dur":40,"args":{}}
]})J";
    Diagnostics diag;
    auto t = cptest::loadInline(json, diag, "steps.json");
    QVERIFY(t);
    CriticalPathOptions o;
    o.annotation = "";
    QCOMPARE(analyzeCriticalPath(*t, o, diag).loadedRows, size_t(4));
    o.htaVersion = HtaVersion::D731cc2e;
    const CriticalPathResult r = analyzeCriticalPath(*t, o, diag);
    QCOMPARE(r.loadedRows, size_t(2));
    QVERIFY2(r.success, r.reason.c_str());
    QCOMPARE(r.weightUs, 40.0);
}

void TestHtaD731::eventZeroAndNegativeWeights()
{
    // Event 0 is never an op in d731cc2e ("ev_id > 0"); a child ending 5 µs after its
    // parent gives a -5 µs edge, which f4d0062 counts as 0 and d731cc2e rejects (spec 8).
    const std::string json = R"J({"traceEvents": [
 {"ph":"X","cat":"cpu_op","name":"aten::zero","pid":1,"tid":1,"ts":0,"dur":4,"args":{}},
 {"ph":"X","cat":"cpu_op","name":"aten::parent","pid":1,"tid":1,"ts":10,"dur":10,"args":{}},
 {"ph":"X","cat":"cpu_op","name":"aten::child","pid":1,"tid":1,"ts":15,"dur":10,"args":{}}
]})J";
    Diagnostics diag;
    auto t = cptest::loadInline(json, diag, "negative.json");
    QVERIFY(t);
    CriticalPathOptions o;
    o.annotation = "";
    const CriticalPathResult f4 = analyzeCriticalPath(*t, o, diag);
    QVERIFY2(f4.success, f4.reason.c_str());
    QCOMPARE(f4.graph.nodeCount(), 6);
    o.htaVersion = HtaVersion::D731cc2e;
    Diagnostics d731Diag;
    const CriticalPathResult d731 = analyzeCriticalPath(*t, o, d731Diag);
    QCOMPARE(d731.graph.nodeCount(), 4); // no nodes for event 0
    QVERIFY(!d731.success);
    QVERIFY2(d731.reason.find("below -1") != std::string::npos, d731.reason.c_str());
}

void TestHtaD731::versionNames()
{
    HtaVersion v = HtaVersion::D731cc2e;
    QVERIFY(parseHtaVersion("f4d0062", v) && v == HtaVersion::F4d0062);
    QVERIFY(parseHtaVersion("d731cc2e2249", v) && v == HtaVersion::D731cc2e);
    QVERIFY(!parseHtaVersion("d731", v));   // too short to name a commit
    QVERIFY(!parseHtaVersion("head", v));
    QCOMPARE(std::string(htaVersionName(HtaVersion::D731cc2e)), std::string("d731cc2e"));
    QCOMPARE(std::string(htaVersionName(CriticalPathOptions().htaVersion)), std::string("f4d0062"));
    QVERIFY(isChakraCriticalPathRequest(chakraCriticalPathOptions()));
    QVERIFY(!isChakraCriticalPathRequest(CriticalPathOptions())); // the default is the newer HTA
}

QTEST_GUILESS_MAIN(TestHtaD731)
#include "tst_htad731.moc"
