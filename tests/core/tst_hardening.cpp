// SPDX-License-Identifier: MIT
// Hostile inputs of issue 11 that once crashed, blew up or lost data: nesting
// beyond the JSON depth limit (item 2), thousands of launches and kernels
// sharing one correlation id (item 4) and cycles in ET parent ids (item 14).
#include "analysis/cpbuild.h"
#include "export/chakraconvert.h"
#include "export/etpluswriter.h"
#include "json/jsonscan.h"
#include "parse/traceloader.h"
#include "session/analysis.h"
#include "testutil.h"

#include <nlohmann/json.hpp>

#include <QtTest>

using namespace syncscope;
using nlohmann::json;

namespace {

std::string writeTemp(const std::string &name, const std::string &content)
{
    const std::string path = testutil::tempDir() + "/" + name;
    testutil::writeText(path, content);
    return path;
}

std::string nested(size_t depth)
{
    return std::string(depth, '[') + std::string(depth, ']');
}

// The small golden host ET with one top-level key added (its value as raw text).
std::string hostWithTopLevel(const std::string &rawValue)
{
    std::string text = testutil::readText(testutil::fixture("golden/trace_link/host.0.json"));
    const size_t brace = text.find('{');
    return text.insert(brace + 1, "\"extra\": " + rawValue + ", ");
}

std::string hostWithParents(const std::vector<std::pair<int64_t, int64_t>> &idToParent)
{
    json doc = json::parse(testutil::readText(testutil::fixture("golden/trace_link/host.0.json")));
    for (auto &node : doc["nodes"])
        for (const auto &[id, parent] : idToParent)
            if (node["id"] == id)
                node["ctrl_deps"] = parent;
    return doc.dump();
}

std::shared_ptr<Analysis> analyse(const std::string &hostPath, LinkMode mode = LinkMode::Default)
{
    AnalysisRequest req;
    req.hostPath = hostPath;
    req.devicePath = testutil::fixture("golden/trace_link/device.0.json");
    req.mode = mode;
    return runAnalysis(req);
}

// One ProfilerStep with `launches` cudaLaunchKernel calls and `kernels` kernels,
// all with correlation 7; kernel k runs on stream 7 + k % streams.
std::string sharedCorrelationTrace(int launches, int kernels, int streams)
{
    std::string s = R"({"traceEvents":[{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,)"
                    R"("ts":0,"dur":1000000,"args":{}})";
    for (int i = 0; i < launches; ++i)
        s += R"(,{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":)" +
             std::to_string(10 + i * 10) + R"(,"dur":5,"args":{"correlation":7,"External id":1}})";
    for (int k = 0; k < kernels; ++k)
        s += R"(,{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":)" + std::to_string(20 + k * 10) +
             R"(,"dur":5,"args":{"correlation":7,"stream":)" + std::to_string(7 + k % streams) +
             R"(,"device":0}})";
    return s + "]}";
}

} // namespace

class TestHardening : public QObject
{
    Q_OBJECT
private slots:
    // Item 2: a 90,000-deep top-level value overflowed the stack of --compat chakra's
    // re-indenting; now the loader refuses it (exit 3) naming the file and the limit.
    void deepTopLevelValueIsRefused()
    {
        const std::string path = writeTemp("deep.et.json", hostWithTopLevel(nested(90000)));
        Diagnostics diag;
        const LoadedTrace t = loadTrace(path, diag);
        QVERIFY(!t.complete);
        const Diagnostic *d = diag.find("json.too_deep");
        QVERIFY(d);
        QVERIFY(d->message.find(path) != std::string::npos);
        QVERIFY(d->message.find("512") != std::string::npos);
        QVERIFY(!analyse(path, LinkMode::Chakra)->inputsOk);
    }

    void deepNodeValueIsRefused()
    {
        std::string text = testutil::readText(testutil::fixture("golden/trace_link/host.0.json"));
        const size_t at = text.find("\"name\": \"aten::add\"");
        QVERIFY(at != std::string::npos);
        text.insert(at, "\"deep\": " + nested(kMaxJsonDepth + 5) + ", ");
        const std::string path = writeTemp("deepnode.et.json", text);
        Diagnostics diag;
        const LoadedTrace t = loadTrace(path, diag);
        QVERIFY(!t.complete);
        QVERIFY(diag.hasErrors());
        bool named = false;
        for (const auto &d : diag.items())
            named |= d.message.find(path) != std::string::npos && d.message.find("512") != std::string::npos;
        QVERIFY(named);
    }

    // Within the limit, --compat chakra's json.dump(indent=4) layout still grows with the
    // square of the depth, but the limit bounds the factor: output <= input * 4 * (limit + 3).
    void deepValueWithinLimitIsReformatted()
    {
        std::string value = "[";
        for (int i = 0; i < 3; ++i) {
            if (i)
                value += ',';
            value += nested(kMaxJsonDepth - 1);
        }
        value += "]";
        const std::string path = writeTemp("deepok.et.json", hostWithTopLevel(value));
        const auto a = analyse(path, LinkMode::Chakra);
        QVERIFY(a->inputsOk);
        QVERIFY(a->link);
        const std::string out = etPlusToString(*a->host, *a->device, *a->link);
        QVERIFY(json::accept(out));
        const size_t in = testutil::readText(path).size();
        QVERIFY2(out.size() < in * 4 * (kMaxJsonDepth + 3),
                 (std::to_string(in) + " bytes in, " + std::to_string(out.size()) + " out").c_str());
    }

    // Item 4: 6,000 launches and 6,000 kernels sharing one correlation id made the
    // queue-length sweep 36 million steps (1.6 GB); the sums are kept with one step per
    // (launch, stream).
    void sharedCorrelationIsLinear()
    {
        const std::string path = writeTemp("shared.json", sharedCorrelationTrace(6000, 6000, 1));
        Diagnostics diag;
        const LoadedTrace t = loadTrace(path, diag);
        QVERIFY(t.complete);
        CriticalPathOptions options;
        hta::RowOptions rowOptions;
        hta::CpaContext ctx(*t.device, options, rowOptions, diag);
        QVERIFY2(ctx.queueSteps <= 2 * ctx.rows.eventCount(), std::to_string(ctx.queueSteps).c_str());
        QVERIFY(!diag.find("cpa.shared_correlation"));
        // Each launch adds the 6,000 kernels of its stream; each kernel takes one off.
        const auto &events = t.device->events;
        for (uint32_t i = 0; i < events.size(); ++i)
            if (t.device->str(events[i].name) == "cudaLaunchKernel" && events[i].ts == 10) {
                QCOMPARE(ctx.queue[i], 6000);
            }
    }

    // Spread over many streams the pairs cannot be summed per stream: capped, with a warning.
    void sharedCorrelationOverManyStreamsIsCapped()
    {
        const std::string path = writeTemp("shared_streams.json", sharedCorrelationTrace(3000, 3000, 3000));
        Diagnostics diag;
        const LoadedTrace t = loadTrace(path, diag);
        QVERIFY(t.complete);
        CriticalPathOptions options;
        hta::RowOptions rowOptions;
        hta::CpaContext ctx(*t.device, options, rowOptions, diag);
        QVERIFY2(ctx.queueSteps <= 2 * ctx.rows.eventCount(), std::to_string(ctx.queueSteps).c_str());
        QVERIFY(diag.find("cpa.shared_correlation"));
        QVERIFY(analyzeCriticalPath(*t.device, options, diag).success);
    }

    // The normal one-to-one case: one step per launch and per kernel, no warning.
    void oneToOneCorrelationUnchanged()
    {
        Diagnostics diag;
        const LoadedTrace t = loadTrace(testutil::fixture("golden/critical_path/mini_trace.json"), diag);
        QVERIFY(t.complete);
        CriticalPathOptions options;
        hta::RowOptions rowOptions;
        hta::CpaContext ctx(*t.device, options, rowOptions, diag);
        QVERIFY(!diag.find("cpa.shared_correlation"));
        QVERIFY(ctx.queueSteps > 0);
    }

    // Item 14: a parent cycle (3 -> 11 -> 3) or a self-parent silently dropped nodes
    // from the .et with exit 0; now the host ET is refused naming the cycle.
    void parentCycleIsRefused_data()
    {
        QTest::addColumn<int>("mode");
        QTest::addColumn<QString>("cycle");
        QTest::addColumn<int>("changed");
        QTest::newRow("cycle default") << int(LinkMode::Default) << "node 3 -> 11 -> 3" << 3;
        QTest::newRow("cycle chakra") << int(LinkMode::Chakra) << "node 3 -> 11 -> 3" << 3;
        QTest::newRow("self-parent") << int(LinkMode::Default) << "node 10 -> 10" << 10;
    }

    void parentCycleIsRefused()
    {
        QFETCH(int, mode);
        QFETCH(QString, cycle);
        QFETCH(int, changed);
        const std::string text = changed == 3 ? hostWithParents({{3, 11}}) : hostWithParents({{10, 10}});
        const std::string path = writeTemp("cycle.et.json", text);
        const auto a = analyse(path, static_cast<LinkMode>(mode));
        QVERIFY(!a->inputsOk);
        const Diagnostic *d = a->diagnostics.find("host.parent_cycle");
        QVERIFY(d);
        QVERIFY2(d->message.find(cycle.toStdString()) != std::string::npos, d->message.c_str());
        QVERIFY(d->message.find(path) != std::string::npos);
    }

    // Issue 22: chakra_trace_link's own ET+ (golden linked.0.json: renumbered from 0, the
    // process node 0 -> 0, GPU nodes with "cat") read as the host ET links as the ET it
    // came from did and writes the same bytes; a self-parent that is not the process
    // node is still a cycle.
    void linkedEtPlusIsAHostEt()
    {
        const std::string linked = testutil::fixture("golden/trace_link/linked.0.json");
        const auto a = analyse(linked, LinkMode::Chakra);
        QVERIFY(a->inputsOk);
        QVERIFY(!a->diagnostics.find("host.parent_cycle"));
        QVERIFY(a->diagnostics.find("host.linked_input"));
        QCOMPARE(a->host->rootId, int64_t(0));
        QCOMPARE(a->host->linkedGpuNodes, uint64_t(4));
        QCOMPARE(etPlusToString(*a->host, *a->device, *a->link), testutil::readText(linked));
        const auto fresh = analyse(testutil::fixture("golden/trace_link/host.0.json"), LinkMode::Chakra);
        QCOMPARE(a->link->counts.hostOpsLinked, fresh->link->counts.hostOpsLinked);
        QCOMPARE(fresh->host->rootId, int64_t(1));
        QVERIFY(!fresh->diagnostics.find("host.linked_input"));

        // Linked again with another run's trace (nothing links): what the first link
        // wrote (ts, durations, inter-thread and sync deps) is not carried over.
        AnalysisRequest other;
        other.hostPath = linked;
        other.devicePath = testutil::fixture("golden/critical_path/mini_trace.json");
        other.mode = LinkMode::Chakra;
        const auto relinked = runAnalysis(other);
        QVERIFY(relinked->inputsOk && relinked->link);
        QCOMPARE(relinked->link->counts.hostOpsLinked, int64_t(0));
        const json stale = json::parse(etPlusToString(*relinked->host, *relinked->device, *relinked->link));
        QCOMPARE(stale["nodes"].size(), relinked->host->nodes.size());
        for (const auto &node : stale["nodes"])
            for (const char *key : {"ts", "inclusive_dur", "exclusive_dur", "inter_thread_dep", "sync_dep", "cat"})
                QVERIFY2(!node.contains(key), (node.dump() + " has " + key).c_str());

        json doc = json::parse(testutil::readText(linked));
        for (auto &node : doc["nodes"])
            if (node["id"] == 3)
                node["ctrl_deps"] = 3;
        const auto self = analyse(writeTemp("selfparent.etplus.json", doc.dump()), LinkMode::Chakra);
        QVERIFY(!self->inputsOk);
        const Diagnostic *d = self->diagnostics.find("host.parent_cycle");
        QVERIFY(d);
        QVERIFY2(d->message.find("node 3 -> 3") != std::string::npos, d->message.c_str());
        // Node 0 naming itself without being the process node: a cycle, not a root.
        doc = json::parse(testutil::readText(linked));
        for (auto &node : doc["nodes"])
            if (node["id"] == 0)
                node["name"] = "aten::empty";
        const auto notRoot = analyse(writeTemp("notroot.etplus.json", doc.dump()), LinkMode::Chakra);
        QVERIFY(!notRoot->inputsOk);
        d = notRoot->diagnostics.find("host.parent_cycle");
        QVERIFY(d);
        QVERIFY2(d->message.find("node 0 -> 0") != std::string::npos, d->message.c_str());
    }

    // The root naming itself is the ET convention, and a tree passes.
    void treeIsAccepted()
    {
        const auto a = analyse(writeTemp("tree.et.json", hostWithParents({})));
        QVERIFY(a->inputsOk);
        QVERIFY(!a->diagnostics.find("host.parent_cycle"));
        ChakraGraph graph;
        Diagnostics diag;
        QVERIFY(buildChakraGraph(*a->host, *a->device, *a->link, graph, diag));
    }
};

QTEST_GUILESS_MAIN(TestHardening)
#include "tst_hardening.moc"
