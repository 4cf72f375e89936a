// SPDX-License-Identifier: MIT
// The arrows of the timeline (launch, sync, critical path, inter-thread), kept
// per kind in time order so a repaint finds the visible ones by binary search
// and thins dense bundles to one arrow per pixel column (display-free).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace syncscope::ui {

enum class EdgeKind : uint8_t { Launch, Sync, CriticalPath, InterThread };
constexpr int kEdgeKindCount = 4;
const char *edgeKindName(EdgeKind k);

struct TimelineEdge {
    uint32_t from = 0, to = 0;   // event ids
    double fromNs = 0, toNs = 0; // the arrow's ends in time (ns from the trace start)
    EdgeKind kind = EdgeKind::Launch;
    uint8_t detail = 0;          // SyncKind of a sync edge, CpEdgeType of a critical-path edge
    bool inferred = false;       // sync: inferred from the runtime calls (drawn dashed), not from a cuda_sync row
    float valueUs = 0;           // sync: how long the waiter waited; critical path: the edge weight
    double minNs() const { return fromNs < toNs ? fromNs : toNs; }
    double maxNs() const { return fromNs < toNs ? toNs : fromNs; }
};

struct EdgeRef {
    EdgeKind kind;
    uint32_t id; // index in edges(kind)
};

class EdgeIndex
{
public:
    void add(const TimelineEdge &e) { m_kinds[static_cast<int>(e.kind)].edges.push_back(e); }
    // Sorts each kind by start time and builds the lookup tables; call once after adding.
    void finish();

    const std::vector<TimelineEdge> &edges(EdgeKind k) const { return m_kinds[static_cast<int>(k)].edges; }
    size_t count(EdgeKind k) const { return edges(k).size(); }
    size_t total() const;

    // Ids of the edges of kind `k` whose time span meets [t0, t1], in time order.
    // After the first `budget`, at most one edge per `bucketNs`-wide column is kept:
    // the first starting in the column, or for edges that start left of the view,
    // the first ending in it (so the output is bounded by budget + 2 x columns).
    void visible(EdgeKind k, double t0, double t1, double bucketNs, size_t budget, std::vector<uint32_t> &out) const;

    // Every edge that starts or ends at `event`.
    std::vector<EdgeRef> edgesOf(uint32_t event) const;

private:
    struct Kind {
        std::vector<TimelineEdge> edges;
        std::vector<double> prefixMaxEnd; // max(maxNs) over [0, i]
    };
    Kind m_kinds[kEdgeKindCount];
    // (event, kind << 28 | id) sorted by event: edges at each event.
    std::vector<std::pair<uint32_t, uint32_t>> m_byEvent;
};

} // namespace syncscope::ui
