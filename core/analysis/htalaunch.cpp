// SPDX-License-Identifier: MIT
#include "analysis/htalaunch.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <string_view>

namespace syncscope {

namespace {

// The names cuda_kernel_launch_stats selects by (not the longer launch list of the
// queue length, which also has cuLaunchKernel and the HIP names).
constexpr std::string_view kStatsLaunchNames[] = {"cudaLaunchKernel", "cudaLaunchKernelExC",
                                                  "runFunction - job_prep_and_submit_for_execution"};
constexpr std::string_view kStatsMemoryNames[] = {"cudaMemcpyAsync", "cudaMemsetAsync"};

// A correlation shared by more CPU x GPU rows than this keeps only its last CPU row:
// HTA pairs every one with every one, which grows with the square on a hostile trace.
constexpr size_t kMaxFanout = 4096;

struct CorrRow {
    int64_t corr;
    uint32_t pos; // position in table order
    uint32_t event;
    bool operator<(const CorrRow &o) const { return corr != o.corr ? corr < o.corr : pos < o.pos; }
};

std::pair<const CorrRow *, const CorrRow *> equalCorr(const std::vector<CorrRow> &v, int64_t corr)
{
    // Both ends by binary search: a walk over the equal rows, once per CPU row of a shared
    // correlation, was N x N before the fan-out cap could apply (issue 40).
    auto lo = std::lower_bound(v.begin(), v.end(), corr, [](const CorrRow &r, int64_t c) { return r.corr < c; });
    auto hi = std::upper_bound(lo, v.end(), corr, [](int64_t c, const CorrRow &r) { return c < r.corr; });
    return {v.data() + (lo - v.begin()), v.data() + (hi - v.begin())};
}

} // namespace

KernelLaunchStats cudaKernelLaunchStats(const hta::RowTable &rows, const LaunchStatsOptions &options,
                                        Diagnostics &diag)
{
    KernelLaunchStats out;
    out.runtime_cutoff_us = options.runtime_cutoff_us;
    out.launch_delay_cutoff_us = options.launch_delay_cutoff_us;
    const KinetoTrace &trace = rows.trace();
    const auto &events = trace.events;

    std::vector<uint8_t> selected(trace.strings.size(), 0);
    for (std::string_view s : kStatsLaunchNames)
        if (int64_t id = trace.strings.find(s); id >= 0)
            selected[static_cast<size_t>(id)] = 1;
    if (options.include_memory_events)
        for (std::string_view s : kStatsMemoryNames)
            if (int64_t id = trace.strings.find(s); id >= 0)
                selected[static_cast<size_t>(id)] = 1;

    // The correlation ids of the selected calls. An absent correlation (-1) is never
    // joined: HTA would pair every such CPU row with every such GPU row.
    const std::vector<uint32_t> order = rows.tableOrder();
    std::vector<int64_t> ids;
    for (uint32_t i : order) {
        const KinetoEvent &e = events[i];
        if (e.name < selected.size() && selected[e.name] && e.correlation >= 0)
            ids.push_back(e.correlation);
    }
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    // Kineto's correlation ids are small and dense: a bitmap answers in O(1) where it
    // stays within a few bytes per event; hostile ids fall back to binary search.
    std::vector<uint8_t> idBits;
    if (!ids.empty() && ids.back() < static_cast<int64_t>(8 * events.size() + 1024)) {
        idBits.assign(static_cast<size_t>(ids.back()) + 1, 0);
        for (int64_t c : ids)
            idBits[static_cast<size_t>(c)] = 1;
    }
    auto inIds = [&](int64_t c) {
        if (c < 0)
            return false;
        if (!idBits.empty())
            return c < static_cast<int64_t>(idBits.size()) && idBits[static_cast<size_t>(c)] != 0;
        return std::binary_search(ids.begin(), ids.end(), c);
    };

    // Every CPU row (stream -1) and GPU row carrying one of those ids, whatever its name.
    std::vector<CorrRow> cpu, gpu;
    for (uint32_t pos = 0; pos < order.size(); ++pos) {
        const uint32_t i = order[pos];
        if (!inIds(events[i].correlation))
            continue;
        (rows.stream(i) == -1 ? cpu : gpu).push_back({events[i].correlation, pos, i});
    }
    std::vector<CorrRow> gpuByCorr = gpu;
    std::sort(gpuByCorr.begin(), gpuByCorr.end());
    std::vector<CorrRow> cpuByCorr = cpu;
    std::sort(cpuByCorr.begin(), cpuByCorr.end());

    size_t leftOut = 0;
    for (const CorrRow &c : cpu) {
        const auto [glo, ghi] = equalCorr(gpuByCorr, c.corr);
        if (glo == ghi)
            continue;
        const auto [clo, chi] = equalCorr(cpuByCorr, c.corr);
        const size_t nCpu = static_cast<size_t>(chi - clo), nGpu = static_cast<size_t>(ghi - glo);
        if (nCpu > 1 && nCpu * nGpu > kMaxFanout && (chi - 1)->pos != c.pos) {
            ++leftOut;
            continue;
        }
        const double cpuTs = rows.ts(c.event), cpuDur = rows.dur(c.event);
        for (const CorrRow *g = glo; g != ghi; ++g) {
            KernelLaunchRow r;
            r.correlation = c.corr;
            r.runtime_event = c.event;
            r.gpu_event = g->event;
            r.cpu_duration_us = cpuDur;
            r.gpu_duration_us = rows.dur(g->event);
            r.launch_delay_us = std::max(0.0, rows.ts(g->event) - cpuTs - cpuDur);
            out.rows.push_back(r);
        }
    }
    if (leftOut > 0)
        diag.warning("launch_stats.shared_correlation",
                     trace.path + ": " + std::to_string(leftOut) +
                         " CPU rows share a correlation id with many others; launch statistics keep only the last "
                         "of each (HTA pairs every CPU row with every GPU row of the id)",
                     trace.path);

    for (uint32_t k = 0; k < out.rows.size(); ++k) {
        const KernelLaunchRow &r = out.rows[k];
        if (r.cpu_duration_us <= options.runtime_cutoff_us && r.gpu_duration_us < r.cpu_duration_us)
            out.short_kernels.push_back(k);
        if (r.cpu_duration_us > options.runtime_cutoff_us)
            out.runtime_outliers.push_back(k);
        if (r.launch_delay_us > options.launch_delay_cutoff_us)
            out.launch_delay_outliers.push_back(k);
    }
    return out;
}

KernelLaunchStats cudaKernelLaunchStats(const KinetoTrace &trace, Diagnostics &diag, const LaunchStatsOptions &options)
{
    const hta::RowTable rows(trace, hta::RowOptions{}, diag);
    return cudaKernelLaunchStats(rows, options, diag);
}

QueueLengthSummary describeQueueLengths(std::vector<int32_t> values)
{
    QueueLengthSummary s;
    s.count = values.size();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    if (values.empty()) {
        s.mean = s.std = s.min = s.p25 = s.p50 = s.p75 = s.max = nan;
        return s;
    }
    std::sort(values.begin(), values.end());
    double sum = 0;
    for (int32_t v : values)
        sum += v;
    s.mean = sum / static_cast<double>(values.size());
    double sq = 0;
    for (int32_t v : values)
        sq += (v - s.mean) * (v - s.mean);
    s.std = values.size() > 1 ? std::sqrt(sq / static_cast<double>(values.size() - 1)) : nan;
    // pandas/numpy "linear": position q * (n - 1) between the two nearest values.
    auto quantile = [&](double q) {
        const double pos = q * static_cast<double>(values.size() - 1);
        const size_t lo = static_cast<size_t>(std::floor(pos));
        const size_t hi = std::min(lo + 1, values.size() - 1);
        return values[lo] + (pos - static_cast<double>(lo)) * (values[hi] - values[lo]);
    };
    s.min = values.front();
    s.p25 = quantile(0.25);
    s.p50 = quantile(0.5);
    s.p75 = quantile(0.75);
    s.max = values.back();
    return s;
}

QueueLengthResult queueLength(const hta::RowTable &rows, Diagnostics &diag)
{
    QueueLengthResult out;
    const KinetoTrace &trace = rows.trace();
    const auto &events = trace.events;
    const uint32_t n = static_cast<uint32_t>(rows.eventCount());

    // Launch calls: HTA's get_runtime_launch_events_mask (RowTable's launch names).
    std::vector<CorrRow> launches, gpu;
    for (uint32_t i = 0; i < n; ++i) {
        if (!rows.isLoaded(i))
            continue;
        if (rows.nameRoles(i) & hta::RoleLaunch)
            launches.push_back({events[i].correlation, i, i});
        else if (rows.stream(i) != -1)
            gpu.push_back({events[i].correlation, i, i});
    }
    std::sort(launches.begin(), launches.end());
    std::sort(gpu.begin(), gpu.end());

    struct Step {
        double ts;
        bool launch;
        uint32_t event;
        uint32_t gpuEvent;
        int64_t stream;
        int32_t delta;
    };
    std::vector<Step> steps;
    std::vector<uint8_t> launched(gpu.size(), 0); // per GPU row: a launch call has its correlation
    size_t leftOut = 0;
    // +1 per (launch, GPU row of its correlation), on that row's stream (HTA's left join).
    for (size_t a = 0; a < launches.size();) {
        const int64_t corr = launches[a].corr;
        size_t b = a;
        while (b < launches.size() && launches[b].corr == corr)
            ++b;
        const auto [glo, ghi] = equalCorr(gpu, corr);
        if (glo == ghi) {
            out.unmatched_launches += b - a;
            a = b;
            continue;
        }
        std::fill(launched.begin() + (glo - gpu.data()), launched.begin() + (ghi - gpu.data()), 1);
        if (b - a > 1 && (b - a) * static_cast<size_t>(ghi - glo) > kMaxFanout) {
            leftOut += b - a - 1;
            a = b - 1;
        }
        for (; a < b; ++a)
            for (const CorrRow *g = glo; g != ghi; ++g)
                steps.push_back({rows.ts(launches[a].event), true, launches[a].event, g->event,
                                 rows.stream(g->event), +1});
    }
    // -1 at the start of each GPU row whose correlation a launch call has (HTA's semi-join).
    for (size_t k = 0; k < gpu.size(); ++k)
        if (launched[k])
            steps.push_back({rows.ts(gpu[k].event), false, gpu[k].event, gpu[k].event, rows.stream(gpu[k].event), -1});
    if (leftOut > 0)
        diag.warning("queue_length.shared_correlation",
                     trace.path + ": " + std::to_string(leftOut) +
                         " launch calls share a correlation id with many GPU rows; the queue length counts only the "
                         "last launch of each",
                     trace.path);

    // Grouped by stream (ascending), then HTA's sort by ts. HTA's sort is unstable; ties
    // as the critical path's queue length (critical_path_spec 2.7.1): launches first,
    // then event index. One sort on the whole key.
    std::sort(steps.begin(), steps.end(), [](const Step &x, const Step &y) {
        if (x.stream != y.stream)
            return x.stream < y.stream;
        if (x.ts != y.ts)
            return x.ts < y.ts;
        if (x.launch != y.launch)
            return x.launch;
        if (x.event != y.event)
            return x.event < y.event;
        return x.gpuEvent < y.gpuEvent;
    });
    out.series.reserve(steps.size());
    for (size_t a = 0; a < steps.size();) {
        size_t b = a;
        int32_t sum = 0;
        std::vector<int32_t> values;
        for (; b < steps.size() && steps[b].stream == steps[a].stream; ++b) {
            sum += steps[b].delta;
            values.push_back(sum);
            out.series.push_back({steps[b].ts, steps[b].stream, sum, steps[b].event, steps[b].gpuEvent});
        }
        QueueLengthSummary s = describeQueueLengths(std::move(values));
        s.stream = steps[a].stream;
        out.summary.push_back(s);
        a = b;
    }
    return out;
}

QueueLengthResult queueLength(const KinetoTrace &trace, Diagnostics &diag)
{
    const hta::RowTable rows(trace, hta::RowOptions{}, diag);
    return queueLength(rows, diag);
}

} // namespace syncscope
