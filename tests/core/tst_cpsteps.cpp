// SPDX-License-Identifier: MIT
// Beyond HTA: one critical path per ProfilerStep (the last step included), and
// CP.json (deterministic, with the documented keys and HTA's numbers).
#include "cptestutil.h"
#include "export/criticalpathjson.h"
#include "tracegen.h"

#include <nlohmann/json.hpp>

using namespace syncscope;
using json = nlohmann::json;

namespace {

std::shared_ptr<KinetoTrace> nsTrace(Diagnostics &diag)
{
    return cptest::load(testutil::sharedData("device_only/hta_ns_resolution.kineto.json.gz"), diag);
}

} // namespace

class TestCpSteps : public QObject
{
    Q_OBJECT
private slots:
    void allStepsNsResolution_data();
    void allStepsNsResolution();
    void criticalPathJsonDeterministic();
    void criticalPathJsonContents();
    void criticalPathJsonWithStepsAndWaits();
    void allStepsMatchOneStepAndStayLinear_data();
    void allStepsMatchOneStepAndStayLinear();
};

void TestCpSteps::allStepsNsResolution_data()
{
    QTest::addColumn<bool>("zeroWeight");
    QTest::addColumn<double>("step1Weight"); // HTA's instance 1 (spec 4.3)
    QTest::addColumn<double>("lastWeight");  // ours: HTA drops the last step
    QTest::newRow("zw1") << true << 97176.0 << 114996.0;
    QTest::newRow("zw0") << false << 95735.0 << 95393.0;
}

void TestCpSteps::allStepsNsResolution()
{
    REQUIRE_SHARED_DATA();
    QFETCH(bool, zeroWeight);
    QFETCH(double, step1Weight);
    QFETCH(double, lastWeight);
    Diagnostics diag;
    auto t = nsTrace(diag);
    QVERIFY(t);
    CriticalPathOptions o;
    o.zeroWeightLaunchEdges = zeroWeight;
    const std::vector<StepResult> steps = analyzeAllSteps(*t, o, diag);
    QCOMPARE(steps.size(), size_t(5));
    const uint32_t events[] = {12905, 15482, 18059, 20636, 23213};
    for (size_t k = 0; k < steps.size(); ++k) {
        QVERIFY2(steps[k].success, steps[k].reason.c_str());
        QCOMPARE(steps[k].instance, int(k));
        QCOMPARE(steps[k].event, events[k]);
        QCOMPARE(steps[k].name, "ProfilerStep#" + std::to_string(101 + k));
        QVERIFY(steps[k].weightUs > 0);
        double sum = 0;
        for (const auto &row : steps[k].summary)
            sum += row.percent;
        QVERIFY(std::fabs(sum - 100) < 1e-9);
    }
    QCOMPARE(steps[1].weightUs, step1Weight);
    QCOMPARE(steps[4].weightUs, lastWeight);
    QCOMPARE(steps[4].startUs, 1712195495800675.0);
    // The steps HTA can analyse give HTA's result for that instance.
    for (int k = 0; k < 4; ++k) {
        CriticalPathOptions one = o;
        one.instanceFirst = one.instanceLast = k;
        const CriticalPathResult r = analyzeCriticalPath(*t, one, diag);
        QVERIFY(r.success);
        QCOMPARE(steps[k].weightUs, r.weightUs);
        QCOMPARE(steps[k].pathNodes, r.pathNodes.size());
        QCOMPARE(steps[k].criticalEvents, r.criticalEvents.size());
        QCOMPARE(steps[k].summary.size(), r.summary.size());
        for (size_t b = 0; b < r.summary.size(); ++b)
            QCOMPARE(steps[k].summary[b].percent, r.summary[b].percent);
    }
}

void TestCpSteps::criticalPathJsonDeterministic()
{
    Diagnostics diag;
    auto t = cptest::load(testutil::fixture("device/hta_cuda_event_sync_multi_stream.kineto.json.gz"), diag);
    QVERIFY(t);
    CriticalPathOptions o;
    o.annotation = "";
    const std::string dir = testutil::tempDir();
    std::string texts[2];
    for (int run = 0; run < 2; ++run) {
        const CriticalPathResult r = analyzeCriticalPath(*t, o, diag);
        const std::vector<SyncEdge> sync = findAllSyncEdges(*t, diag);
        const std::string path = dir + "/cp" + std::to_string(run) + ".json";
        QVERIFY(writeCriticalPathJson(path, {t.get(), &o, &r, nullptr, &sync}, diag));
        texts[run] = testutil::readText(path);
        QCOMPARE(texts[run], criticalPathJson({t.get(), &o, &r, nullptr, &sync}));
    }
    QVERIFY(!texts[0].empty());
    QCOMPARE(texts[0], texts[1]);
}

void TestCpSteps::criticalPathJsonContents()
{
    Diagnostics diag;
    auto t = cptest::load(testutil::fixture("device/hta_cpa_alexnet.kineto.json.gz"), diag);
    QVERIFY(t);
    CriticalPathOptions o;
    o.annotation = "[param|pytorch.model.alex_net|0|0|0|measure|forward]";
    o.instanceFirst = o.instanceLast = 1;
    o.zeroWeightLaunchEdges = true;
    const CriticalPathResult r = analyzeCriticalPath(*t, o, diag);
    const json doc = json::parse(criticalPathJson({t.get(), &o, &r}));
    QCOMPARE(doc["annotation"].get<std::string>(), o.annotation);
    QCOMPARE(doc["instance"].get<int>(), 1);
    QCOMPARE(doc["success"].get<bool>(), true);
    QCOMPARE(doc["graph"]["nodes"].get<int>(), 418);
    QCOMPARE(doc["graph"]["node_list"].get<int>(), 462);
    QCOMPARE(doc["graph"]["edges"].get<int>(), 456);
    const json &byType = doc["graph"]["edges_by_type"];
    QCOMPARE(byType["OPERATOR_KERNEL"].get<int>(), 354);
    QCOMPARE(byType["DEPENDENCY"].get<int>(), 23);
    QCOMPARE(byType["KERNEL_LAUNCH_DELAY"].get<int>(), 40);
    QCOMPARE(byType["KERNEL_KERNEL_DELAY"].get<int>(), 34);
    QCOMPARE(byType["SYNC_DEPENDENCY"].get<int>(), 5);
    const json &cp = doc["critical_path"];
    QCOMPARE(cp["nodes"].get<int>(), 149);
    QCOMPARE(cp["events"].get<int>(), 77);
    QCOMPARE(cp["weight_us"].get<double>(), 35834.0);
    QCOMPARE(cp["edges_by_type"]["KERNEL_KERNEL_DELAY"].get<int>(), 32);
    QCOMPARE(cp["path"].size(), size_t(149));
    QCOMPARE(cp["critical_events"].size(), size_t(77));
    // The path is [event_index, "start"|"end"], in path order.
    for (size_t k = 0; k < cp["path"].size(); ++k) {
        const int32_t n = r.pathNodes[k];
        QCOMPARE(cp["path"][k][0].get<int>(), r.graph.nodeEvent[n]);
        QCOMPARE(cp["path"][k][1].get<std::string>(), std::string(r.graph.nodeIsStart[n] ? "start" : "end"));
    }
    QCOMPARE(doc["sync_edges"].dump(), std::string("[[1043,1089],[1083,1105],[1109,1161],[1109,1341],[1335,1341]]"));
    QCOMPARE(doc["summary"].size(), size_t(5));
    QCOMPARE(std::round(doc["summary"]["cpu_bound"].get<double>() * 1000) / 1000, 89.418);
    QCOMPARE(doc["summary"][""].get<double>(), 0.0);
    QVERIFY(!doc.contains("steps"));
    QVERIFY(!doc.contains("sync_waits"));
}

void TestCpSteps::criticalPathJsonWithStepsAndWaits()
{
    Diagnostics diag;
    auto t = cptest::load(testutil::fixture("golden/critical_path/mini_trace.json"), diag);
    QVERIFY(t);
    const CriticalPathOptions o;
    const CriticalPathResult r = analyzeCriticalPath(*t, o, diag);
    const std::vector<StepResult> steps = analyzeAllSteps(*t, o, diag);
    const std::vector<SyncEdge> sync = findAllSyncEdges(*t, diag);
    const json doc = json::parse(criticalPathJson({t.get(), &o, &r, &steps, &sync}));
    QCOMPARE(doc["steps"].size(), size_t(1));
    QCOMPARE(doc["steps"][0]["name"].get<std::string>(), std::string("ProfilerStep#1"));
    QCOMPARE(doc["steps"][0]["weight_us"].get<double>(), 112.0);
    QCOMPARE(doc["steps"][0]["event_index"].get<int>(), 0);
    QCOMPARE(doc["sync_waits"]["Context Sync"]["wait_us"].get<double>(), 20.0);
    QCOMPARE(doc["sync_waits"]["Stream Wait Event"]["wait_us"].get<double>(), 12.0);
    QCOMPARE(doc["sync_waits"]["Stream Sync"]["calls"].get<int>(), 1);
    QCOMPARE(doc["sync_waits"]["total_wait_us"].get<double>(), 32.0);
}

void TestCpSteps::allStepsMatchOneStepAndStayLinear_data()
{
    QTest::addColumn<int>("mode");
    QTest::newRow("default") << 0;
    QTest::newRow("hta-exact") << 1;
    QTest::newRow("d731cc2e") << 2;
}

// Issue 22: every step's graph held every Stream Wait Event row of the trace (HTA's
// quirk for one window), so --instance all and --diff cost steps x waits: x4 per
// doubling of the steps. Each step now takes the waits that can change its graph;
// the paths are those of the one-step analysis, and the rows over all steps stay
// within the trace's (plus a few per step).
void TestCpSteps::allStepsMatchOneStepAndStayLinear()
{
    QFETCH(int, mode);
    tracegen::Options g;
    g.prefix = testutil::tempDir() + "/grid";
    g.steps = 16;
    g.layers = 4;
    g.streams = 4;
    g.blockingCopies = true;
    g.itemLoop = 1;
    g.cudaGraphs = true;
    const tracegen::Result pair = tracegen::generate(g);
    Diagnostics diag;
    auto t = cptest::load(pair.devicePath, diag);
    QVERIFY(t);
    CriticalPathOptions o;
    o.htaExact = mode == 1;
    o.htaVersion = mode == 2 ? HtaVersion::D731cc2e : HtaVersion::F4d0062;
    const std::vector<StepResult> steps = analyzeAllSteps(*t, o, diag);
    QCOMPARE(steps.size(), size_t(16));
    size_t waits = 0, rows = 0;
    for (const KinetoEvent &e : t->events)
        waits += t->str(e.name) == "Stream Wait Event";
    QVERIFY2(waits >= 16 * 20, qPrintable(QString::number(waits)));
    for (size_t k = 0; k < steps.size(); ++k) {
        Diagnostics one;
        const CriticalPathResult r = analyzeSteps(*t, o, int(k), int(k), one);
        const StepResult &s = steps[k];
        QCOMPARE(s.success, r.success);
        QVERIFY(s.success);
        QCOMPARE(s.weightUs, r.weightUs);
        QCOMPARE(s.pathNodes, r.pathNodes.size());
        QCOMPARE(s.criticalEvents, r.criticalEvents.size());
        QCOMPARE(s.summary.size(), r.summary.size());
        for (size_t b = 0; b < s.summary.size(); ++b) {
            QCOMPARE(s.summary[b].boundBy, r.summary[b].boundBy);
            QCOMPARE(s.summary[b].durationUs, r.summary[b].durationUs);
        }
        QVERIFY(s.clippedRows < r.clippedRows); // the one-step window keeps every wait of the trace
        rows += s.clippedRows;
    }
    QVERIFY2(rows <= t->events.size() + 16 * 16, qPrintable(QString("%1 rows for %2 events").arg(rows).arg(t->events.size())));
}

QTEST_GUILESS_MAIN(TestCpSteps)
#include "tst_cpsteps.moc"
