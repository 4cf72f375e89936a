// SPDX-License-Identifier: MIT
// A generator of realistic, synthetic PyTorch trace pairs (host ET + Kineto)
// of any size: training steps with a forward thread and an autograd thread,
// compute / NCCL / side streams, every cuda_sync kind, memcpy and memset,
// ns-fraction timestamps, Record function ids. Used by the benchmarks and to
// make the bundled sample pair. Deterministic for a given seed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tracegen {

// Job mode (generateJob): how one rank's collectives are timed.
struct JobTiming {
    bool dryRun = false;                  // compute times only, write nothing
    std::vector<double> collectiveEndsUs; // the job's end of each collective (true time, µs since the base)
    double arrivalUs = -1;                // dry run out: the rank's start of the first collective with no end
    double computeScale = 1.0;            // > 1: this rank's compute kernels are slower (a straggler)
    std::string groupRanks = "[0, 1]";    // "Process Group Ranks" and distributedInfo pg_config ranks
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
};

struct JobResult {
    std::vector<Result> ranks;
    std::vector<double> collectiveEndsUs; // true time, per collective
};

// The clock offset written into rank `rank`'s timestamps (µs): its clock reads
// true time + offset, so Syncscope's clock_offset_us for it is -offset (reference rank 0).
double jobClockOffsetUs(const JobOptions &options, int rank);

JobResult generateJob(const JobOptions &options);

} // namespace tracegen
