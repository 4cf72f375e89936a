// SPDX-License-Identifier: MIT
// CUDA/HIP graph capture <-> replay. A replayed graph kernel has no CPU op of its
// own: one graph launch replays hundreds of ops. The trace of the capture (the
// same process, recorded while torch.cuda.graph / hipStreamBeginCapture captured
// the graph: the launches are recorded, the kernels are not run) says which CPU op,
// input shapes and Python stack each captured launch came from. This matches each
// replayed op with its captured launch (docs/graph_capture.md):
//  - per graph launch, its GPU ops in start order;
//  - a capture window (a stream capture's begin .. end call on one thread) with as
//    many launches, in launch order; where the capture's launch rows name their kernel
//    (HIP's args.kernel), the window whose names agree;
//  - op k of the replay <-> launch k of the window. A graph launch with no window of
//    its size, or whose names disagree on more than 10 % of the ops, is left
//    unmatched and said so.
#pragma once

#include "model/diagnostics.h"
#include "model/kinetotrace.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace syncscope {

// Where a replayed op came from, in the capture trace.
struct CapturedOrigin {
    uint32_t launch = 0;      // the launch call recorded during the capture (capture trace event)
    int32_t op = -1;          // the CPU op that made it (same External id), -1 when none
    std::string opName;       // its name, "" when none
    std::string inputDims;    // its "Input Dims" as written (JSON), "" when the capture has no raw args
    std::string pythonStack;  // the python_function frames around it, outermost first, " > " between
    std::string kernel;       // the kernel the launch row names (HIP), "" when it names none
};

struct GraphCaptureLink {
    std::string capturePath;
    std::string method;            // "launch order"
    size_t captures = 0;           // capture windows in the capture trace
    size_t capturedLaunches = 0;   // launches inside them
    size_t graphLaunches = 0;      // graph launch calls in the replay trace
    size_t replayedOps = 0;        // GPU ops of those launches
    size_t matched = 0;            // replayed ops given an origin
    size_t nameMismatches = 0;     // matched ops whose captured kernel name differs (HIP rows only)
    size_t verified = 0;           // matched ops whose captured launch names the same kernel
    std::vector<CapturedOrigin> origins;
    std::unordered_map<uint32_t, uint32_t> originOf; // replay GPU event -> index into origins

    const CapturedOrigin *find(uint32_t replayEvent) const
    {
        const auto it = originOf.find(replayEvent);
        return it == originOf.end() ? nullptr : &origins[it->second];
    }
};

// Matches the replay's graph ops with the capture's launches. The capture trace's raw
// events (LoadOptions::keepRawEvents) give the launch rows' kernel names and the ops'
// input shapes; without them the match is by order alone and shapes stay empty.
// Diagnostics: graph_capture.linked (info), graph_capture.unmatched, .no_capture,
// .no_graph_launch (warnings).
GraphCaptureLink linkGraphCapture(const KinetoTrace &capture, const KinetoTrace &replay, Diagnostics &diag);

// Whether the trace launches a CUDA/HIP graph (cudaGraphLaunch, hipGraphLaunch, ...).
bool replaysGraphs(const KinetoTrace &trace);

// A file beside `replayPath` whose name says it holds the capture ("capture" in it),
// a .json/.json.gz other than the replay itself; "" when none.
std::string findGraphCaptureBeside(const std::string &replayPath);

} // namespace syncscope
