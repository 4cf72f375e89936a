// SPDX-License-Identifier: MIT
// The overlaid trace against HTA's expected end-to-end output (spec 4.5), the
// overlay counts of spec 4.3, and the text edit that marks an event critical.
#include "cptestutil.h"
#include "export/overlaywriter.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <tuple>

using namespace syncscope;
using json = nlohmann::json;

namespace {

const char *kE2e = "golden/critical_path/hta_end_to_end_simple_add/";

bool isPathFlow(const json &e)
{
    return e.value("cat", "") == "critical_path" && (e.value("ph", "") == "s" || e.value("ph", "") == "f");
}

using FlowKey = std::tuple<json, json, int64_t, json, json, int64_t, int64_t, bool, std::string>;

// Flow pairs as a sorted multiset of (s.pid, s.tid, s.ts, f.pid, f.tid, f.ts, weight, critical, type).
std::vector<FlowKey> flowPairs(const json &events)
{
    std::map<int64_t, json> starts, finishes;
    for (const json &e : events) {
        if (!isPathFlow(e))
            continue;
        (e["ph"] == "s" ? starts : finishes)[e["id"].get<int64_t>()] = e;
    }
    std::vector<FlowKey> out;
    for (const auto &[id, s] : starts) {
        const json &f = finishes.at(id);
        out.emplace_back(s["pid"], s["tid"], s["ts"].get<int64_t>(), f["pid"], f["tid"], f["ts"].get<int64_t>(),
                         s["args"]["weight"].get<int64_t>(), s["args"]["critical"].get<bool>(),
                         s["args"]["type"].get<std::string>());
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::map<std::string, int> flowPairsByType(const json &events)
{
    std::map<std::string, int> byType;
    for (const json &e : events)
        if (isPathFlow(e) && e["ph"] == "s")
            ++byType[e["args"]["type"].get<std::string>()];
    return byType;
}

int criticalX(const json &events)
{
    int n = 0;
    for (const json &e : events)
        if (e.value("ph", "") == "X" && e.contains("args") && e["args"].value("critical", 0) == 1)
            ++n;
    return n;
}

struct Run {
    std::shared_ptr<KinetoTrace> trace;
    CriticalPathResult result;
};

Run analyse(const std::string &path, const CriticalPathOptions &o)
{
    Diagnostics diag;
    Run r;
    r.trace = cptest::load(path, diag);
    if (r.trace)
        r.result = analyzeCriticalPath(*r.trace, o, diag);
    return r;
}

json writeAndRead(const Run &run, const OverlayOptions &o, const std::string &name, OverlayStats *stats = nullptr)
{
    Diagnostics diag;
    const std::string out = testutil::tempDir() + "/" + name;
    if (!writeOverlay(out, *run.trace, run.result, o, diag, stats))
        return json();
    return json::parse(testutil::readText(out));
}

} // namespace

class TestOverlay : public QObject
{
    Q_OBJECT
private slots:
    void endToEndMatchesHta();
    void simpleAddCounts();
    void miniTraceFlows();
    void compressionByName();
    void deterministic();
    void d731Flows();
    void refusesToOverwriteInput();
    void markEventCritical_data();
    void markEventCritical();
};

void TestOverlay::endToEndMatchesHta()
{
    CriticalPathOptions o;
    o.annotation = "";
    o.dataLoadEvents = {"data_load"};
    const Run run = analyse(testutil::fixture(std::string(kE2e) + "input/trace.json.gz"), o);
    QVERIFY(run.trace && run.result.success);
    OverlayOptions oo;
    oo.allEvents = true;
    OverlayStats stats;
    const json ours = writeAndRead(run, oo, "overlaid_critical_path_trace.json.gz", &stats);
    QVERIFY(ours.is_object());
    const json hta = json::parse(testutil::readText(testutil::fixture(std::string(kE2e) +
                                                                      "output/overlaid_critical_path_trace.json.gz")));
    // Same top-level members in the same order.
    std::vector<std::string> keysOurs, keysHta;
    for (auto it = ours.begin(); it != ours.end(); ++it)
        keysOurs.push_back(it.key());
    for (auto it = hta.begin(); it != hta.end(); ++it)
        keysHta.push_back(it.key());
    QCOMPARE(keysOurs, keysHta);
    for (const std::string &k : keysHta)
        if (k != "traceEvents")
            QVERIFY2(ours[k] == hta[k], k.c_str());
    // Non-flow events identical, critical marks included.
    json plainOurs = json::array(), plainHta = json::array();
    for (const json &e : ours["traceEvents"])
        if (!isPathFlow(e))
            plainOurs.push_back(e);
    for (const json &e : hta["traceEvents"])
        if (!isPathFlow(e))
            plainHta.push_back(e);
    QCOMPARE(plainOurs.size(), size_t(1348));
    QCOMPARE(plainHta.size(), size_t(1348));
    for (size_t i = 0; i < plainHta.size(); ++i)
        QVERIFY2(plainOurs[i] == plainHta[i], (std::to_string(i) + ": " + plainOurs[i].dump()).c_str());
    QCOMPARE(criticalX(ours["traceEvents"]), 624);
    // Flow pairs equal as a multiset: 192 (158 dependency, 17 sync, 17 launch).
    QCOMPARE(flowPairs(ours["traceEvents"]).size(), size_t(192));
    QVERIFY(flowPairs(ours["traceEvents"]) == flowPairs(hta["traceEvents"]));
    const auto byType = flowPairsByType(ours["traceEvents"]);
    QCOMPARE(byType.at("critical_path_dependency"), 158);
    QCOMPARE(byType.at("critical_path_sync_dependency"), 17);
    QCOMPARE(byType.at("critical_path_kernel_launch_delay"), 17);
    QCOMPARE(stats.flowPairs, size_t(192));
    QCOMPARE(stats.criticalEvents, size_t(624));
    QCOMPARE(stats.eventsWritten, size_t(1348));
}

void TestOverlay::simpleAddCounts()
{
    // Spec 4.3 "overlay counts for simple_add (switch on)"; HTA's numbers, so
    // --hta-exact (the trace's pageable copies block: inferred edges by default).
    CriticalPathOptions o;
    o.htaExact = true;
    o.annotation = "[param|pytorch.model.alex_net|0|0|0|measure|forward]";
    o.instanceFirst = o.instanceLast = 1;
    o.zeroWeightLaunchEdges = true;
    const Run run = analyse(testutil::fixture("device/hta_cpa_simple_add.kineto.json.gz"), o);
    QVERIFY(run.trace && run.result.success);

    OverlayOptions all;
    all.allEvents = true;
    const json def = writeAndRead(run, all, "a.json");
    QCOMPARE(def["traceEvents"].size(), size_t(1390));
    QCOMPARE(criticalX(def["traceEvents"]), 159);
    auto byType = flowPairsByType(def["traceEvents"]);
    QCOMPARE(byType.size(), size_t(2));
    QCOMPARE(byType["critical_path_dependency"], 20);
    QCOMPARE(byType["critical_path_kernel_launch_delay"], 1);

    all.showAllEdges = true;
    const json every = writeAndRead(run, all, "b.json");
    const auto pairs = flowPairs(every["traceEvents"]);
    QCOMPARE(pairs.size(), size_t(415));
    QCOMPARE(std::count_if(pairs.begin(), pairs.end(), [](const FlowKey &k) { return std::get<7>(k); }), 314L);
    byType = flowPairsByType(every["traceEvents"]);
    QCOMPARE(byType["critical_path_operator"], 350);
    QCOMPARE(byType["critical_path_kernel_launch_delay"], 15);
    QCOMPARE(byType["critical_path_dependency"], 23);
    QCOMPARE(byType["critical_path_kernel_kernel_delay"], 25);
    QCOMPARE(byType["critical_path_sync_dependency"], 2);

    OverlayOptions onlyCritical;
    onlyCritical.showAllEdges = true; // ignored without allEvents, as in HTA
    const json crit = writeAndRead(run, onlyCritical, "c.json");
    QCOMPARE(crit["traceEvents"].size(), size_t(719));
    QCOMPARE(criticalX(crit["traceEvents"]), 159);
    int plainX = 0;
    for (const json &e : crit["traceEvents"])
        if (e.value("ph", "") == "X" && e.value("cat", "") != "user_annotation" && e.value("cat", "") != "python_function")
            ++plainX;
    QCOMPARE(plainX, 159);
}

void TestOverlay::miniTraceFlows()
{
    // Spec 4.4: default overlay of the hand-made trace has 7 flow pairs (3 sync, 2 launch, 2 dependency),
    // e.g. relu_c's end (1150 - 1 on the GPU) -> cudaDeviceSynchronize's end (1155).
    const Run run = analyse(testutil::fixture("golden/critical_path/mini_trace.json"), {});
    QVERIFY(run.result.success);
    OverlayOptions o;
    o.allEvents = true;
    const json out = writeAndRead(run, o, "mini.json");
    auto byType = flowPairsByType(out["traceEvents"]);
    QCOMPARE(byType["critical_path_sync_dependency"], 3);
    QCOMPARE(byType["critical_path_kernel_launch_delay"], 2);
    QCOMPARE(byType["critical_path_dependency"], 2);
    const auto pairs = flowPairs(out["traceEvents"]);
    const FlowKey expected{json(0), json(7), 1149, json(100), json(100), 1155, 0, true, "critical_path_sync_dependency"};
    QVERIFY(std::find(pairs.begin(), pairs.end(), expected) != pairs.end());
}

void TestOverlay::compressionByName()
{
    const Run run = analyse(testutil::fixture("golden/critical_path/mini_trace.json"), {});
    Diagnostics diag;
    const std::string dir = testutil::tempDir();
    QVERIFY(writeOverlay(dir + "/o.json", *run.trace, run.result, {}, diag));
    QVERIFY(writeOverlay(dir + "/o.json.gz", *run.trace, run.result, {}, diag));
    std::ifstream plain(dir + "/o.json", std::ios::binary), gz(dir + "/o.json.gz", std::ios::binary);
    char a = 0, b[2] = {};
    plain.read(&a, 1);
    gz.read(b, 2);
    QCOMPARE(a, '{');
    QCOMPARE(uint8_t(b[0]), uint8_t(0x1f));
    QCOMPARE(uint8_t(b[1]), uint8_t(0x8b));
    QVERIFY(json::parse(testutil::readText(dir + "/o.json")) == json::parse(testutil::readText(dir + "/o.json.gz")));
}

void TestOverlay::deterministic()
{
    CriticalPathOptions o;
    o.annotation = "[param|pytorch.model.alex_net|0|0|0|measure|forward]";
    o.instanceFirst = o.instanceLast = 1;
    const Run run = analyse(testutil::fixture("device/hta_cpa_alexnet.kineto.json.gz"), o);
    QVERIFY(run.result.success);
    OverlayOptions all;
    all.allEvents = all.showAllEdges = true;
    Diagnostics diag;
    const std::string dir = testutil::tempDir();
    QVERIFY(writeOverlay(dir + "/a.json", *run.trace, run.result, all, diag));
    const Run again = analyse(testutil::fixture("device/hta_cpa_alexnet.kineto.json.gz"), o);
    QVERIFY(writeOverlay(dir + "/b.json", *again.trace, again.result, all, diag));
    const std::string a = testutil::readText(dir + "/a.json");
    QVERIFY(a.size() > 100000);
    QVERIFY(a == testutil::readText(dir + "/b.json"));
}

void TestOverlay::refusesToOverwriteInput()
{
    const std::string copy = testutil::tempDir() + "/mini.json";
    std::filesystem::copy_file(testutil::fixture("golden/critical_path/mini_trace.json"), copy);
    const Run run = analyse(copy, {});
    const std::string before = testutil::readText(copy);
    Diagnostics diag;
    QVERIFY(!writeOverlay(copy, *run.trace, run.result, {}, diag));
    QVERIFY(diag.find("export.overlay"));
    QCOMPARE(testutil::readText(copy), before);
}

void TestOverlay::markEventCritical_data()
{
    QTest::addColumn<QString>("in");
    QTest::addColumn<QString>("out");
    QTest::newRow("append") << R"({"ph":"X","args":{"a":1}})" << R"({"ph":"X","args":{"a":1,"critical":1}})";
    QTest::newRow("empty args") << R"({"args": { } })" << R"({"args": { "critical":1} })";
    QTest::newRow("replace") << R"({"args":{"critical":0,"b":[1,{"critical":2}]}})"
                             << R"({"args":{"critical":1,"b":[1,{"critical":2}]}})";
    QTest::newRow("nested only") << R"({"x":{"args":{}},"args":{"n":{"critical":5}}})"
                                 << R"({"x":{"args":{}},"args":{"n":{"critical":5},"critical":1}})";
    QTest::newRow("no args") << R"({"ph":"X","name":"a}\"b"})" << R"({"ph":"X","name":"a}\"b","args":{"critical":1}})";
    QTest::newRow("empty event") << "{}" << R"({"args":{"critical":1}})";
    QTest::newRow("args not object") << R"({"args":null,"ts":1})" << R"({"args":{"critical":1},"ts":1})";
    QTest::newRow("pretty") << "{\n  \"args\": {\n    \"a\": \"}\"\n  }\n}"
                            << "{\n  \"args\": {\n    \"a\": \"}\",\"critical\":1\n  }\n}";
}

void TestOverlay::markEventCritical()
{
    QFETCH(QString, in);
    QFETCH(QString, out);
    QCOMPARE(QString::fromStdString(syncscope::markEventCritical(in.toStdString())), out);
}

void TestOverlay::d731Flows()
{
    // HTA d731cc2e (spec 8): every critical edge becomes a flow, its cat is the edge type
    // string and args has no "type".
    CriticalPathOptions o;
    o.htaVersion = HtaVersion::D731cc2e;
    const Run run = analyse(testutil::fixture("device/hta_cuda_event_sync.kineto.json.gz"), o);
    QVERIFY(run.trace && run.result.success);
    OverlayOptions oo;
    oo.htaVersion = HtaVersion::D731cc2e;
    const json ours = writeAndRead(run, oo, "d731.json");
    QVERIFY(ours.is_object());
    std::map<std::string, int> starts;
    for (const json &e : ours["traceEvents"]) {
        if (e.value("ph", "") != "s" && e.value("ph", "") != "f")
            continue;
        if (e.value("name", "") != "critical_path")
            continue;
        QVERIFY(e["args"].value("critical", false));
        QVERIFY(!e["args"].contains("type"));
        if (e["ph"] == "s")
            ++starts[e["cat"].get<std::string>()];
    }
    std::map<std::string, int> expected;
    for (int32_t e : run.result.pathEdges)
        ++expected[cpEdgeTypeValue(run.result.graph.edgeType[e])];
    QCOMPARE(starts, expected);
    QCOMPARE(criticalX(ours["traceEvents"]), int(run.result.criticalEvents.size()));
}

QTEST_GUILESS_MAIN(TestOverlay)
#include "tst_overlay.moc"
