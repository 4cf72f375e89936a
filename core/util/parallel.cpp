// SPDX-License-Identifier: MIT
#include "parallel.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace syncscope {

unsigned defaultWorkers()
{
    return std::max(1u, std::thread::hardware_concurrency());
}

void parallelFor(size_t count, unsigned workers, const std::function<void(size_t)> &fn)
{
    if (workers == 0)
        workers = defaultWorkers();
    const size_t threads = std::min<size_t>(workers, count);
    std::atomic<size_t> next{0};
    auto work = [&] {
        for (size_t i = next++; i < count; i = next++)
            fn(i);
    };
    if (threads <= 1) {
        work();
        return;
    }
    std::vector<std::thread> pool;
    pool.reserve(threads - 1);
    for (size_t t = 1; t < threads; ++t)
        pool.emplace_back(work);
    work();
    for (auto &t : pool)
        t.join();
}

} // namespace syncscope
