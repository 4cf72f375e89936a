// SPDX-License-Identifier: MIT
// Chakra mode's sync edges (trace_link_spec 3.3): HTA's critical path over the
// first ProfilerStep, keeping only the SYNC_DEPENDENCY edges on the path. Chakra
// pins HTA d731cc2e, so the path follows that version's rules (spec 8).
#include "analysis.h"

#include "analysis/criticalpath.h"

namespace syncscope {

CriticalPathOptions chakraCriticalPathOptions()
{
    CriticalPathOptions o; // HTA's defaults as Chakra calls it: "ProfilerStep", instance 0
    o.htaVersion = HtaVersion::D731cc2e;
    return o;
}

bool isChakraCriticalPathRequest(const CriticalPathOptions &o)
{
    const CriticalPathOptions chakra = chakraCriticalPathOptions();
    return o.htaVersion == chakra.htaVersion && o.annotation == chakra.annotation && o.instanceFirst == 0 && o.instanceLast == 0 &&
           o.zeroWeightLaunchEdges == chakra.zeroWeightLaunchEdges && o.nsRounding == chakra.nsRounding &&
           o.strictNegativeWeights == chakra.strictNegativeWeights && o.dataLoadEvents.empty();
}

std::vector<SyncEdgeRef> chakraSyncEdges(const KinetoTrace &trace, Diagnostics &diagnostics,
                                         const CriticalPathResult *computed)
{
    // chakra#162: without a ProfilerStep, HTA returns nothing and chakra_trace_link crashes.
    bool haveStep = false;
    for (const auto &e : trace.events)
        if (trace.str(e.name).find("ProfilerStep") != std::string_view::npos) {
            haveStep = true;
            break;
        }
    if (!haveStep) {
        diagnostics.error("link.compat_no_profilerstep",
                          trace.path + ": has no ProfilerStep annotation; chakra_trace_link crashes on such traces "
                                       "(mlcommons/chakra#162), so --compat chakra cannot reproduce it. The default "
                                       "mode links this pair and takes sync dependencies from every cuda_sync event.",
                          trace.path);
        return {};
    }
    // Reuse the session's result when it was computed with exactly Chakra's options.
    CriticalPathResult own;
    if (!computed) {
        Diagnostics cpaDiag;
        own = analyzeCriticalPath(trace, chakraCriticalPathOptions(), cpaDiag);
    }
    const CriticalPathResult &cp = computed ? *computed : own;
    if (!cp.success) {
        // Chakra logs "invalid graph structure" and carries on without sync deps.
        diagnostics.warning("link.compat_cpa_failed",
                            trace.path + ": the critical-path analysis failed (" + cp.reason +
                                "); like chakra_trace_link, linking continues without sync dependencies",
                            trace.path);
        return {};
    }
    std::vector<SyncEdgeRef> edges;
    for (int32_t e : cp.pathEdges) {
        if (cp.graph.edgeType[static_cast<size_t>(e)] != CpEdgeType::SyncDependency)
            continue;
        const auto from = static_cast<uint32_t>(cp.graph.nodeEvent[static_cast<size_t>(cp.graph.edgeFrom[static_cast<size_t>(e)])]);
        const auto to = static_cast<uint32_t>(cp.graph.nodeEvent[static_cast<size_t>(cp.graph.edgeTo[static_cast<size_t>(e)])]);
        edges.push_back({from, to});
    }
    return edges;
}

} // namespace syncscope
