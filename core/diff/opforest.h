// SPDX-License-Identifier: MIT
// One trace's CPU ops as call trees, for the run diff: per thread, the CPU-side
// ops (cpu_op, user_annotation) nested by time, each with its call-tree path of
// names ("ProfilerStep > aten::linear > aten::addmm"), grouped by step and thread
// so two runs can be aligned step by step. Runtime calls are attached to their
// innermost op, so a GPU activity knows the path of the op that launched it.
#pragma once

#include "model/kinetotrace.h"

#include <cstdint>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

namespace syncscope {

// Path strings shared by both runs: equal paths get equal ids.
class PathTable
{
public:
    uint32_t intern(const std::string &path);
    const std::string &path(uint32_t id) const { return m_paths[id]; }
    const std::string &leaf(uint32_t id) const { return m_leaves[id]; }
    size_t size() const { return m_paths.size(); }

private:
    std::unordered_map<std::string, uint32_t> m_ids;
    std::vector<std::string> m_paths;
    std::vector<std::string> m_leaves; // the last name of each path
};

constexpr uint32_t kNoPath = std::numeric_limits<uint32_t>::max();

// The analysed time window in the trace's own µs; the whole trace by default.
struct DiffWindow {
    double startUs = -std::numeric_limits<double>::infinity();
    double endUs = std::numeric_limits<double>::infinity();
    bool contains(double ts) const { return ts >= startUs && ts < endUs; }
};

struct OpForest {
    // Node i: a CPU-side op, in (thread, ts) order.
    std::vector<uint32_t> event;      // index into the trace's events
    std::vector<int32_t> parent;      // node id, -1 for a top-level op
    std::vector<uint32_t> pathId;     // PathTable id
    std::vector<double> selfUs;       // duration minus its children's
    // Children of node i: childIds[childBegin[i] .. childBegin[i+1]), in ts order.
    std::vector<uint32_t> childBegin, childIds;
    // Top-level ops grouped by (step ordinal, thread ordinal), in ts order. Step -1:
    // before the first ProfilerStep (or no steps at all).
    struct Group {
        int step = -1;
        int thread = 0;
        std::vector<uint32_t> roots;
    };
    std::vector<Group> groups; // sorted by (step, thread)
    // Per event: the node of the innermost op around a runtime call or op (-1 none).
    std::unordered_map<uint32_t, int32_t> runtimeParent; // runtime event -> node
    std::unordered_map<int64_t, uint32_t> runtimeByCorrelation; // launch correlation -> runtime event
    std::vector<uint32_t> stepEvents; // ProfilerStep#N annotations in ts order

    size_t size() const { return event.size(); }
    // Path of the op that launched GPU activity `gpuEvent` (via its correlation), kNoPath when unknown.
    uint32_t launchPath(const KinetoTrace &trace, uint32_t gpuEvent) const;
    // Path of the op around runtime call `runtimeEvent`, kNoPath when none.
    uint32_t callerPath(uint32_t runtimeEvent) const;
};

// Builds the forest of every CPU-side op of `trace` (the window is applied when
// counting, so an op keeps its full path whatever the window). The step
// annotation's own name is written "ProfilerStep" in paths, so step N of one run
// and step M of the other share their paths.
OpForest buildOpForest(const KinetoTrace &trace, PathTable &paths);

} // namespace syncscope
