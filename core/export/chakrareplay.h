// SPDX-License-Identifier: MIT
// Replays a Chakra .et the way a simulator consumes it, to check that an export
// reproduces the measured time: a node starts when all its ctrl_deps and
// data_deps are done and its resource (its CPU thread, or the GPU stream it runs
// on) is free, and takes its duration_micros.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace syncscope {

struct KinetoTrace;

struct ReplayWindow {
    std::string window;       // "ProfilerStep#N" or "overall"
    double measuredUs = -1;   // -1 when unknown (no start times in the file and none given)
    double replayedUs = 0;
    // After an export: the share of the window's Kineto CPU ops that the ET holds, and,
    // where the replay misses the target, why (the cause is the trace, not the writer).
    double etCoveragePct = -1;
    std::string note;
    double errorPct() const { return measuredUs > 0 ? 100.0 * (replayedUs - measuredUs) / measuredUs : 0.0; }
};

struct ReplayResult {
    int64_t nodes = 0;        // nodes replayed (a repeated id counts once)
    int64_t unreachable = 0;  // nodes never ready (a cycle, or a dependency loop through a missing node)
    int64_t missingDeps = 0;  // dependencies on ids not in the file (ignored, as simulators do)
    int64_t selfDeps = 0;     // dependencies of a node on itself (dropped: it could never be ready)
    int64_t duplicateIds = 0; // nodes whose id an earlier node has (dropped: the first one is replayed)
    double makespanUs = 0;
    std::vector<ReplayWindow> windows; // one per ProfilerStep#N node (file order), then "overall"
};

// Reads `path` (.et or .et.gz) and replays it. `measuredUs` overrides the
// measured time per window name (e.g. from the Kineto trace when the file has no
// start times). Throws InputError for an unreadable file.
ReplayResult replayChakraEt(const std::string &path, const std::map<std::string, double> &measuredUs = {});

// Fills etCoveragePct of each window (its ProfilerStep#N annotation, or the whole trace
// for "overall") from `eventHost` (per Kineto event: linked host node, -1 none), and a
// note where |error| is over `targetPct` and the ET holds under 90 % of the window's ops.
void annotateEtCoverage(std::vector<ReplayWindow> &windows, const KinetoTrace &trace,
                        const std::vector<int32_t> &eventHost, double targetPct = 5.0);

// The measured time of each ProfilerStep#N (its CPU-side annotation) and, as
// "overall", the span of the work a .et can hold (CPU ops, annotations, runtime
// calls, GPU activity): what an export's replay is compared with.
std::map<std::string, double> measuredReplayWindows(const KinetoTrace &trace);

// "ProfilerStep#0 -0.4 %, ..., overall -3.1 %" (replayed vs measured), for one line.
std::string formatReplayErrors(const std::vector<ReplayWindow> &windows);

// "replay  ProfilerStep#3  measured 1.234 ms  replayed 1.250 ms  (+1.3 %)" lines.
std::string formatReplay(const ReplayResult &r);

} // namespace syncscope
