// SPDX-License-Identifier: MIT
// The .et must be a DAG over data_deps: simulators wait forever on a cycle.
// The reference converter raises on a cycle (mlcommons/chakra#134, #189) and
// writes nothing; compat mode reports the same, default mode removes one edge
// of each cycle (backward in time first, then the weakest kind)
// deterministically and says so. Kahn's algorithm,
// iterative, O(nodes + edges) plus the length of every cycle found.
#include "chakraconvertimpl.h"

#include <deque>
#include <tuple>

namespace syncscope::chakra_detail {

namespace {

struct Edge {
    uint32_t waiter; // the node whose data_deps hold the edge
    uint32_t target; // the node it waits for
    DepKind kind;
    bool alive = true;
};

const char *kindName(DepKind k)
{
    switch (k) {
    case DepKind::Sync: return "sync";
    case DepKind::InterThread: return "inter-thread";
    case DepKind::Stream: return "stream order";
    case DepKind::Launch: return "launch";
    case DepKind::Chain: return "thread order";
    }
    return "?";
}

} // namespace

bool Converter::checkAcyclic(ChakraStats &stats)
{
    const auto &plan = link.plan.nodes;
    std::vector<Edge> edges;
    std::vector<uint32_t> pending(plan.size(), 0);
    std::vector<uint32_t> depBegin(plan.size() + 1, 0), byTargetBegin(plan.size() + 1, 0);
    for (uint32_t i = 0; i < plan.size(); ++i) {
        depBegin[i] = static_cast<uint32_t>(edges.size());
        if (convertedAt[i] < 0 || removed[i])
            continue;
        for (const Dep &d : deps[i]) {
            edges.push_back({i, static_cast<uint32_t>(d.index), d.kind});
            ++byTargetBegin[static_cast<size_t>(d.index) + 1];
        }
        pending[i] = static_cast<uint32_t>(deps[i].size());
    }
    depBegin[plan.size()] = static_cast<uint32_t>(edges.size());
    for (size_t i = 0; i < plan.size(); ++i)
        byTargetBegin[i + 1] += byTargetBegin[i];
    std::vector<uint32_t> byTarget(edges.size());
    {
        std::vector<uint32_t> fill(byTargetBegin.begin(), byTargetBegin.end() - 1);
        for (uint32_t e = 0; e < edges.size(); ++e)
            byTarget[fill[edges[e].target]++] = e;
    }

    std::vector<uint8_t> done(plan.size(), 0);
    std::deque<uint32_t> ready;
    size_t alive = 0;
    for (uint32_t i = 0; i < plan.size(); ++i)
        if (convertedAt[i] >= 0 && !removed[i]) {
            ++alive;
            if (pending[i] == 0)
                ready.push_back(i);
        }
    size_t processed = 0;
    auto drain = [&] {
        while (!ready.empty()) {
            const uint32_t n = ready.front();
            ready.pop_front();
            done[n] = 1;
            ++processed;
            for (uint32_t k = byTargetBegin[n]; k < byTargetBegin[n + 1]; ++k) {
                const Edge &e = edges[byTarget[k]];
                if (e.alive && --pending[e.waiter] == 0)
                    ready.push_back(e.waiter);
            }
        }
    };
    drain();

    std::string firstCycle;
    std::vector<int32_t> onPath(plan.size(), -1);
    std::vector<uint32_t> path, pathEdges;
    uint32_t scan = 0;
    while (processed < alive) {
        // Every node left waits for at least one node left: follow the first
        // such edge from the smallest one until a node repeats.
        while (done[scan] || convertedAt[scan] < 0 || removed[scan])
            ++scan;
        path.clear();
        pathEdges.clear();
        uint32_t v = scan;
        while (onPath[v] < 0) {
            onPath[v] = static_cast<int32_t>(path.size());
            path.push_back(v);
            uint32_t next = 0;
            for (uint32_t e = depBegin[v]; e < depBegin[v + 1]; ++e)
                if (edges[e].alive && !done[edges[e].target]) {
                    next = e;
                    break;
                }
            pathEdges.push_back(next);
            v = edges[next].target;
        }
        const size_t from = static_cast<size_t>(onPath[v]);
        std::string names;
        for (size_t k = from; k < path.size(); ++k)
            names += std::string(name(path[k])) + " (" + std::to_string(plan[path[k]].id) + ") -> ";
        names += std::string(name(v)) + " (" + std::to_string(plan[v].id) + ")";
        for (uint32_t p : path)
            onPath[p] = -1;
        if (compat) {
            diag.error("chakra_et.compat_cycle",
                       "cyclic data dependency: " + names +
                           "; chakra_converter raises an exception here and writes no .et (mlcommons/chakra#134, "
                           "#189)");
            return false;
        }
        // Which edge of the cycle goes: one that waits for a node starting later
        // (impossible in the real run, so the data is wrong there), else the
        // weakest kind; among equals, the one of the waiter with the largest id.
        auto backward = [&](const Edge &e) {
            const EtPlusNode &w = plan[e.waiter], &t = plan[e.target];
            return w.timed && t.timed && t.ts.value > w.ts.value;
        };
        auto rank = [&](const Edge &e) { return std::make_tuple(!backward(e), e.kind, -plan[e.waiter].id); };
        size_t pick = from;
        for (size_t k = from + 1; k < path.size(); ++k)
            if (rank(edges[pathEdges[k]]) < rank(edges[pathEdges[pick]]))
                pick = k;
        Edge &cut = edges[pathEdges[pick]];
        cut.alive = false;
        ++stats.cycleEdgesRemoved;
        if (firstCycle.empty())
            firstCycle = names + "; removed the " + kindName(cut.kind) + " dependency of node " +
                         std::to_string(plan[cut.waiter].id) + " on node " + std::to_string(plan[cut.target].id);
        auto &list = deps[cut.waiter];
        for (size_t k = 0; k < list.size(); ++k)
            if (static_cast<uint32_t>(list[k].index) == cut.target) {
                list.erase(list.begin() + static_cast<std::ptrdiff_t>(k));
                break;
            }
        if (--pending[cut.waiter] == 0)
            ready.push_back(cut.waiter);
        drain();
    }
    if (stats.cycleEdgesRemoved > 0)
        diag.warning("chakra_et.cycle_broken",
                     "the dependencies formed cycles, which simulators cannot replay; " +
                         std::to_string(stats.cycleEdgesRemoved) + " edge(s) were removed (first: " + firstCycle +
                         ")");
    return true;
}

} // namespace syncscope::chakra_detail
