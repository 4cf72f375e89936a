// SPDX-License-Identifier: MIT
// Which CPU op launched each GPU activity.
#pragma once

#include "link/kinetoview.h"
#include "model/kinetotrace.h"

#include <cstdint>
#include <vector>

namespace syncscope {

struct GpuParents {
    std::vector<int32_t> launcher; // per event: runtime call with the same correlation, -1 if none
    std::vector<int32_t> parent;   // per event: parent CPU op event, -1 if none
    int64_t withoutLauncher = 0;
    int64_t withoutParent = 0;
};

// Chakra (spec 3.5): the latest CPU op before the launch on the launch's thread
// whose External id equals the GPU op's, else the latest CPU op on that thread
// (which may be a finished sibling). Synthetic process/thread records take part
// with tid 0 as in Chakra.
// Default: the innermost CPU op on the launch's (pid, tid) that encloses the
// launch (so NCCL kernels sit under nccl:* rather than record_param_comms,
// mlcommons/chakra#196), falling back to Chakra's "latest before" rule.
GpuParents findGpuParents(const KinetoTrace &trace, const KinetoView &view);

} // namespace syncscope
