// SPDX-License-Identifier: MIT
// The panels' item models on the sample pair, each checked by
// QAbstractItemModelTester while it changes, with concrete contents.
#include "panels/criticalpathmodel.h"
#include "panels/detailsmodel.h"
#include "panels/diagnosticsmodel.h"
#include "panels/searchmodel.h"
#include "panels/syncwaitsmodel.h"
#include "panels/treemodel.h"
#include "timeline/timelinemodel.h"
#include "uitestutil.h"

#include "analysis/criticalpath.h"
#include "analysis/graphcapture.h"
#include "testutil.h"

#include <QAbstractItemModelTester>
#include <QMap>
#include <QSet>
#include <QTest>

#include <nlohmann/json.hpp>

#include <set>

using namespace syncscope;
using namespace syncscope::ui;

namespace {

struct Fixture {
    std::shared_ptr<Analysis> analysis;
    std::shared_ptr<TimelineModel> model;
};

Fixture &fixture()
{
    static Fixture f = [] {
        Fixture x;
        x.analysis = uitest::sampleAnalysis();
        x.model = buildTimelineModel(x.analysis->device);
        x.model->edges = buildEdgeIndex(*x.model, *x.analysis, &*x.analysis->criticalPath);
        x.model->layout.setCritical(x.analysis->criticalPath->criticalEvents);
        return x;
    }();
    return f;
}

qint64 firstNamed(const TimelineModel &m, std::string_view name)
{
    qint64 best = -1;
    for (uint32_t i = 0; i < m.trace->events.size(); ++i)
        if (m.layout.pos(i).row >= 0 && m.name(i) == name &&
            (best < 0 || m.startNs(i) < m.startNs(uint32_t(best))))
            best = i;
    return best;
}

const TreeNode *child(const TreeNode *n, const QString &key)
{
    if (!n)
        return nullptr;
    for (const auto &c : n->children)
        if (c->key == key)
            return c.get();
    return nullptr;
}

} // namespace

class TestUiModels : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void detailsOfCpuOp();
    void detailsOfLaunch();
    void detailsWithoutAnalysis();
    void detailsOfGraphReplay();
    void detailsOfCapturedGraphKernel();
    void syncWaitsSource();
    void search();
    void searchByNumber();
    void criticalPathModels();
    void nameColumnsTooltipTheFullName();
    void diagnostics();
};

void TestUiModels::detailsOfCpuOp()
{
    Fixture &f = fixture();
    DetailsModel details;
    QAbstractItemModelTester tester(&details, QAbstractItemModelTester::FailureReportingMode::QtTest);
    details.setSources(f.analysis, f.model);
    const qint64 ev = firstNamed(*f.model, "aten::mm");
    QVERIFY(ev >= 0);
    details.setEvent(ev);
    const TreeNode *event = details.section(DetailsModel::eventSection());
    QVERIFY(event);
    QCOMPARE(child(event, QStringLiteral("Name"))->value, QStringLiteral("aten::mm"));
    QCOMPARE(child(event, QStringLiteral("Event index"))->value, QString::number(ev));
    const KinetoEvent &e = f.analysis->device->events[size_t(ev)];
    QCOMPARE(child(event, QStringLiteral("External id"))->value, QString::number(e.externalId));
    const TreeNode *args = details.section(DetailsModel::argsSection());
    QVERIFY(args);
    QCOMPARE(child(args, QStringLiteral("External id"))->value, QString::number(e.externalId));
    // The linked host node, with its inputs as in the ET file.
    const int32_t hostIndex = f.analysis->link->eventHost[size_t(ev)];
    QVERIFY(hostIndex >= 0);
    const HostNode &node = f.analysis->host->nodes[size_t(hostIndex)];
    const TreeNode *host = details.section(DetailsModel::hostSection());
    QVERIFY(host);
    QCOMPARE(child(host, QStringLiteral("Id"))->value, QString::number(node.id));
    const auto text = f.analysis->host->nodeText(node);
    const auto json = nlohmann::json::parse(text.begin(), text.end());
    const TreeNode *inputs = child(host, QStringLiteral("Inputs"));
    QVERIFY(inputs);
    QCOMPARE(int(inputs->children.size()), int(json["inputs"]["values"].size()));
    const std::string type = json["inputs"]["types"][0].get<std::string>();
    QVERIFY2(inputs->children[0]->value.startsWith(QString::fromStdString(type)), qPrintable(inputs->children[0]->value));
    QVERIFY(child(host, QStringLiteral("Attributes")));
    QVERIFY(child(host, QStringLiteral("Parent"))->target >= 0); // the parent op is linked too
    // GPU activities: exactly those whose parent is this op.
    size_t kids = 0;
    for (int32_t p : f.analysis->link->gpuParent)
        kids += p == ev;
    const TreeNode *gpu = details.section(DetailsModel::gpuSection());
    QVERIFY(kids > 0 && gpu);
    QCOMPARE(gpu->children.size(), kids);
    for (const auto &k : gpu->children)
        QCOMPARE(f.analysis->link->gpuParent[size_t(k->target)], int32_t(ev));
    // Links carry their target in TargetEventRole.
    const QModelIndex gpuIndex = details.index(gpu->row, 0);
    QCOMPARE(details.index(0, 1, gpuIndex).data(TargetEventRole).toLongLong(), gpu->children[0]->target);
    QVERIFY(!details.index(0, 0).data(TargetEventRole).isValid());
    details.setEvent(-1);
    QCOMPARE(details.rowCount(), 0);
}

void TestUiModels::detailsOfLaunch()
{
    Fixture &f = fixture();
    DetailsModel details;
    QAbstractItemModelTester tester(&details, QAbstractItemModelTester::FailureReportingMode::QtTest);
    details.setSources(f.analysis, f.model);
    // A kernel: incoming launch edge from its runtime call, "Launched from" both ops.
    qint64 kernel = -1;
    for (uint32_t i = 0; i < f.analysis->device->events.size() && kernel < 0; ++i)
        if (f.analysis->device->events[i].kind == EventKind::Kernel && f.analysis->link->gpuLauncher[i] >= 0)
            kernel = i;
    QVERIFY(kernel >= 0);
    details.setEvent(kernel);
    const TreeNode *in = details.section(DetailsModel::incomingSection());
    QVERIFY(in);
    bool launch = false;
    for (const auto &c : in->children)
        if (c->key == QStringLiteral("Launch"))
            launch = c->target == f.analysis->link->gpuLauncher[size_t(kernel)];
    QVERIFY(launch);
    const TreeNode *from = details.section(QStringLiteral("Launched from"));
    QVERIFY(from);
    QCOMPARE(child(from, QStringLiteral("CPU op"))->target, qint64(f.analysis->link->gpuParent[size_t(kernel)]));
    QCOMPARE(child(from, QStringLiteral("Runtime call"))->target, qint64(f.analysis->link->gpuLauncher[size_t(kernel)]));
    // The runtime call: an outgoing launch edge to the kernel.
    details.setEvent(f.analysis->link->gpuLauncher[size_t(kernel)]);
    const TreeNode *out = details.section(DetailsModel::outgoingSection());
    QVERIFY(out);
    bool toKernel = false;
    for (const auto &c : out->children)
        toKernel |= c->key == QStringLiteral("Launch") && c->target == kernel;
    QVERIFY(toKernel);
}

void TestUiModels::detailsWithoutAnalysis()
{
    // While the analysis runs only the timeline exists: the event section still shows.
    Fixture &f = fixture();
    DetailsModel details;
    QAbstractItemModelTester tester(&details, QAbstractItemModelTester::FailureReportingMode::QtTest);
    details.setSources(nullptr, f.model);
    details.setEvent(firstNamed(*f.model, "aten::mm"));
    QVERIFY(details.section(DetailsModel::eventSection()));
    QVERIFY(!details.section(DetailsModel::hostSection()));
    details.setEvent(qint64(f.analysis->device->events.size()) + 5); // out of range: empty, no crash
    QCOMPARE(details.rowCount(), 0);
}

// Issue 38: with the capture of the real SGLang decode graph read, a replayed kernel
// names the CPU op, input shapes and Python stack of its captured launch.
void TestUiModels::detailsOfCapturedGraphKernel()
{
    REQUIRE_SHARED_DATA();
    AnalysisRequest r;
    r.devicePath = testutil::sharedData("device_only/tracelens_sglang_decode_replay.kineto.json.gz");
    r.keepRawEvents = true;
    const std::shared_ptr<const Analysis> a = runAnalysis(r);
    QVERIFY(a->inputsOk && a->graphCapture && a->graphCapture->matched == 544);
    auto model = buildTimelineModel(a->device);
    DetailsModel details;
    QAbstractItemModelTester tester(&details, QAbstractItemModelTester::FailureReportingMode::QtTest);
    details.setSources(a, model);
    uint32_t kernel = ~0u;
    for (const auto &[ev, k] : a->graphCapture->originOf)
        if (a->graphCapture->origins[k].opName == "aten::mm")
            kernel = std::min(kernel, ev);
    QVERIFY(kernel != ~0u);
    details.setEvent(qint64(kernel));
    const TreeNode *from = details.section(DetailsModel::launchedFromSection());
    QVERIFY(from);
    QVERIFY(child(from, DetailsModel::graphLaunchKey()));
    const TreeNode *captured = child(from, QStringLiteral("Captured in"));
    QVERIFY(captured);
    QCOMPARE(captured->value, QStringLiteral("aten::mm"));
    QVERIFY(child(from, QStringLiteral("Captured input shapes")));
    const TreeNode *stack = child(from, QStringLiteral("Captured Python stack"));
    QVERIFY(stack);
    QVERIFY2(stack->value.contains(QStringLiteral(".py(")), qPrintable(stack->value));
    // The critical-path table's tooltip of a replayed kernel on the path names the op too.
    QVERIFY(a->criticalPath && a->criticalPath->success);
    CriticalOpsModel ops;
    ops.setGraphCapture(a->graphCapture);
    ops.setPath(std::shared_ptr<const CriticalPathResult>(a, &*a->criticalPath), model);
    int tips = 0;
    for (int row = 0; row < ops.rowCount(); ++row)
        tips += ops.index(row, CriticalOpsModel::OpColumn).data(Qt::ToolTipRole).toString().contains(
                    QStringLiteral("Graph replay: captured in "))
                    ? 1
                    : 0;
    QVERIFY2(tips > 100, qPrintable(QString::number(tips)));
}

// Issue 28: a kernel replayed by a CUDA graph names its graph launch (and how many
// ops it replays) in Launched from; the graph launch call says so in its Event
// section; sync edges in the edge lists say where they come from.
void TestUiModels::detailsOfGraphReplay()
{
    const auto a = uitest::analyseKineto(uitest::inferredSyncTrace());
    QVERIFY(a->inputsOk && a->criticalPath);
    auto model = buildTimelineModel(a->device);
    model->edges = buildEdgeIndex(*model, *a, &*a->criticalPath);
    DetailsModel details;
    QAbstractItemModelTester tester(&details, QAbstractItemModelTester::FailureReportingMode::QtTest);
    details.setSources(a, model);
    for (qint64 kernel : {8, 9, 10}) {
        details.setEvent(kernel);
        const TreeNode *from = details.section(DetailsModel::launchedFromSection());
        QVERIFY(from);
        const TreeNode *graph = child(from, DetailsModel::graphLaunchKey());
        QVERIFY(graph);
        QCOMPARE(graph->target, qint64(7));
        QVERIFY2(graph->value.startsWith(QStringLiteral("cudaGraphLaunch (replays 3 GPU ops), #%1").arg(kernel - 7)),
                 qPrintable(graph->value));
        QCOMPARE(child(from, QStringLiteral("Runtime call"))->target, qint64(7));
        // The incoming launch edge (the arrow drawn for the selection) comes from the graph launch.
        const TreeNode *in = details.section(DetailsModel::incomingSection());
        QVERIFY(in);
        bool launch = false;
        for (const auto &c : in->children)
            launch |= c->key == QStringLiteral("Launch") && c->target == 7;
        QVERIFY(launch);
    }
    // A kernel of an ordinary launch has no graph launch row.
    details.setEvent(4);
    const TreeNode *plain = details.section(DetailsModel::launchedFromSection());
    QVERIFY(plain);
    QCOMPARE(child(plain, QStringLiteral("Runtime call"))->target, qint64(3));
    QVERIFY(!child(plain, DetailsModel::graphLaunchKey()));
    // The graph launch call: what it replays, and an outgoing launch edge to each op.
    details.setEvent(7);
    const TreeNode *graph = child(details.section(DetailsModel::eventSection()), DetailsModel::graphLaunchKey());
    QVERIFY(graph);
    QCOMPARE(graph->value, QStringLiteral("replays 3 GPU ops"));
    QCOMPARE(graph->target, qint64(8));
    const TreeNode *out = details.section(DetailsModel::outgoingSection());
    QVERIFY(out);
    QSet<qint64> launched;
    for (const auto &c : out->children)
        if (c->key == QStringLiteral("Launch"))
            launched.insert(c->target);
    QCOMPARE(launched, (QSet<qint64>{8, 9, 10}));
    details.setEvent(3); // an ordinary launch call
    QVERIFY(!child(details.section(DetailsModel::eventSection()), DetailsModel::graphLaunchKey()));
    // Sync edges: kind and source.
    details.setEvent(6);
    const TreeNode *waits = details.section(DetailsModel::incomingSection());
    QVERIFY(waits);
    QStringList keys;
    for (const auto &c : waits->children)
        keys << c->key;
    QVERIFY2(keys.contains(QStringLiteral("Sync (Blocking Copy, inferred, waited 50.0 \u00b5s)")), qPrintable(keys.join(u'|')));
    details.setEvent(13);
    keys.clear();
    for (const auto &c : details.section(DetailsModel::incomingSection())->children)
        keys << c->key;
    QVERIFY2(keys.filter(QStringLiteral("Sync (Stream Sync, cuda_sync, waited ")).size() == 1, qPrintable(keys.join(u'|')));
}

// Issue 28: the Sync waits table has a Source column (cuda_sync or inferred), and its
// totals say how many edges of each there are; the Blocking Copy kind has its name.
void TestUiModels::syncWaitsSource()
{
    const auto a = uitest::analyseKineto(uitest::inferredSyncTrace());
    QVERIFY(a->inputsOk);
    auto model = buildTimelineModel(a->device);
    SyncWaitsModel waits;
    QAbstractItemModelTester tester(&waits, QAbstractItemModelTester::FailureReportingMode::QtTest);
    waits.setSources(a, model);
    QCOMPARE(waits.columnCount(), int(SyncWaitsModel::ColumnCount));
    QCOMPARE(waits.headerData(SyncWaitsModel::SourceColumn, Qt::Horizontal).toString(), QStringLiteral("Source"));
    QCOMPARE(waits.rowCount(), 3);
    QMap<QString, QString> sourceOf; // "kind waiting-op" -> source
    for (int r = 0; r < waits.rowCount(); ++r) {
        const SyncEdge &e = a->syncEdges[size_t(r)];
        const QString source = waits.index(r, SyncWaitsModel::SourceColumn).data().toString();
        QCOMPARE(source, e.inferred ? QStringLiteral("inferred") : QStringLiteral("cuda_sync"));
        QCOMPARE(waits.index(r, SyncWaitsModel::SourceColumn).data(TargetEventRole).toLongLong(), qint64(e.syncEvent));
        QVERIFY(!waits.index(r, SyncWaitsModel::SourceColumn).data(Qt::ToolTipRole).toString().isEmpty());
        sourceOf[waits.index(r, SyncWaitsModel::KindColumn).data().toString() + QLatin1Char(' ') +
                 QString::number(e.dst)] = source;
    }
    const QMap<QString, QString> expected{{QStringLiteral("Stream Sync 2"), QStringLiteral("inferred")},
                                          {QStringLiteral("Blocking Copy 6"), QStringLiteral("inferred")},
                                          {QStringLiteral("Stream Sync 13"), QStringLiteral("cuda_sync")}};
    QCOMPARE(sourceOf, expected);
    const QString totals = waits.totalsText();
    QVERIFY2(totals.startsWith(QStringLiteral("3 sync edges (2 inferred, 1 from cuda_sync), ")), qPrintable(totals));
    QVERIFY2(totals.contains(QStringLiteral("Blocking Copy: 1 wait (inferred), 50.0 \u00b5s")), qPrintable(totals));
    QVERIFY2(totals.contains(QStringLiteral("Stream Sync: 2 waits (1 inferred), ")), qPrintable(totals));

    // HTA-exact: the cuda_sync row's edge alone.
    const auto exact = uitest::analyseKineto(uitest::inferredSyncTrace(), true);
    waits.setSources(exact, buildTimelineModel(exact->device));
    QCOMPARE(waits.rowCount(), 1);
    QCOMPARE(waits.index(0, SyncWaitsModel::SourceColumn).data().toString(), QStringLiteral("cuda_sync"));
    QVERIFY2(waits.totalsText().startsWith(QStringLiteral("1 sync edge (1 from cuda_sync), ")), qPrintable(waits.totalsText()));
}

void TestUiModels::search()
{
    Fixture &f = fixture();
    SearchModel search;
    QAbstractItemModelTester tester(&search, QAbstractItemModelTester::FailureReportingMode::QtTest);
    search.setTimeline(f.model);
    auto count = [&](auto pred) {
        int n = 0;
        for (uint32_t i = 0; i < f.model->trace->events.size(); ++i)
            n += f.model->layout.pos(i).row >= 0 && pred(std::string(f.model->name(i)));
        return n;
    };
    const int mm = count([](const std::string &n) { return n.find("aten::mm") != std::string::npos; });
    QVERIFY(mm > 3);
    QVERIFY(search.setQuery(QStringLiteral("aten::mm"), false));
    QCOMPARE(search.matchCount(), mm);
    QCOMPARE(search.rowCount(), mm);
    QVERIFY(search.setQuery(QStringLiteral("ATEN::MM"), false));
    QCOMPARE(search.matchCount(), mm);
    QVERIFY(search.setQuery(QStringLiteral("ATEN::MM"), false, true));
    QCOMPARE(search.matchCount(), 0);
    const int launches = count([](const std::string &n) { return n == "cudaLaunchKernel" || n == "cudaMemsetAsync"; });
    QVERIFY(search.setQuery(QStringLiteral("^cuda(LaunchKernel|MemsetAsync)$"), true));
    QCOMPARE(search.matchCount(), launches);
    // In time order, with the op's name and lane in the columns.
    for (int r = 1; r < search.matchCount(); ++r)
        QVERIFY(f.model->startNs(search.eventAt(r - 1)) <= f.model->startNs(search.eventAt(r)));
    const uint32_t third = search.eventAt(2);
    QCOMPARE(search.rowOf(third), 2);
    QCOMPARE(search.index(2, SearchModel::NameColumn).data().toString(),
             QString::fromStdString(std::string(f.model->name(third))));
    QCOMPARE(search.index(2, SearchModel::LaneColumn).data().toString(),
             QString::fromStdString(f.model->laneName(third)));
    QCOMPARE(search.index(2, 0).data(TargetEventRole).toLongLong(), qint64(third));
    QCOMPARE(search.rowAtOrAfter(f.model->startNs(third)), 2);
    QCOMPARE(search.rowAtOrAfter(1e18), 0); // wraps
    QVERIFY(!search.setQuery(QStringLiteral("(unclosed"), true));
    QVERIFY(!search.error().isEmpty());
    QCOMPARE(search.matchCount(), 0);
    QVERIFY(search.setQuery(QString(), false));
    QCOMPARE(search.matchCount(), 0);
}

void TestUiModels::searchByNumber()
{
    Fixture &f = fixture();
    SearchModel search;
    search.setTimeline(f.model);
    // A kernel's correlation id finds the kernel and its runtime call.
    int64_t corr = -1;
    uint32_t kernel = 0;
    for (uint32_t i = 0; i < f.model->trace->events.size() && corr < 0; ++i)
        if (f.model->trace->events[i].kind == EventKind::Kernel) {
            corr = f.model->trace->events[i].correlation;
            kernel = i;
        }
    QVERIFY(search.setQuery(QString::number(corr), false));
    QVERIFY(search.matchCount() >= 2);
    QVERIFY(search.rowOf(kernel) >= 0);
    QVERIFY(search.rowOf(uint32_t(f.analysis->link->gpuLauncher[kernel])) >= 0);
}

void TestUiModels::criticalPathModels()
{
    Fixture &f = fixture();
    auto cp = std::shared_ptr<const CriticalPathResult>(f.analysis, &*f.analysis->criticalPath);
    CriticalOpsModel ops;
    QAbstractItemModelTester t1(&ops, QAbstractItemModelTester::FailureReportingMode::QtTest);
    ops.setPath(cp, f.model);
    // Zero-length dependency rows are hidden by default (issue 13).
    const int shown = ops.rowCount();
    for (int r = 0; r < shown; ++r)
        QVERIFY(ops.row(r).event >= 0 || ops.row(r).durationUs > 0);
    ops.setShowZeroRows(true);
    QVERIFY(ops.rowCount() > shown);
    QVERIFY(ops.rowCount() > 10);
    double total = 0, share = 0;
    const std::set<uint32_t> critical(cp->criticalEvents.begin(), cp->criticalEvents.end());
    for (int r = 0; r < ops.rowCount(); ++r) {
        total += ops.row(r).durationUs;
        share += ops.index(r, 0).data(Qt::UserRole).toDouble();
        const QVariant target = ops.index(r, CriticalOpsModel::OpColumn).data(TargetEventRole);
        if (target.isValid())
            QVERIFY(critical.count(uint32_t(target.toLongLong())));
        // Consecutive rows never repeat the same op and bucket.
        if (r > 0 && ops.row(r).event >= 0)
            QVERIFY(ops.row(r).event != ops.row(r - 1).event || ops.row(r).boundBy != ops.row(r - 1).boundBy);
    }
    QVERIFY2(qAbs(total - cp->weightUs) < 1e-6 * cp->weightUs, qPrintable(QString::number(total)));
    QVERIFY2(qAbs(share - 100.0) < 1e-6, qPrintable(QString::number(share)));
    QCOMPARE(ops.index(0, CriticalOpsModel::IndexColumn).data().toInt(), 1);
    int edges = 0;
    for (int r = 0; r < ops.rowCount(); ++r)
        edges += ops.row(r).edges;
    QCOMPARE(size_t(edges), cp->breakdown.size());

    BreakdownModel breakdown;
    QAbstractItemModelTester t2(&breakdown, QAbstractItemModelTester::FailureReportingMode::QtTest);
    breakdown.setPath(cp);
    // The 0 ns "(dependency)" bucket is left out (issue 13); the sample's is 0 ns.
    QCOMPARE(cp->summary[0].boundBy, std::string());
    QCOMPARE(cp->summary[0].durationUs, 0.0);
    QCOMPARE(size_t(breakdown.rowCount()), cp->summary.size() - 1);
    double pct = 0;
    for (int r = 0; r < breakdown.rowCount(); ++r)
        pct += breakdown.index(r, 0).data(Qt::UserRole).toDouble();
    QVERIFY2(qAbs(pct - 100.0) < 0.01, qPrintable(QString::number(pct)));
    QCOMPARE(breakdown.index(1, BreakdownModel::BoundByColumn).data().toString(),
             QString::fromStdString(cp->summary[2].boundBy));
    ops.setPath(nullptr, nullptr);
    breakdown.setPath(nullptr);
    QCOMPARE(ops.rowCount(), 0);
    QCOMPARE(breakdown.rowCount(), 0);
}

// The tables elide names at paint time (ElidedNameDelegate): each name cell's tooltip has it in full.
void TestUiModels::nameColumnsTooltipTheFullName()
{
    Fixture &f = fixture();
    auto check = [](const QAbstractItemModel &m, int column) {
        QVERIFY(m.rowCount() > 0);
        for (int r = 0; r < m.rowCount(); ++r) {
            const QModelIndex i = m.index(r, column);
            QCOMPARE(i.data(Qt::ToolTipRole).toString(), i.data(Qt::DisplayRole).toString());
        }
    };
    SearchModel search;
    search.setTimeline(f.model);
    QVERIFY(search.setQuery(QStringLiteral("a"), false));
    check(search, SearchModel::NameColumn);
    auto cp = std::shared_ptr<const CriticalPathResult>(f.analysis, &*f.analysis->criticalPath);
    CriticalOpsModel ops;
    ops.setPath(cp, f.model);
    check(ops, CriticalOpsModel::OpColumn);
    ops.setGrouped(true);
    check(ops, CriticalOpsModel::OpColumn);
    auto a = uitest::analyseKineto(uitest::inferredSyncTrace());
    SyncWaitsModel waits;
    waits.setSources(a, buildTimelineModel(a->device));
    check(waits, SyncWaitsModel::WaitingColumn);
    check(waits, SyncWaitsModel::WaitedForColumn);
}

void TestUiModels::diagnostics()
{
    DiagnosticsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    Diagnostics d;
    d.info("a.info", "just so you know");
    d.warning("b.warn", "a warning", "/tmp/x.json");
    d.error("c.err", "an error");
    d.warning("b.warn", "a warning", "/tmp/x.json"); // folded: count 2
    model.setDiagnostics(d.items());
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(model.index(0, DiagnosticsModel::SeverityColumn).data().toString(), QStringLiteral("error"));
    QCOMPARE(model.index(0, DiagnosticsModel::MessageColumn).data().toString(), QStringLiteral("an error"));
    QCOMPARE(model.index(1, DiagnosticsModel::CodeColumn).data().toString(), QStringLiteral("b.warn"));
    QCOMPARE(model.index(1, DiagnosticsModel::FileColumn).data().toString(), QStringLiteral("x.json"));
    QCOMPARE(model.index(1, DiagnosticsModel::CountColumn).data().toInt(), 2);
    QCOMPARE(model.count(Severity::Warning), 1);
    model.setDiagnostics({});
    QCOMPARE(model.rowCount(), 0);
}

QTEST_MAIN(TestUiModels)
#include "tst_uimodels.moc"
