// SPDX-License-Identifier: MIT
// HTA's overlaid trace (critical_path_spec.md 3.3): the input trace re-read
// and written back with args.critical = 1 on every critical event and the
// critical-path edges appended as flow pairs, so it opens in Perfetto.
// The input is streamed (never parsed into a DOM); event text is copied as is
// except for the inserted "critical" key.
#pragma once

#include "analysis/criticalpath.h"
#include "model/diagnostics.h"

#include <cstddef>
#include <string>
#include <vector>

namespace syncscope {

struct OverlayOptions {
    // Keep the non-critical events (HTA only_show_critical_events=False). Otherwise
    // only critical "X" events, user annotations, python functions and non-X
    // events (metadata, instants, flows) are kept.
    bool allEvents = false;
    // Draw every graph edge, not only the critical DEPENDENCY / KERNEL_LAUNCH_DELAY /
    // SYNC_DEPENDENCY ones. As in HTA it only applies together with allEvents.
    bool showAllEdges = false;
    // With showAllEdges, also draw 0-weight launch edges (CRITICAL_PATH_SHOW_ZERO_WEIGHT_LAUNCH_EDGE).
    bool showZeroWeightLaunchEdges = false;
    // HTA d731cc2e's flows (spec 8): every critical edge is drawn by default, the
    // flow's cat is the edge type string and args has no "type".
    HtaVersion htaVersion = HtaVersion::F4d0062;
    // Other inputs of the run (the host ET) that the overlay must never replace;
    // the trace file itself is always protected.
    std::vector<std::string> otherInputs;
};

struct OverlayStats {
    size_t eventsWritten = 0;  // input events kept (flows not included)
    size_t criticalEvents = 0; // events marked critical
    size_t flowPairs = 0;
};

// Writes the overlay of `trace` (re-read from trace.path, which must be the file
// the trace was loaded from) to `outPath`, gzip-compressed when the name ends in
// ".gz". Atomic; refuses to overwrite the input. Returns false and adds an Error
// diagnostic on failure (then no file is left behind).
bool writeOverlay(const std::string &outPath, const KinetoTrace &trace, const CriticalPathResult &result,
                  const OverlayOptions &options, Diagnostics &diag, OverlayStats *stats = nullptr);

// The event text with args.critical set to 1 (exposed for tests): an existing
// "critical" member of args is replaced, otherwise the key is appended to args;
// an event without args gets "args": {"critical": 1}.
std::string markEventCritical(std::string_view eventJson);

} // namespace syncscope
