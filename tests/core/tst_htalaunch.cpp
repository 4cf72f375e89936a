// SPDX-License-Identifier: MIT
// HTA f4d0062's kernel-launch statistics and queue length (analysis/htalaunch.h).
// HTA's own expected values (test_trace_analysis.py) are for its vision_transformer,
// inference, h100 and mtia traces, none of which is in shared/data (their blobs are not
// public either); on the shared traces the queue length is checked against the critical
// path's queue length, which reproduces HTA's on its CPA test traces (spec 2.7.1).
#include "analysis/cpbuild.h"
#include "analysis/htalaunch.h"
#include "cptestutil.h"
#include "tracebuilder.h"

#include <cmath>
#include <map>

using namespace syncscope;
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

QTEST_GUILESS_MAIN(TestHtaLaunch)
#include "tst_htalaunch.moc"
