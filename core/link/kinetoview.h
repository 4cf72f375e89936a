// SPDX-License-Identifier: MIT
// The linker's view of a Kineto trace: events classified Chakra's way and
// indexed by time, thread, correlation, External id and Record function id.
#pragma once

#include "link/linkresult.h"
#include "model/kinetotrace.h"

#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

namespace syncscope {

// Thread identity: Chakra keys threads by tid alone, default mode by (pid, tid).
using ThreadId = std::pair<int64_t, int64_t>;

struct ThreadIdHash {
    size_t operator()(const ThreadId &t) const
    {
        return std::hash<int64_t>()(t.first) * 1000003u ^ std::hash<int64_t>()(t.second);
    }
};

struct KinetoView {
    LinkMode mode = LinkMode::Default;
    std::vector<uint32_t> byTs;   // every event, stable-sorted by ts
    std::vector<uint32_t> cpuOps; // CPU ops, stable by ts
    std::vector<double> cpuOpTs;  // their ts, for binary searches
    std::vector<uint32_t> gpuOps; // GPU activities, stable by ts
    std::unordered_map<int64_t, uint32_t> launchByCorrelation;
    std::unordered_map<int64_t, uint32_t> latestByExternalId; // latest-starting record per External id
    std::unordered_map<int64_t, uint32_t> cpuOpByRfId;        // latest-starting CPU op per Record function id
    // Threads in order of their first CPU op in time order (Chakra's dict order).
    std::vector<ThreadId> threads;
    std::unordered_map<ThreadId, uint32_t, ThreadIdHash> threadIndex;
    std::vector<std::vector<uint32_t>> threadCpuOps;     // per thread, stable by ts
    std::vector<std::vector<uint32_t>> threadAllRecords; // per thread, every record (Chakra mode)
    std::vector<uint32_t> cpuThreadOrder; // thread indices in order of their first CPU op
    std::vector<int64_t> duplicateCorrelations;
    int64_t flowsWithoutId = 0;
    int64_t flowsWithBadPhase = 0;
};

bool isChakraCpuOp(const KinetoTrace &trace, const KinetoEvent &e);
bool isChakraLaunch(const KinetoTrace &trace, const KinetoEvent &e);
bool isLinkedGpuOp(LinkMode mode, const KinetoEvent &e);
ThreadId threadOf(const KinetoEvent &e, LinkMode mode);

KinetoView buildKinetoView(const KinetoTrace &trace, LinkMode mode);

} // namespace syncscope
