// SPDX-License-Identifier: MIT
#include "rankbreakdown.h"

#include "analysis/htabreakdown.h"
#include "analysis/htarows.h"
#include "report/breakdownreport.h"
#include "session/analysis.h"
#include "summarybytes.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace syncscope {

using ojson = nlohmann::ordered_json;

RankBreakdown summarizeBreakdown(const BreakdownSet &set)
{
    RankBreakdown b;
    const HtaBreakdown &h = set.hta;
    const HtaTemporalBreakdown &t = h.temporal;
    b.valid = t.valid;
    b.idleUs = t.idle_time_us;
    b.computeUs = t.compute_time_us;
    b.nonComputeUs = t.non_compute_time_us;
    b.kernelUs = t.kernel_time_us;
    b.idlePct = t.idle_time_pct;
    b.computePct = t.compute_time_pct;
    b.nonComputePct = t.non_compute_time_pct;
    for (const HtaIdleTimeRow &r : h.idle_time)
        b.idle.push_back({r.stream, r.idle_category, r.idle_time_us, r.idle_time_ratio});
    b.overlapPct = h.comm_comp_overlap_pct;
    b.commUs = set.comm.comm_us;
    b.exposedCommUs = set.comm.exposed_us;
    b.memcpyUs = set.comm.memcpy_us;
    for (const HtaKernelTypeRow &r : h.kernels_by_type)
        b.byType.push_back({r.kernel_type, r.sum_us, r.percentage});
    // The largest kernels by sum ("others" is HTA's trimmed remainder, not a kernel).
    std::vector<const HtaKernelRow *> rows;
    for (const HtaKernelRow &r : h.kernels_by_kernel)
        if (r.name != "others")
            rows.push_back(&r);
    std::stable_sort(rows.begin(), rows.end(),
                     [](const HtaKernelRow *a, const HtaKernelRow *b) { return a->sum_us > b->sum_us; });
    for (size_t k = 0; k < rows.size() && k < kMaxRankTopKernels; ++k) {
        const HtaKernelRow &r = *rows[k];
        b.topKernels.push_back({r.kernel_type, r.name, r.sum_us, r.max_us, r.min_us, r.mean_us, r.stddev});
    }
    return b;
}

void addRankBreakdown(const Analysis &a, RankSummary &s)
{
    if (!a.device)
        return;
    if (a.breakdown && a.breakdown->computed) { // the pipeline computed them (AnalysisRequest::breakdowns)
        s.breakdown = summarizeBreakdown(a.breakdown->whole);
        return;
    }
    // Only what the summary keeps: HTA's four breakdowns and the exposed communication
    // (launch statistics and queue length are per-launch series a job report does not carry).
    Diagnostics scratch; // the critical path already reports the rows' problems
    const hta::RowTable rows(*a.device, hta::RowOptions{}, scratch);
    BreakdownSet set;
    set.hta = computeHtaBreakdown(rows);
    set.comm = exposedCommunication(rows);
    s.breakdown = summarizeBreakdown(set);
}

namespace {

ojson num(double v) { return std::isfinite(v) ? ojson(v) : ojson(nullptr); }

} // namespace

ojson rankBreakdownJson(const RankBreakdown &b)
{
    ojson j;
    if (b.valid)
        j["temporal"] = {{"idle_time_us", num(b.idleUs)},
                         {"compute_time_us", num(b.computeUs)},
                         {"non_compute_time_us", num(b.nonComputeUs)},
                         {"kernel_time_us", num(b.kernelUs)},
                         {"idle_time_pct", num(b.idlePct)},
                         {"compute_time_pct", num(b.computePct)},
                         {"non_compute_time_pct", num(b.nonComputePct)}};
    else
        j["temporal"] = nullptr; // no GPU row (HTA raises)
    ojson idle = ojson::array();
    for (const RankIdleRow &r : b.idle)
        idle.push_back({{"stream", r.stream},
                        {"idle_category", r.category},
                        {"idle_time_us", num(r.idleUs)},
                        {"idle_time_ratio", num(r.ratio)}});
    j["idle_time"] = idle;
    j["comm_comp_overlap_pct"] = num(b.overlapPct);
    j["comm_time_us"] = num(b.commUs);
    j["exposed_comm_us"] = num(b.exposedCommUs);
    j["memcpy_time_us"] = num(b.memcpyUs);
    ojson byType = ojson::array();
    for (const RankKernelTypeRow &r : b.byType)
        byType.push_back({{"kernel_type", r.type}, {"sum_us", num(r.sumUs)}, {"percentage", num(r.pct)}});
    ojson byKernel = ojson::array();
    for (const RankTopKernel &r : b.topKernels)
        byKernel.push_back({{"kernel_type", r.type},
                            {"name", r.name},
                            {"sum_us", num(r.sumUs)},
                            {"max_us", num(r.maxUs)},
                            {"min_us", num(r.minUs)},
                            {"mean_us", num(r.meanUs)},
                            {"stddev", num(r.stddev)}});
    j["kernels"] = {{"by_type", byType}, {"by_kernel", byKernel}};
    return j;
}

std::string formatRankBreakdowns(const std::vector<RankSummary> &ranks)
{
    std::string s;
    char line[256];
    auto pct = [](double part, double whole) { return whole > 0 ? 100.0 * part / whole : 0.0; };
    for (const RankSummary &r : ranks) {
        if (!r.breakdown || !r.breakdown->valid)
            continue;
        if (s.empty())
            s = "GPU per rank (whole trace, % of the GPU span; HTA / TraceLens):\n"
                "  rank  compute %  comm exposed %  memcpy %  idle %  comm/comp overlap %\n";
        const RankBreakdown &b = *r.breakdown;
        std::snprintf(line, sizeof line, "  %4lld %10.1f %15.1f %9.1f %7.1f", static_cast<long long>(r.rank),
                      pct(b.computeUs, b.kernelUs), pct(b.exposedCommUs, b.kernelUs), pct(b.memcpyUs, b.kernelUs),
                      pct(b.idleUs, b.kernelUs));
        s += line;
        if (std::isfinite(b.overlapPct)) {
            std::snprintf(line, sizeof line, " %20.1f", b.overlapPct);
            s += line;
        } else {
            s += "                    -";
        }
        s += "\n";
    }
    return s;
}

namespace summarybytes {

void writeRankBreakdown(Writer &w, const std::optional<RankBreakdown> &b)
{
    w.num(static_cast<uint8_t>(b.has_value()));
    if (!b)
        return;
    w.num(static_cast<uint8_t>(b->valid));
    for (double v : {b->idleUs, b->computeUs, b->nonComputeUs, b->kernelUs, b->idlePct, b->computePct,
                     b->nonComputePct, b->overlapPct, b->commUs, b->exposedCommUs, b->memcpyUs})
        w.num(v);
    w.num(static_cast<uint32_t>(b->idle.size()));
    for (const RankIdleRow &r : b->idle) {
        w.num(r.stream);
        w.str(r.category);
        w.num(r.idleUs);
        w.num(r.ratio);
    }
    w.num(static_cast<uint32_t>(b->byType.size()));
    for (const RankKernelTypeRow &r : b->byType) {
        w.str(r.type);
        w.num(r.sumUs);
        w.num(r.pct);
    }
    w.num(static_cast<uint32_t>(b->topKernels.size()));
    for (const RankTopKernel &r : b->topKernels) {
        w.str(r.type);
        w.str(r.name);
        for (double v : {r.sumUs, r.maxUs, r.minUs, r.meanUs, r.stddev})
            w.num(v);
    }
}

std::optional<RankBreakdown> readRankBreakdown(Reader &r)
{
    if (!r.flag())
        return std::nullopt;
    RankBreakdown b;
    b.valid = r.flag();
    for (double *v : {&b.idleUs, &b.computeUs, &b.nonComputeUs, &b.kernelUs, &b.idlePct, &b.computePct,
                      &b.nonComputePct})
        *v = finiteOrNan(r, "a breakdown time");
    // HTA gives NaN for undefined values (no communication, a span of 0): kept, not refused.
    b.overlapPct = finiteOrNan(r, "the comm/comp overlap");
    for (double *v : {&b.commUs, &b.exposedCommUs, &b.memcpyUs})
        *v = finiteOrNan(r, "a communication time");
    b.idle.resize(r.count(8 + 4 + 16, "idle-time rows"));
    for (RankIdleRow &row : b.idle) {
        row.stream = r.num<int64_t>();
        row.category = r.str();
        row.idleUs = finiteOrNan(r, "an idle time");
        row.ratio = finiteOrNan(r, "an idle-time ratio"); // NaN for a stream without idle time (HTA)
    }
    b.byType.resize(r.count(4 + 16, "kernel-type rows"));
    for (RankKernelTypeRow &row : b.byType) {
        row.type = r.str();
        row.sumUs = finiteOrNan(r, "a kernel-type time");
        row.pct = finiteOrNan(r, "a kernel-type share");
    }
    const size_t top = r.count(8 + 40, "top kernels");
    if (top > kMaxRankTopKernels)
        throw Corrupt(std::to_string(top) + " top kernels (at most " + std::to_string(kMaxRankTopKernels) + ")");
    b.topKernels.resize(top);
    for (RankTopKernel &row : b.topKernels) {
        row.type = r.str();
        row.name = r.str();
        for (double *v : {&row.sumUs, &row.maxUs, &row.minUs, &row.meanUs, &row.stddev})
            *v = finiteOrNan(r, "a kernel statistic");
    }
    return b;
}

} // namespace summarybytes

} // namespace syncscope
