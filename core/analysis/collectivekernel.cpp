// SPDX-License-Identifier: MIT
#include "collectivekernel.h"

#include <algorithm>
#include <cctype>

namespace syncscope {

namespace {

std::string lower(std::string_view s)
{
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return out;
}

std::string_view stripVoid(std::string_view s)
{
    if (s.substr(0, 5) == "void ")
        s.remove_prefix(5);
    return s;
}

} // namespace

bool isCollectiveKernel(std::string_view kernelName)
{
    const std::string_view s = stripVoid(kernelName);
    for (std::string_view prefix : {"ncclKernel", "ncclDevKernel", "ncclGeneric", "rccl"})
        if (s.substr(0, prefix.size()) == prefix)
            return true;
    return false;
}

std::string collectiveFromKernel(std::string_view kernelName)
{
    // The collective is the token after the kernel prefix: ncclDevKernel_AllReduce_Sum_f32_RING_LL(...).
    const std::string s = lower(stripVoid(kernelName).substr(0, stripVoid(kernelName).find('(')));
    struct Token {
        const char *text, *name;
    };
    // Longer tokens first: "reducescatter" contains "reduce", "allreduce" contains "reduce".
    static const Token tokens[] = {{"_reducescatter", "reducescatter"}, {"_reduce_scatter", "reducescatter"},
                                   {"_allreduce", "allreduce"},         {"_all_reduce", "allreduce"},
                                   {"_allgather", "allgather"},         {"_all_gather", "allgather"},
                                   {"_alltoall", "alltoall"},           {"_all_to_all", "alltoall"},
                                   {"_sendrecv", "sendrecv"},           {"_broadcast", "broadcast"},
                                   {"_reduce", "reduce"},               {"_send", "send"},
                                   {"_recv", "recv"}};
    for (const Token &t : tokens)
        if (s.find(t.text) != std::string::npos)
            return t.name;
    return {};
}

} // namespace syncscope
