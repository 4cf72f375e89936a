// SPDX-License-Identifier: MIT
// The diff of two runs, built from two Analysis results (the one per-rank
// pipeline): steps, structurally matched ops, GPU kernels and copies, sync waits
// and the critical path, each with both sides and the delta. No Qt: the batch
// report and the GUI's compare window read the same model.
#pragma once

#include "opforest.h"
#include "session/analysis.h"

#include <memory>
#include <string>
#include <vector>

namespace syncscope {

// Count and time of one key on one side.
struct DiffSide {
    int64_t count = 0;
    double totalUs = 0;
    double selfUs = 0; // ops: exclusive time (top changes rank ops by it)
    double meanUs() const { return count ? totalUs / double(count) : 0; }
};

struct StepDiff {
    int index = 0;                      // step ordinal (both sides)
    bool inBaseline = false, inCandidate = false;
    std::string baselineName, candidateName; // "ProfilerStep#N"
    double baselineUs = 0, candidateUs = 0;  // step time
    double baselineCpUs = 0, candidateCpUs = 0; // critical-path weight
    std::vector<CpSummaryRow> baselineBound, candidateBound;
    double deltaUs() const { return candidateUs - baselineUs; }
};

// Ops of one call-tree path.
struct OpDiff {
    uint32_t path = 0;   // PathTable id
    DiffSide baseline, candidate;
    int64_t matched = 0; // ops matched across the runs
    int64_t added = 0;   // candidate ops without a match
    int64_t removed = 0; // baseline ops without a match
    double deltaUs() const { return candidate.totalUs - baseline.totalUs; }
    double selfDeltaUs() const { return candidate.selfUs - baseline.selfUs; }
};

// GPU activities by name (and by name + launching op path).
struct GpuDiff {
    std::string category; // "kernel", "memcpy", "memset"
    std::string name;
    uint32_t launchPath = kNoPath; // kNoPath: aggregated over every launching op (or unknown)
    DiffSide baseline, candidate;
    double deltaUs() const { return candidate.totalUs - baseline.totalUs; }
};

// Sync waits of one kind by one waiting op (the CPU call's op, or the waiting GPU activity).
struct SyncDiff {
    std::string kind;   // "Stream Sync", ...
    std::string call;   // "cudaStreamSynchronize", or the waiting activity's name (GPU->GPU)
    uint32_t waiter = kNoPath; // path of the waiting op; kNoPath: all waiters of the kind
    DiffSide baseline, candidate; // count = edges, totalUs = wait
    double deltaUs() const { return candidate.totalUs - baseline.totalUs; }
};

// A key on the critical path of either run.
struct CpKeyDiff {
    std::string category; // "op", "runtime", "kernel", "memcpy", "memset"
    std::string name;
    uint32_t path = kNoPath; // op path, or the caller / launching op path
    DiffSide baseline, candidate; // critical events and their time
};

struct BoundDiff {
    std::string boundBy;
    double baselinePercent = 0, candidatePercent = 0;
    double baselineUs = 0, candidateUs = 0;
};

struct TopChange {
    std::string category; // "op" (self time), "kernel", "memcpy", "memset", "sync"
    std::string name;
    std::string where;    // op path / launching op / waiting op
    double baselineUs = 0, candidateUs = 0;
    double deltaUs() const { return candidateUs - baselineUs; }
};

struct DiffOptions {
    DiffWindow baselineWindow, candidateWindow; // default: the whole traces
    size_t topChanges = 20;
};

struct TraceDiff {
    PathTable paths;
    std::shared_ptr<const Analysis> baseline, candidate;
    OpForest baselineOps, candidateOps;
    // Matched node pairs (baseline node, candidate node), ascending baseline node.
    std::vector<std::pair<uint32_t, uint32_t>> matches;
    std::vector<int32_t> baselineMatch, candidateMatch; // node -> other side's node, -1 unmatched

    std::vector<StepDiff> steps;
    std::vector<OpDiff> ops;               // by path string
    std::vector<GpuDiff> kernels;          // by name
    std::vector<GpuDiff> kernelsByOp;      // by (name, launching op path)
    std::vector<GpuDiff> memcpys;          // memcpy and memset by name
    std::vector<GpuDiff> memcpysByOp;
    std::vector<SyncDiff> syncByKind;
    std::vector<SyncDiff> syncByWaiter;
    bool criticalPathBoth = false;         // both runs have a critical path
    double baselineCpUs = 0, candidateCpUs = 0;
    std::vector<BoundDiff> bound;          // every bound_by bucket of either run
    std::vector<CpKeyDiff> cpEntered, cpLeft; // keys on only one run's path
    std::vector<TopChange> top;            // by |delta|, at most options.topChanges
    double matchSeconds = 0, aggregateSeconds = 0;

    std::string pathText(uint32_t id) const { return id == kNoPath ? std::string() : paths.path(id); }
};

// The window of an analysis' critical path (annotation/instance) in trace µs;
// the whole trace when the window is the whole trace.
DiffWindow windowOf(const Analysis &analysis);

// The analysis request of one run of a diff: `options` (HTA version, window, ...)
// with the run's files in either order and every step's critical path; the whole
// trace is the critical-path window unless `windowGiven` (--annotation/--instance).
AnalysisRequest diffRunRequest(AnalysisRequest options, const std::string &devicePath, const std::string &hostPath,
                               bool windowGiven);

// Aligns and aggregates two analysed runs. Deterministic.
std::unique_ptr<TraceDiff> diffRuns(std::shared_ptr<const Analysis> baseline,
                                    std::shared_ptr<const Analysis> candidate, const DiffOptions &options = {});

} // namespace syncscope
