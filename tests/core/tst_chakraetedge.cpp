// SPDX-License-Identifier: MIT
// Chakra .et conversion on inputs the reference converter cannot handle:
// broken plans (dangling ids, deps on missing nodes, cycles), schemas it
// rejects, NCCL kernel names it cannot classify. Compat mode must say that
// the reference fails; default mode must still write a valid graph.
#include "testutil.h"
#include "tst_chakraetutil.h"

#include <QtTest>

#include <functional>

using namespace syncscope;
using namespace chakratest;

class TestChakraEtEdge : public QObject
{
    Q_OBJECT
private slots:
    void processGroupInitIsNoMetadataNode();
    void commSizeFromKinetoArgs_data();
    void commSizeFromKinetoArgs();
    void depOnMissingNode();
    void danglingParentId();
    void cycleInPlan();
    void sparseIds();
    void schemasTheReferenceRejects_data();
    void schemasTheReferenceRejects();
    void ncclNames_data();
    void ncclNames();
};

namespace {

std::string golden(const std::string &name)
{
    return testutil::fixture("golden/trace_link/" + name);
}

std::string replaced(std::string text, const std::string &from, const std::string &to)
{
    const size_t at = text.find(from);
    if (at != std::string::npos)
        text.replace(at, from.size(), to);
    return text;
}

// The golden pair with text substitutions, analysed in `mode`.
std::shared_ptr<Analysis> goldenVariant(LinkMode mode, const std::string &hostFrom = {}, const std::string &hostTo = {},
                                        const std::string &devFrom = {}, const std::string &devTo = {})
{
    const std::string dir = testutil::tempDir();
    std::string host = testutil::readText(golden("host.0.json"));
    std::string device = testutil::readText(golden("device.0.json"));
    if (!hostFrom.empty())
        host = replaced(host, hostFrom, hostTo);
    if (!devFrom.empty())
        device = replaced(device, devFrom, devTo);
    testutil::writeText(dir + "/host.0.json", host);
    testutil::writeText(dir + "/device.0.json", device);
    return analyse(dir + "/host.0.json", dir + "/device.0.json", mode);
}

EtPlusNode *planNode(LinkResult &link, const Analysis &a, const std::string &name)
{
    for (EtPlusNode &n : link.plan.nodes)
        if (n.gpuEvent < 0 && a.host->str(a.host->nodes[n.host].name) == name)
            return &n;
    return nullptr;
}

// Converts `a` after `edit` changed a copy of its plan.
Converted convertEdited(Analysis &a, const std::function<void(LinkResult &)> &edit)
{
    LinkResult copy = *a.link;
    edit(copy);
    a.link = std::move(copy);
    return convert(a);
}

const ChakraProtoMsg::Node *named(const Decoded &d, const std::string &name)
{
    for (const auto &n : d.nodes)
        if (n.name() == name)
            return &n;
    return nullptr;
}

} // namespace

void TestChakraEtEdge::depOnMissingNode()
{
    for (LinkMode mode : {LinkMode::Chakra, LinkMode::Default}) {
        auto a = analyse(golden("host.0.json"), golden("device.0.json"), mode);
        const Converted c = convertEdited(*a, [&](LinkResult &l) {
            EtPlusNode *mul = planNode(l, *a, "aten::mul");
            QVERIFY(mul && mul->hasInterThreadDep);
            mul->interThreadDep = 999; // no such node
        });
        if (mode == LinkMode::Chakra) {
            QVERIFY(!c.ok);
            QVERIFY(c.diagnostics.find("chakra_et.compat_missing_dep"));
        } else {
            QVERIFY(c.ok);
            QVERIFY(c.diagnostics.find("chakra_et.missing_dep"));
            QCOMPARE(c.graph.stats.missingDeps, int64_t(1));
            const std::string problem = checkInvariants(*a, decode(c.bytes));
            QVERIFY2(problem.empty(), problem.c_str());
        }
    }
}

void TestChakraEtEdge::danglingParentId()
{
    for (LinkMode mode : {LinkMode::Chakra, LinkMode::Default}) {
        auto a = analyse(golden("host.0.json"), golden("device.0.json"), mode);
        const Converted c = convertEdited(*a, [&](LinkResult &l) {
            EtPlusNode *relu = planNode(l, *a, "aten::relu");
            QVERIFY(relu && relu->rewriteParent);
            relu->parentValue = 999;
        });
        QVERIFY(c.ok); // the reference copes: the node is outside every thread tree
        const Decoded d = decode(c.bytes);
        QVERIFY(!named(d, "aten::relu")); // unreached, so no data_deps: dropped as dangling
        for (const auto &n : d.nodes)
            for (uint64_t p : n.ctrl_deps())
                QVERIFY(p != 999);
        if (mode == LinkMode::Default) {
            QVERIFY(c.diagnostics.find("chakra_et.dangling_parent"));
            const std::string problem = checkInvariants(*a, d);
            QVERIFY2(problem.empty(), problem.c_str());
        }
    }
}

void TestChakraEtEdge::cycleInPlan()
{
    for (LinkMode mode : {LinkMode::Chakra, LinkMode::Default}) {
        auto a = analyse(golden("host.0.json"), golden("device.0.json"), mode);
        int64_t reluId = -1;
        const Converted c = convertEdited(*a, [&](LinkResult &l) {
            // aten::linear waits for aten::relu, which comes after it in the
            // thread chain: linear -> relu -> ... -> linear.
            EtPlusNode *linear = planNode(l, *a, "aten::linear");
            reluId = planNode(l, *a, "aten::relu")->id;
            linear->hasInterThreadDep = true;
            linear->interThreadDep = reluId;
        });
        if (mode == LinkMode::Chakra) {
            QVERIFY(!c.ok);
            const Diagnostic *d = c.diagnostics.find("chakra_et.compat_cycle");
            QVERIFY(d);
            QVERIFY(d->message.find("aten::linear") != std::string::npos);
        } else {
            QVERIFY(c.ok);
            QVERIFY(c.diagnostics.find("chakra_et.cycle_broken"));
            QCOMPARE(c.graph.stats.cycleEdgesRemoved, int64_t(1));
            const Decoded d = decode(c.bytes);
            const std::string problem = checkInvariants(*a, d);
            QVERIFY2(problem.empty(), problem.c_str());
            // The backward edge (linear waiting for the later relu) went; the thread order stayed.
            QVERIFY(!hasDep(*named(d, "aten::linear"), static_cast<uint64_t>(reluId)));
            QVERIFY(named(d, "aten::linear")->data_deps_size() == 1);
        }
    }
}

void TestChakraEtEdge::sparseIds()
{
    // Ids far apart take the hash-map path; the graph must not change.
    constexpr int64_t kShift = 1000000000000;
    auto a = analyse(golden("host.0.json"), golden("device.0.json"), LinkMode::Chakra);
    const Decoded ref = decode(convert(*a).bytes);
    const Converted c = convertEdited(*a, [&](LinkResult &l) {
        for (EtPlusNode &n : l.plan.nodes) {
            n.id += kShift;
            n.parentValue += kShift;
            if (n.hasInterThreadDep)
                n.interThreadDep += kShift;
        }
        for (int64_t &id : l.plan.syncDepIds)
            id += kShift;
    });
    QVERIFY(c.ok);
    const Decoded d = decode(c.bytes);
    QCOMPARE(d.nodes.size(), ref.nodes.size());
    for (size_t i = 0; i < d.nodes.size(); ++i) {
        QCOMPARE(d.nodes[i].id(), ref.nodes[i].id() + kShift);
        QCOMPARE(d.nodes[i].data_deps_size(), ref.nodes[i].data_deps_size());
        for (int k = 0; k < d.nodes[i].data_deps_size(); ++k)
            QCOMPARE(d.nodes[i].data_deps(k), ref.nodes[i].data_deps(k) + kShift);
        QCOMPARE(d.nodes[i].ctrl_deps_size(), ref.nodes[i].ctrl_deps_size());
    }
}

void TestChakraEtEdge::schemasTheReferenceRejects_data()
{
    QTest::addColumn<QString>("schema");
    QTest::newRow("1.0.4") << "1.0.4-chakra.0.0.4";
    QTest::newRow("1.1.1-chakra.1.0.0") << "1.1.1-chakra.1.0.0";
    QTest::newRow("unknown") << "9999.9999.9999-chakra.0.0.4";
}

void TestChakraEtEdge::schemasTheReferenceRejects()
{
    QFETCH(QString, schema);
    const std::string from = "\"schema\": \"1.0.3-chakra.0.0.4\"";
    const std::string to = "\"schema\": \"" + schema.toStdString() + "\"";
    const auto ref = goldenVariant(LinkMode::Chakra, from, to);
    if (ref->link) {
        const Converted rc = convert(*ref);
        QVERIFY(!rc.ok);
        const Diagnostic *d = rc.diagnostics.find("chakra_et.compat_schema");
        QVERIFY(d);
        QCOMPARE(d->severity, Severity::Error);
    }
    const auto a = goldenVariant(LinkMode::Default, from, to);
    if (!a->link) { // a schema nobody knows: the loader already refused it, clearly
        QVERIFY(a->diagnostics.hasErrors());
        return;
    }
    const Converted c = convert(*a);
    QVERIFY(c.ok);
    const Decoded d = decode(c.bytes);
    QCOMPARE(d.metadata.attr(0).string_val(), schema.toStdString());
    const std::string problem = checkInvariants(*a, d);
    QVERIFY2(problem.empty(), problem.c_str());
}

void TestChakraEtEdge::ncclNames_data()
{
    QTest::addColumn<QString>("kernel");
    QTest::addColumn<QString>("grandparent"); // replaces c10d::allreduce_
    QTest::addColumn<int>("compatType");      // -1: the reference fails
    QTest::addColumn<int>("defaultType");
    QTest::addColumn<int>("defaultCommType"); // -1: no comm_type attr
    const int coll = ChakraProtoMsg::COMM_COLL_NODE, send = ChakraProtoMsg::COMM_SEND_NODE,
              recv = ChakraProtoMsg::COMM_RECV_NODE, comp = ChakraProtoMsg::COMP_NODE;
    QTest::newRow("reduce") << "ncclDevKernel_Reduce_Sum_f32_RING_LL" << "c10d::allreduce_" << -1 << coll
                            << int(ChakraProtoMsg::REDUCE);
    QTest::newRow("devkernel sendrecv, allreduce parent")
        << "ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)" << "c10d::allreduce_" << coll << coll
        << int(ChakraProtoMsg::ALL_TO_ALL);
    QTest::newRow("devkernel sendrecv, send") << "ncclDevKernel_SendRecv(ncclDevComm*)" << "c10d::send" << send
                                              << send << -1;
    QTest::newRow("old sendrecv, all_to_all") << "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t" << "nccl:all_to_all"
                                              << -1 << coll << int(ChakraProtoMsg::ALL_TO_ALL);
    QTest::newRow("old sendrecv, recv") << "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t" << "c10d::recv_" << -1
                                        << recv << -1;
    QTest::newRow("old allreduce") << "ncclKernel_AllReduce_RING_LL_Sum_float" << "c10d::allreduce_" << coll << coll
                                   << int(ChakraProtoMsg::ALL_REDUCE);
    QTest::newRow("unknown") << "ncclDevKernel_Mystery" << "c10d::allreduce_" << -1 << comp << -1;
}

void TestChakraEtEdge::ncclNames()
{
    QFETCH(QString, kernel);
    QFETCH(QString, grandparent);
    QFETCH(int, compatType);
    QFETCH(int, defaultType);
    QFETCH(int, defaultCommType);
    const std::string golden = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)";
    const std::string hostFrom = "\"name\": \"c10d::allreduce_\"";
    const std::string hostTo = "\"name\": \"" + grandparent.toStdString() + "\"";
    for (LinkMode mode : {LinkMode::Chakra, LinkMode::Default}) {
        const auto a = goldenVariant(mode, hostFrom, hostTo, golden, kernel.toStdString());
        QVERIFY(a->link);
        const Converted c = convert(*a);
        const int expected = mode == LinkMode::Chakra ? compatType : defaultType;
        if (expected < 0) {
            QVERIFY(!c.ok);
            QVERIFY(c.diagnostics.find("chakra_et.compat_comm_type"));
            continue;
        }
        QVERIFY(c.ok);
        const Decoded d = decode(c.bytes);
        const auto *k = named(d, kernel.toStdString());
        QVERIFY(k);
        QCOMPARE(int(k->type()), expected);
        if (mode == LinkMode::Default) {
            const auto *ct = attr(*k, "comm_type");
            QCOMPARE(ct ? int(ct->int64_val()) : -1, defaultCommType);
            if (k->type() != ChakraProtoMsg::COMP_NODE) {
                QVERIFY(attr(*k, "comm_size") && attr(*k, "pg_name"));
                QCOMPARE(attr(*k, "comm_size")->int64_val(), int64_t(4096));
                QCOMPARE(attr(*k, "pg_name")->string_val(), std::string("0"));
            } else {
                QVERIFY(c.diagnostics.find("chakra_et.unknown_collective"));
            }
        }
    }
}

void TestChakraEtEdge::processGroupInitIsNoMetadataNode()
{
    // Issue 21: released ASTRA-sim aborts on any METADATA_NODE ("Invalid node_type",
    // Statistics.cc:72); default mode writes process_group:init as a CPU COMP_NODE,
    // --compat chakra as the reference does.
    const std::string from = "\"name\": \"aten::mul\"", to = "\"name\": \"## process_group:init ##\"";
    for (LinkMode mode : {LinkMode::Default, LinkMode::Chakra}) {
        const auto a = goldenVariant(mode, from, to, from, to);
        const Converted c = convert(*a);
        QVERIFY(c.ok);
        const Decoded d = decode(c.bytes);
        const auto *n = named(d, "## process_group:init ##");
        QVERIFY(n);
        QCOMPARE(n->type(), mode == LinkMode::Default ? ChakraProtoMsg::COMP_NODE : ChakraProtoMsg::METADATA_NODE);
        if (mode == LinkMode::Default)
            for (const auto &node : d.nodes)
                QVERIFY(node.type() != ChakraProtoMsg::METADATA_NODE);
    }
    // --chakra-metadata-nodes asks for the reference's node type in default mode.
    const auto a = goldenVariant(LinkMode::Default, from, to, from, to);
    ChakraGraph g;
    Diagnostics diag;
    QVERIFY(buildChakraGraph(*a->host, *a->device, *a->link, g, diag, true));
    int metadata = 0;
    for (const ChakraNode &n : g.nodes)
        metadata += n.type == kChakraMetadataNode;
    QCOMPARE(metadata, 1);
}

void TestChakraEtEdge::commSizeFromKinetoArgs_data()
{
    QTest::addColumn<QString>("kernel");
    QTest::addColumn<QString>("args"); // Kineto message args added to the kernel
    QTest::addColumn<int>("commType");
    QTest::addColumn<qint64>("bytes");
    const QString ar = QStringLiteral("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)");
    // Issue 21: the message Kineto records, per collective; the ET's tensors (4096 B
    // here) only where Kineto records none.
    QTest::newRow("all-reduce, Float") << ar << R"("In msg nelems": 262144, "Out msg nelems": 262144, "dtype": "Float")" << 0
                                       << qint64(1048576);
    QTest::newRow("all-reduce, BFloat16 bucket")
        << ar << R"("In msg nelems": 4465152, "Out msg nelems": 4465152, "dtype": "BFloat16")" << 0 << qint64(8930304);
    // Issue 38: every kind by the rank's input, as Chakra's converter (the sum of
    // record_param_comms' inputs) and ASTRA-sim read it; the gathered output would
    // make a simulator move world-size times the data.
    QTest::newRow("all-gather: the rank's input, not the gathered output")
        << QStringLiteral("ncclDevKernel_AllGather_RING_LL(ncclDevComm*, unsigned long, ncclWork*)")
        << R"("In msg nelems": 1000, "Out msg nelems": 8000, "dtype": "Half")" << 2 << qint64(2000);
    QTest::newRow("reduce-scatter: the input it splits")
        << QStringLiteral("ncclDevKernel_ReduceScatter_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)")
        << R"("In msg nelems": 8000, "Out msg nelems": 1000, "dtype": "Float")" << 7 << qint64(32000);
    QTest::newRow("no message args: the ET's tensors") << ar << QString() << 0 << qint64(4096);
    QTest::newRow("unknown dtype: the ET's tensors")
        << ar << R"("In msg nelems": 10, "Out msg nelems": 10, "dtype": "NoSuchType")" << 0 << qint64(4096);
}

void TestChakraEtEdge::commSizeFromKinetoArgs()
{
    QFETCH(QString, kernel);
    QFETCH(QString, args);
    QFETCH(int, commType);
    QFETCH(qint64, bytes);
    const std::string golden = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)";
    const std::string dir = testutil::tempDir();
    std::string device = replaced(testutil::readText(::golden("device.0.json")), golden, kernel.toStdString());
    if (!args.isEmpty())
        device = replaced(device, "\"stream\": 20,", "\"stream\": 20, " + args.toStdString() + ","); // the kernel's args
    testutil::writeText(dir + "/host.0.json", testutil::readText(::golden("host.0.json")));
    testutil::writeText(dir + "/device.0.json", device);
    for (LinkMode mode : {LinkMode::Default, LinkMode::Chakra}) {
        const auto a = analyse(dir + "/host.0.json", dir + "/device.0.json", mode);
        const Converted c = convert(*a);
        if (!c.ok) { // the reference cannot classify every spelling
            QCOMPARE(mode, LinkMode::Chakra);
            continue;
        }
        const Decoded d = decode(c.bytes);
        const auto *k = named(d, kernel.toStdString());
        QVERIFY(k);
        QVERIFY(attr(*k, "comm_type") && attr(*k, "comm_size"));
        QCOMPARE(int(attr(*k, "comm_type")->int64_val()), commType);
        // --compat chakra keeps the reference's size (the ET's tensors).
        QCOMPARE(qint64(attr(*k, "comm_size")->int64_val()), mode == LinkMode::Default ? bytes : qint64(4096));
    }
}

QTEST_GUILESS_MAIN(TestChakraEtEdge)
#include "tst_chakraetedge.moc"
