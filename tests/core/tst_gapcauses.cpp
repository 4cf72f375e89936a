// SPDX-License-Identifier: MIT
// The intervals behind the idle-time breakdown and the exposed communication
// (core/analysis/gapcauses.h, docs/breakdowns.md "On the timeline"): a hand-made
// trace with one gap of each cause on two streams and split exposed intervals; the
// trace's own ns under HTA's rounding; and on the HTA golden traces, the gaps sum
// to computeHtaBreakdown's idle rows and the exposed intervals to the report's
// exposed communication (and to the union arithmetic of intervals.h).
#include "analysis/gapcauses.h"
#include "analysis/htabreakdown.h"
#include "analysis/intervals.h"
#include "cptestutil.h"
#include "htagoldens.h"
#include "report/breakdownreport.h"
#include "tracebuilder.h"

#include <cmath>
#include <map>

using namespace syncscope;
using namespace htagolden;

namespace {

// Stream 7: gemm 100-150, gemm 160-200 launched at 95 (gap 10 < 30, launched early:
// kernel wait), relu 300-320 launched at 250 after the stream drained (host wait 100),
// relu 400-420 launched at 260 (gap 80, launched early: other). Stream 8: an NCCL kernel
// 180-280 (the gemm covers 180-200: exposed 200-280), a second one 290-330 launched at
// 285 after the first ended (host wait 10), half under relu 300-320: exposed 290-300
// and 320-330.
std::string inlineTrace()
{
    testutil::KinetoBuilder b;
    b.runtime("cudaLaunchKernel", 1, 90, 5, 1).kernel("gemm", 7, 100, 50, 1);
    b.runtime("cudaLaunchKernel", 1, 95, 5, 2).kernel("gemm", 7, 160, 40, 2);
    b.runtime("cudaLaunchKernel", 1, 250, 5, 3).kernel("relu", 7, 300, 20, 3);
    b.runtime("cudaLaunchKernel", 1, 260, 5, 4).kernel("relu", 7, 400, 20, 4);
    b.runtime("cudaLaunchKernel", 1, 170, 5, 5).kernel("ncclKernel_AllReduce_RING_LL_Sum_float", 8, 180, 100, 5);
    b.runtime("cudaLaunchKernel", 1, 285, 2, 6).kernel("ncclKernel_AllGather_RING_LL_float", 8, 290, 40, 6);
    return b.json();
}

double round2(double x) { return std::nearbyint(x * 100) / 100; }

} // namespace

class TestGapCauses : public QObject
{
    Q_OBJECT
private slots:
    void inlineGaps();
    void inlineExposed();
    void traceTimeBase();
    void sumsEqualBreakdown_data();
    void sumsEqualBreakdown();
};

void TestGapCauses::inlineGaps()
{
    Diagnostics diag;
    auto trace = cptest::loadInline(inlineTrace(), diag, "gapcauses.json");
    QVERIFY(trace);
    const hta::RowTable rows(*trace, hta::RowOptions{}, diag);
    const std::vector<StreamIdleGaps> streams = idleGaps(rows);
    QCOMPARE(streams.size(), size_t(2));
    QCOMPARE(streams[0].stream, int64_t(7));
    QCOMPARE(streams[1].stream, int64_t(8));
    const std::vector<IdleGap> &s7 = streams[0].gaps;
    QCOMPARE(s7.size(), size_t(3));
    // Times are HTA's: aligned to the earliest row (the launch at 90).
    QCOMPARE(s7[0].startUs, 60.0);
    QCOMPARE(s7[0].endUs, 70.0);
    QCOMPARE(s7[0].cause, IdleCause::KernelWait);
    QCOMPARE(s7[1].endUs - s7[1].startUs, 100.0);
    QCOMPARE(s7[1].cause, IdleCause::HostWait);
    QCOMPARE(s7[2].endUs - s7[2].startUs, 80.0);
    QCOMPARE(s7[2].cause, IdleCause::Other);
    QCOMPARE(trace->str(trace->events[s7[1].before].name), std::string_view("gemm"));
    QCOMPARE(trace->str(trace->events[s7[1].after].name), std::string_view("relu"));
    QCOMPARE(streams[1].gaps.size(), size_t(1));
    QCOMPARE(streams[1].gaps[0].cause, IdleCause::HostWait);
    QCOMPARE(streams[1].gaps[0].endUs - streams[1].gaps[0].startUs, 10.0);
    QCOMPARE(std::string(idleCauseName(IdleCause::KernelWait)), std::string("kernel_wait"));
    // The breakdown sums exactly these gaps.
    const HtaBreakdown b = computeHtaBreakdown(rows);
    std::map<std::string, double> rowsOf;
    for (const HtaIdleTimeRow &r : b.idle_time)
        rowsOf[std::to_string(r.stream) + " " + r.idle_category] = r.idle_time_us;
    QCOMPARE(rowsOf["7 host_wait"], 100.0);
    QCOMPARE(rowsOf["7 kernel_wait"], 10.0);
    QCOMPARE(rowsOf["7 other"], 80.0);
    QCOMPARE(rowsOf["8 host_wait"], 10.0);
    QCOMPARE(rowsOf.count("8 kernel_wait"), size_t(0));
}

void TestGapCauses::inlineExposed()
{
    Diagnostics diag;
    auto trace = cptest::loadInline(inlineTrace(), diag, "gapcauses.json");
    QVERIFY(trace);
    const hta::RowTable rows(*trace, hta::RowOptions{}, diag);
    const std::vector<GpuExposedComm> gpus = exposedCommIntervals(rows);
    QCOMPARE(gpus.size(), size_t(1));
    const std::vector<ExposedInterval> &x = gpus[0].exposed;
    QCOMPARE(x.size(), size_t(3));
    // HTA times (origin 90) and the trace's ns (origin: its earliest event, also 90 µs).
    QCOMPARE(x[0].startUs, 110.0);
    QCOMPARE(x[0].endUs, 190.0);
    QCOMPARE(x[0].startNs, int64_t(110000));
    QCOMPARE(x[0].endNs, int64_t(190000));
    QCOMPARE(x[1].startUs, 200.0);
    QCOMPARE(x[1].endUs, 210.0);
    QCOMPARE(x[2].startUs, 230.0);
    QCOMPARE(x[2].endUs, 240.0);
    QCOMPARE(gpus[0].comm_us, 140.0);
    const ExposedComm sums = exposedCommunication(rows);
    QCOMPARE(sums.exposed_us, 100.0);
    QCOMPARE(sums.comm_us, 140.0);
}

// HTA rounds a fractional trace (ceil the start, floor the end); the ns stay the events' own.
void TestGapCauses::traceTimeBase()
{
    testutil::KinetoBuilder b;
    b.runtime("cudaLaunchKernel", 1, 90.25, 5, 1).kernel("gemm", 7, 100.4, 10.2, 1);
    b.runtime("cudaLaunchKernel", 1, 95.5, 5, 2).kernel("gemm", 7, 120.7, 5, 2);
    Diagnostics diag;
    auto trace = cptest::loadInline(b.json(), diag, "gapcauses_ns.json");
    QVERIFY(trace);
    const hta::RowTable rows(*trace, hta::RowOptions{}, diag);
    QVERIFY(rows.rounded());
    const std::vector<StreamIdleGaps> streams = idleGaps(rows);
    QCOMPARE(streams.size(), size_t(1));
    QCOMPARE(streams[0].gaps.size(), size_t(1));
    const IdleGap &g = streams[0].gaps[0];
    QCOMPARE(g.endUs - g.startUs, 11.0);   // HTA: ceil(120.7) - floor(110.6)
    QCOMPARE(trace->minTsNs, int64_t(90250));
    QCOMPARE(g.startNs, int64_t(110600 - 90250)); // the gemm's own end
    QCOMPARE(g.endNs, int64_t(120700 - 90250));
    QCOMPARE(g.cause, IdleCause::KernelWait);
}

void TestGapCauses::sumsEqualBreakdown_data()
{
    QTest::addColumn<QString>("key");
    for (const char *k : kHtaGoldens)
        QTest::newRow(k) << QString(k);
}

// On every HTA golden trace: per (stream, category) the gaps add up to the idle rows
// (which equal HTA's, tst_htabreakdown::htaGoldens), and per GPU the exposed intervals
// to comm minus its overlap with computation.
void TestGapCauses::sumsEqualBreakdown()
{
    REQUIRE_SHARED_DATA();
    QFETCH(QString, key);
    const nlohmann::json g = loadGolden(key.toStdString());
    Diagnostics diag;
    auto trace = cptest::load(testutil::sharedData(g.at("trace").get<std::string>()), diag);
    QVERIFY(trace);
    const hta::RowTable rows(*trace, hta::RowOptions{}, diag);
    const HtaBreakdown b = computeHtaBreakdown(rows);
    std::map<std::pair<int64_t, int>, double> sums;
    size_t gaps = 0;
    for (const StreamIdleGaps &s : idleGaps(rows)) {
        sums[{s.stream, int(IdleCause::Other)}] += 0; // the first row's "other"
        for (const IdleGap &gap : s.gaps) {
            sums[{s.stream, int(gap.cause)}] += gap.endUs - gap.startUs;
            // The trace's own ns are the events' ends: within HTA's 1 µs rounding of the same gap.
            QCOMPARE(gap.startNs, trace->events[gap.before].endNs() - trace->minTsNs);
            QVERIFY(std::fabs((gap.endNs - gap.startNs) / 1000.0 - (gap.endUs - gap.startUs)) <= 2.0);
            ++gaps;
        }
    }
    QVERIFY(gaps > 0);
    QCOMPARE(sums.size(), b.idle_time.size());
    for (const HtaIdleTimeRow &r : b.idle_time) {
        int cause = r.idle_category == "host_wait" ? 0 : r.idle_category == "kernel_wait" ? 1 : 2;
        auto it = sums.find({r.stream, cause});
        QVERIFY2(it != sums.end(), r.idle_category.c_str());
        QCOMPARE(round2(it->second), r.idle_time_us);
    }
    // Exposed communication: the intervals against the union arithmetic.
    double exposed = 0, reference = 0;
    const std::vector<GpuExposedComm> gpus = exposedCommIntervals(rows);
    std::map<int64_t, std::pair<std::vector<Interval>, std::vector<Interval>>> byPid;
    for (uint32_t i = 0; i < rows.eventCount(); ++i) {
        if (!rows.isLoaded(i) || rows.stream(i) == -1)
            continue;
        const HtaKernelType t = htaKernelType(trace->str(trace->events[i].name));
        auto &pair = byPid[trace->events[i].pid];
        if (t == HtaKernelType::Communication)
            pair.first.push_back({rows.ts(i), rows.end(i)});
        else if (t == HtaKernelType::Computation)
            pair.second.push_back({rows.ts(i), rows.end(i)});
    }
    for (auto &[pid, p] : byPid) {
        const auto comm = mergeIntervals(p.first);
        reference += totalLength(comm) - overlapLength(comm, mergeIntervals(p.second));
    }
    for (const GpuExposedComm &gpu : gpus)
        for (size_t k = 0; k < gpu.exposed.size(); ++k) {
            const ExposedInterval &iv = gpu.exposed[k];
            QVERIFY(iv.endUs > iv.startUs);
            QVERIFY(k == 0 || gpu.exposed[k - 1].endUs <= iv.startUs);
            exposed += iv.endUs - iv.startUs;
        }
    QVERIFY(std::fabs(exposed - reference) <= 1e-6 * std::max(1.0, reference));
    QCOMPARE(exposedCommunication(rows).exposed_us, exposed);
    if (key == "hta_nccl_data" || key == "param_dlrm_rank0")
        QVERIFY2(exposed > 0, "a trace with NCCL kernels has exposed communication");
}

QTEST_GUILESS_MAIN(TestGapCauses)
#include "tst_gapcauses.moc"
