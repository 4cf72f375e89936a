// SPDX-License-Identifier: MIT
// comm_size of a collective from the Kineto trace (issue 21): the message NCCL ran,
// as the profiler records it on the kernel or on the op that launched it ("In msg
// nelems", "Out msg nelems", "dtype"). The ET's record_param_comms inputs can hold
// only the first tensor of a bucket, or none; the Kineto args hold the message.
#include "chakraconvertimpl.h"
#include "job/busbw.h"

namespace syncscope::chakra_detail {

std::optional<int64_t> kinetoCommBytes(const Converter &c, size_t i, int8_t commType, bool send)
{
    const int32_t gpu = c.link.plan.nodes[i].gpuEvent;
    if (gpu < 0)
        return std::nullopt;
    // The buffer the collective is sized by (core/job/busbw.h, nccl-tests' S): the gathered
    // output of an all-gather or gather, the input a reduce-scatter or scatter splits, the
    // message otherwise.
    CollectiveType sizedAs = send ? CollectiveType::Send : CollectiveType::AllReduce;
    switch (commType) {
    case kAllGather: sizedAs = CollectiveType::AllGather; break;
    case kGather: sizedAs = CollectiveType::Gather; break;
    case kReduceScatter: sizedAs = CollectiveType::ReduceScatter; break;
    case kScatter: sizedAs = CollectiveType::Scatter; break;
    default: break;
    }
    return kernelMessageBytes(c.device, &c.link, static_cast<uint32_t>(gpu), sizedAs);
}

} // namespace syncscope::chakra_detail
