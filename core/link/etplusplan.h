// SPDX-License-Identifier: MIT
// Renumbers the host ET and places GPU nodes right after their launching host
// node (trace_link_spec 3.8), producing the EtPlusPlan the writers consume.
#pragma once

#include "link/hostgraph.h"
#include "link/linkresult.h"
#include "model/diagnostics.h"
#include "model/kinetotrace.h"

#include <cstdint>
#include <vector>

namespace syncscope {

// Compressed lists: items of key k are items[offsets[k] .. offsets[k+1]).
struct Csr {
    std::vector<uint32_t> offsets;
    std::vector<uint32_t> items;
    size_t size(uint32_t k) const { return offsets[k + 1] - offsets[k]; }
    const uint32_t *begin(uint32_t k) const { return items.data() + offsets[k]; }
    const uint32_t *end(uint32_t k) const { return items.data() + offsets[k + 1]; }
};

struct EtPlusInputs {
    LinkMode mode = LinkMode::Default;
    const std::vector<int32_t> *hostEvent = nullptr;       // per host node: linked event
    const std::vector<PyNumber> *exclusive = nullptr;      // per event
    // Per host node: the host node its inter-thread dependency points to. Chakra
    // mode resolves it while linking (an original id, or INT64_MIN for null);
    // default mode gives a host node index or -1.
    std::vector<int64_t> interThreadTarget;
    Csr gpuChildren;  // per host node: GPU events, in ts order
    // Per GPU event (Chakra): host nodes (original ids) that must wait for it.
    // Per ET+ "waiter" (default): see syncWaitsHost / syncWaitsGpu.
    std::vector<std::vector<int64_t>> chakraSyncWaiters; // indexed by event
    // Default mode: host node index -> GPU events it waits for; GPU event -> GPU events.
    std::vector<std::pair<uint32_t, uint32_t>> hostWaitsForGpu; // (host node, gpu event)
    std::vector<std::pair<uint32_t, uint32_t>> gpuWaitsForGpu;  // (waiting gpu event, gpu event)
};

EtPlusPlan buildEtPlusPlan(const HostTrace &host, const KinetoTrace &trace, const EtPlusInputs &in,
                           Diagnostics &diagnostics);

} // namespace syncscope
