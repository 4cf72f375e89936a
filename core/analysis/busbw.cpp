// SPDX-License-Identifier: MIT
#include "busbw.h"

#include "link/linkresult.h"
#include "model/kinetotrace.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <string>

namespace syncscope {

CollectiveType collectiveTypeOf(std::string_view name)
{
    if (name.substr(0, 5) == "void ")
        name.remove_prefix(5);
    name = name.substr(0, name.find('(')); // a kernel's parameter list says nothing
    std::string s;
    s.reserve(name.size());
    for (char c : name)
        if (c != '_' && c != '-')
            s.push_back(char(std::tolower(static_cast<unsigned char>(c))));
    // Longer tokens first: "allreduce" and "reducescatter" contain "reduce",
    // "sendrecv" contains "send" and "recv", "allgather" contains "gather".
    static const std::pair<const char *, CollectiveType> kTokens[] = {
        {"reducescatter", CollectiveType::ReduceScatter}, {"allreduce", CollectiveType::AllReduce},
        {"allgather", CollectiveType::AllGather},         {"alltoall", CollectiveType::AllToAll},
        {"sendrecv", CollectiveType::SendRecv},           {"broadcast", CollectiveType::Broadcast},
        {"reduce", CollectiveType::Reduce},               {"gather", CollectiveType::Gather},
        {"scatter", CollectiveType::Scatter},             {"send", CollectiveType::Send},
        {"recv", CollectiveType::Recv}};
    for (const auto &[token, type] : kTokens)
        if (s.find(token) != std::string::npos)
            return type;
    return CollectiveType::Unknown;
}

std::string_view collectiveTypeName(CollectiveType type)
{
    switch (type) {
    case CollectiveType::AllReduce: return "all_reduce";
    case CollectiveType::AllGather: return "all_gather";
    case CollectiveType::ReduceScatter: return "reduce_scatter";
    case CollectiveType::AllToAll: return "all_to_all";
    case CollectiveType::Broadcast: return "broadcast";
    case CollectiveType::Reduce: return "reduce";
    case CollectiveType::SendRecv: return "send_recv";
    case CollectiveType::Send: return "send";
    case CollectiveType::Recv: return "recv";
    case CollectiveType::Gather: return "gather";
    case CollectiveType::Scatter: return "scatter";
    case CollectiveType::Unknown: break;
    }
    return "";
}

double busBwFactor(CollectiveType type, int64_t ranks)
{
    if (ranks < 1)
        return 0;
    const double n = double(ranks);
    switch (type) {
    case CollectiveType::AllReduce: return 2.0 * (n - 1) / n;
    case CollectiveType::AllGather:
    case CollectiveType::ReduceScatter:
    case CollectiveType::AllToAll: return (n - 1) / n;
    case CollectiveType::Broadcast:
    case CollectiveType::Reduce:
    case CollectiveType::SendRecv:
    case CollectiveType::Send:
    case CollectiveType::Recv: return 1.0;
    case CollectiveType::Gather:
    case CollectiveType::Scatter:
    case CollectiveType::Unknown: break;
    }
    return 0;
}

double algBwGBps(int64_t bytes, double seconds)
{
    return bytes < 0 || !(seconds > 0) ? 0.0 : double(bytes) / seconds / 1e9;
}

double busBwGBps(CollectiveType type, int64_t ranks, int64_t bytes, double seconds)
{
    return algBwGBps(bytes, seconds) * busBwFactor(type, ranks);
}

int64_t torchDtypeBytes(std::string_view t)
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

std::optional<int64_t> collectiveMessageBytes(CollectiveType type, int64_t inNelems, int64_t outNelems,
                                              std::string_view dtype)
{
    const int64_t bytes = torchDtypeBytes(dtype);
    if (bytes == 0 || (inNelems < 0 && outNelems < 0))
        return std::nullopt;
    int64_t n = -1;
    switch (type) {
    case CollectiveType::AllGather:
    case CollectiveType::Gather: n = outNelems >= 0 ? outNelems : inNelems; break;
    case CollectiveType::ReduceScatter:
    case CollectiveType::Scatter:
    case CollectiveType::Send: n = inNelems >= 0 ? inNelems : outNelems; break;
    default: n = std::max(inNelems, outNelems);
    }
    if (n < 0 || n > INT64_MAX / bytes)
        return std::nullopt;
    return n * bytes;
}

std::optional<int64_t> kernelMessageBytes(const KinetoTrace &trace, const LinkResult *link, uint32_t kernelEvent,
                                          CollectiveType type)
{
    auto usable = [](const KinetoCommArgs *a) {
        return a && a->dtype != kNoString && (a->inNelems >= 0 || a->outNelems >= 0);
    };
    const KinetoCommArgs *args = trace.commArgsOf(kernelEvent);
    if (!usable(args) && link && kernelEvent < link->gpuParent.size() && link->gpuParent[kernelEvent] >= 0)
        args = trace.commArgsOf(static_cast<uint32_t>(link->gpuParent[kernelEvent]));
    if (!usable(args))
        return std::nullopt;
    return collectiveMessageBytes(type, args->inNelems, args->outNelems, trace.str(args->dtype));
}

} // namespace syncscope
