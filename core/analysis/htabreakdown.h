// SPDX-License-Identifier: MIT
// HTA f4d0062's whole-trace breakdowns of one rank, reproduced exactly
// (docs/breakdowns.md): get_temporal_breakdown, get_idle_time_breakdown,
// get_gpu_kernel_breakdown and get_comm_comp_overlap. Times are HTA's: the
// trace's µs after HTA's load (hta::RowTable: ns rounding, alignment, the
// last-ProfilerStep filter). NaN marks a value HTA leaves undefined (0/0).
#pragma once

#include "analysis/htarows.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace syncscope {

// hta/utils/utils.py KernelType, classified by get_kernel_type's name patterns.
enum class HtaKernelType : uint8_t { Communication, Memory, Computation, Other };
HtaKernelType htaKernelType(std::string_view name);
const char *htaKernelTypeName(HtaKernelType type); // "COMMUNICATION", ...

struct HtaBreakdownOptions {
    // get_idle_time_breakdown: gaps below this are kernel wait. HTA documents it in
    // ns, but compares it with µs gaps, so it is 30 µs in effect.
    double consecutive_kernel_delay = 30;
    // get_gpu_kernel_breakdown (TraceAnalysis defaults).
    double duration_ratio = 0.8;
    int num_kernels = 10;
    bool include_memory_kernels = true;
};

// get_temporal_breakdown, one row (one rank).
struct HtaTemporalBreakdown {
    bool valid = false; // false: no row with a stream (HTA raises IndexError)
    double idle_time_us = 0, compute_time_us = 0, non_compute_time_us = 0, kernel_time_us = 0;
    double idle_time_pct = 0, compute_time_pct = 0, non_compute_time_pct = 0; // rounded to 2 decimals
};

// get_idle_time_breakdown, one row per (stream, category) HTA emits.
struct HtaIdleTimeRow {
    int64_t stream = -1;
    std::string idle_category; // "host_wait", "kernel_wait", "other"
    double idle_time_us = 0;   // rounded to 2 decimals
    double idle_time_ratio = 0; // of the stream's idle time, rounded to 2 decimals; NaN when that is 0
};

// get_gpu_kernel_breakdown's first frame (before the cross-rank sum: one rank).
struct HtaKernelTypeRow {
    std::string kernel_type; // "COMPUTATION", "COMMUNICATION overlapping MEMORY", ...
    double sum_us = 0;
    double percentage = 0; // rounded to 1 decimal
};

// get_gpu_kernel_breakdown's second frame.
struct HtaKernelRow {
    std::string kernel_type; // COMMUNICATION / COMPUTATION / MEMORY
    std::string name;        // or "others"
    double sum_us = 0, max_us = 0, min_us = 0, mean_us = 0;
    double stddev = 0; // sample standard deviation (ddof 1), 0 for one value
};

struct HtaBreakdown {
    HtaTemporalBreakdown temporal;
    std::vector<HtaIdleTimeRow> idle_time;
    double comm_comp_overlap_pct = 0; // NaN when the rank has no communication time
    std::vector<HtaKernelTypeRow> kernels_by_type;
    std::vector<HtaKernelRow> kernels_by_kernel;
};

HtaBreakdown computeHtaBreakdown(const hta::RowTable &rows, const HtaBreakdownOptions &options = {});

} // namespace syncscope
