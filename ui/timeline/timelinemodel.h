// SPDX-License-Identifier: MIT
// What the timeline shows, built off the GUI thread from the core results
// (display-free): the lane layout of the Kineto events and the edges. Built in
// two stages: lanes and launch edges as soon as the trace has loaded, the sync,
// critical-path and inter-thread edges when the analysis is done.
#pragma once

#include "edgeindex.h"
#include "lanelayout.h"

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace syncscope {
struct Analysis;
struct CriticalPathResult;
struct KinetoTrace;
} // namespace syncscope

namespace syncscope::ui {

struct TimelineModel;

// One rank of a job timeline: its own single-rank model and where its events
// land in the job's model (event ids and time).
struct TimelineRankPart {
    int64_t rank = -1;
    uint32_t base = 0;                          // job event id = base + the rank's event id
    std::shared_ptr<const TimelineModel> model; // the rank's own model (its trace, edges, lanes)
    int64_t shiftNs = 0;                        // rank time (from its origin) + shiftNs = job time
    double clockOffsetUs = 0;                   // applied (0 with raw clocks or before the analysis)
    uint32_t events = 0;                        // ids [base, base + events) are this rank's
    std::string label;                          // the rank header: "Rank 3 · step 14.5 ms · ..."
};

// A job collective kernel's part in its matched instance (JobAnalysis::collectives).
struct CollectiveMark {
    uint32_t collective = 0; // index into JobAnalysis::collectives
    float waitNs = 0;        // from the kernel's start to the last arrival (drawn hatched)
    bool lastArrival = false;
};

struct TimelineModel {
    std::shared_ptr<const KinetoTrace> trace; // null in synthetic (benchmark) and job models
    int64_t originNs = 0;                     // absolute ns of the trace start (the time axis' 0)
    // What the time axis' 0 is, shown in its title and wherever a time of this view is
    // given (one time base per view): "from the trace start", or a job's aligned origin.
    std::string timeBase = "time from the trace start";
    std::string timeBaseShort = "from the trace start"; // after a time in a panel
    LaneLayout layout;
    EdgeIndex edges;
    std::vector<uint32_t> criticalEvents;     // what the layout marks as critical
    // The part of a critical op the path runs through, as fractions of its length, for the
    // ops the path only passes part of (a blocking copy it joins at the copy's end): drawn
    // red there only (issue 41). Whole ops are not listed.
    std::unordered_map<uint32_t, std::pair<float, float>> criticalPart;

    // Job models only (empty for a single pair): the ranks in ascending base order,
    // the matched collective kernels and, per matched collective, its kernels.
    std::vector<TimelineRankPart> parts;
    std::unordered_map<uint32_t, CollectiveMark> collectiveOf;
    std::vector<std::vector<uint32_t>> collectiveEvents;
    bool isJob() const { return !parts.empty(); }
    // The part holding a job event id, -1 when none (or not a job).
    int partOf(uint32_t event) const;
    const CollectiveMark *collectiveMark(uint32_t event) const
    {
        auto it = collectiveOf.find(event);
        return it == collectiveOf.end() ? nullptr : &it->second;
    }

    std::string_view name(uint32_t event) const;
    Category category(uint32_t event) const;
    double startNs(uint32_t event) const; // relative to originNs; 0 when unknown
    double endNs(uint32_t event) const;
    double spanNs() const { return double(layout.endNs); }
    // "GPU 0 · stream 7" / "python3 (pid 31337) · thread 31402": the lane of the event ("" if none).
    std::string laneName(uint32_t event) const;
};

// The colour category of a Kineto event (NCCL/RCCL work and collectives count as communication).
Category categoryOf(const KinetoTrace &trace, uint32_t event);

// Stage 1: lanes of every timed event (flows and metadata aside) and the launch
// edges (runtime call -> GPU activity by correlation id).
std::shared_ptr<TimelineModel> buildTimelineModel(std::shared_ptr<const KinetoTrace> trace);

// Stage 2: all edges (launch again, sync, critical path of `cp`, inter-thread).
EdgeIndex buildEdgeIndex(const TimelineModel &model, const Analysis &analysis, const CriticalPathResult *cp);

// TimelineModel::criticalPart of `cp`: the ops whose start or end only is on the path (the
// path joins a blocking call at its end, from the GPU): (1, 1) end only, (0, 0) start only.
std::unordered_map<uint32_t, std::pair<float, float>> criticalParts(const CriticalPathResult &cp);

// The critical path's arrows: one per path edge between two different events,
// from the time of its source node to the time of its destination node.
std::vector<TimelineEdge> criticalPathEdges(const TimelineModel &model, const CriticalPathResult &cp);

} // namespace syncscope::ui
