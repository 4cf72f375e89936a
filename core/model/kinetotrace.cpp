// SPDX-License-Identifier: MIT
#include "kinetotrace.h"

#include <algorithm>

namespace syncscope {

const char *eventKindName(EventKind k)
{
    switch (k) {
    case EventKind::CpuOp: return "cpu_op";
    case EventKind::UserAnnotation: return "user_annotation";
    case EventKind::GpuUserAnnotation: return "gpu_user_annotation";
    case EventKind::PythonFunction: return "python_function";
    case EventKind::Runtime: return "cuda_runtime";
    case EventKind::Driver: return "cuda_driver";
    case EventKind::Kernel: return "kernel";
    case EventKind::Memcpy: return "gpu_memcpy";
    case EventKind::Memset: return "gpu_memset";
    case EventKind::CudaSync: return "cuda_sync";
    case EventKind::Flow: return "flow";
    case EventKind::Metadata: return "metadata";
    case EventKind::Instant: return "instant";
    case EventKind::TraceSpan: return "Trace";
    case EventKind::Other: break;
    }
    return "other";
}

} // namespace syncscope

namespace syncscope {

const KinetoCommArgs *KinetoTrace::commArgsOf(uint32_t index) const
{
    auto it = std::lower_bound(commArgs.begin(), commArgs.end(), index,
                               [](const KinetoCommArgs &a, uint32_t e) { return a.event < e; });
    return it != commArgs.end() && it->event == index ? &*it : nullptr;
}

} // namespace syncscope
