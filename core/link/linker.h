// SPDX-License-Identifier: MIT
// Links a host execution trace to its Kineto device trace.
//
// Chakra mode reproduces chakra_trace_link (trace_link_spec sections 2-3.9)
// including its quirks; default mode keeps the same ET+ schema but fixes the
// listed bugs and adds fallbacks (External id, name/order) so traces recorded
// before PyTorch 2.4 link too.
#pragma once

#include "link/linkresult.h"
#include "model/diagnostics.h"
#include "model/hosttrace.h"
#include "model/kinetotrace.h"

#include <atomic>
#include <vector>

namespace syncscope {

struct LinkOptions {
    LinkMode mode = LinkMode::Default;
    double interThreadGapUs = 1000; // Chakra's hard-coded group gap
    const std::atomic<bool> *cancel = nullptr;
};

// A synchronisation edge in Kineto terms: `src` is the GPU activity waited for,
// `dst` the event that waited (the CPU runtime call, or a GPU activity for
// cudaStreamWaitEvent). Default mode takes every edge of the trace; Chakra mode
// takes the SYNC_DEPENDENCY edges on the first ProfilerStep's critical path.
struct SyncEdgeRef {
    uint32_t src;
    uint32_t dst;
};

LinkResult linkTraces(const HostTrace &host, const KinetoTrace &device, const LinkOptions &options,
                      const std::vector<SyncEdgeRef> &syncEdges, Diagnostics &diagnostics);

} // namespace syncscope
