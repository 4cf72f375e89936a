// SPDX-License-Identifier: MIT
// HTA f4d0062's kernel-launch statistics (CudaKernelAnalysis.cuda_kernel_launch_stats)
// and CUDA stream queue length (TraceCounters.get_queue_length_time_series /
// get_queue_length_summary), reproduced on HTA's rows (htarows.h). Definitions:
// docs/breakdowns.md, "Kernel launches and queue length". Times in microseconds.
#pragma once

#include "analysis/htarows.h"
#include "model/diagnostics.h"
#include "model/kinetotrace.h"

#include <cstdint>
#include <vector>

namespace syncscope {

struct LaunchStatsOptions {
    double runtime_cutoff_us = 50;       // HTA's runtime_cutoff default
    double launch_delay_cutoff_us = 100; // HTA's launch_delay_cutoff default
    bool include_memory_events = true;   // cudaMemcpyAsync / cudaMemsetAsync count as launches
};

// One row of HTA's launch-stats frame: a CPU row and a GPU row sharing a correlation id.
struct KernelLaunchRow {
    int64_t correlation = -1;
    uint32_t runtime_event = 0; // event index of the CPU (runtime) row
    uint32_t gpu_event = 0;     // event index of the kernel / memcpy / memset
    double cpu_duration_us = 0;
    double gpu_duration_us = 0;
    double launch_delay_us = 0; // gpu ts - (cpu ts + cpu dur), clipped at 0
};

struct KernelLaunchStats {
    std::vector<KernelLaunchRow> rows; // CPU rows in HTA's table order, then their GPU rows
    // Indices into rows: HTA's three histograms (visualize_cuda_launch_kernel_info).
    std::vector<uint32_t> short_kernels;         // cpu <= runtime cut-off and gpu < cpu
    std::vector<uint32_t> runtime_outliers;      // cpu > runtime cut-off
    std::vector<uint32_t> launch_delay_outliers; // launch delay > launch-delay cut-off
    double runtime_cutoff_us = 50;
    double launch_delay_cutoff_us = 100;
};

// One change of a stream's queue length (HTA's time-series row).
struct QueueLengthPoint {
    double ts_us = 0;     // HTA's ts (rounded, shifted so the trace starts at 0)
    int64_t stream = -1;  // stream of the GPU row
    int32_t queue_length = 0;
    uint32_t event = 0;   // the launch call (+1) or the GPU row (-1)
    uint32_t gpu_event = 0; // the GPU row whose stream this is (pid/tid come from it)
};

// pandas describe() of one stream's queue_length column.
struct QueueLengthSummary {
    int64_t stream = -1;
    size_t count = 0;
    double mean = 0;
    double std = 0; // sample std (ddof 1); NaN for one point, as pandas
    double min = 0;
    double p25 = 0, p50 = 0, p75 = 0; // linear interpolation, as pandas
    double max = 0;                   // the stream's maximum queue length
};

struct QueueLengthResult {
    std::vector<QueueLengthPoint> series;    // grouped by stream (ascending), time order inside
    std::vector<QueueLengthSummary> summary; // one per stream, ascending
    // Launch calls with no GPU row: HTA's assertion fails on them unless balanced by
    // another launch's extra GPU rows; here they are left out (their stream is unknown).
    size_t unmatched_launches = 0;
};

KernelLaunchStats cudaKernelLaunchStats(const hta::RowTable &rows, const LaunchStatsOptions &options,
                                        Diagnostics &diag);
KernelLaunchStats cudaKernelLaunchStats(const KinetoTrace &trace, Diagnostics &diag,
                                        const LaunchStatsOptions &options = {});

QueueLengthResult queueLength(const hta::RowTable &rows, Diagnostics &diag);
QueueLengthResult queueLength(const KinetoTrace &trace, Diagnostics &diag);

// describe() of one column of values, as pandas computes it (exposed for tests).
QueueLengthSummary describeQueueLengths(std::vector<int32_t> values);

} // namespace syncscope
