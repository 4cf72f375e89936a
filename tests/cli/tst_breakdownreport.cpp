// SPDX-License-Identifier: MIT
// The report's breakdowns (docs/breakdowns.md, "In the report"): `breakdown` and
// steps[].breakdown / exposed_comm_us are the core API's values (no second
// computation), percentages are consistent, steps add up, exposed communication
// is comm - overlap on a hand-computed inline trace, NaN is null, and the text
// summary has its lines.
#include "../core/cptestutil.h"
#include "report/breakdownreport.h"
#include "session/analysis.h"
#include "testutil.h"
#include "tracebuilder.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <set>

using namespace syncscope;
using json = nlohmann::json;

namespace {

struct Cli {
    int code = -1;
    std::string err;
    json report;
};

Cli runCli(const QStringList &inputs, const QString &reportPath)
{
    QProcess p;
    p.start(QStringLiteral(SYNCSCOPE_BINARY), QStringList{"--batch"} + inputs + QStringList{"--report", reportPath});
    Cli c;
    if (!p.waitForFinished(300000))
        return c;
    c.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2;
    c.err = p.readAllStandardError().toStdString();
    std::ifstream in(reportPath.toStdString());
    if (in)
        c.report = json::parse(in, nullptr, false);
    return c;
}

// What the core API gives for the whole trace, as the report writes it.
json apiWhole(const KinetoTrace &trace)
{
    Diagnostics diag;
    const hta::RowTable rows(trace, hta::RowOptions{}, diag);
    return json::parse(breakdownJson(computeBreakdownSet(rows)).dump());
}

void checkConsistent(const json &b, const std::string &where)
{
    const json &t = b["temporal"];
    if (t.is_null())
        return;
    const double sum = t["idle_time_pct"].get<double>() + t["compute_time_pct"].get<double>() +
                       t["non_compute_time_pct"].get<double>();
    QVERIFY2(std::fabs(sum - 100) < 0.05, (where + ": pcts sum to " + std::to_string(sum)).c_str());
    const double parts = t["idle_time_us"].get<double>() + t["compute_time_us"].get<double>() +
                         t["non_compute_time_us"].get<double>();
    QVERIFY2(std::fabs(parts - t["kernel_time_us"].get<double>()) < 1e-6, where.c_str());
    QVERIFY2(b["exposed_comm_us"].get<double>() <= b["comm_time_us"].get<double>() + 1e-9, where.c_str());
    QVERIFY2(b["exposed_comm_us"].get<double>() >= 0, where.c_str());
    double typePct = 0;
    for (const json &r : b["kernels"]["by_type"])
        typePct += r["percentage"].get<double>();
    if (!b["kernels"]["by_type"].empty())
        QVERIFY2(std::fabs(typePct - 100) < 0.5, (where + ": by_type sums to " + std::to_string(typePct)).c_str());
    const json &l = b["launch_stats"];
    QVERIFY(l["short_kernels"].get<size_t>() <= l["launches"].get<size_t>());
    QVERIFY(l["launch_delay_outliers"].get<size_t>() <= l["launches"].get<size_t>());
}

// Compute kernels [100,150] and [160,200] on GPU 0, an NCCL kernel [180,280] on GPU 0
// (overlapped 20 µs: exposed 80), a compute kernel [200,280] on GPU 1 (another GPU: no
// cover). Steps: ProfilerStep#0 [50,250), ProfilerStep#1 [250,500) with one relu only.
std::string inlineTrace()
{
    testutil::KinetoBuilder b;
    b.annotation("ProfilerStep#0", 1, 50, 200);
    b.annotation("ProfilerStep#1", 1, 250, 250);
    b.runtime("cudaLaunchKernel", 1, 90, 5, 1).kernel("gemm", 7, 100, 50, 1);
    b.runtime("cudaLaunchKernel", 1, 95, 5, 2).kernel("gemm", 7, 160, 40, 2);
    b.runtime("cudaLaunchKernel", 1, 170, 5, 3).kernel("ncclKernel_AllReduce_RING_LL_Sum_float", 8, 180, 100, 3);
    b.runtime("cudaLaunchKernel", 1, 175, 5, 4).gpu("kernel", "gemm", 9, 200, 80, 4, -1, 1);
    b.runtime("cudaLaunchKernel", 1, 260, 5, 5).kernel("relu", 7, 300, 20, 5);
    return b.json();
}

} // namespace

class TestBreakdownReport : public QObject
{
    Q_OBJECT
private slots:
    void plainRunSkipsTheBreakdowns();
    void noBreakdownsLeavesThemOut();
    void sampleReportIsTheApi();
    void sharedTracesAreTheApi_data();
    void sharedTracesAreTheApi();
    void exposedCommHandComputed();
    void pipelineStepsAreTheCriticalPathsSteps();
    void singleRankCollectives();
};

// A plain run (no report, no --step all) does not pay for the breakdowns: its summary has none.
void TestBreakdownReport::plainRunSkipsTheBreakdowns()
{
    const QString sample = QStringLiteral(SYNCSCOPE_SAMPLE_DIR);
    QProcess p;
    p.start(QStringLiteral(SYNCSCOPE_BINARY), {"--batch", "--host", sample + "/sample.et.json.gz", "--device",
                                                sample + "/sample.kineto.json.gz"});
    QVERIFY(p.waitForFinished(300000));
    QCOMPARE(p.exitCode(), 0);
    const std::string err = p.readAllStandardError().toStdString();
    QVERIFY2(err.find("critical path") != std::string::npos, err.c_str());
    QVERIFY2(err.find("top kernels") == std::string::npos, err.c_str());
}

// --no-breakdowns: a report and --step all without any breakdown object or line.
void TestBreakdownReport::noBreakdownsLeavesThemOut()
{
    const QString sample = QStringLiteral(SYNCSCOPE_SAMPLE_DIR);
    QTemporaryDir dir;
    const Cli c = runCli({"--host", sample + "/sample.et.json.gz", "--device", sample + "/sample.kineto.json.gz",
                          "--step", "all", "--no-breakdowns"},
                         dir.filePath("r.json"));
    QCOMPARE(c.code, 0);
    QVERIFY(c.report.is_object());
    QVERIFY(!c.report.contains("breakdown"));
    QCOMPARE(c.report["critical_path"]["steps"].size(), size_t(3));
    for (const json &st : c.report["critical_path"]["steps"])
        QVERIFY(!st.contains("breakdown") && !st.contains("exposed_comm_us"));
    QCOMPARE(c.report["timing"]["breakdown_s"].get<double>(), 0.0);
    QVERIFY2(c.err.find("top kernels") == std::string::npos, c.err.c_str());
}

void TestBreakdownReport::sampleReportIsTheApi()
{
    QTemporaryDir dir;
    const QString sample = QStringLiteral(SYNCSCOPE_SAMPLE_DIR);
    const Cli c = runCli({"--host", sample + "/sample.et.json.gz", "--device", sample + "/sample.kineto.json.gz",
                          "--step", "all"},
                         dir.filePath("r.json"));
    QCOMPARE(c.code, 0);
    QVERIFY(c.report.is_object());
    Diagnostics diag;
    auto trace = cptest::load((sample + "/sample.kineto.json.gz").toStdString(), diag);
    QVERIFY(trace);
    QCOMPARE(c.report["breakdown"], apiWhole(*trace));
    checkConsistent(c.report["breakdown"], "whole");
    QVERIFY(c.report["timing"]["breakdown_s"].get<double>() >= 0);
    // Thread time: the per-step part is a share of the whole, and threads add no work.
    const auto &timing = c.report["timing"];
    QVERIFY(timing["breakdown_steps_s"].get<double>() > 0);
    QVERIFY(timing["breakdown_steps_s"].get<double>() <= timing["breakdown_s"].get<double>());

    // Steps: the same shape over each step's window; disjoint windows, so their compute
    // times add up to at most the whole trace's (without HTA's last-step filter).
    hta::RowOptions keep;
    keep.dropLastProfilerStep = false;
    const hta::RowTable all(*trace, keep, diag);
    const HtaBreakdown full = computeHtaBreakdown(all);
    const json &steps = c.report["critical_path"]["steps"];
    QCOMPARE(steps.size(), size_t(3));
    double compute = 0, exposed = 0;
    for (const json &st : steps) {
        const json &b = st["breakdown"];
        checkConsistent(b, st["name"].get<std::string>());
        QCOMPARE(st["exposed_comm_us"], b["exposed_comm_us"]);
        QVERIFY(b["temporal"]["kernel_time_us"].get<double>() <= full.temporal.kernel_time_us);
        QVERIFY(b["temporal"]["kernel_time_us"].get<double>() > 0);
        compute += b["temporal"]["compute_time_us"].get<double>();
        exposed += st["exposed_comm_us"].get<double>();
    }
    QVERIFY(compute <= full.temporal.compute_time_us + 1e-6);
    QVERIFY(exposed <= exposedCommunication(all).exposed_us + 1e-6);

    // Text summary: a line per step and the top kernels.
    QVERIFY2(c.err.find("comm exposed %") != std::string::npos, c.err.c_str());
    for (const char *name : {"whole trace", "ProfilerStep#0", "ProfilerStep#2", "top kernels"})
        QVERIFY2(c.err.find(name) != std::string::npos, name);
    QVERIFY(c.err.find("sm90_xmma_gemm") != std::string::npos);
}

void TestBreakdownReport::sharedTracesAreTheApi_data()
{
    QTest::addColumn<QString>("file");
    for (const char *f : {"hta_nccl_data", "hta_cpa_alexnet", "hta_ns_resolution", "hta_amd_mi250_rocm6.2",
                          "hta_cuda_event_sync_multi_stream"})
        QTest::newRow(f) << QString("device_only/%1.kineto.json.gz").arg(f);
}

void TestBreakdownReport::sharedTracesAreTheApi()
{
    REQUIRE_SHARED_DATA();
    QFETCH(QString, file);
    const std::string path = testutil::sharedData(file.toStdString());
    QTemporaryDir dir;
    const Cli c = runCli({"--device", QString::fromStdString(path), "--quiet"}, dir.filePath("r.json"));
    QVERIFY(c.report.is_object());
    Diagnostics diag;
    auto trace = cptest::load(path, diag);
    QVERIFY(trace);
    QCOMPARE(c.report["breakdown"], apiWhole(*trace));
    checkConsistent(c.report["breakdown"], file.toStdString());
}

void TestBreakdownReport::exposedCommHandComputed()
{
    QTemporaryDir dir;
    const QString tracePath = dir.filePath("inline.json");
    {
        std::ofstream(tracePath.toStdString()) << inlineTrace();
    }
    const Cli c = runCli({"--device", tracePath, "--step", "all"}, dir.filePath("r.json"));
    QVERIFY2(c.report.is_object(), c.err.c_str());
    const json &b = c.report["breakdown"];
    // HTA's load drops the last step's events (those in [250,500)): GPU 0 comm 100, 20 covered.
    QCOMPARE(b["comm_time_us"].get<double>(), 100.0);
    QCOMPARE(b["exposed_comm_us"].get<double>(), 80.0);
    // HTA's overlap takes every stream of the rank, GPU 1's gemm too: 100 %, where the
    // exposed time (per GPU, TraceLens) still counts the 80 µs GPU 0 had no compute for.
    QCOMPARE(b["comm_comp_overlap_pct"].get<double>(), 100.0);
    const json &steps = c.report["critical_path"]["steps"];
    QCOMPARE(steps.size(), size_t(2));
    QCOMPARE(steps[0]["exposed_comm_us"].get<double>(), 80.0);
    QCOMPARE(steps[0]["breakdown"]["comm_time_us"].get<double>(), 100.0);
    // Step 1: one relu, no communication: exposed 0, HTA's overlap 0/0 -> null.
    QCOMPARE(steps[1]["exposed_comm_us"].get<double>(), 0.0);
    QVERIFY(steps[1]["breakdown"]["comm_comp_overlap_pct"].is_null());
    QCOMPARE(steps[1]["breakdown"]["temporal"]["compute_time_us"].get<double>(), 20.0);
    checkConsistent(steps[0]["breakdown"], "step 0");
    checkConsistent(steps[1]["breakdown"], "step 1");
}

// The pipeline computes the steps' breakdowns from the ProfilerStep annotations while
// the critical path runs; they must be those of the critical path's own steps.
void TestBreakdownReport::pipelineStepsAreTheCriticalPathsSteps()
{
    REQUIRE_SHARED_DATA();
    for (const char *f : {"device_only/hta_ns_resolution.kineto.json.gz", "device_only/hta_nccl_data.kineto.json.gz"}) {
        AnalysisRequest req;
        req.devicePath = testutil::sharedData(f);
        req.allSteps = true;
        req.window = WindowKind::Step;
        req.breakdowns = true;
        const std::shared_ptr<Analysis> a = runAnalysis(req);
        QVERIFY2(a->breakdown, f);
        QVERIFY2(!a->steps.empty(), f);
        ReportBreakdown posthoc;
        computeStepBreakdowns(*a->device, stepSpans(a->steps), posthoc);
        QCOMPARE(a->breakdown->steps.size(), posthoc.steps.size());
        for (const StepResult &st : a->steps) {
            const StepBreakdown *mine = findStepBreakdown(*a->breakdown, st);
            const StepBreakdown *theirs = findStepBreakdown(posthoc, st);
            QVERIFY2(mine && theirs, st.name.c_str());
            QCOMPARE(breakdownJson(mine->set).dump(), breakdownJson(theirs->set).dump());
        }
    }
}

// One rank's collectives (docs/breakdowns.md "One rank's collectives"): HTA's
// hta_nccl_data has 21 NCCL kernels of 2 ranks; sizes from their args (tst_jobbreakdown
// checks those), kernel times from the trace itself, busbw = algbw for n = 2.
void TestBreakdownReport::singleRankCollectives()
{
    REQUIRE_SHARED_DATA();
    const std::string path = testutil::sharedData("device_only/hta_nccl_data.kineto.json.gz");
    QTemporaryDir dir;
    const Cli c = runCli({"--device", QString::fromStdString(path), "--quiet"}, dir.filePath("r.json"));
    QCOMPARE(c.code, 0);
    const json &groups = c.report["collectives"];
    QVERIFY(groups.is_array() && !groups.empty());
    Diagnostics diag;
    auto trace = cptest::load(path, diag);
    QVERIFY(trace);
    double ncclUs = 0;
    size_t nccl = 0;
    for (const KinetoEvent &e : trace->events)
        if (e.kind == EventKind::Kernel && trace->str(e.name).find("ncclKernel") != std::string_view::npos) {
            ncclUs += e.dur;
            ++nccl;
        }
    QCOMPARE(nccl, size_t(21));
    size_t count = 0;
    double total = 0, prevTotal = 1e300;
    std::set<std::pair<std::string, int64_t>> seen;
    for (const json &g : groups) {
        const json &k = g["kernel_us"];
        count += g["count"].get<size_t>();
        total += k["total"].get<double>();
        QVERIFY(k["total"].get<double>() <= prevTotal); // most time first
        prevTotal = k["total"].get<double>();
        QVERIFY(k["min"].get<double>() <= k["median"].get<double>() && k["median"].get<double>() <= k["max"].get<double>());
        QVERIFY(std::fabs(k["mean"].get<double>() * g["count"].get<double>() - k["total"].get<double>()) < 1e-6);
        QCOMPARE(g["group_size"].get<int64_t>(), int64_t(2));
        const double bytes = g["message_bytes"].get<double>();
        const double algbw = bytes / (k["median"].get<double>() * 1e-6) / 1e9;
        QVERIFY(std::fabs(g["algbw_gbps"].get<double>() - algbw) < 1e-9 * algbw);
        QCOMPARE(g["busbw_gbps"].get<double>(), g["algbw_gbps"].get<double>()); // n = 2: factor 1
        seen.insert({g["type"].get<std::string>(), g["message_bytes"].get<int64_t>()});
    }
    QCOMPARE(count, nccl);
    QVERIFY(std::fabs(total - ncclUs) < 1e-3 * nccl);
    for (const auto &want : {std::pair<std::string, int64_t>{"broadcast", 53120 * 4}, {"broadcast", 53 * 8},
                             {"all_reduce", 2049000 * 4}})
        QVERIFY2(seen.count(want), want.first.c_str());
}

QTEST_GUILESS_MAIN(TestBreakdownReport)
#include "tst_breakdownreport.moc"
