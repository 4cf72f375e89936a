// SPDX-License-Identifier: MIT
// CP.json: the critical-path result as a small, deterministic JSON document
// (the same input gives byte-identical output). Layout, top level in this order:
//   tool, version, input, annotation, instance (k or [a, b]), success, reason,
//   options {hta_version, zero_weight_launch_edges, ns_rounding, data_load_events},
//   window {whole_trace, annotation_found, instance_count, start_us, end_us (null = open)},
//   rows {loaded, clipped},
//   graph {node_list, nodes, edges, edges_by_type {OPERATOR_KERNEL, DEPENDENCY,
//          KERNEL_LAUNCH_DELAY, KERNEL_KERNEL_DELAY, SYNC_DEPENDENCY}},
//   critical_path {nodes, events, edges, edges_by_type, weight_us,
//                  path [[event_index, "start"|"end"], ...], critical_events [...]},
//   sync_edges [[src_event_index, dst_event_index], ...] (all SYNC_DEPENDENCY edges, sorted),
//   summary {bound_by: percent, ...} (sorted by bucket name; "" is HTA's bucket of
//           DEPENDENCY/SYNC edges),
//   steps [...] (when a per-step table is given),
//   sync_waits {kind: {edges, calls, wait_us}, ..., total_wait_us} (when sync edges are given).
// Times are µs; start_us/end_us are relative to the earliest event, as in HTA.
#pragma once

#include "analysis/criticalpath.h"
#include "analysis/syncedges.h"
#include "model/diagnostics.h"

#include <string>
#include <vector>

namespace syncscope {

struct CriticalPathJsonInput {
    const KinetoTrace *trace = nullptr;
    const CriticalPathOptions *options = nullptr;
    const CriticalPathResult *result = nullptr;
    const std::vector<StepResult> *steps = nullptr;   // --instance all
    const std::vector<SyncEdge> *syncEdges = nullptr; // for the sync-wait totals
};

// The whole document as text (ends with a newline).
std::string criticalPathJson(const CriticalPathJsonInput &input);

// Writes the document atomically to `path`, never over the trace file or one of
// `otherInputs` (the host ET). Returns false and adds an Error diagnostic when it
// cannot be written.
bool writeCriticalPathJson(const std::string &path, const CriticalPathJsonInput &input, Diagnostics &diag,
                           const std::vector<std::string> &otherInputs = {});

} // namespace syncscope
