// SPDX-License-Identifier: MIT
// A minimal work queue for the job layer: `count` independent items, at most
// `workers` threads, each taking the next item when it is free (ranks differ
// in size, so a static split would leave cores idle).
#pragma once

#include <cstddef>
#include <functional>

namespace syncscope {

// Calls fn(i) for i in [0, count) on up to `workers` threads (0: one per core).
// fn must not throw; items are independent. Returns when all are done.
void parallelFor(size_t count, unsigned workers, const std::function<void(size_t)> &fn);

// The default number of workers: the number of cores (at least 1).
unsigned defaultWorkers();

} // namespace syncscope
