// SPDX-License-Identifier: MIT
// HTA f4d0062's kernel-launch statistics and queue length (analysis/htalaunch.h).
// HTA's own expected values (test_trace_analysis.py) are for its vision_transformer,
// inference, h100 and mtia traces, none of which is in shared/data (their blobs are not
// public either); on the shared traces the queue length is checked against the critical
// path's queue length, which reproduces HTA's on its CPA test traces (spec 2.7.1).
#include "analysis/cpbuild.h"
#include "analysis/htalaunch.h"
#include "cptestutil.h"
#include "htagoldens.h"
#include "tracebuilder.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>

using namespace syncscope;
using namespace htagolden;
using testutil::KinetoBuilder;

class TestHtaLaunch : public QObject
{
    Q_OBJECT
private slots:
    void inlineLaunchStats();
    void inlineQueueLength();
    void describeAsPandas();
    void sharedTraces_data();
    void sharedTraces();
    void htaGoldens_data();
    void htaGoldens();
};

namespace {

std::string inlineTrace()
{
    return KinetoBuilder()
        .runtime("cudaLaunchKernel", 1, 0, 10, 1)     // 0
        .kernel("k1", 7, 20, 5, 1)                    // 1: delay 10, short
        .runtime("cudaLaunchKernel", 1, 12, 60, 2)    // 2
        .kernel("k2", 7, 200, 100, 2)                 // 3: delay 128, both outliers
        .runtime("cudaMemcpyAsync", 1, 80, 5, 3)      // 4
        .gpu("gpu_memcpy", "Memcpy HtoD (Pinned -> Device)", 8, 82, 3, 3) // 5: delay clipped to 0
        .runtime("cuLaunchKernel", 1, 90, 4, 4)       // 6: queue only (not a stats name)
        .kernel("k4", 7, 400, 10, 4)                  // 7
        .runtime("cudaLaunchKernel", 1, 95, 2, 5)     // 8: no GPU row
        .json();
}


} // namespace

void TestHtaLaunch::inlineLaunchStats()
{
    Diagnostics diag;
    auto t = cptest::loadInline(inlineTrace(), diag);
    QVERIFY(t);
    const KernelLaunchStats s = cudaKernelLaunchStats(*t, diag);
    QCOMPARE(s.rows.size(), size_t(3));
    std::map<int64_t, KernelLaunchRow> byCorr;
    for (const KernelLaunchRow &r : s.rows)
        byCorr[r.correlation] = r;
    QCOMPARE(byCorr.count(4), size_t(0));
    QCOMPARE(byCorr[1].cpu_duration_us, 10.0);
    QCOMPARE(byCorr[1].gpu_duration_us, 5.0);
    QCOMPARE(byCorr[1].launch_delay_us, 10.0);
    QCOMPARE(t->str(t->events[byCorr[1].gpu_event].name), std::string_view("k1"));
    QCOMPARE(t->str(t->events[byCorr[2].runtime_event].name), std::string_view("cudaLaunchKernel"));
    QCOMPARE(byCorr[2].cpu_duration_us, 60.0);
    QCOMPARE(byCorr[2].gpu_duration_us, 100.0);
    QCOMPARE(byCorr[2].launch_delay_us, 128.0);
    QCOMPARE(byCorr[3].launch_delay_us, 0.0);
    auto corrs = [&](const std::vector<uint32_t> &idx) {
        std::vector<int64_t> c;
        for (uint32_t k : idx)
            c.push_back(s.rows[k].correlation);
        std::sort(c.begin(), c.end());
        return c;
    };
    QCOMPARE(corrs(s.short_kernels), (std::vector<int64_t>{1, 3}));
    QCOMPARE(corrs(s.runtime_outliers), (std::vector<int64_t>{2}));
    QCOMPARE(corrs(s.launch_delay_outliers), (std::vector<int64_t>{2}));

    // The cut-offs are parameters, and memory events can be left out.
    LaunchStatsOptions o;
    o.runtime_cutoff_us = 5;
    o.launch_delay_cutoff_us = 5;
    o.include_memory_events = false;
    const KernelLaunchStats s2 = cudaKernelLaunchStats(*t, diag, o);
    QCOMPARE(s2.rows.size(), size_t(2));
    QCOMPARE(s2.runtime_outliers.size(), size_t(2));
    QCOMPARE(s2.launch_delay_outliers.size(), size_t(2));
    QCOMPARE(s2.short_kernels.size(), size_t(0));
}

void TestHtaLaunch::inlineQueueLength()
{
    Diagnostics diag;
    auto t = cptest::loadInline(inlineTrace(), diag);
    QVERIFY(t);
    const QueueLengthResult q = queueLength(*t, diag);
    QCOMPARE(q.unmatched_launches, size_t(1));
    // Stream 7: +1@0 +1@12 -1@20 +1@90 -1@200 -1@400; stream 8: +1@80 -1@82.
    std::vector<int32_t> v7, v8;
    std::vector<double> ts7;
    for (const QueueLengthPoint &p : q.series) {
        (p.stream == 7 ? v7 : v8).push_back(p.queue_length);
        if (p.stream == 7)
            ts7.push_back(p.ts_us);
    }
    QCOMPARE(v7, (std::vector<int32_t>{1, 2, 1, 2, 1, 0}));
    QCOMPARE(ts7, (std::vector<double>{0, 12, 20, 90, 200, 400}));
    QCOMPARE(v8, (std::vector<int32_t>{1, 0}));
    QCOMPARE(q.series.front().stream, int64_t(7)); // grouped by stream, ascending
    QCOMPARE(q.summary.size(), size_t(2));
    const QueueLengthSummary &s = q.summary[0];
    QCOMPARE(s.stream, int64_t(7));
    QCOMPARE(s.count, size_t(6));
    QVERIFY(std::abs(s.mean - 7.0 / 6.0) < 1e-12);
    QVERIFY(std::abs(s.std - 0.7527726527090811) < 1e-12); // sqrt(2.8333 / 5)
    QCOMPARE(s.min, 0.0);
    QCOMPARE(s.p25, 1.0);
    QCOMPARE(s.p50, 1.0);
    QCOMPARE(s.p75, 1.75);
    QCOMPARE(s.max, 2.0);
    QCOMPARE(q.summary[1].p25, 0.25);
    QVERIFY(std::abs(q.summary[1].std - std::sqrt(0.5)) < 1e-12);
}

void TestHtaLaunch::describeAsPandas()
{
    // HTA's mtia stream-102 summary (test_get_mtia_queue_length_stats): six points
    // 0/1 with mean 0.5, std 0.547723, quartiles 0 / 0.5 / 1.
    const QueueLengthSummary s = describeQueueLengths({1, 0, 1, 0, 1, 0});
    QCOMPARE(s.count, size_t(6));
    QCOMPARE(s.mean, 0.5);
    QVERIFY(std::abs(s.std - 0.547723) < 1e-6);
    QCOMPARE(s.p25, 0.0);
    QCOMPARE(s.p50, 0.5);
    QCOMPARE(s.p75, 1.0);
    const QueueLengthSummary one = describeQueueLengths({3});
    QVERIFY(std::isnan(one.std)); // pandas: ddof 1 of one value
    QCOMPARE(one.p75, 3.0);
}

void TestHtaLaunch::sharedTraces_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("streams");
    // Regression values of this implementation (HTA publishes none for these traces).
    QTest::addColumn<int>("launchRows");
    QTest::addColumn<int>("maxQueue"); // over all streams
    QTest::newRow("ns_resolution") << "device_only/hta_ns_resolution.kineto.json.gz" << 1 << 4876 << 1022;
    QTest::newRow("nccl_data") << "device_only/hta_nccl_data.kineto.json.gz" << 2 << 2516 << 10;
    QTest::newRow("amd_mi250") << "device_only/hta_amd_mi250_rocm6.2.kineto.json.gz" << 1 << 0 << 1;
    QTest::newRow("simple_add") << "pairs/hta_simple_add/simple_add.kineto.json.gz" << 1 << 4 << 2;
}

void TestHtaLaunch::sharedTraces()
{
    REQUIRE_SHARED_DATA();
    QFETCH(QString, file);
    QFETCH(int, streams);
    QFETCH(int, launchRows);
    QFETCH(int, maxQueue);
    Diagnostics diag;
    auto t = cptest::load(testutil::sharedData(file.toStdString()), diag);
    QVERIFY(t);
    CriticalPathOptions o;
    o.htaExact = true;
    const hta::CpaContext ctx(*t, o, hta::RowOptions{}, diag);
    const QueueLengthResult q = queueLength(ctx.rows, diag);
    QVERIFY(!q.series.empty());
    QCOMPARE(q.summary.size(), size_t(streams));
    double maxSeen = 0;
    for (const QueueLengthSummary &x : q.summary)
        maxSeen = std::max(maxSeen, x.max);
    QCOMPARE(maxSeen, double(maxQueue));
    // Each GPU row's value equals the critical path's queue length after it (HTA's
    // _compute_queue_length, the same sweep); +1/-1 steps alternate consistently.
    size_t gpuPoints = 0;
    std::map<int64_t, int32_t> last;
    for (const QueueLengthPoint &p : q.series) {
        const int32_t prev = last.count(p.stream) ? last[p.stream] : 0;
        const bool gpuStep = p.event == p.gpu_event;
        QCOMPARE(p.queue_length, prev + (gpuStep ? -1 : 1));
        last[p.stream] = p.queue_length;
        if (gpuStep) {
            ++gpuPoints;
            QCOMPARE(p.queue_length, ctx.queue[p.event]);
        }
    }
    QVERIFY(gpuPoints > 0);
    size_t counted = 0;
    for (const QueueLengthSummary &s : q.summary) {
        counted += s.count;
        QVERIFY(s.min <= s.p25 && s.p25 <= s.p50 && s.p50 <= s.p75 && s.p75 <= s.max);
    }
    QCOMPARE(counted, q.series.size());

    // Launch stats: one row per selected call with a GPU row; delays never negative.
    const KernelLaunchStats s = cudaKernelLaunchStats(ctx.rows, LaunchStatsOptions{}, diag);
    QCOMPARE(s.rows.size(), size_t(launchRows)); // amd: HIP names are not in HTA's stats list
    for (const KernelLaunchRow &r : s.rows) {
        QVERIFY(r.launch_delay_us >= 0);
        QCOMPARE(t->events[r.runtime_event].correlation, t->events[r.gpu_event].correlation);
        QCOMPARE(r.cpu_duration_us, ctx.rows.dur(r.runtime_event));
        QCOMPARE(r.launch_delay_us,
                 std::max(0.0, ctx.rows.ts(r.gpu_event) - ctx.rows.end(r.runtime_event)));
    }
    qInfo("%s: %zu launch rows (%zu short, %zu runtime > 50 us, %zu delay > 100 us), %zu streams, %zu queue points",
          qPrintable(file), s.rows.size(), s.short_kernels.size(), s.runtime_outliers.size(),
          s.launch_delay_outliers.size(), q.summary.size(), q.series.size());
    for (const QueueLengthSummary &x : q.summary)
        qInfo("  stream %lld: count %zu mean %.6f std %.6f min %g 25%% %g 50%% %g 75%% %g max %g",
              static_cast<long long>(x.stream), x.count, x.mean, x.std, x.min, x.p25, x.p50, x.p75, x.max);
}

void TestHtaLaunch::htaGoldens_data()
{
    QTest::addColumn<QString>("key");
    for (const char *k : kHtaGoldens)
        QTest::newRow(k) << QString(k);
}

// Launch stats and queue-length summary against HTA's own output (rank 0, defaults).
void TestHtaLaunch::htaGoldens()
{
    REQUIRE_SHARED_DATA();
    QFETCH(QString, key);
    const nlohmann::json g = loadGolden(key.toStdString());
    Diagnostics diag;
    auto trace = cptest::load(testutil::sharedData(g.at("trace").get<std::string>()), diag);
    QVERIFY(trace);
    const hta::RowTable rows(*trace, hta::RowOptions{}, diag);
    Mismatches m;

    const nlohmann::json &lg = g.at("cuda_kernel_launch_stats");
    const KernelLaunchStats s = cudaKernelLaunchStats(rows, LaunchStatsOptions{}, diag);
    m.count("launch rows", s.rows.size(), lg.at("rows").get<size_t>());
    m.count("short kernels", s.short_kernels.size(), lg.at("short_kernels").get<size_t>());
    m.count("runtime outliers", s.runtime_outliers.size(), lg.at("runtime_outliers").get<size_t>());
    m.count("launch delay outliers", s.launch_delay_outliers.size(), lg.at("launch_delay_outliers").get<size_t>());
    double cpu = 0, gpu = 0, delay = 0;
    for (const KernelLaunchRow &r : s.rows) {
        cpu += r.cpu_duration_us;
        gpu += r.gpu_duration_us;
        delay += r.launch_delay_us;
    }
    m.num("sum cpu", cpu, lg.at("sum_cpu_duration"));
    m.num("sum gpu", gpu, lg.at("sum_gpu_duration"));
    m.num("sum delay", delay, lg.at("sum_launch_delay"));
    auto rowsMatch = [&](const char *what, const nlohmann::json &golden, auto rowAt, size_t n) {
        for (size_t i = 0; i < golden.size(); ++i) {
            const std::string w = std::string(what) + "[" + std::to_string(i) + "]";
            if (i >= n) {
                m.list.push_back(w + ": missing");
                continue;
            }
            const KernelLaunchRow &r = rowAt(i);
            m.count(w + " correlation", size_t(r.correlation), golden[i].at("correlation").get<size_t>());
            m.num(w + " cpu", r.cpu_duration_us, golden[i].at("cpu_duration"));
            m.num(w + " gpu", r.gpu_duration_us, golden[i].at("gpu_duration"));
            m.num(w + " delay", r.launch_delay_us, golden[i].at("launch_delay"));
        }
    };
    rowsMatch("row", lg.at("first_rows"), [&](size_t i) -> const KernelLaunchRow & { return s.rows[i]; }, s.rows.size());
    rowsMatch("runtime outlier", lg.at("runtime_outlier_rows"),
              [&](size_t i) -> const KernelLaunchRow & { return s.rows[s.runtime_outliers[i]]; },
              s.runtime_outliers.size());
    rowsMatch("delay outlier", lg.at("launch_delay_outlier_rows"),
              [&](size_t i) -> const KernelLaunchRow & { return s.rows[s.launch_delay_outliers[i]]; },
              s.launch_delay_outliers.size());

    const nlohmann::json &qg = g.at("queue_length_summary");
    const QueueLengthResult q = queueLength(rows, diag);
    // mean/std depend on the order of launch and GPU steps with equal ts, which HTA
    // leaves to numpy's unstable quicksort (sort_values(by="ts")); see docs/breakdowns.md.
    Mismatches tieOrder;
    m.count("queue streams", q.summary.size(), qg.is_null() ? 0 : qg.size());
    for (const nlohmann::json &r : qg) {
        const int64_t stream = r.at("stream").get<int64_t>();
        const std::string w = "queue stream " + std::to_string(stream);
        auto it = std::find_if(q.summary.begin(), q.summary.end(),
                               [&](const QueueLengthSummary &x) { return x.stream == stream; });
        if (it == q.summary.end()) {
            m.list.push_back(w + ": missing");
            continue;
        }
        m.count(w + " count", it->count, size_t(r.at("count").get<double>()));
        tieOrder.num(w + " mean", it->mean, r.at("mean"), 1e-9);
        tieOrder.num(w + " std", it->std, r.at("std"), 1e-9);
        m.num(w + " min", it->min, r.at("min"), 1e-9);
        m.num(w + " 25%", it->p25, r.at("25%"), 1e-9);
        m.num(w + " 50%", it->p50, r.at("50%"), 1e-9);
        m.num(w + " 75%", it->p75, r.at("75%"), 1e-9);
        m.num(w + " max", it->max, r.at("max"), 1e-9);
    }
    QVERIFY2(m.list.empty(), qPrintable(QString::fromStdString(key.toStdString() + m.text())));
    if (key == "hta_nccl_data" || key == "hta_cpa_simple_add" || key == "param_dlrm_rank0")
        QEXPECT_FAIL("", "equal-ts launch/GPU steps: HTA's order is numpy quicksort's, ours launches first", Continue);
    QVERIFY2(tieOrder.list.empty(), qPrintable(QString::fromStdString(key.toStdString() + tieOrder.text())));
}

QTEST_GUILESS_MAIN(TestHtaLaunch)
#include "tst_htalaunch.moc"
