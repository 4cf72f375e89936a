// SPDX-License-Identifier: MIT
// HTA-compatible critical-path analysis of one Kineto trace
// (../shared/docs/critical_path_spec.md): the graph of CPU ops, runtime calls and
// GPU activities with HTA's node order, edge types, weights and insertion order;
// the longest path with networkx's tie-breaking; the bound-by breakdown.
#pragma once

#include "cpgraph.h"
#include "syncedges.h"
#include "model/diagnostics.h"
#include "model/kinetotrace.h"

#include <cstdint>
#include <future>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace syncscope {

// The HTA commit whose semantics the analysis follows (spec 8).
enum class HtaVersion : uint8_t {
    F4d0062,  // current HTA (default): runtime-lock pass, fwd/bwd merge, time-sorted nodes
    D731cc2e, // the HTA that Chakra pins (2024-06): lazy nodes, no lock pass, no merge
};
const char *htaVersionName(HtaVersion v); // "f4d0062", "d731cc2e"
// Parses "f4d0062" / "d731cc2e" (or a longer prefix of either full commit id).
bool parseHtaVersion(std::string_view text, HtaVersion &out);

struct CriticalPathOptions {
    HtaVersion htaVersion = HtaVersion::F4d0062;
    // HTA f4d0062 exactly, misses included (--hta-exact; HTA d731cc2e is always exact).
    // Off (the default): HTA's graph plus the inferred sync edges, graph replays and
    // every launch API (docs/critical_path.md lists each departure).
    bool htaExact = false;
    // The trace's sync edges (findAllSyncEdges) when the caller has them already; else
    // the analysis infers them itself. Only their inferred part is used here.
    std::shared_ptr<const std::vector<SyncEdge>> syncEdges;
    // The same, still being found on another thread (the session's sync stage): the analysis
    // builds what does not depend on them first and waits for them only then (issue 40).
    std::shared_future<std::shared_ptr<const std::vector<SyncEdge>>> syncEdgesLater;
    std::string annotation = "ProfilerStep"; // substring of an event name; "" = whole trace
    int instanceFirst = 0, instanceLast = 0;  // HTA instance_id k -> (k,k); tuple (a,b) -> (a,b)
    bool zeroWeightLaunchEdges = false;       // CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE=1
    bool nsRounding = true;                   // false = HTA_DISABLE_NS_ROUNDING=1
    bool strictNegativeWeights = false;       // CRITICAL_PATH_STRICT_NEGATIVE_WEIGHT_CHECKS=1
    std::vector<std::string> dataLoadEvents;  // names containing one of these get nodes (data_loading)
};

// Whether the analysis reproduces HTA exactly: asked for, or implied by HTA d731cc2e
// (reproduced exactly or not at all).
inline bool isHtaExact(const CriticalPathOptions &o)
{
    return o.htaExact || o.htaVersion == HtaVersion::D731cc2e;
}

// The analysed time window (HTA-relative µs: 0 = the earliest row).
struct CpWindow {
    bool wholeTrace = false;       // annotation "" or not found
    bool annotationFound = false;
    int instanceFirst = 0, instanceLast = 0; // after clamping to the matches
    int instanceCount = 0;                   // rows whose name contains the annotation
    double startUs = 0, endUs = 0;           // endUs = +inf for the whole trace
    double startAbsUs = 0;                   // startUs in the trace's own time base
    int32_t firstEvent = -1;  // the annotation row of instanceFirst (-1: whole trace)
    // true: instance numbers count ProfilerStep#N steps (analyzeSteps); false: HTA's
    // instances, every row whose name contains the annotation (GPU copies included).
    bool profilerSteps = false;
};

// HTA's bound_by buckets (spec 3.2).
enum class CpBound : uint8_t {
    None,                 // "": DEPENDENCY and SYNC_DEPENDENCY edges
    CpuBound,             // "cpu_bound"
    DataLoading,          // "data_loading"
    GpuCommunication,     // "gpu_communication_bound"
    GpuCompute,           // "gpu_compute_bound"
    KernelKernelOverhead, // "gpu_kernel_kernel_overhead"
    KernelLaunchOverhead, // "gpu_kernel_launch_overhead"
};
constexpr int kCpBoundCount = 7; // in this order the names sort as HTA sorts them
const char *cpBoundName(CpBound b);

// One critical edge, attributed as HTA's breakdown does (spec 3.2).
struct CpBreakdownRow {
    int32_t edge = -1;
    int32_t event = -1;  // attributed event, -1 when none
    double duration = 0; // the stored edge weight
    CpEdgeType type = CpEdgeType::Dependency;
    CpBound bound = CpBound::None;
};

struct CpSummaryRow {
    std::string boundBy;
    double percent = 0;
    double durationUs = 0;
};

// Wall-clock seconds per phase (for benchmarks).
struct CpTimings {
    double prepare = 0; // HTA rows, correlations, queue lengths, CUDA-event tables
    double window = 0;  // window selection and clipping
    double build = 0;   // nodes and the three edge passes
    double solve = 0;   // validation, longest path, breakdown
};

struct CriticalPathResult {
    bool success = false;
    std::string reason;            // why it failed; empty on success
    CpWindow window;
    size_t loadedRows = 0, clippedRows = 0;

    CpGraph graph;                 // node list, edges (insertion order), adjacency
    std::vector<int32_t> pathNodes;   // the critical path, ordered node ids
    std::vector<int32_t> pathEdges;   // edge ids between consecutive path nodes
    std::vector<uint32_t> criticalEvents; // events with a node on the path, ascending
    double weightUs = 0;           // path length (sum of the graph weights)
    std::vector<CpBreakdownRow> breakdown; // one per critical edge, in path order
    std::vector<CpSummaryRow> summary;     // per bound_by bucket, sorted by name
    std::vector<CpBound> edgeBound;        // HTA's bound_by bucket of every graph edge (what-if, job path)
    // All SYNC_DEPENDENCY edges as (src event, dst event), in adjacency order.
    std::vector<std::pair<uint32_t, uint32_t>> syncEdges;
    // The inferred subset of syncEdges (same order); empty with htaExact.
    std::vector<std::pair<uint32_t, uint32_t>> syncEdgesInferred;
    bool htaExact = false; // the options' htaExact (or HTA d731cc2e)
    int stitchJoins = 0;   // default mode, whole trace: joins made in time order (stitchToTraceEnds)
    CpTimings timings;

    // Counts of graph edges / critical edges per type (index = CpEdgeType).
    std::vector<size_t> edgeCountsByType() const;
    std::vector<size_t> pathEdgeCountsByType() const;
    // Nodes that appear in an edge (HTA's networkx graph).
    size_t graphNodeCount() const { return graph.graphNodes.size(); }
    // Percent of the bucket, 0 when absent.
    double percent(const std::string &boundBy) const;
};

// Runs HTA's analysis on the trace. Never throws for bad input: a failure sets
// success=false with a reason and adds an Error diagnostic. With no match for the
// annotation (or annotation "") the whole trace is the window (HTA would stop).
// An instance beyond the matches fails (HTA raises).
CriticalPathResult analyzeCriticalPath(const KinetoTrace &trace, const CriticalPathOptions &options,
                                       Diagnostics &diag);

// One ProfilerStep's critical path.
struct StepResult {
    int instance = 0;       // position among the steps (ts order)
    uint32_t event = 0;     // the ProfilerStep#N annotation row
    std::string name;       // "ProfilerStep#N"
    double startUs = 0, endUs = 0; // window, trace time base (µs as in the file)
    bool success = false;
    std::string reason;
    double weightUs = 0;
    size_t pathNodes = 0, criticalEvents = 0;
    size_t clippedRows = 0; // rows of the step's window (the work of its graph)
    std::vector<CpSummaryRow> summary;
};

// A critical path per CPU-side ProfilerStep#N annotation (cat user_annotation), in
// ts order, including the last step: unlike HTA's loader we do not drop the last
// step (its events are kept for every window), so all steps are analysed the same
// way. The annotation text and instance options are ignored. The shared tables
// (correlations, queue lengths, CUDA-event records) are built once, and each step's
// graph is built from its own rows (CpaContext::clipStep): O(n log n) for all steps.
std::vector<StepResult> analyzeAllSteps(const KinetoTrace &trace, const CriticalPathOptions &options,
                                        Diagnostics &diag);

// The steps as a user sees them: the CPU-side ProfilerStep#N annotations (cat
// user_annotation) in ts order, as analyzeAllSteps numbers them.
std::vector<uint32_t> profilerStepEvents(const KinetoTrace &trace);

// The full critical path over steps [first, last] of profilerStepEvents(), computed as
// analyzeAllSteps does (the last step's events are kept). window.profilerSteps is set;
// window.instanceFirst/Last are step numbers and instanceCount the number of steps.
CriticalPathResult analyzeSteps(const KinetoTrace &trace, const CriticalPathOptions &options, int first, int last,
                                Diagnostics &diag);

// The graph as text in the layout of shared/data/golden/critical_path/*_expected_*.txt,
// from the "NODES" line on: node list, edges in networkx adjacency order, path.
std::string criticalPathDump(const KinetoTrace &trace, const CriticalPathResult &result);

// HTA's bound_by bucket for a critical edge (spec 3.2) and its name shortening.
std::string cpShortenName(std::string_view name, HtaVersion version = HtaVersion::F4d0062);

} // namespace syncscope
