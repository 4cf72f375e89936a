// SPDX-License-Identifier: MIT
// Collective bandwidth as nccl-tests reports it (doc/PERFORMANCE.md): the
// collective's type from a kernel or collective name, the message size S it is
// measured by, algbw = S / t and busbw = algbw x a factor of the type and the
// group size n. Display-free; the job panels and the breakdowns (issue 25) use it.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace syncscope {

struct KinetoTrace;
struct LinkResult;

enum class CollectiveType : uint8_t {
    Unknown,
    AllReduce,
    AllGather,
    ReduceScatter,
    AllToAll,
    Broadcast,
    Reduce,
    SendRecv, // NCCL's ncclKernel_SendRecv: point-to-point (all-to-all is built from it)
    Send,
    Recv,
    Gather,
    Scatter,
};

// From a kernel name (ncclKernel_AllReduce_RING_LL_Sum_float, ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL,
// rccl..., with or without "void ") or a collective name ("allreduce", "all_gather",
// "_reduce_scatter_base", "nccl:all_to_all", "send"): case, '_' and '-' do not matter.
CollectiveType collectiveTypeOf(std::string_view name);

// "all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast", "reduce",
// "send_recv", "send", "recv", "gather", "scatter", "" for Unknown.
std::string_view collectiveTypeName(CollectiveType type);

// nccl-tests' bus-bandwidth factor for a group of n ranks: all-reduce 2(n-1)/n;
// all-gather, reduce-scatter, all-to-all (n-1)/n; broadcast, reduce, send/recv 1.
// 0 for Unknown, gather/scatter (nccl-tests has none) or n < 1.
double busBwFactor(CollectiveType type, int64_t ranks);

// algbw = bytes / seconds in GB/s (1e9 bytes/s, as nccl-tests); 0 when seconds <= 0 or bytes < 0.
double algBwGBps(int64_t bytes, double seconds);
// busbw = algbw x busBwFactor(type, ranks), GB/s.
double busBwGBps(CollectiveType type, int64_t ranks, int64_t bytes, double seconds);

// Bytes of one element of a torch dtype as Kineto writes it ("Float", "BFloat16",
// "Float8_e4m3fn", ...); 0 when unknown.
int64_t torchDtypeBytes(std::string_view dtype);

// nccl-tests' S from the Kineto message args: the gathered output of an all-gather
// (or gather), the input a reduce-scatter (or scatter) splits, a send's input, the
// larger of input and output otherwise. nelems -1: absent. nullopt when neither is
// known, the dtype is unknown or the product overflows.
std::optional<int64_t> collectiveMessageBytes(CollectiveType type, int64_t inNelems, int64_t outNelems,
                                              std::string_view dtype);

// The same from a GPU kernel's Kineto args ("In msg nelems", "Out msg nelems",
// "dtype"), or, when the kernel has none, those of the CPU op that launched it
// (`link`'s gpuParent; may be null). What the Chakra exporter writes as comm_size.
std::optional<int64_t> kernelMessageBytes(const KinetoTrace &trace, const LinkResult *link, uint32_t kernelEvent,
                                          CollectiveType type);

} // namespace syncscope
