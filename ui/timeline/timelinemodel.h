// SPDX-License-Identifier: MIT
// What the timeline shows, built off the GUI thread from the core results
// (display-free): the lane layout of the Kineto events and the edges. Built in
// two stages: lanes and launch edges as soon as the trace has loaded, the sync,
// critical-path and inter-thread edges when the analysis is done.
#pragma once

#include "edgeindex.h"
#include "lanelayout.h"

#include <memory>
#include <string_view>
#include <vector>

namespace syncscope {
struct Analysis;
struct CriticalPathResult;
struct KinetoTrace;
} // namespace syncscope

namespace syncscope::ui {

struct TimelineModel {
    std::shared_ptr<const KinetoTrace> trace; // null in synthetic (benchmark) models
    int64_t originNs = 0;                     // absolute ns of the trace start (the time axis' 0)
    LaneLayout layout;
    EdgeIndex edges;
    std::vector<uint32_t> criticalEvents;     // what the layout marks as critical

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

// The critical path's arrows: one per path edge between two different events,
// from the time of its source node to the time of its destination node.
std::vector<TimelineEdge> criticalPathEdges(const TimelineModel &model, const CriticalPathResult &cp);

} // namespace syncscope::ui
