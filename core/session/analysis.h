// SPDX-License-Identifier: MIT
// The whole pipeline for one rank — load the pair, check it, link it, infer
// sync edges — shared by the batch driver and the GUI's loader thread, so both
// produce the same results and the same diagnostics.
#pragma once

#include "analysis/rankanalysis.h"

#include <memory>
#include <vector>

namespace syncscope {

// In Chakra mode the sync edges given to the linker are the SYNC_DEPENDENCY
// edges on the critical path of the first ProfilerStep (trace_link_spec 3.3),
// computed with HTA d731cc2e's rules whatever request.cpa.htaVersion says.
std::shared_ptr<Analysis> runAnalysis(const AnalysisRequest &request);

// Chakra mode's sync source: what chakra_trace_link gets from HTA. `computed`
// is a critical path already computed with Chakra's options (see below), or null.
std::vector<SyncEdgeRef> chakraSyncEdges(const KinetoTrace &trace, Diagnostics &diagnostics,
                                         const CriticalPathResult *computed = nullptr);
// The options chakra_trace_link gives HTA, with the HTA version Chakra pins (d731cc2e).
CriticalPathOptions chakraCriticalPathOptions();
// True when `options` are exactly those.
bool isChakraCriticalPathRequest(const CriticalPathOptions &options);

// The Kineto CPU process id: the most common integer pid among CPU ops.
int64_t kinetoProcessId(const KinetoTrace &trace);

} // namespace syncscope
