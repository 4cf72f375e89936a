// SPDX-License-Identifier: MIT
#include "kinetoview.h"

#include <algorithm>
#include <limits>
#include <string_view>

namespace syncscope {

namespace {

constexpr std::string_view kLaunchNames[] = {
    "cuLaunchKernel",      "cuLaunchKernelEx",         "cudaLaunchKernel",        "cudaLaunchKernelExC",
    "cudaMemcpy",          "cudaMemcpyAsync",          "cudaMemcpyFromSymbol",    "cudaMemcpyToSymbol",
    "cudaLaunchCooperativeKernel", "hipLaunchKernel",  "hipExtLaunchKernel",      "hipExtModuleLaunchKernel",
    "hipModuleLaunchKernel", "hipMemcpyWithStream",    "hipMemcpyAsync",
};

// Strings in pid/tid become negative keys that cannot collide with real ids.
int64_t idPart(int64_t value, bool isString)
{
    return isString ? std::numeric_limits<int64_t>::min() + value : value;
}

} // namespace

bool isChakraCpuOp(const KinetoTrace &trace, const KinetoEvent &e)
{
    if (e.kind != EventKind::CpuOp && e.kind != EventKind::UserAnnotation)
        return false;
    return trace.str(e.name).find("ProfilerStep") == std::string_view::npos;
}

bool isChakraLaunch(const KinetoTrace &trace, const KinetoEvent &e)
{
    if (e.kind != EventKind::Runtime && e.kind != EventKind::Driver)
        return false;
    const std::string_view name = trace.str(e.name);
    return std::find(std::begin(kLaunchNames), std::end(kLaunchNames), name) != std::end(kLaunchNames);
}

bool isLinkedGpuOp(LinkMode mode, const KinetoEvent &e)
{
    if (e.kind == EventKind::Kernel || e.kind == EventKind::Memcpy)
        return true;
    // Chakra ignores memsets entirely; we link them like any GPU activity.
    return mode == LinkMode::Default && e.kind == EventKind::Memset;
}

ThreadId threadOf(const KinetoEvent &e, LinkMode mode)
{
    const int64_t tid = idPart(e.tid, e.has(KinetoEvent::TidIsString));
    if (mode == LinkMode::Chakra)
        return {0, tid};
    return {idPart(e.pid, e.has(KinetoEvent::PidIsString)), tid};
}

KinetoView buildKinetoView(const KinetoTrace &trace, LinkMode mode)
{
    KinetoView v;
    v.mode = mode;
    const auto &events = trace.events;
    v.byTs.resize(events.size());
    for (uint32_t i = 0; i < events.size(); ++i)
        v.byTs[i] = i;
    std::stable_sort(v.byTs.begin(), v.byTs.end(),
                     [&](uint32_t a, uint32_t b) { return events[a].ts < events[b].ts; });

    // The thread's slot, created at its first record.
    auto threadSlot = [&](const KinetoEvent &e) {
        const ThreadId t = threadOf(e, mode);
        auto [it, inserted] = v.threadIndex.try_emplace(t, static_cast<uint32_t>(v.threads.size()));
        if (inserted) {
            v.threads.push_back(t);
            v.threadCpuOps.emplace_back();
            v.threadAllRecords.emplace_back();
        }
        return it->second;
    };
    for (uint32_t idx : v.byTs) {
        const KinetoEvent &e = events[idx];
        const bool cpu = isChakraCpuOp(trace, e);
        if (mode == LinkMode::Chakra) // Chakra files every record (metadata and flows included) under its tid
            v.threadAllRecords[threadSlot(e)].push_back(idx);
        if (cpu) {
            v.cpuOps.push_back(idx);
            v.cpuOpTs.push_back(e.ts);
            const uint32_t slot = threadSlot(e);
            if (v.threadCpuOps[slot].empty())
                v.cpuThreadOrder.push_back(slot);
            v.threadCpuOps[slot].push_back(idx);
            if (e.has(KinetoEvent::HasRfId))
                v.cpuOpByRfId[e.rfId] = idx;
        } else if (mode == LinkMode::Chakra ? isChakraLaunch(trace, e)
                                            : (e.kind == EventKind::Runtime || e.kind == EventKind::Driver) &&
                                                  e.has(KinetoEvent::HasCorrelation)) {
            auto [it, inserted] = v.launchByCorrelation.try_emplace(e.correlation, idx);
            if (!inserted) {
                v.duplicateCorrelations.push_back(e.correlation);
                if (mode == LinkMode::Chakra)
                    it->second = idx;
            }
        } else if (isLinkedGpuOp(mode, e)) {
            v.gpuOps.push_back(idx);
        } else if (e.kind == EventKind::Flow && isLaunchFlowCategory(trace.str(e.cat))) {
            if (!e.has(KinetoEvent::HasFlowId))
                ++v.flowsWithoutId;
            if (e.ph != 's' && e.ph != 'f')
                ++v.flowsWithBadPhase;
        }
        // Chakra maps every record, whatever its class; -1 included.
        v.latestByExternalId[e.externalId] = idx;
    }
    return v;
}

} // namespace syncscope
