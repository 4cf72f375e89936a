// SPDX-License-Identifier: MIT
#include "chakracommkind.h"

#include <cctype>

namespace syncscope {

std::string_view chakraNodeName(const HostTrace &host, const KinetoTrace &device, const EtPlusNode &n)
{
    if (n.gpuEvent >= 0)
        return device.str(device.events[static_cast<size_t>(n.gpuEvent)].name);
    return host.str(host.nodes[n.host].name);
}


namespace {

bool kindHas(std::string_view s, std::string_view part)
{
    return s.find(part) != std::string_view::npos;
}

bool isSendRecvKernel(std::string_view kernelName)
{
    return kindHas(kernelName, "ncclDevKernel_SendRecv") || kindHas(kernelName, "ncclKernel_SendRecv");
}

} // namespace

ChakraNodeType chakraSendRecvType(std::string_view keyword, bool compat)
{
    if (kindHas(keyword, "send"))
        return kChakraSendNode;
    if (kindHas(keyword, "recv"))
        return kChakraRecvNode;
    if (kindHas(keyword, "nccl:all_to_all") ||
        (!compat && (kindHas(keyword, "all_to_all") || kindHas(keyword, "alltoall"))))
        return kChakraCollNode; // all-to-all is built from point-to-point sends in NCCL
    return kChakraCompNode;
}

ChakraCommType chakraCommType(std::string_view kernelName, bool extended)
{
    std::string norm;
    norm.reserve(kernelName.size());
    for (char c : kernelName)
        if (c != '_' && c != '-')
            norm.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    static const std::pair<const char *, ChakraCommType> kMap[] = {
        {"allreduce", kAllReduce}, {"alltoall", kAllToAll}, {"allgather", kAllGather},
        {"reducescatter", kReduceScatter}, {"broadcast", kBroadcast}};
    for (const auto &[key, type] : kMap)
        if (kindHas(norm, key))
            return type;
    if (kindHas(kernelName, "ncclDevKernel_SendRecv") || (extended && kindHas(kernelName, "ncclKernel_SendRecv")))
        return kAllToAll;
    if (extended) {
        static const std::pair<const char *, ChakraCommType> kMore[] = {
            {"reduce", kReduce}, {"gather", kGather}, {"scatter", kScatter}};
        for (const auto &[key, type] : kMore)
            if (kindHas(norm, key))
                return type;
    }
    return kCommNone;
}

ChakraCommKind chakraKernelCommKind(std::string_view kernelName, const ChakraAncestorName &ancestor)
{
    ChakraCommKind kind;
    if (!kindHas(kernelName, "nccl"))
        return kind;
    if (isSendRecvKernel(kernelName))
        for (int depth = 0; depth < 3 && kind.type == kChakraCompNode; ++depth) {
            const std::optional<std::string_view> name = ancestor ? ancestor(depth) : std::nullopt;
            if (!name)
                break;
            if (*name != "record_param_comms")
                kind.type = chakraSendRecvType(*name, false);
        }
    if (kind.type == kChakraCompNode && (kindHas(kernelName, "ncclKernel") || kindHas(kernelName, "ncclDevKernel")))
        kind.type = kChakraCollNode;
    if (kind.type == kChakraCollNode) {
        kind.comm = chakraCommType(kernelName, true);
        if (kind.comm == kCommNone) {
            kind.type = kChakraCompNode;
            kind.unknownCollective = true;
        }
    }
    return kind;
}

std::string chakraCommKindName(const ChakraCommKind &kind)
{
    switch (kind.type) {
    case kChakraSendNode: return "SEND";
    case kChakraRecvNode: return "RECV";
    case kChakraCollNode: break;
    default: return {};
    }
    switch (kind.comm) {
    case kAllReduce: return "ALL_REDUCE";
    case kReduce: return "REDUCE";
    case kAllGather: return "ALL_GATHER";
    case kGather: return "GATHER";
    case kScatter: return "SCATTER";
    case kBroadcast: return "BROADCAST";
    case kAllToAll: return "ALL_TO_ALL";
    case kReduceScatter: return "REDUCE_SCATTER";
    case kCommNone: break;
    }
    return {};
}

ChakraKernelKinds::ChakraKernelKinds(const HostTrace *host, const KinetoTrace &device, const LinkResult *link)
    : m_host(host)
    , m_device(device)
    , m_link(host ? link : nullptr)
{
    if (!m_link)
        return;
    const auto &plan = m_link->plan.nodes;
    for (uint32_t i = 0; i < plan.size(); ++i) {
        m_indexOfId.insert_or_assign(plan[i].id, i); // the last wins, as the exporter's
        if (plan[i].gpuEvent >= 0)
            m_nodeOfEvent.emplace(static_cast<uint32_t>(plan[i].gpuEvent), i);
    }
}

ChakraCommKind ChakraKernelKinds::of(uint32_t kernelEvent) const
{
    if (kernelEvent >= m_device.events.size())
        return {};
    const std::string_view name = m_device.str(m_device.events[kernelEvent].name);
    const auto node = m_link ? m_nodeOfEvent.find(kernelEvent) : m_nodeOfEvent.end();
    if (node == m_nodeOfEvent.end())
        return chakraKernelCommKind(name, {});
    // The exporter's parents (ctrl_deps): the rewritten value, else the host node's.
    const auto &plan = m_link->plan.nodes;
    auto parentOf = [&](uint32_t i) -> std::optional<uint32_t> {
        const EtPlusNode &p = plan[i];
        const HostNode &h = m_host->nodes[p.host];
        int64_t parent = 0;
        if (p.rewriteParent)
            parent = p.parentValue;
        else if (h.has(HostNode::HasParent))
            parent = h.parent;
        else
            return std::nullopt;
        const auto it = m_indexOfId.find(parent);
        return it == m_indexOfId.end() ? std::nullopt : std::optional<uint32_t>(it->second);
    };
    uint32_t at = node->second;
    return chakraKernelCommKind(name, [&](int depth) -> std::optional<std::string_view> {
        const std::optional<uint32_t> up = parentOf(at);
        if (!up || (depth > 0 && *up == at))
            return std::nullopt;
        at = *up;
        return chakraNodeName(*m_host, m_device, plan[at]);
    });
}

} // namespace syncscope
