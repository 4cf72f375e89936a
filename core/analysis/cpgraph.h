// SPDX-License-Identifier: MIT
// The critical-path graph in flat arrays: a node list (two nodes per event,
// sorted by time), a simple digraph of typed, weighted edges with networkx's
// insertion-order semantics, and the adjacency needed for the longest path.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace syncscope {

enum class CpEdgeType : uint8_t { OperatorKernel, Dependency, KernelLaunchDelay, KernelKernelDelay, SyncDependency };
constexpr int kCpEdgeTypeCount = 5;

// HTA's string value of the type: "critical_path_operator", ...
const char *cpEdgeTypeValue(CpEdgeType t);
// HTA's enum name: "OPERATOR_KERNEL", ...
const char *cpEdgeTypeEnumName(CpEdgeType t);

// Marks an edge that has no attributed event (HTA's edge_to_event_map has no entry).
constexpr int32_t kNoAttribution = std::numeric_limits<int32_t>::min();

class CpGraph
{
public:
    // --- node list (ids are positions; set by the builder) ---
    std::vector<int32_t> nodeEvent;  // raw traceEvents index of the node's event
    std::vector<double> nodeTime;    // HTA-relative µs
    std::vector<uint8_t> nodeIsStart;
    int32_t nodeCount() const { return static_cast<int32_t>(nodeEvent.size()); }

    // --- edges, in order of first insertion ---
    std::vector<int32_t> edgeFrom, edgeTo;
    std::vector<double> edgeWeight;   // the weight as stored on HTA's edge object (may be negative)
    std::vector<CpEdgeType> edgeType;
    std::vector<int32_t> edgeEvent;   // attributed event, kNoAttribution when none
    int32_t edgeCount() const { return static_cast<int32_t>(edgeFrom.size()); }
    // The event an edge is attributed to, -1 when none (HTA's root-parent case included).
    int32_t attributedEvent(int32_t e) const { return edgeEvent[e] >= 0 ? edgeEvent[e] : -1; }

    // Adds u->v. An existing u->v keeps its position but takes the new type and
    // weight (networkx add_edge on a simple DiGraph). Returns the edge id.
    int32_t addEdge(int32_t u, int32_t v, CpEdgeType type, double weight);
    // Returns the id of u->v or -1. Works before and after finish().
    int32_t findEdge(int32_t u, int32_t v) const;

    // Builds the adjacency and the graph-node order and frees the lookup table.
    // `allNodes`: every node is a graph node, in id order (HTA d731cc2e adds each
    // node to networkx when it creates it); else only nodes used by an edge, in
    // order of first use (HTA f4d0062).
    void finish(bool allNodes = false);
    bool finished() const { return m_finished; }
    // Adds u->v (no attributed event) to a finished graph and rebuilds its adjacency: O(edges).
    // For the few joins the default mode makes after solving (stitchToTraceEnds).
    int32_t addEdgeAfterFinish(int32_t u, int32_t v, CpEdgeType type, double weight);

    // --- after finish() ---
    // networkx's nodes in insertion order: those that appear in an edge (u before v
    // of each first add), or all nodes (finish(true)).
    std::vector<int32_t> graphNodes;
    // Out/in edge ids per node, each list in edge insertion order (CSR).
    std::vector<int32_t> outStart, outEdges, inStart, inEdges;
    // Edge ids in networkx adjacency order: graph nodes in order, successors in order.
    std::vector<int32_t> adjacencyOrder() const;
    size_t memoryBytes() const;

private:
    int32_t lookup(int32_t u, int32_t v, int *scanned) const;
    void grow();
    void hashInsert(uint64_t key, int32_t edge);
    // While building: out-edge lists (newest first) for duplicate checks; a hash
    // table takes over only when some node's out-list gets long.
    std::vector<int32_t> m_headOut, m_nextOut;
    std::vector<uint64_t> m_keys; // open addressing: (u << 32 | v) -> m_vals, ~0 = empty
    std::vector<int32_t> m_vals;
    size_t m_used = 0;
    bool m_useHash = false;
    bool m_finished = false;
    bool m_allNodes = false;
};

// The longest (maximum weight) path with networkx 3.x dag_longest_path semantics.
struct LongestPath {
    bool ok = false;
    const char *error = "";    // static text when !ok
    std::vector<int32_t> nodes; // ordered node ids
    std::vector<int32_t> edges; // edge ids between consecutive nodes
    double weight = 0;          // sum of the graph weights along the path
};

// The weights networkx sees are edgeWeight, with weights <= -1 read as 0 when
// `clampNegative` (HTA's default validation). Fails on a cycle or no edges.
LongestPath longestPath(const CpGraph &graph, bool clampNegative);

// Default mode, whole trace (docs/critical_path.md, departure 10): where the longest path starts
// (ends) more than `tolFraction` of the span (at least 1 µs) after (before) the first (last)
// `ends` node, the longest path
// ending before its start (starting after its end) that it does not reach is joined to it by a
// 0-weight dependency edge, in time order, until the path spans the trace. Work that no
// recorded dependency connects (another thread, CPU work before the first launch or after the
// last GPU op) then shows on the path instead of leaving its time unexplained.
struct CpStitch {
    int joins = 0;
    double gapUs = 0; // summed time between the joined nodes
};
// `ends`: per node, 1 where it may be a trace end or a join (an op, not an annotation's bound).
CpStitch stitchToTraceEnds(CpGraph &graph, LongestPath &path, bool clampNegative, double tolFraction,
                           const std::vector<uint8_t> &ends);

// networkx's topological order (Kahn by generations over the graph nodes in
// insertion order); shorter than graphNodes when the graph has a cycle.
std::vector<int32_t> topologicalOrder(const CpGraph &graph);
// The longest path over `weight` (one per edge; NaN: the edge is left out) in a
// topological order of the graph (removing edges keeps an order valid), with
// longestPath's tie-breaking. What-if re-weights a graph this way.
LongestPath longestPathWith(const CpGraph &graph, const std::vector<int32_t> &topo, const std::vector<double> &weight);

} // namespace syncscope
