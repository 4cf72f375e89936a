// SPDX-License-Identifier: MIT
// The intervals behind two breakdown sums, for drawing them on the timeline
// (docs/breakdowns.md, "On the timeline"): every idle gap of a GPU stream with
// HTA's cause (get_idle_time_breakdown's classification; htabreakdown.cpp sums
// these very gaps) and every exposed-communication interval of a GPU (TraceLens'
// exposed_comm_time; the report's exposedCommunication sums these). Each time is
// given twice: HTA's µs (what the sums add up) and the trace's own ns from its
// earliest event (TimelineModel's time base), taken from the events themselves so
// HTA's rounding of fractional traces does not move the bars.
#pragma once

#include "analysis/htarows.h"

#include <cstdint>
#include <vector>

namespace syncscope {

// get_idle_time_breakdown's idle_category.
enum class IdleCause : uint8_t { HostWait, KernelWait, Other };
constexpr int kIdleCauseCount = 3;
const char *idleCauseName(IdleCause cause); // "host_wait", "kernel_wait", "other"

struct IdleGapOptions {
    double consecutive_kernel_delay = 30; // µs in effect (see HtaBreakdownOptions)
};

// The time between one row of a stream ending and the next one starting (by start).
struct IdleGap {
    double startUs = 0, endUs = 0; // HTA's times; endUs - startUs is what HTA sums (negative on overlap)
    int64_t startNs = 0, endNs = 0; // the same in the trace's own ns, from its minTsNs
    uint32_t before = 0, after = 0; // event indices: the row that ended, the row that starts
    IdleCause cause = IdleCause::Other;
};

struct StreamIdleGaps {
    int64_t stream = -1;     // HTA's key: the stream number alone, not (device, stream)
    uint32_t firstEvent = 0; // the stream's first row: no gap, but HTA's "other" row exists for it
    std::vector<IdleGap> gaps; // in HTA's order (rows sorted by start, stable)
};

// Streams in order of first appearance in `order` (RowTable::tableOrder()).
std::vector<StreamIdleGaps> idleGaps(const hta::RowTable &rows, const std::vector<uint32_t> &order,
                                     const IdleGapOptions &options = {});
std::vector<StreamIdleGaps> idleGaps(const hta::RowTable &rows, const IdleGapOptions &options = {});

// A part of a GPU's communication union not covered by its computation union.
struct ExposedInterval {
    double startUs = 0, endUs = 0;
    int64_t startNs = 0, endNs = 0; // trace ns from its minTsNs
};

struct GpuExposedComm {
    int64_t pid = 0;   // the kernel rows' pid (a StrId when the pid is a string)
    double comm_us = 0;   // length of the communication union
    double memcpy_us = 0; // length of the memory-kernel union
    std::vector<ExposedInterval> exposed; // sorted, disjoint, each of positive length
};

// Per GPU (by pid ascending): rows with a stream, typed by htaKernelType.
std::vector<GpuExposedComm> exposedCommIntervals(const hta::RowTable &rows);

} // namespace syncscope
