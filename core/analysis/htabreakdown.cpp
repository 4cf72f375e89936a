// SPDX-License-Identifier: MIT
#include "analysis/htabreakdown.h"

#include "analysis/gapcauses.h"
#include "analysis/intervals.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>

namespace syncscope {

namespace {

bool startsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool contains(std::string_view s, std::string_view p) { return s.find(p) != std::string_view::npos; }

// numpy.around(x, decimals): scale, round half to even, unscale (pandas' round).
double npRound(double x, int decimals)
{
    const double scale = decimals == 1 ? 10.0 : 100.0;
    return std::nearbyint(x * scale) / scale;
}

struct GpuRow {
    uint32_t event;
    HtaKernelType type;
};

HtaTemporalBreakdown temporal(const std::vector<Interval> &all, const std::vector<Interval> &comp)
{
    HtaTemporalBreakdown t;
    if (all.empty())
        return t; // HTA: merged_kernels.iloc[-1] raises
    t.valid = true;
    t.kernel_time_us = all.back().end - all.front().ts;
    t.idle_time_us = t.kernel_time_us - totalLength(all);
    t.compute_time_us = totalLength(comp);
    t.non_compute_time_us = t.kernel_time_us - t.compute_time_us - t.idle_time_us;
    // HTA: ratio = part / kernel_time, then round(100 * ratio, 2); 0/0 gives NaN.
    auto pct = [&](double part) { return npRound(100 * (part / t.kernel_time_us), 2); };
    t.idle_time_pct = pct(t.idle_time_us);
    t.compute_time_pct = pct(t.compute_time_us);
    t.non_compute_time_pct = pct(t.non_compute_time_us);
    return t;
}

// _get_gpu_kernel_type_time: time in each combination of running kernel types
// (one bit per analysed type, in HTA's order COMPUTATION, COMMUNICATION, MEMORY).
std::vector<HtaKernelTypeRow> kernelTypeTime(const std::vector<std::vector<Interval>> &merged,
                                             const std::vector<HtaKernelType> &types)
{
    std::vector<std::pair<double, int>> edges;
    for (size_t k = 0; k < merged.size(); ++k)
        for (const Interval &iv : merged[k]) {
            edges.push_back({iv.ts, 1 << k});
            edges.push_back({iv.end, -(1 << k)});
        }
    std::sort(edges.begin(), edges.end());
    std::map<int, double> byRunning;
    int running = 0;
    for (size_t i = 0; i < edges.size(); ++i) {
        running += edges[i].second;
        // Zero-length segments between tied edges are skipped (see docs: HTA may list them as 0 rows).
        if (running > 0 && i + 1 < edges.size() && edges[i + 1].first > edges[i].first)
            byRunning[running] += edges[i + 1].first - edges[i].first;
    }
    std::vector<HtaKernelTypeRow> rows;
    double total = 0;
    for (const auto &[bits, sum] : byRunning) {
        std::string label;
        for (size_t k = 0; k < types.size(); ++k)
            if (bits & (1 << k))
                label += (label.empty() ? "" : " overlapping ") + std::string(htaKernelTypeName(types[k]));
        rows.push_back({label, sum, 0});
        total += sum;
    }
    for (HtaKernelTypeRow &r : rows)
        r.percentage = npRound((r.sum_us / total) * 100, 1);
    // HTA sorts by sum descending (unstable); ties are put in name order here.
    std::sort(rows.begin(), rows.end(), [](const HtaKernelTypeRow &a, const HtaKernelTypeRow &b) {
        return a.sum_us != b.sum_us ? a.sum_us > b.sum_us : a.kernel_type < b.kernel_type;
    });
    return rows;
}

struct Stats {
    double sum = 0, max = 0, min = 0, mean = 0, std = 0;
};

Stats statsOf(const std::vector<double> &v)
{
    Stats s;
    s.max = *std::max_element(v.begin(), v.end());
    s.min = *std::min_element(v.begin(), v.end());
    for (double x : v)
        s.sum += x;
    s.mean = s.sum / static_cast<double>(v.size());
    if (v.size() > 1) {
        double sq = 0;
        for (double x : v)
            sq += (x - s.mean) * (x - s.mean);
        s.std = std::sqrt(sq / static_cast<double>(v.size() - 1));
    }
    return s;
}

// numpy.quantile's default linear interpolation.
double quantile(const std::vector<double> &sorted, double q)
{
    const double pos = static_cast<double>(sorted.size() - 1) * q;
    const size_t lo = static_cast<size_t>(std::floor(pos));
    if (lo + 1 >= sorted.size())
        return sorted.back();
    return sorted[lo] + (sorted[lo + 1] - sorted[lo]) * (pos - static_cast<double>(lo));
}

// _aggr_gpu_kernel_time for one kernel type.
void aggregateKernels(const std::map<std::string, std::vector<double>> &byName, HtaKernelType type,
                      const HtaBreakdownOptions &options, std::vector<HtaKernelRow> &out)
{
    struct Named {
        std::string name;
        Stats stats;
    };
    std::vector<Named> rows;
    for (const auto &[name, durs] : byName)
        rows.push_back({name, statsOf(durs)});
    // Sum descending; HTA's sort is unstable, ties are put in name order here.
    std::stable_sort(rows.begin(), rows.end(), [](const Named &a, const Named &b) { return a.stats.sum > b.stats.sum; });
    const std::string typeName = htaKernelTypeName(type);
    if (rows.size() <= static_cast<size_t>(std::max(options.num_kernels, 0))) {
        for (const Named &r : rows)
            out.push_back({typeName, r.name, r.stats.sum, r.stats.max, r.stats.min, r.stats.mean, r.stats.std});
        return;
    }
    // Trimmed: a kernel past the duration_ratio quantile of the running sums, or past
    // num_kernels, becomes "others"; every row's statistics are then taken over the
    // per-kernel sums (so a kept kernel's max/min/mean equal its sum), as HTA does.
    std::vector<double> cumsum(rows.size());
    double acc = 0;
    for (size_t i = 0; i < rows.size(); ++i)
        cumsum[i] = acc += rows[i].stats.sum;
    const double q = quantile(cumsum, options.duration_ratio);
    std::map<std::string, std::vector<double>> regrouped;
    for (size_t i = 0; i < rows.size(); ++i) {
        const bool other = cumsum[i] > q || i >= static_cast<size_t>(options.num_kernels);
        regrouped[other ? std::string("others") : rows[i].name].push_back(rows[i].stats.sum);
    }
    for (const auto &[name, sums] : regrouped) {
        const Stats s = statsOf(sums);
        out.push_back({typeName, name, s.sum, s.max, s.min, s.mean, s.std});
    }
}

// get_idle_time_breakdown for all streams of the rank: the sums of idleGaps (gapcauses.h,
// the one classifier, also drawn on the timeline).
std::vector<HtaIdleTimeRow> idleTime(const hta::RowTable &rows, const std::vector<uint32_t> &order,
                                     const HtaBreakdownOptions &options)
{
    static constexpr std::array<const char *, 3> names = {"host_wait", "kernel_wait", "other"};
    std::vector<HtaIdleTimeRow> out;
    for (const StreamIdleGaps &s : idleGaps(rows, order, IdleGapOptions{options.consecutive_kernel_delay})) {
        std::array<double, 3> sum{0, 0, 0};
        std::array<bool, 3> present{false, false, true}; // the first row is "other", with no gap
        for (const IdleGap &g : s.gaps) {
            const size_t cat = static_cast<size_t>(g.cause);
            present[cat] = true;
            sum[cat] += g.endUs - g.startUs;
        }
        const double total = sum[0] + sum[1] + sum[2];
        for (size_t c = 0; c < 3; ++c)
            if (present[c])
                out.push_back({s.stream, names[c], npRound(sum[c], 2), npRound(sum[c] / total, 2)});
    }
    return out;
}

} // namespace

HtaKernelType htaKernelType(std::string_view n)
{
    // hta/common/types.py patterns, applied with re.match (anchored at the start).
    if (startsWith(n, "nccl") || startsWith(n, "hip") || startsWith(n, "hccl") || contains(n, "ncclKernel"))
        return HtaKernelType::Communication;
    if (startsWith(n, "Memcpy") || startsWith(n, "Memset") || startsWith(n, "dma"))
        return HtaKernelType::Memory;
    const size_t cuda = startsWith(n, "cuda") ? 4 : std::string_view::npos;
    const bool notCompute =
        contains(n, "Memcpy") || contains(n, "Memset") || contains(n, "dma") || contains(n, "Sync") ||
        startsWith(n, "Stream Wait Event") || (cuda != std::string_view::npos && contains(n.substr(cuda), "LaunchKernel")) ||
        startsWith(n, "runFunction") || startsWith(n, "job_exe") || startsWith(n, "packet") ||
        startsWith(n, "pe_exe") || startsWith(n, "cpum_exe_subgraph") || startsWith(n, "collective_subgraph_execution");
    return notCompute ? HtaKernelType::Other : HtaKernelType::Computation;
}

const char *htaKernelTypeName(HtaKernelType type)
{
    switch (type) {
    case HtaKernelType::Communication: return "COMMUNICATION";
    case HtaKernelType::Memory: return "MEMORY";
    case HtaKernelType::Computation: return "COMPUTATION";
    case HtaKernelType::Other: break;
    }
    return "OTHER";
}

HtaBreakdown computeHtaBreakdown(const hta::RowTable &rows, const HtaBreakdownOptions &options)
{
    const KinetoTrace &trace = rows.trace();
    const std::vector<uint32_t> order = rows.tableOrder();
    // HTA's "GPU kernels" here are all rows with a stream (cuda_sync rows included).
    std::vector<HtaKernelType> typeOfName(trace.strings.size(), HtaKernelType::Other);
    std::vector<uint8_t> classified(trace.strings.size(), 0);
    std::vector<Interval> all;
    std::array<std::vector<Interval>, 4> byType;
    // Durations by name id first: a string-keyed map per kernel row cost more than the rest.
    std::vector<std::vector<double>> durById(trace.strings.size());
    for (uint32_t i : order) {
        if (rows.stream(i) == -1)
            continue;
        const StrId name = trace.events[i].name;
        if (!classified[name]) {
            typeOfName[name] = htaKernelType(trace.strings.view(name));
            classified[name] = 1;
        }
        const HtaKernelType type = typeOfName[name];
        const Interval iv{rows.ts(i), rows.end(i)};
        all.push_back(iv);
        byType[static_cast<size_t>(type)].push_back(iv);
        durById[name].push_back(rows.dur(i));
    }
    std::array<std::map<std::string, std::vector<double>>, 4> durByName;
    for (StrId id = 0; id < durById.size(); ++id)
        if (!durById[id].empty())
            durByName[static_cast<size_t>(typeOfName[id])].emplace(std::string(trace.strings.view(id)),
                                                                    std::move(durById[id]));
    const auto idx = [](HtaKernelType t) { return static_cast<size_t>(t); };
    std::array<std::vector<Interval>, 4> merged;
    for (size_t k = 0; k < 4; ++k)
        merged[k] = mergeIntervals(byType[k]);

    HtaBreakdown b;
    b.temporal = temporal(mergeIntervals(all), merged[idx(HtaKernelType::Computation)]);
    b.idle_time = idleTime(rows, order, options);

    const auto &comm = merged[idx(HtaKernelType::Communication)];
    b.comm_comp_overlap_pct =
        npRound(100 * (overlapLength(comm, merged[idx(HtaKernelType::Computation)]) / totalLength(comm)), 2);

    std::vector<HtaKernelType> types = {HtaKernelType::Computation, HtaKernelType::Communication};
    if (options.include_memory_kernels)
        types.push_back(HtaKernelType::Memory);
    std::vector<std::vector<Interval>> mergedTypes;
    for (HtaKernelType t : types) {
        mergedTypes.push_back(merged[idx(t)]);
        aggregateKernels(durByName[idx(t)], t, options, b.kernels_by_kernel);
    }
    b.kernels_by_type = kernelTypeTime(mergedTypes, types);
    // HTA's final order: kernel_type, then name (a stable sort).
    std::stable_sort(b.kernels_by_kernel.begin(), b.kernels_by_kernel.end(),
                     [](const HtaKernelRow &a, const HtaKernelRow &c) {
                         return a.kernel_type != c.kernel_type ? a.kernel_type < c.kernel_type : a.name < c.name;
                     });
    return b;
}

} // namespace syncscope
