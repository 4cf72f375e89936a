// SPDX-License-Identifier: MIT
// What linking a host ET to its Kineto trace produces: per-node and per-event
// links, counts for the coverage report, and the ET+ node plan that the ET+
// JSON writer and the Chakra protobuf converter both turn into files.
#pragma once

#include "json/pyjson.h"

#include <cstdint>
#include <string>
#include <vector>

namespace syncscope {

enum class LinkMode {
    Default, // Chakra's output schema with its known bugs fixed and fallbacks added
    Chakra,  // reproduce chakra_trace_link (mlcommons/chakra@21585d8) field for field
};

// How host nodes were matched to Kineto CPU ops.
enum class MatchStrategy {
    None,             // nothing could be matched
    RecordFunctionId, // ET rf_id == Kineto "Record function id" (PyTorch >= 2.4)
    ExternalId,       // ET rf_id == Kineto "External id" (older traces where the counters coincide)
    NameOrder,        // legacy: ET ops aligned with Kineto CPU ops by name and order per thread
};
const char *matchStrategyName(MatchStrategy s);

struct LinkCounts {
    int64_t hostOps = 0;            // ET nodes other than the process/thread roots
    int64_t hostOpsLinked = 0;      // ... matched to a Kineto CPU op
    int64_t hostOpsWithTwin = 0;    // linked + per name min(#unlinked ET ops, #unlinked Kineto CPU ops)
                                    // (unlinked ProfilerStep excluded); never below hostOpsLinked
    int64_t kinetoCpuOps = 0;       // Kineto cpu_op + user_annotation events, ProfilerStep excluded
    int64_t kinetoCpuOpsLinked = 0;
    int64_t gpuOps = 0;             // kernels, memcpys (and memsets in default mode)
    int64_t gpuOpsLinked = 0;       // ... present in the ET+ under a linked host node
    int64_t gpuOpsWithoutLauncher = 0; // no runtime call with the same correlation
    int64_t gpuOpsWithoutParent = 0;   // launcher found but no CPU op around it
    int64_t interThreadDeps = 0;    // linked host nodes with an inter_thread_dep
    int64_t syncDeps = 0;           // sync_dep entries written
    int64_t etPlusNodes = 0;
};

// One node of the ET+ document, in output order (ascending new id).
struct EtPlusNode {
    int64_t id = 0;          // new id
    uint32_t host = 0;       // HostTrace::nodes index whose JSON this node starts from
    int32_t gpuEvent = -1;   // >= 0: a GPU node made from this Kineto event
    bool timed = false;      // has inclusive_dur/exclusive_dur/ts/inter_thread_dep
    bool hasInterThreadDep = false; // false: inter_thread_dep is null
    bool rewriteParent = false;     // write `parentValue` into ctrl_deps (or parent, default mode 1.0.1)
    PyNumber inclusive, exclusive, ts;
    int64_t interThreadDep = 0;
    int64_t parentValue = 0;
    uint32_t syncBegin = 0, syncEnd = 0; // range in EtPlusPlan::syncDepIds
};

struct EtPlusPlan {
    std::vector<EtPlusNode> nodes;
    std::vector<int64_t> syncDepIds;
};

// A dependency between Kineto events that the linker derived.
struct EventDep {
    uint32_t from; // must finish first (GPU activity for sync deps; CPU op for inter-thread deps)
    uint32_t to;   // waits (CPU op or GPU activity)
};

struct LinkResult {
    LinkMode mode = LinkMode::Default;
    MatchStrategy strategy = MatchStrategy::None;
    LinkCounts counts;
    std::vector<int32_t> hostEvent;   // per host node: linked Kineto CPU op event, -1 if none
    std::vector<int32_t> eventHost;   // per Kineto event: linked host node index, -1 if none
    std::vector<int32_t> gpuParent;   // per Kineto event: CPU op that launched this GPU activity, -1 if none
    std::vector<int32_t> gpuLauncher; // per Kineto event: runtime call of this GPU activity, -1 if none
    std::vector<PyNumber> exclusive;  // per Kineto event: exclusive ("self") duration of CPU ops, µs
    std::vector<EventDep> syncDeps;   // GPU activity -> the op that waited for it
    std::vector<EventDep> interThreadDeps; // CPU op on another thread -> first op of a group
    // Default mode: GPU activity -> the blocking runtime call that waited for it (the .et
    // writer decides where the wait is counted: in the enclosing op, or as a dependency).
    std::vector<EventDep> blockingWaits;
    EtPlusPlan plan;

    double coverage() const
    {
        return counts.hostOpsWithTwin > 0 ? static_cast<double>(counts.hostOpsLinked) / counts.hostOpsWithTwin : 0.0;
    }
};

} // namespace syncscope
