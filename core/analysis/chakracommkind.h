// SPDX-License-Identifier: MIT
// What the exported Chakra .et calls a GPU kernel (trace_link_spec 5.4, default
// mode): compute, COMM_SEND / COMM_RECV, or COMM_COLL with its comm_type. One
// function for the exporter and the GUI, so a collective has one name everywhere
// (the job panels show "sendrecv (.et: ALL_TO_ALL)").
#pragma once

#include "link/linkresult.h"
#include "model/hosttrace.h"
#include "model/kinetotrace.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace syncscope {

// et_def.proto enum values.
enum ChakraNodeType : uint8_t {
    kChakraMetadataNode = 1,
    kChakraCompNode = 4,
    kChakraSendNode = 5,
    kChakraRecvNode = 6,
    kChakraCollNode = 7,
};
enum ChakraCommType : int8_t {
    kCommNone = -1,
    kAllReduce = 0,
    kReduce = 1,
    kAllGather = 2,
    kGather = 3,
    kScatter = 4,
    kBroadcast = 5,
    kAllToAll = 6,
    kReduceScatter = 7,
};

// Chakra's comm_type from a kernel name (5.4): lowercase, '_' and '-' removed,
// first hit of allreduce/alltoall/allgather/reducescatter/broadcast, then
// ALL_TO_ALL for ncclDevKernel_SendRecv; `extended` (default mode) also knows
// ncclKernel_SendRecv and reduce/gather/scatter. kCommNone when unknown.
ChakraCommType chakraCommType(std::string_view kernelName, bool extended);

// The name of a plan node as the .et writes it: its GPU op's, else its host node's.
std::string_view chakraNodeName(const HostTrace &host, const KinetoTrace &device, const EtPlusNode &n);


struct ChakraCommKind {
    ChakraNodeType type = kChakraCompNode;
    ChakraCommType comm = kCommNone; // COMM_COLL only
    bool unknownCollective = false;  // an NCCL collective kernel whose comm_type is unknown (written as compute)
};

// SEND/RECV/COLL from the name of the op that issued a SendRecv kernel; COMP when
// the name does not tell. `compat`: only chakra_converter's spellings.
ChakraNodeType chakraSendRecvType(std::string_view keyword, bool compat);

// The name of the kernel's k-th ancestor in the ET+ plan (0: the op that launched
// it), nullopt past the root. Called in order, k = 0, 1, 2 at most.
using ChakraAncestorName = std::function<std::optional<std::string_view>(int depth)>;

// Default mode: the kind of a GPU kernel. A SendRecv kernel (ncclDevKernel_SendRecv,
// ncclKernel_SendRecv) takes SEND/RECV/COLL from the first telling ancestor (the
// record_param_comms wrapper is skipped); other NCCL kernels are COMM_COLL with
// chakraCommType(name, true), a SendRecv one ALL_TO_ALL.
ChakraCommKind chakraKernelCommKind(std::string_view kernelName, const ChakraAncestorName &ancestor);

// "ALL_REDUCE", "ALL_TO_ALL", ... (COMM_COLL), "SEND", "RECV", "" for a compute node.
std::string chakraCommKindName(const ChakraCommKind &kind);

// The kinds of one rank's kernels from its linked pair in memory (the analysis the
// exporter writes the .et from). Without a host trace or link, the kernel name alone.
class ChakraKernelKinds
{
public:
    ChakraKernelKinds(const HostTrace *host, const KinetoTrace &device, const LinkResult *link);
    ChakraCommKind of(uint32_t kernelEvent) const;

private:
    const HostTrace *m_host;
    const KinetoTrace &m_device;
    const LinkResult *m_link;
    std::unordered_map<int64_t, uint32_t> m_indexOfId;  // plan node id -> plan index
    std::unordered_map<uint32_t, uint32_t> m_nodeOfEvent; // Kineto GPU event -> plan index
};

} // namespace syncscope
