// SPDX-License-Identifier: MIT
#pragma once

#include <atomic>
#include <functional>

namespace syncscope {

struct LoadOptions {
    // Keep each Kineto event's minified JSON (the GUI shows every arg; batch does not need it).
    bool keepRawEvents = false;
    // Set from another thread to stop loading; the loader then fails with "load.cancelled".
    const std::atomic<bool> *cancel = nullptr;
    // Called with the fraction of the input consumed (0..1), from the loading thread.
    std::function<void(double)> progress;
    // Read only the top-level values before the big array and, for a Kineto trace,
    // the first batch of its events, then stop: job discovery classifies a file and reads
    // its rank, pid and start time without loading it. The result is "complete"
    // when the header was read; its event/node lists are partial.
    bool headOnly = false;
};

} // namespace syncscope
