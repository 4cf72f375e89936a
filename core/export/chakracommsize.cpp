// SPDX-License-Identifier: MIT
// comm_size of a collective from the Kineto trace (issue 21): the rank's input to the
// collective, as the profiler records it on the kernel or on the op that launched it ("In msg
// nelems", "Out msg nelems", "dtype"). The ET's record_param_comms inputs can hold
// only the first tensor of a bucket, or none; the Kineto args hold the message.
#include "chakraconvertimpl.h"
#include "analysis/busbw.h"

namespace syncscope::chakra_detail {

std::optional<int64_t> kinetoCommBytes(const Converter &c, size_t i)
{
    const int32_t gpu = c.link.plan.nodes[i].gpuEvent;
    if (gpu < 0)
        return std::nullopt;
    // Every kind by the rank's input (In msg nelems), as the consumers read comm_size:
    // Chakra's converter sums record_param_comms' inputs and ASTRA-sim takes it as the
    // per-rank buffer, so an all-gather's gathered output would move world-size times the
    // data (issue 38). The input of a reduce-scatter is the buffer it splits; of an
    // all-reduce, all-to-all, broadcast or send/recv, the message.
    const CollectiveType sizedAs = CollectiveType::Send; // input first, the output only when absent
    return kernelMessageBytes(c.device, &c.link, static_cast<uint32_t>(gpu), sizedAs);
}

} // namespace syncscope::chakra_detail
