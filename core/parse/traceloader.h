// SPDX-License-Identifier: MIT
// Loads one trace file of either kind, detecting which kind it is from its
// content (a top-level "nodes" array: host ET; "traceEvents" or a bare event
// array: Kineto device trace), never from its name.
#pragma once

#include "loadoptions.h"
#include "model/diagnostics.h"
#include "model/hosttrace.h"
#include "model/kinetotrace.h"

#include <memory>
#include <string>

namespace syncscope {

enum class TraceKind { Unknown, Host, Device };
const char *traceKindName(TraceKind k);

struct LoadedTrace {
    TraceKind kind = TraceKind::Unknown;
    std::shared_ptr<HostTrace> host;     // set when kind == Host
    std::shared_ptr<KinetoTrace> device; // set when kind == Device
    // False when the file could not be read completely; errors are in the diagnostics.
    bool complete = false;
    // A top-level value marks the file as one of Syncscope's own reports (not a trace).
    bool writtenBySyncscope = false;
};

// Never throws for bad input: problems become Error diagnostics naming the file.
LoadedTrace loadTrace(const std::string &path, Diagnostics &diagnostics, const LoadOptions &options = {});

} // namespace syncscope
