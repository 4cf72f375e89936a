// SPDX-License-Identifier: MIT
// One rank's analysis as data: what was asked (AnalysisRequest) and what came out
// (Analysis). session/ fills it (runAnalysis); the writers below the pipeline
// (export/, report/) and the job read it, so the type lives on the analysis floor
// (docs/architecture.md).
#pragma once


#include "analysis/criticalpath.h"
#include "analysis/syncedges.h"
#include "link/linker.h"
#include "model/diagnostics.h"
#include "model/hosttrace.h"
#include "model/kinetotrace.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace syncscope {

struct ReportBreakdown;
struct GraphCaptureLink;

// How the critical-path window is chosen (README "Steps and HTA instances").
enum class WindowKind : uint8_t {
    // Step (the first ProfilerStep#N in time) unless HTA's window is asked for: HTA-exact
    // or d731cc2e, --compat chakra, an annotation other than ProfilerStep, a non-zero
    // instance; then, and on a trace without ProfilerStep#N steps, as HtaInstance.
    Default,
    Step,        // --step: ProfilerStep#stepFirst..#stepLast by name, the last step's events kept
    HtaInstance, // --instance / --annotation: HTA's instance numbering (cpa.annotation, cpa.instance*)
};

struct AnalysisRequest {
    std::string hostPath;   // may be empty (device-only analysis)
    std::string devicePath; // required
    // A trace of the same process recorded while its CUDA/HIP graphs were captured: the
    // replayed kernels take their captured launch's CPU op, shapes and Python stack
    // (analysis/graphcapture.h). Empty: a file beside the device trace with "capture" in
    // its name, when the device trace replays graphs (findGraphCapture).
    std::string graphCapturePath;
    bool findGraphCapture = true;
    bool rolesGiven = true;  // false: two files in any order (no warning when they are swapped)
    LinkMode mode = LinkMode::Default;
    bool chakraMetadataNodes = false; // --chakra-metadata-nodes: process_group:init as METADATA_NODE
    std::optional<int64_t> rank;       // checked against distributedInfo.rank
    bool keepRawEvents = false;        // the GUI shows every event's args
    bool criticalPath = true;          // run the critical-path analysis
    CriticalPathOptions cpa;           // window (annotation/instance) and HTA switches
    bool allSteps = false;             // also one critical path per ProfilerStep
    // HTA's breakdowns (report/breakdownreport.h), whole trace and per step: the
    // whole-trace part runs while the critical path does, the steps after it.
    bool breakdowns = false;
    bool stepBreakdowns = true; // with allSteps, per step too (a job's ranks need only the whole trace)
    WindowKind window = WindowKind::Default;
    int64_t stepFirst = -1, stepLast = -1; // Step: N of ProfilerStep#N; -1 = the first step in time
    const std::atomic<bool> *cancel = nullptr;
    // stage name ("load host", "load device", "sync", "link", "critical path") and its
    // progress 0..1; called from worker threads.
    std::function<void(const char *stage, double fraction)> progress;
    // Called once, from the calling thread, when both inputs have loaded and passed the
    // checks, before sync edges, the critical path and the link are computed: the GUI
    // draws the timeline from these immutable traces while the analysis goes on.
    std::function<void(const std::shared_ptr<const KinetoTrace> &device,
                       const std::shared_ptr<const HostTrace> &host)>
        loaded;
};

struct StageTimes {
    double loadSeconds = 0;
    double linkSeconds = 0;
    double syncSeconds = 0;
    double criticalPathSeconds = 0;
};

struct Analysis {
    AnalysisRequest request;        // as given
    std::string hostPath;           // after auto-detection (a swapped pair is put right)
    std::string devicePath;
    bool swapped = false;
    std::shared_ptr<const HostTrace> host;
    std::shared_ptr<const KinetoTrace> device;
    Diagnostics diagnostics;
    bool inputsOk = false;          // both inputs loaded completely and are of the right kind
    int64_t devicePid = -1;         // the process of the Kineto CPU events
    std::vector<SyncEdge> syncEdges;        // every sync edge of the trace (HTA rules)
    std::vector<SyncEdgeRef> linkSyncEdges; // the ones the linker used
    std::optional<LinkResult> link; // set when a host trace was given and loaded
    std::optional<CriticalPathResult> criticalPath; // set when requested and the device trace loaded
    // The rule the critical path followed: Step or HtaInstance (never Default; a whole
    // trace reads window.wholeTrace), and whether the default rule chose it.
    WindowKind window = WindowKind::HtaInstance;
    bool windowByDefault = true;
    std::vector<StepResult> steps;  // per-step critical paths (allSteps)
    std::shared_ptr<const ReportBreakdown> breakdown; // request.breakdowns and a device trace
    std::shared_ptr<const GraphCaptureLink> graphCapture; // the replay's captured origins, when a capture was read
    StageTimes times;
};

// Runs load -> checks -> sync edges -> link -> critical path. Never throws for bad input.
} // namespace syncscope
