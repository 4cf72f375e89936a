// SPDX-License-Identifier: MIT
// A generator of realistic, synthetic PyTorch trace pairs (host ET + Kineto)
// of any size: training steps with a forward thread and an autograd thread,
// compute / NCCL / side streams, every cuda_sync kind, memcpy and memset,
// ns-fraction timestamps, Record function ids. Used by the benchmarks and to
// make the bundled sample pair. Deterministic for a given seed.
#pragma once

#include <cstdint>
#include <string>

namespace tracegen {

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
};

struct Result {
    uint64_t hostBytes = 0;
    uint64_t deviceBytes = 0;
    uint64_t hostNodes = 0;
    uint64_t deviceEvents = 0;
    int steps = 0;
    std::string hostPath;
    std::string devicePath;
};

Result generate(const Options &options);

} // namespace tracegen
