// SPDX-License-Identifier: MIT
// A generator of realistic, synthetic PyTorch trace pairs (host ET + Kineto)
// of any size: training steps with a forward thread and an autograd thread,
// compute / NCCL / side streams, every cuda_sync kind, memcpy and memset,
// ns-fraction timestamps, Record function ids. Used by the benchmarks and to
// make the bundled sample pair. Deterministic for a given seed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tracegen {

// Job mode (generateJob): how one rank's collectives are timed.
struct JobTiming {
    bool dryRun = false;                  // compute times only, write nothing
    std::vector<double> collectiveEndsUs; // the job's end of each collective (true time, µs since the base)
    double arrivalUs = -1;                // dry run out: the rank's start of the first collective with no end
    double computeScale = 1.0;            // > 1: this rank's compute kernels are slower (a straggler)
    std::string groupRanks = "[0, 1]";    // "Process Group Ranks" and distributedInfo pg_config ranks
    // Per collective (pairs mode): its process group's name, ranks and size; empty: the world group.
    std::vector<std::string> groupNames, groupRanksOf;
    double startUs = 0;                   // the rank's first op starts this late (true time): start skew
};

// The sync dependencies the generator built in (issue 28's strip-and-compare grid):
// every blocking call and the GPU op(s) it waited for, every stream wait and the op
// it gated, and the dependencies inside a graph replay. src/dst are positions in
// traceEvents of the written Kineto file (the loader's event indices).
enum class TruthKind : uint8_t {
    StreamSync,      // a stream synchronize -> the last op on its stream
    EventSync,       // an event synchronize -> the last op before the record
    ContextSync,     // a device synchronize -> the last op of every stream
    StreamWaitEvent, // GPU->GPU: the last op before the record -> the next op on the waiting stream
    BlockingCopy,    // a device-to-host copy call that returned after its own copy (src) ended
    GraphDependency, // GPU->GPU inside one graph replay: src's end starts dst (another stream)
};
struct TruthEdge {
    uint64_t src = 0;
    uint64_t dst = 0;
    TruthKind kind = TruthKind::StreamSync;
};
struct SyncTruth {
    std::vector<TruthEdge> edges;
    std::vector<uint64_t> blockingCopyCalls;  // copy calls that blocked until their own copy ended
    std::vector<uint64_t> nonBlockingDtoH;    // device-to-host copy calls that returned before their copy ended
    std::vector<uint64_t> graphLaunches;      // cudaGraphLaunch / hipGraphLaunch rows
    std::vector<uint64_t> graphKernels;       // the kernels they replayed
};

struct Options {
    std::string prefix = "synthetic"; // writes <prefix>.et.json and <prefix>.kineto.json
    bool gzip = false;                // .json.gz instead
    int steps = 3;                    // ProfilerStep iterations (0: until targetMb is reached)
    int layers = 8;                   // linear+relu blocks per step
    double targetMb = 0;              // stop once both files together reach this size
    int rank = 0;
    int worldSize = 2;
    uint64_t seed = 1;
    bool sample = false;              // label the files as Syncscope's bundled sample
    // A/B pairs for the run diff: kernels whose name contains slowKernel take
    // slowKernelScale times longer; extraSync adds a loss.item() (a DtoH copy and a
    // stream sync) after the optimizer step of every step.
    std::string slowKernel;
    double slowKernelScale = 1.0;
    bool extraSync = false;
    // Job mode only: new-style collective args (Seq), pid 31337 + rank, a first gradient bucket
    // mid-backward, and timestamps on the rank's own clock (true time + clockOffsetUs).
    JobTiming *job = nullptr;
    double clockOffsetUs = 0;
    // Sync-inference grid (issue 28). All off by default: the files and the random
    // draws are then exactly those of a generator without these options. streams >= 1,
    // blockingCopies, itemLoop or cudaGraphs also switch on the grid's GPU timing:
    // whole-ns GPU timestamps and cross-stream waits that resolve 1-2.5 µs after the
    // awaited op ends (hip and noCudaSync change no timing); on odd steps the device sync
    // comes before the event sync, so that it waits.
    int streams = 0;             // 0, 1: compute stream only; 2..6: each forward layer forks streams-1
                                 // side branches (cudaEventRecord + cudaStreamWaitEvent both ways)
    bool reverseJoins = false;   // with streams >= 3: the main stream waits for the branches last to first,
                                 // so the wait recorded last is not the one that ends last
    bool blockingCopies = false; // device-to-host copy calls return 2-4 µs after their copy ends (the
                                 // call's dur covers the wait); a synchronous cudaMemcpy DtoH per step;
                                 // the stream syncs that follow take ~1 µs
    int itemLoop = 0;            // per step, N x (small kernel, DtoH copy, stream sync): an .item() loop
    bool pageable = false;       // with blockingCopies: DtoH copies to pageable (else pinned) memory
    bool cudaGraphs = false;     // each step ends with a graph replay: one cudaGraphLaunch whose correlation
                                 // 20-60 kernels share, over the compute streams, then a stream sync
                                 // (a device sync on odd steps)
    bool asyncTail = false;      // the last step does not synchronise at its end: its GPU work outlasts the CPU
    bool hip = false;            // HIP runtime names (hipLaunchKernel, hipExtLaunchKernel, hipMemcpyAsync, ...)
    bool noCudaSync = false;     // write no cuda_sync rows (torch.profiler's default); same random draws
    // Shapes of real traces (issue 38), each changing only what it names:
    bool oldCategories = false;  // Kineto's spellings before late 2022: Kernel, Memcpy, Memset, Runtime,
                                 // Operator, flows async_cpu_to_gpu
    bool unresolvedSyncRows = false; // Stream Wait Event / Event Sync rows with wait_on_stream and
                                     // wait_on_cuda_event_record_corr_id -1 (CUDA >= 12.9 before kineto#1552)
    double gpuClockSkewUs = 0;   // every GPU timestamp this much later: the GPU starts long after its launch
    double gpuBehindScale = 0;   // > 1: compute kernels take this many times longer and no step waits for its
                                 // GPU work (no loss.item(), no step-end sync): the GPU falls steps behind
    bool bareSyncItem = false;   // after the optimizer: on even steps torch.cuda.Event.synchronize() (a record
                                 // and a cudaEventSynchronize outside every op) and then loss.item(), which
                                 // no longer blocks; on odd steps loss.item() alone, which blocks
    SyncTruth *truth = nullptr;  // out: the true sync dependencies of the written Kineto file
};

struct Result {
    uint64_t hostBytes = 0;
    uint64_t deviceBytes = 0;
    uint64_t hostNodes = 0;
    uint64_t deviceEvents = 0;
    int steps = 0;
    std::string hostPath;
    std::string devicePath;
    bool stoppedAtCollective = false; // job dry run: stopped at the first collective with no end
};

Result generate(const Options &options);

// A whole job: N ranks written as DIR/rank<N>.et.json[.gz] and DIR/rank<N>.kineto.json[.gz],
// with consistent collectives (each ends on every rank shortly after the last arrival),
// per-rank clock offsets and one straggler. Deterministic for a given seed.
struct JobOptions {
    std::string dir = "job";
    int ranks = 8;
    int steps = 2;
    int layers = 4;
    uint64_t seed = 1;
    bool gzip = true;
    int straggler = -1;           // rank with slower compute; -1 none
    double stragglerScale = 4.0;  // its compute kernels take this many times longer
    double maxClockOffsetUs = 2000; // |offset| bound; rank 0 has offset 0
    double collectiveUs = 120;    // collective duration after the last arrival
    // Start skew: this rank begins (and its trace starts) startSkewUs later; -1 none.
    int startSkewRank = -1;
    double startSkewUs = 0;
    // One op slowed on one rank: kernels of slowRank whose name contains slowKernel take
    // slowKernelScale times longer (every step); -1 none.
    int slowRank = -1;
    std::string slowKernel;
    double slowKernelScale = 1.0;
    // Pairs: collective k runs in pairs of ranks, alternating {2m, 2m+1} (k even) and
    // {2m+1, 2m+2 mod N} (k odd), each its own process group, so a rank that waited
    // hands its lateness on to the next pair (propagation chains). Needs an even N.
    bool pairs = false;
};

// Pairs mode: the rank rank `rank` meets at collective k.
int jobPartner(const JobOptions &options, int rank, size_t k);

struct JobResult {
    std::vector<Result> ranks;
    std::vector<double> collectiveEndsUs; // true time, per collective
};

// The clock offset written into rank `rank`'s timestamps (µs): its clock reads
// true time + offset, so Syncscope's clock_offset_us for it is -offset (reference rank 0).
double jobClockOffsetUs(const JobOptions &options, int rank);

JobResult generateJob(const JobOptions &options);

// Study job (generateStudyJob): a data-parallel x pipeline-parallel training job (GPipe
// schedule, one GPU stream per rank) written as device-only Kineto traces
// DIR/rank<r>.kineto.json[.gz], whose straggler what-if figures (core/job/stragglerwhatif.h)
// are known by construction: they come from the generator's own discrete-event simulation
// and are written to DIR/truth.json. Rank r: dp rank r % dp, stage r / dp (Megatron order, tp = 1).
// One stream (7) per rank; per step: for each microbatch [recv from p-1] fwd [send to p+1], then
// for each [recv from p+1] bwd [send to p-1], then the DP group's reduce-scatter (dp > 1) and the
// optimizer. A comm op ends on every participant at the last arrival + its transfer. In a what-if
// timeline an instance keeps its measured transfer when its type is kept measured or any of its
// participants' ranks is; S_t types: the kernel names, "sendrecv <nelems>", "_reduce_scatter_base <nelems>".
struct StudyJobOptions {
    std::string dir = "studyjob";
    std::string truthPath;          // empty: DIR/truth.json (Syncscope's --job DIR skips it with a warning)
    int dp = 8;
    int pp = 1;
    int microbatches = 4;
    int steps = 3;
    uint64_t seed = 1;
    bool gzip = false;
    bool write = true;              // false: simulate and return the truth only (no files)
    bool pgConfig = true;           // distributedInfo.pg_config (default, DP and pipeline groups)
    bool jitter = true;             // +-0.5 % deterministic (seeded) jitter on every duration / transfer
    double maxClockOffsetUs = 2000; // per-rank clock offsets in [-max, max] (rank 0: 0); 0: none
    // Nominal durations (µs).
    double fwdUs = 400, bwdUs = 800, optimizerUs = 200;
    double p2pUs = 50, reduceScatterUs = 300; // transfers (after the last arrival)
    double stepGapUs = 1000;        // step N+1 starts this long after step N ends (over all ranks)
    double baseUs = 1.0e6;          // step 0's start (true time, µs after the trace base)
    // Slowdowns of the compute kernels (fwd, bwd, optimizer); they multiply.
    int slowRank = -1;              // every step, this rank's compute kernels x slowFactor
    double slowFactor = 2.0;
    int slowStage = -1;             // every rank of this stage x stageFactor
    double stageFactor = 1.5;
    std::string slowOp;             // kernels named slowOp x opFactor, on every rank, odd steps only
    double opFactor = 2.0;
};

struct StudyJobResult {
    int dp = 1, pp = 1, world = 1;
    double slowdown = 1;            // S = mean measured step / mean ideal step
    double measuredStepUs = 0, idealStepUs = 0;       // means over the steps
    std::vector<double> measuredStepsUs, idealStepsUs; // per step N
    std::vector<double> stepSlowdown;                  // per step N: measured / ideal
    std::vector<std::pair<std::string, double>> byOpType; // S_t (type: kernel name or "<collective> <nelems>")
    std::vector<std::pair<std::string, double>> opTypeIdealUs; // each type's ideal duration / transfer
    std::vector<double> byDpRank;   // S_w, index w
    std::vector<double> byStage;    // S per stage, index p (empty when pp == 1)
    std::optional<double> mW, mS;   // null: not slowed (S within 0.1 %); mS also null when pp == 1
    std::vector<int> worstRanks;    // the ranks M_W sets to ideal
    std::vector<double> clockOffsetUs; // per rank: written timestamps = true time + offset
    std::vector<std::string> files; // the traces written
    std::string truthPath;          // DIR/truth.json
    uint64_t bytes = 0;             // all traces together
};

StudyJobResult generateStudyJob(const StudyJobOptions &options);

} // namespace tracegen

// Flight recorder dump sets with a known hang (issue 29, tracegenhang.cpp): every rank's
// dump as the analysis reads it, and what core/hang/hanganalysis must find.
#include "hang/flightrecorder.h"

namespace tracegen {

struct HangExpected {
    std::string pgName, kind;       // kind: "missing", "desync", "empty_dump", "no_dump"
    bool p2p = false;
    int64_t seq = -1;               // collective_seq_id, or p2p_seq_id when p2p
    std::vector<int64_t> missing, mismatched, waiting;
    bool root = true;
    std::vector<std::string> explains; // pg names of the findings this one explains
};

struct HangCase {
    std::string name;
    std::vector<syncscope::FrDump> dumps;   // ranks with a dump (empty dumps included)
    std::vector<int64_t> missingDumps;      // ranks with no dump file
    int64_t worldSize = 0;
    std::vector<HangExpected> expected;     // roots first, in the analysis' order
};

// (a) never_enters, (b) other_size, (c) empty_and_absent, (d) p2p_desync, coalesced blocks
// (coalesced_healthy, coalesced_other_size, coalesced_never_entered, batch_p2p_healthy),
// the shapes of real active-only dumps (format 2.9: no completed entries, pg_status keyed
// by uid; nested_ep_active_only, pp_pipeline_active_only with isends posted ahead and an
// empty dump, all_entered_active_only with no suspect), (e) nested_ep, always last.
std::vector<HangCase> generateHangCases();
// ranks x entries per rank (TP groups of 8 and the world group, 3 TP all_reduces per world
// all_reduce): rank ranks/2 + 3 never enters its TP group's last all_reduce.
HangCase generateHangScale(int ranks, int entriesPerRank);
// Json: DIR/rank<N>.json as dump_json writes it (no stacks); Pickle: DIR/rank<N> as the
// dump on timeout writes it (protocol 2, memoised strings, with the entries' frames).
// pg_config ranks as "[0, 1, ...]" text. False with `error`.
enum class HangDumpFormat { Json, Pickle };
bool writeHangDumps(const HangCase &c, const std::string &dir, std::string &error,
                    HangDumpFormat format = HangDumpFormat::Json);

} // namespace tracegen
