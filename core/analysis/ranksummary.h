// SPDX-License-Identifier: MIT
// What the cross-rank (job) analysis needs from one rank, extracted from the
// per-rank pipeline (core/session) so the rank's traces can be freed at once:
// peak memory is then about `jobs x one rank`, not the sum over ranks. Small,
// self-contained and serialisable, so MPI processes can send it to rank 0.
// All times are integer nanoseconds on the rank's OWN clock (Kineto ts).
#pragma once

#include "model/diagnostics.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace syncscope {

struct Analysis;
struct KinetoTrace;

// Longer "Process Group Ranks" texts are not kept (every rank would carry the
// whole world's list on every collective: quadratic in the job size).
constexpr size_t kMaxGroupRanksText = 256;

// One collective (or send/recv) GPU kernel as seen on one rank.
struct RankCollective {
    std::string kernelName;     // e.g. ncclDevKernel_AllReduce_Sum_f32_RING_LL, ncclKernel_SendRecv_...
    std::string collectiveName; // args "Collective name" or derived from the kernel name ("allreduce", "sendrecv", ...)
    std::string processGroup;   // args "Process Group Name" / ET pg_name, "" when unknown
    std::string groupRanks;     // args "Process Group Ranks" as written (e.g. "[0, 1, 2, 3]"), "" when unknown
                                // or longer than kMaxGroupRanksText (a 10k-rank world group; groupSize stays)
    int64_t groupSize = -1;     // number of ranks in "Process Group Ranks", -1 unknown
    int64_t seq = -1;           // args "Seq"/"seq" when present
    int64_t srcRank = -1, dstRank = -1; // args "Src Rank" / "Dst Rank" (global ranks), -1 absent; a kernel may carry both
    int64_t peer = -1;          // the other side of a send/recv (p2pPeer), -1 unknown
    int64_t stream = -1;
    int64_t device = -1;
    int64_t startNs = 0, endNs = 0; // kernel start / end, own clock
    int64_t launchNs = -1;      // start of the runtime call that launched it (same correlation), -1 unknown
    int32_t step = -1;          // index into RankSummary::steps of the step containing startNs, -1 none
    uint32_t event = 0;         // Kineto event index in the rank's trace (for the GUI / per-rank files)
    // What busbw is measured as and over (core/analysis/busbw.h, nccl-tests): the CollectiveType
    // (as integer) of the exported .et's kind, else the collective's, else the kernel's name;
    // nccl-tests' message size S from the Kineto args (kernelMessageBytes), -1 unknown.
    uint8_t busType = 0;
    int64_t messageBytes = -1;
};

// A ProfilerStep#N window (CPU-side user annotation), own clock.
struct RankStep {
    std::string name;           // "ProfilerStep#N"
    int64_t number = -1;        // N
    int64_t startNs = 0, endNs = 0;
    // This step's own critical path (filled when the pipeline ran with allSteps), else -1 / empty.
    double criticalPathUs = -1;
    std::vector<std::pair<std::string, double>> summaryPct; // bound_by -> percent
};

// The single-rank critical path of the chosen window, as a compact graph the
// cross-rank layer can join with the other ranks' graphs.
struct RankCpNode {
    int64_t timeNs = 0;         // HTA node time converted back to the rank's own clock (ns)
    int32_t op = -1;            // index into RankCpGraph::ops, -1 none
    bool isStart = true;
};
struct RankCpOp {
    std::string name;
    std::string kind;           // eventKindName(): cpu_op, kernel, cuda_runtime, ...
    int64_t startNs = 0, durNs = 0;
    int64_t stream = -1;        // GPU ops: stream; CPU ops: -1
    int32_t collective = -1;    // index into RankSummary::collectives when this op is a collective kernel
};
struct RankCpEdge {
    int32_t from = 0, to = 0;   // node indices
    double weightUs = 0;        // HTA weight
    uint8_t type = 0;           // CpEdgeType as integer
    uint8_t bound = 0;          // CpBound as integer (attribution), 0 none
    int32_t op = -1;            // the attributed op (index into RankCpGraph::ops), -1 none
};
struct RankCpGraph {
    bool valid = false;
    std::vector<RankCpOp> ops;
    std::vector<RankCpNode> nodes;
    std::vector<RankCpEdge> edges;
    double weightUs = 0;        // the single-rank critical path weight
    int64_t windowStep = -1;    // N of the ProfilerStep#N that is the window, -1 none (whole trace, other annotation)
    std::vector<std::pair<std::string, double>> summaryPct; // bound_by -> percent, as the single-rank report
};

// An op of the analysed window, for comparing what the ranks did between two
// collectives (root causes of waits): CPU ops and annotations of every thread
// (not ProfilerStep#N) and GPU kernels, copies and memsets.
struct RankOp {
    uint32_t name = 0;          // index into RankSummary::opNames
    bool gpu = false;
    int64_t startNs = 0, durNs = 0;
    // Time a CPU op spent blocked on the GPU in the calls it made (the waits of its
    // sync edges): not its own work, so not compared across ranks.
    int64_t waitNs = 0;
};
// At most this many ops per rank are kept (the first ones of the window), so the
// summaries MPI gathers stay bounded.
constexpr size_t kMaxRankOps = 200000;

struct RankLinkStats {
    bool present = false;
    int64_t hostOps = 0, hostOpsLinked = 0, hostOpsWithTwin = 0;
    int64_t kinetoCpuOps = 0, kinetoCpuOpsLinked = 0, gpuOps = 0, gpuOpsLinked = 0;
    double coverage = 0;        // hostOpsLinked / hostOpsWithTwin, 0..1
};

// The whole-trace breakdowns of one rank (report/breakdownreport.h), compact: what
// the job report's ranks[i].breakdown and the Ranks dock show (docs/breakdowns.md,
// "Job mode"). Only computed when the job run asks for breakdowns.
struct RankIdleRow {
    int64_t stream = -1;
    std::string category;       // host_wait, kernel_wait, other
    double idleUs = 0, ratio = 0; // ratio NaN when the stream has no idle time (HTA)
};
struct RankKernelTypeRow {
    std::string type;           // COMPUTATION, "COMPUTATION overlapping COMMUNICATION", ...
    double sumUs = 0, pct = 0;
};
struct RankTopKernel {
    std::string type, name;     // HTA kernel type and name (never "others")
    double sumUs = 0, maxUs = 0, minUs = 0, meanUs = 0, stddev = 0;
};
// At most this many kernels (by sum, HTA's per-kernel rows without "others") per rank.
constexpr size_t kMaxRankTopKernels = 5;
struct RankBreakdown {
    bool valid = false;         // false: no GPU row (HTA's temporal breakdown raises)
    double idleUs = 0, computeUs = 0, nonComputeUs = 0, kernelUs = 0;
    double idlePct = 0, computePct = 0, nonComputePct = 0;
    std::vector<RankIdleRow> idle;
    double overlapPct = 0;      // comm_comp_overlap_pct, NaN without communication
    double commUs = 0, exposedCommUs = 0, memcpyUs = 0; // TraceLens' exposed communication
    std::vector<RankKernelTypeRow> byType;
    std::vector<RankTopKernel> topKernels;
};

// One GPU op (kernel, memcpy, memset) of the whole trace, for the straggler what-if
// (core/job/stragglerwhatif.h). Filled by addRankGpuTimeline only when a job run asks.
struct RankGpuOp {
    uint32_t name = 0;          // index into RankGpuTimeline::names
    int32_t stream = -1;        // HTA stream (with device: the op's lane)
    int32_t device = -1;
    int32_t step = -1;          // index into RankSummary::steps of the step whose CPU span holds its launch, -1 none
    int32_t collective = -1;    // index into RankSummary::collectives when a collective kernel
    int64_t startNs = 0, durNs = 0; // own clock
};
// `to` cannot start before `from` ended, beyond the order of a stream: a GPU->GPU sync
// (an event wait across streams), or the first op each stream got after a CPU thread
// waited for `from` (a stream, event or device synchronize, a blocking copy).
struct RankGpuDep {
    uint32_t from = 0, to = 0;  // indices into RankGpuTimeline::ops
};
struct RankGpuTimeline {
    bool present = false;
    std::vector<std::string> names;
    std::vector<RankGpuOp> ops;   // ascending (device, stream, startNs)
    std::vector<RankGpuDep> deps;
};
// At most this many GPU ops per rank are kept for the straggler what-if.
constexpr size_t kMaxRankGpuOps = 2000000;

// A process group this rank belongs to, from Kineto's distributedInfo.pg_config.
struct RankProcessGroup {
    std::string name, desc;     // pg_name, pg_desc (Megatron: DATA_PARALLEL_GROUP, PIPELINE_MODEL_PARALLEL_GROUP, ...)
    int64_t size = 0;           // ranks in the group
    int64_t index = -1;         // this rank's position in its ranks list
};

struct RankSummary {
    int64_t rank = -1;          // distributedInfo.rank (or from the file name)
    std::optional<int64_t> worldSize;
    std::string hostPath, devicePath;
    int exitCode = 0;           // the per-rank pipeline's exit code (README table)
    int64_t pid = -1;
    int64_t traceStartNs = 0, traceEndNs = 0; // own clock
    std::optional<int64_t> baseTimeNanoseconds;
    RankLinkStats link;
    std::vector<RankStep> steps;
    std::vector<RankCollective> collectives; // ascending startNs
    RankCpGraph criticalPath;   // of the analysed window (the same step on every rank)
    std::vector<std::string> opNames;
    std::vector<RankOp> ops;    // the window's ops (its step, to the trace end; else the trace), ascending startNs
    Diagnostics diagnostics;
    std::vector<std::pair<std::string, std::string>> outputs; // kind -> path written for this rank
    std::optional<RankBreakdown> breakdown; // addRankBreakdown (core/job/rankbreakdown.h)
    std::vector<RankProcessGroup> processGroups; // the groups of distributedInfo.pg_config holding this rank
    RankGpuTimeline gpu;        // addRankGpuTimeline (only for the straggler what-if)
    // The machine the rank ran on, when the trace says (rankHost): ranks of one host share
    // a clock, so the job aligns hosts, not ranks (docs/job_analysis.md, "Clocks"). "" unknown.
    std::string host;
};

// The ends of a point-to-point kernel on rank `self` (docs/job_analysis.md, "Matching"):
// "send" is self -> "Dst Rank" (or peer), "recv" "Src Rank" (or peer) -> self, "sendrecv"
// (or no name) with both ranks, or with one rank other than self, the way they point. False
// when the kernel is no such transfer (a collective, a side that is not self, src == dst).
bool p2pEnds(const RankCollective &c, int64_t self, int64_t &src, int64_t &dst);
// The other side of a p2p kernel on rank `self` (its dst when self sends, else its src), -1 none.
int64_t p2pPeer(const RankCollective &c, int64_t self);

// The index of the step whose span holds `ns` (the last one starting at or before it), -1 none.
int32_t stepOf(const std::vector<RankStep> &steps, int64_t ns);

// The whole trace's GPU ops, their steps and cross-stream dependencies into s.gpu
// (core/job/rankgputimeline.cpp). O(ops log ops + sync edges x streams).
void addRankGpuTimeline(const Analysis &analysis, RankSummary &s);

// The host of a rank's trace, "" when unknown: the host of torch.profiler's default file
// name in Kineto's "traceName" ("<host>_<pid>.<ms>.pt.trace.json", tensorboard_trace_handler,
// with <pid> the trace's process), else, when the process saw several GPUs and ran on GPU d,
// "node@<rank - d>" (torchrun's layout: local rank = GPU index).
std::string rankHost(const KinetoTrace &trace, int64_t rank, int64_t pid);
// The <host> of "<dir>/<host>_<pid>.<digits>.pt.trace.json[.gz]", "" when the name is not so.
std::string hostFromTraceName(std::string_view traceName, int64_t pid);

// Extracts the summary of one rank from a finished per-rank analysis.
RankSummary extractRankSummary(const Analysis &analysis, int exitCode);
// Only its steps and collective kernels (sized: busType, messageBytes), for the
// single-rank report's collective table (report/collectivesreport.h).
RankSummary extractRankCollectives(const Analysis &analysis);

// Byte serialisation for MPI (versioned, little-endian, length-checked: a
// corrupt buffer fails with a message instead of reading out of bounds).
std::string serializeRankSummary(const RankSummary &summary);
bool deserializeRankSummary(std::string_view bytes, RankSummary &out, std::string &error);

} // namespace syncscope
