// SPDX-License-Identifier: MIT
// comm_size of a collective from the Kineto trace (issue 21): the message NCCL ran,
// as the profiler records it on the kernel or on the op that launched it ("In msg
// nelems", "Out msg nelems", "dtype"). The ET's record_param_comms inputs can hold
// only the first tensor of a bucket, or none; the Kineto args hold the message.
#include "chakraconvertimpl.h"

#include <string>

namespace syncscope::chakra_detail {

namespace {

// Bytes per element of a torch dtype name as Kineto writes it; 0 when unknown.
int64_t elementBytes(std::string_view t)
{
    if (t == "Float" || t == "Int" || t == "UInt32" || t == "Int32" || t == "ComplexHalf")
        return 4;
    if (t == "Double" || t == "Long" || t == "Int64" || t == "UInt64" || t == "ComplexFloat")
        return 8;
    if (t == "Half" || t == "BFloat16" || t == "Short" || t == "Int16" || t == "UInt16")
        return 2;
    if (t == "Byte" || t == "Char" || t == "Bool" || t == "Int8" || t == "UInt8" || t.substr(0, 6) == "Float8")
        return 1;
    if (t == "ComplexDouble")
        return 16;
    return 0;
}

} // namespace

std::optional<int64_t> kinetoCommBytes(const Converter &c, size_t i, int8_t commType, bool send)
{
    const int32_t gpu = c.link.plan.nodes[i].gpuEvent;
    if (gpu < 0)
        return std::nullopt;
    const KinetoCommArgs *args = c.device.commArgsOf(static_cast<uint32_t>(gpu));
    auto usable = [](const KinetoCommArgs *a) {
        return a && a->dtype != kNoString && (a->inNelems >= 0 || a->outNelems >= 0);
    };
    if (!usable(args) && static_cast<size_t>(gpu) < c.link.gpuParent.size() && c.link.gpuParent[size_t(gpu)] >= 0)
        args = c.device.commArgsOf(static_cast<uint32_t>(c.link.gpuParent[size_t(gpu)]));
    if (!usable(args))
        return std::nullopt;
    const int64_t bytes = elementBytes(c.device.str(args->dtype));
    if (bytes == 0)
        return std::nullopt;
    // The buffer the collective is sized by: the gathered output of an all-gather or
    // gather, the input a reduce-scatter or scatter splits, the message otherwise.
    int64_t n = -1;
    switch (commType) {
    case kAllGather:
    case kGather: n = args->outNelems >= 0 ? args->outNelems : args->inNelems; break;
    case kReduceScatter:
    case kScatter: n = args->inNelems >= 0 ? args->inNelems : args->outNelems; break;
    default: n = send ? (args->inNelems >= 0 ? args->inNelems : args->outNelems)
                      : std::max(args->inNelems, args->outNelems);
    }
    if (n < 0 || n > INT64_MAX / bytes)
        return std::nullopt;
    return n * bytes;
}

} // namespace syncscope::chakra_detail
