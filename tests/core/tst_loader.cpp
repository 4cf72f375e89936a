// SPDX-License-Identifier: MIT
// Loading real and broken trace files: every bad input gives an Error
// diagnostic that names the file, and nothing crashes.
#include "io/bytesource.h"
#include "parse/traceloader.h"
#include "testutil.h"

#include <QtTest>

#include <filesystem>

using namespace syncscope;

namespace {

std::string writeTemp(const std::string &name, const std::string &content)
{
    const std::string path = testutil::tempDir() + "/" + name;
    testutil::writeText(path, content);
    return path;
}


const char *kMinimalEt = R"({"schema": "1.1.0-chakra.0.0.4", "pid": 7, "time": "t", "start_ts": 1, "nodes": [
 {"id": 2, "name": "[pytorch|profiler|execution_trace|thread]", "ctrl_deps": 1, "inputs": {"values": [], "shapes": [], "types": []}, "outputs": {"values": [], "shapes": [], "types": []}, "attrs": [{"name": "rf_id", "type": "uint64", "value": 0}, {"name": "tid", "type": "uint64", "value": 1}]},
 {"id": 3, "name": "aten::mm", "ctrl_deps": 2, "inputs": {"values": [], "shapes": [], "types": []}, "outputs": {"values": [], "shapes": [], "types": []}, "attrs": [{"name": "rf_id", "type": "uint64", "value": 5}, {"name": "tid", "type": "uint64", "value": 1}]},
 {"id": 1, "name": "[pytorch|profiler|execution_trace|process]", "ctrl_deps": 1, "inputs": {"values": [], "shapes": [], "types": []}, "outputs": {"values": [], "shapes": [], "types": []}, "attrs": [{"name": "rf_id", "type": "uint64", "value": 0}, {"name": "tid", "type": "uint64", "value": 0}]}
], "finish_ts": 2})";

} // namespace

class TestLoader : public QObject
{
    Q_OBJECT
private slots:
    void kinetoFixture()
    {
        Diagnostics diag;
        LoadedTrace t = loadTrace(testutil::fixture("golden/trace_link/device.0.json"), diag);
        QCOMPARE(t.kind, TraceKind::Device);
        QVERIFY(t.complete);
        QVERIFY(!diag.hasErrors());
        const KinetoTrace &k = *t.device;
        QCOMPARE(k.events.size(), size_t(23));
        QCOMPARE(k.schemaVersion.value_or(-1), 1);
        QVERIFY(k.distributed.present);
        QCOMPARE(k.distributed.rank.value_or(-1), 0);
        QCOMPARE(k.distributed.worldSize.value_or(-1), 2);
        // traceEvents[22] is the NCCL kernel.
        const KinetoEvent &nccl = k.events[22];
        QCOMPARE(nccl.kind, EventKind::Kernel);
        QCOMPARE(k.str(nccl.pgName), std::string_view("0"));
        QCOMPARE(nccl.stream, 20);
        QCOMPARE(nccl.streamForm, StreamForm::Integer);
        QCOMPARE(nccl.correlation, 505);
        QCOMPARE(nccl.externalId, 10);
        QCOMPARE(nccl.tsNs, 3800000);
        QVERIFY(nccl.has(KinetoEvent::TsIsInteger));
        const KinetoEvent &flow = k.events[4];
        QCOMPARE(flow.kind, EventKind::Flow);
        QCOMPARE(flow.ph, 's');
        QCOMPARE(flow.flowId, 501);
        QCOMPARE(k.events[0].rfId, 10);
        QVERIFY(k.events[0].has(KinetoEvent::HasRfId));
        QVERIFY(!k.events[3].has(KinetoEvent::HasRfId));
    }
    void kinetoGzipFloatTimesAndHexStreams()
    {
        Diagnostics diag;
        LoadedTrace t = loadTrace(testutil::fixture("device/hta_amd_mi250_rocm6.2.kineto.json.gz"), diag);
        QCOMPARE(t.kind, TraceKind::Device);
        QVERIFY(t.complete);
        QVERIFY(t.device->compressed);
        QCOMPARE(t.device->events.size(), size_t(220));
        QVERIFY(t.device->anyFloatTs);
        QVERIFY(t.device->baseTimeNanoseconds.has_value());
        int hexStreams = 0;
        for (const auto &e : t.device->events)
            hexStreams += e.streamForm == StreamForm::String ? 1 : 0;
        QVERIFY(hexStreams > 0); // runtime rows carry "stream": "0x0"
    }
    void hostSchemas_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("schema");
        QTest::addColumn<int>("layout");
        QTest::addColumn<int>("nodes");
        QTest::newRow("1.0.1 flat") << "pairs/hta_simple_add/simple_add.et.json.gz" << "1.0.1"
                                    << int(HostLayout::Flat) << 38;
        QTest::newRow("1.0.3 nested") << "golden/trace_link/host.0.json" << "1.0.3-chakra.0.0.4"
                                      << int(HostLayout::Nested) << 14;
    }
    void hostSchemas()
    {
        QFETCH(QString, path);
        QFETCH(QString, schema);
        QFETCH(int, layout);
        QFETCH(int, nodes);
        Diagnostics diag;
        LoadedTrace t = loadTrace(testutil::fixture(path.toStdString()), diag);
        QCOMPARE(t.kind, TraceKind::Host);
        QVERIFY(t.complete);
        QCOMPARE(QString::fromStdString(t.host->schema), schema);
        QCOMPARE(int(t.host->layout), layout);
        QCOMPARE(int(t.host->nodes.size()), nodes);
        // Every node keeps its text: it parses back to the same id.
        for (const auto &n : t.host->nodes) {
            const std::string_view text = t.host->nodeText(n);
            QVERIFY(text.front() == '{' && text.back() == '}');
            QVERIFY(text.find("\"id\":" + std::to_string(n.id)) != std::string_view::npos ||
                    text.find("\"id\": " + std::to_string(n.id)) != std::string_view::npos);
        }
    }
    void hostAttrs()
    {
        Diagnostics diag;
        LoadedTrace t = loadTrace(writeTemp("et.json", kMinimalEt), diag);
        QVERIFY2(t.complete, diag.items().empty() ? "" : diag.items().front().message.c_str());
        const auto &n = t.host->nodes[1];
        QCOMPARE(n.id, 3);
        QCOMPARE(n.parent, 2);
        QVERIFY(n.has(HostNode::HasRfId));
        QCOMPARE(n.rfId, 5);
        QCOMPARE(n.tid, 1);
        QVERIFY(t.host->nodes[2].has(HostNode::IsProcessRoot));
        QVERIFY(t.host->nodes[0].has(HostNode::IsThreadRoot));
        QCOMPARE(t.host->pid, 7);
    }
    void largeGzipIsStreamedAsync()
    {
        REQUIRE_SHARED_DATA();
        Diagnostics diag;
        LoadedTrace t = loadTrace(testutil::sharedData("pairs/param_linear/linear.kineto.json.gz"), diag);
        QVERIFY(t.complete);
        QCOMPARE(t.device->events.size(), size_t(86859));
    }

    void badInput_data()
    {
        QTest::addColumn<QString>("content"); // "<dir>" / "<missing>" for special cases
        QTest::addColumn<bool>("gzip");
        QTest::addColumn<QString>("code");
        QTest::newRow("missing file") << "<missing>" << false << "input.missing";
        QTest::newRow("directory") << "<dir>" << false << "input.directory";
        QTest::newRow("empty file") << "" << false << "json.empty";
        QTest::newRow("not JSON") << "PK\x03\x04 this is a zip" << false << "json.not_json";
        QTest::newRow("truncated JSON") << R"({"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": 2}, {"ph": )"
                                        << false << "json.truncated";
        QTest::newRow("truncated gzip") << "<truncated-gzip>" << true << "input.truncated_gzip";
        QTest::newRow("corrupt gzip") << "<corrupt-gzip>" << true << "input.corrupt_gzip";
        QTest::newRow("Kineto without traceEvents") << R"({"schemaVersion": 1, "deviceProperties": []})" << false
                                                    << "input.not_a_trace";
        QTest::newRow("ET without nodes") << R"({"schema": "1.1.0-chakra.0.0.4", "pid": 1})" << false
                                          << "host.no_nodes";
        QTest::newRow("ET without root node") << QString(kMinimalEt).replace(
                                                     R"({"id": 1, "name": "[pytorch|profiler|execution_trace|process]")",
                                                     R"({"id": 9, "name": "x")")
                                              << false << "host.no_root";
        QTest::newRow("unknown schema") << QString(kMinimalEt).replace("1.1.0-chakra.0.0.4", "9999.9999.9999-chakra.0.0.4")
                                        << false << "host.unsupported_schema";
        QTest::newRow("node id of wrong type") << QString(kMinimalEt).replace(R"("id": 3)", R"("id": "three")") << false
                                               << "host.node_without_id";
        QTest::newRow("events not objects") << R"({"traceEvents": [1, "x"]})" << false << "";
        QTest::newRow("invalid JSON inside an event") << R"({"traceEvents": [{"ph": "X", "ts": 1,, "dur": 1}]})"
                                                      << false << "json.invalid";
    }
    void badInput()
    {
        QFETCH(QString, content);
        QFETCH(bool, gzip);
        QFETCH(QString, code);
        std::string path;
        if (content == "<missing>") {
            path = testutil::tempDir() + "/nope.json";
        } else if (content == "<dir>") {
            path = testutil::tempDir();
        } else if (content == "<truncated-gzip>") {
            const std::string gz = testutil::gzipped(std::string(R"({"traceEvents": [)") + std::string(100000, ' ') + "]}");
            path = writeTemp("t.json.gz", gz.substr(0, gz.size() / 2));
        } else if (content == "<corrupt-gzip>") {
            std::string gz = testutil::gzipped(std::string(R"({"traceEvents": [)") + std::string(100000, ' ') + "]}");
            for (size_t i = 20; i < gz.size() - 10; i += 7)
                gz[i] = static_cast<char>(gz[i] ^ 0x5a);
            path = writeTemp("c.json.gz", gz);
        } else {
            const std::string text = content.toStdString();
            path = writeTemp(gzip ? "in.json.gz" : "in.json", gzip ? testutil::gzipped(text) : text);
        }
        Diagnostics diag;
        LoadedTrace t = loadTrace(path, diag);
        if (code.isEmpty()) { // tolerated with warnings
            QVERIFY(!diag.hasErrors());
            QVERIFY(diag.count(Severity::Warning) > 0);
            return;
        }
        QVERIFY(!t.complete);
        const Diagnostic *d = diag.find(code.toStdString());
        QVERIFY2(d, diag.items().empty() ? "no diagnostics" : diag.items().front().code.c_str());
        QCOMPARE(d->severity, Severity::Error);
        QVERIFY2(d->message.find(path) != std::string::npos, d->message.c_str());
    }
};

QTEST_GUILESS_MAIN(TestLoader)
#include "tst_loader.moc"
