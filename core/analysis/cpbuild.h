// SPDX-License-Identifier: MIT
// Internal: building HTA's critical-path graph for one window (spec 2.2-2.8).
// The whole-trace tables live in a CpaContext built once, so analysing many
// windows (one per ProfilerStep) costs O(window log window) each.
#pragma once

#include "criticalpath.h"
#include "htarows.h"
#include "syncsweep.h"

#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace syncscope::hta {

constexpr int32_t kNoQueue = std::numeric_limits<int32_t>::min();

// Counters of the situations HTA logs (or asserts on); reported once per analysis.
struct BuildStats {
    size_t kernelsWithoutEdge = 0;      // no sync, launch or kernel-kernel edge (HTA warns)
    size_t launchWithoutRuntimeNode = 0; // HTA asserts; we skip the launch edge
    size_t unknownSyncNames = 0;
    size_t unmatchedWaits = 0;
};

class CpaContext
{
public:
    CpaContext(const KinetoTrace &trace, const CriticalPathOptions &options, const RowOptions &rowOptions,
               Diagnostics &diag);

    const KinetoTrace &trace;
    const CriticalPathOptions &options;
    // HTA d731cc2e (spec 8): nodes are created as the passes reach events, no
    // runtime-lock pass, no fwd/bwd merge, no kernel-kernel threshold.
    const bool d731;
    // HTA exactly (--hta-exact, or d731cc2e); false: the departures of docs/critical_path.md.
    const bool exact;
    const uint16_t launchRole; // RoleLaunch or RoleLaunchD731
    RowTable rows;
    // Per row: a launch call (HTA's names; by default also any runtime call whose
    // correlation reaches a kernel, copy or memset: graph launches, hipExtLaunchKernel, ...).
    std::vector<uint8_t> launchRow;
    SyncTables tables;
    std::vector<int32_t> queue;          // spec 2.7.1: queue length after each launch/activity row
    std::vector<uint8_t> dataLoadName;   // per StrId: name contains a data_load_events string
    std::vector<uint32_t> cpuRowsByTs;   // loaded rows with stream -1, by (ts, index)
    std::vector<uint32_t> streamWaitRows; // every loaded "Stream Wait Event" row
    // For clipStep, built once: the GPU-side cuda_sync Stream Wait Event rows by the
    // activity whose start they delay (its sync source is set only when that activity
    // is in the window; elsewhere they get nodes but never an edge), and one such row
    // per (pid, tid) (it keeps its thread out of the call-stack pass, as every row does).
    std::vector<std::pair<uint32_t, uint32_t>> waitRowsByDest; // (dest activity row, wait row), sorted
    std::vector<uint32_t> waitRowPerThread;
    size_t queueSteps = 0;               // +/- steps of the queue-length sweep: O(rows), see computeQueueLengths
    std::vector<uint8_t> blockingName;   // per StrId: a synchronising call whose own time is not counted

    // --- default mode only (empty when exact) ---
    std::vector<std::pair<int64_t, uint32_t>> gpuByCorr; // (correlation, GPU-side row), sorted
    std::vector<int32_t> replayCount;    // per row: GPU activities sharing its correlation (> 1: a graph replay)
    std::vector<int32_t> streamPrev;     // per GPU activity: the previous activity on its (device, stream), -1
    // Filled by takeSyncEdges(), which build() calls before its first GPU pass.
    std::vector<std::pair<uint32_t, uint32_t>> inferredGpu; // inferred GPU->GPU (dst, src), sorted by dst
    std::vector<std::pair<uint32_t, uint32_t>> inferredCpu; // inferred GPU->CPU (call, src), sorted by call ts
    // Inferred source of a GPU activity's wait, -1 when none.
    int32_t inferredGpuSource(uint32_t dst) const;
    // Graph edges added for inferred sync edges in the last build().
    std::vector<int32_t> inferredEdges;

    // Rows kept for the window [start, end] (spec 2.2 step 3), ascending index. HTA keeps
    // every Stream Wait Event row of the trace in every window [QUIRK]; clipStep keeps
    // only those that can change the window's graph (see stepWaitRows), so analysing
    // every step costs O(step) each instead of O(trace).
    std::vector<uint32_t> clip(double start, double end) const;
    std::vector<uint32_t> clipStep(double start, double end) const;

    // Builds the node list and the edges of passes A, B and C into `graph`
    // (not finished). Reusable: per-event scratch is reset afterwards.
    BuildStats build(const std::vector<uint32_t> &clipped, CpGraph &graph);

    // Node ids of an event, -1 when it has none (valid during build()).
    int32_t startNode(uint32_t ev) const { return m_start[ev]; }
    int32_t endNode(uint32_t ev) const { return m_end[ev]; }
    // d731cc2e: appends the start and end node of `ev` (ids in creation order);
    // returns the start node.
    int32_t addEventNodes(uint32_t ev, CpGraph &graph);

private:
    void takeSyncEdges();
    bool m_edgesTaken = false;
    void prepareStepWaits();
    std::vector<uint32_t> clipCpu(double start, double end, size_t extra) const;
    void prepareDefaultMode();
    void computeQueueLengths(Diagnostics &diag);
    void createNodes(const std::vector<uint32_t> &clipped, CpGraph &graph);
    void runtimeLockPass(CpGraph &graph);
    void callStackPass(const std::vector<uint32_t> &clipped, CpGraph &graph);
    void gpuPass(const std::vector<uint32_t> &clipped, CpGraph &graph, BuildStats &stats);

    std::vector<int32_t> m_start, m_end; // per event
};

// Builds and solves one window: graph, validation, longest path, breakdown and
// summary into `out`. Returns out.success (failures add an Error diagnostic).
bool analyzeWindow(CpaContext &ctx, const std::vector<uint32_t> &clipped, CriticalPathResult &out, Diagnostics &diag);

// HTA's attribution of an edge (spec 2.8) given the call-stack parent of the node
// visited before (only used for end->start edges).
void attributeEdge(CpGraph &graph, int32_t edge, int32_t srcParent);

} // namespace syncscope::hta
