// SPDX-License-Identifier: MIT
// A timeline model of any size built in memory (no JSON): CPU threads with
// nested ops whose innermost calls launch kernels onto GPU streams, with the
// launch edges. Shaped like a training trace; deterministic for a seed.
#pragma once

#include "timeline/timelinemodel.h"

#include <cstdint>
#include <memory>

namespace uibench {

struct SynthOptions {
    size_t events = 1'000'000; // about this many (the last op finishes its subtree)
    int cpuThreads = 8;
    int gpuStreams = 8;
    uint64_t seed = 1;
};

std::shared_ptr<syncscope::ui::TimelineModel> synthModel(const SynthOptions &options);

} // namespace uibench
