// SPDX-License-Identifier: MIT
// Internal: the CUDA-event bookkeeping (spec 2.7.2) and the GPU sweep (2.7.3)
// shared by the critical-path GPU pass and findAllSyncEdges().
#pragma once

#include "htarows.h"
#include "syncedges.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace syncscope::hta {

// A launch runtime call matched to its GPU activity, numbered by ts (launch id).
struct Launch {
    uint32_t runtime = 0;
    uint32_t activity = 0;
    double ts = 0;
    IdKey cpuPid, cpuTid, gpuPid;
    int64_t stream = -1;
};

// Launch ids, where each awaited cudaEventRecord was recorded and the launch
// before it, and the launch following each cudaStreamWaitEvent; all over the
// loaded rows of the whole trace.
class SyncTables
{
public:
    // `launchRole`: the name role that marks launch calls (RoleLaunch, or RoleLaunchD731
    // for HTA d731cc2e's shorter list).
    SyncTables(const RowTable &rows, Diagnostics &diag, uint16_t launchRole = RoleLaunch);
    // Launch calls given per row (non-zero = a launch call).
    SyncTables(const RowTable &rows, Diagnostics &diag, const std::vector<uint8_t> &launchRows);

    const std::vector<Launch> &launches() const { return m_launches; }
    // Runtime row of the launch preceding the record with this correlation; -1 when unknown.
    int32_t recordPreviousLaunch(int64_t recordCorrelation) const;
    // Runtime row of the launch following the cudaStreamWaitEvent row; -1 when unknown;
    // -2 when that call is not in the table (HTA would fail; we skip).
    int32_t waitNextLaunch(uint32_t waitRuntime) const;
    // (cudaEventRecord row, previous launch runtime row or -1), records in ts order.
    const std::vector<std::pair<uint32_t, int32_t>> &records() const { return m_recordRows; }
    const std::vector<std::pair<uint32_t, int32_t>> &waits() const { return m_waits; }

private:
    void buildLaunches(const RowTable &rows, uint16_t launchRole, const std::vector<uint8_t> *launchRows);
    void buildRecords(const RowTable &rows, Diagnostics &diag);
    void buildWaits(const RowTable &rows);

    std::vector<Launch> m_launches;
    std::vector<std::pair<int64_t, int32_t>> m_recordByCorr; // sorted by correlation
    std::vector<std::pair<uint32_t, int32_t>> m_recordRows;
    std::vector<std::pair<uint32_t, int32_t>> m_waits;      // sorted by wait runtime row
};

// A GPU->GPU dependency (cudaStreamWaitEvent): the awaited activity and the wait's row.
struct StreamWait {
    uint32_t src = 0;
    uint32_t row = 0;
};

// Receives the sweep's findings in processing order.
class SyncSweepVisitor
{
public:
    virtual ~SyncSweepVisitor() = default;
    // Whether an activity takes part (has graph nodes / is loaded).
    virtual bool present(uint32_t event) const = 0;
    // Whether the source of a sync (an activity) can be waited on now. HTA d731cc2e
    // only links sources its sweep has already visited.
    virtual bool sourcePresent(uint32_t event) const { return present(event); }
    // An ordinary GPU activity `g` in sweep order. prev: the last activity processed
    // on its stream (-1 none); waits: its pending GPU->GPU dependencies whose sources
    // are present, each with its Stream Wait Event row, in sweep order. HTA keeps only
    // the last one recorded; with SweepOptions::everyWait, all of them.
    virtual void activity(uint32_t g, int32_t prev, const std::vector<StreamWait> &waits) = 0;
    // The CPU call behind cuda_sync row `syncRow` waited for activity `src`.
    virtual void cpuSync(uint32_t src, uint32_t syncRow, SyncKind kind) = 0;
};

struct SweepOptions {
    // false: HTA's "last activity per stream number"; true: per (device pid, stream),
    // and a Context Sync only covers its own device.
    bool keyByDevice = false;
    // false: HTA's one pending wait per activity (a later Stream Wait Event for the same
    // kernel replaces the earlier: a kernel joining two side streams keeps one); true:
    // every wait recorded for it.
    bool everyWait = false;
};

struct SweepStats {
    size_t unknownSyncNames = 0;   // cuda_sync rows of another name
    size_t unmatchedWaits = 0;     // Stream Wait Event whose call is not in the wait table
};

// Runs the sweep over `rows` (ordinary activities and cuda_sync rows, any order):
// sorted by ts, cuda_sync rows by their end, ties by event index.
SweepStats runSyncSweep(const RowTable &rows, const SyncTables &tables, std::vector<uint32_t> sweepRows,
                        const SweepOptions &options, SyncSweepVisitor &visitor);

// Does row i take part in the sweep (spec 2.7.3, before windowing)?
bool isSweepRow(const RowTable &rows, uint32_t i);

} // namespace syncscope::hta
