// SPDX-License-Identifier: MIT
// Lanes of the timeline, built once from the events (display-free).
// One group per track (a CPU thread or a GPU stream); inside a group, events
// are stacked into rows by nesting, parents on top: an event goes one row below
// the innermost still-open event it starts inside. Events that overlap without
// nesting (two kernels on one stream at once) therefore land on extra rows:
// nothing is ever dropped. Every row is sorted by start and its events do not
// overlap, so both starts and ends are ascending and a visible window is two
// binary searches away.
// Kineto rounds to the µs in older traces, so back-to-back GPU work often
// "overlaps" by a nanosecond; an overlap up to kRoundingToleranceNs is taken as
// back-to-back (the later box starts 1 ns later on screen; details show the
// exact times) instead of opening an overlap row.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace syncscope::ui {

enum class Category : uint8_t {
    CpuOp,
    Annotation,   // user annotations (ProfilerStep#N, record_function), also on GPU streams
    Python,       // python_function
    Runtime,      // CUDA/HIP runtime and driver calls
    Kernel,
    Memcpy,
    Memset,
    Sync,         // cuda_sync rows and synchronising runtime calls
    Communication,// NCCL / RCCL kernels and collective ops
    Other,
};
constexpr int kCategoryCount = 10;
constexpr int64_t kRoundingToleranceNs = 1;
const char *categoryName(Category c);

struct LayoutItem {
    int64_t startNs = 0; // relative to the trace origin
    int64_t durNs = 0;   // >= 0
    uint32_t event = 0;  // the caller's id (the Kineto event index)
    uint32_t track = 0;  // index into the track list
    uint8_t band = 0;    // independent row stacks inside a track (GPU: 0 annotations, 1 work, 2 cuda_sync)
    Category category = Category::Other;
};

struct TrackInfo {
    std::string name;    // lane label: "thread 31337 (python3)", "stream 7"
    std::string process; // "python3 (pid 31337)", "GPU 0"
    bool gpu = false;
};

struct LaneRow {
    uint32_t group = 0;
    uint8_t band = 0;
    uint16_t depth = 0;                // row inside its band
    std::vector<int64_t> start, end;   // ns, both ascending
    std::vector<uint32_t> event;
    std::vector<Category> category;
    std::vector<uint32_t> criticalPrefix; // criticalPrefix[i] = critical events among [0, i)
    std::vector<int64_t> busyPrefix;      // busyPrefix[i] = ns covered by events [0, i) (finishRow)
    // Long rows (finishRow): time cut in buckets of about 8 events, each with the first event
    // ending after its start, so a search for the event at a time starts a few events away
    // (the zoomed-out density's searches were a cache miss each at 10 M events).
    int64_t bucketOrigin = 0, bucketWidth = 0; // 0: no buckets
    std::vector<uint32_t> bucketFirst;
    size_t size() const { return event.size(); }
    // The first event at or after `from` ending after t, searched from its bucket on.
    size_t searchFrom(size_t from, double t) const;
    uint32_t criticalIn(size_t first, size_t last) const { return criticalPrefix[last] - criticalPrefix[first]; }
};

// Once a row's events are in: its critical counts (none yet) and busy-time prefix sums.
void finishRow(LaneRow &row);

struct LaneGroup {
    std::string name;
    std::string process;
    bool gpu = false;
    uint32_t track = 0;
    uint32_t firstRow = 0, rowCount = 0;
    uint32_t overlapRows = 0; // GPU groups: extra rows of band 1 caused by overlapping work (flagged in the label)
    uint64_t events = 0;
    // Job timelines (jobtimeline.h): the rank part this lane belongs to (index into
    // TimelineModel::parts), -1 on a single pair; what folding the rank does with it.
    int32_t part = -1;
    // A folded rank shows its two summary lanes, compact, and none of its own lanes.
    enum class JobRole : uint8_t { Lane, CpuThread, CpuSummary, GpuSummary } role = JobRole::Lane;
    // A folded rank's strip: its ops repeat the lanes folded onto it.
    bool isSummary() const { return role == JobRole::CpuSummary || role == JobRole::GpuSummary; }
};

struct EventPos {
    int32_t row = -1;   // -1: not on the timeline (flows, metadata)
    uint32_t index = 0; // position in the row
};

struct LaneLayout {
    std::vector<LaneGroup> groups; // in track order; tracks without events are left out
    std::vector<LaneRow> rows;     // grouped: rows of group g are [firstRow, firstRow + rowCount)
    std::vector<EventPos> eventPos;// indexed by event id
    int64_t endNs = 0;             // latest end over all items
    size_t itemCount = 0;

    const EventPos &pos(uint32_t event) const
    {
        static const EventPos none;
        return event < eventPos.size() ? eventPos[event] : none;
    }
    // Marks exactly these events as critical (rebuilds the prefix counts).
    void setCritical(const std::vector<uint32_t> &events);
    bool isCritical(uint32_t event) const;
};

// Lays out the items; `eventCount` bounds the event ids (eventPos size).
LaneLayout buildLaneLayout(std::vector<LayoutItem> items, const std::vector<TrackInfo> &tracks, size_t eventCount);

} // namespace syncscope::ui
