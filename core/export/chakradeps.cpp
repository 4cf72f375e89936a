// SPDX-License-Identifier: MIT
// Data dependencies of the Chakra graph (trace_link_spec 5.5): the per-thread
// pre-order chain, default mode's extra edges, dangling removal and the
// acyclicity check. Every walk is iterative.
#include "chakraconvertimpl.h"

#include <algorithm>
#include <deque>
#include <tuple>

namespace syncscope::chakra_detail {

namespace {

bool isThreadRoot(std::string_view name)
{
    return name == "[pytorch|profiler|execution_trace|thread]" || name == "[pytorch|profiler|execution_graph|thread]";
}

} // namespace

void Converter::addDep(size_t node, int64_t id, DepKind kind)
{
    auto &list = deps[node];
    for (const Dep &d : list)
        if (d.id == id)
            return;
    list.push_back({id, convertedIndexOf(id), kind});
}

void Converter::encodeDataDeps(ChakraStats &stats)
{
    const auto &plan = link.plan.nodes;
    deps.assign(plan.size(), {});
    std::vector<uint32_t> roots;
    for (uint32_t i : conversionOrder)
        if (isThreadRoot(name(i)))
            roots.push_back(i);
    std::vector<uint32_t> stamp(plan.size(), 0);
    std::vector<uint32_t> stack;
    uint32_t generation = 0;
    for (uint32_t root : roots) {
        // Each thread root has its own visited set and state, as in the reference.
        ++generation;
        int32_t lastNonGpu = -1, lastAny = -1;
        stack.assign(1, root);
        while (!stack.empty()) {
            const uint32_t cur = stack.back();
            stack.pop_back();
            if (stamp[cur] == generation)
                continue;
            stamp[cur] = generation;
            const EtPlusNode &n = plan[cur];
            if (kind[cur] == Kind::Gpu) {
                // [QUIRK] a GPU node depends on the last node visited (its launcher)
                // and never gets successors from the chain (mlcommons/chakra#215).
                if (lastAny >= 0)
                    addDep(cur, plan[static_cast<size_t>(lastAny)].id, DepKind::Launch);
                lastAny = lastNonGpu;
            } else {
                // Inter-thread dependency first. [QUIRK] the reference tests it for
                // truthiness, so a dependency on node 0 is lost; default mode keeps it.
                const bool itd = n.timed && n.hasInterThreadDep && (!compat || n.interThreadDep != 0);
                if (itd)
                    addDep(cur, n.interThreadDep, DepKind::InterThread);
                if (lastNonGpu >= 0)
                    addDep(cur, plan[static_cast<size_t>(lastNonGpu)].id, DepKind::Chain);
                lastNonGpu = lastAny = static_cast<int32_t>(cur);
            }
            // [BUG] (commit 0ff2430) the reference only adds a sync dependency when
            // the GPU node's start_time_micros is smaller, but never sets that field,
            // so no sync dependency is ever written. Default mode compares ts.
            if (!compat)
                for (uint32_t s = n.syncBegin; s < n.syncEnd; ++s) {
                    const int64_t gpuId = link.plan.syncDepIds[s];
                    const int32_t g = convertedIndexOf(gpuId);
                    const bool earlier = g >= 0 && n.timed && plan[static_cast<size_t>(g)].timed &&
                                         plan[static_cast<size_t>(g)].ts.value < n.ts.value;
                    if (earlier)
                        addDep(cur, gpuId, DepKind::Sync);
                    ++(earlier ? stats.syncDeps : stats.syncDepsSkipped);
                }
            // Children in ascending id order: push them in descending order.
            for (uint32_t k = childBegin[cur + 1]; k > childBegin[cur]; --k) {
                const uint32_t child = children[k - 1];
                if (convertedAt[child] >= 0 && stamp[child] != generation)
                    stack.push_back(child);
            }
        }
    }
}

void Converter::chainGpuStreams(ChakraStats &stats)
{
    // mlcommons/chakra#215 (PR #221): kernels on one stream run in order, so each
    // GPU node waits for the previous one on its (device, stream).
    const auto &plan = link.plan.nodes;
    struct Item {
        int64_t device, streamForm, stream;
        double ts;
        int64_t id;
        uint32_t index;
    };
    std::vector<Item> items;
    for (uint32_t i = 0; i < plan.size(); ++i) {
        if (convertedAt[i] < 0 || kind[i] != Kind::Gpu || plan[i].gpuEvent < 0)
            continue;
        const KinetoEvent &k = device.events[static_cast<size_t>(plan[i].gpuEvent)];
        items.push_back({k.has(KinetoEvent::HasDevice) ? k.device : k.pid, static_cast<int64_t>(k.streamForm),
                         k.stream, plan[i].ts.value, plan[i].id, i});
    }
    std::sort(items.begin(), items.end(), [](const Item &a, const Item &b) {
        return std::tie(a.device, a.streamForm, a.stream, a.ts, a.id) <
               std::tie(b.device, b.streamForm, b.stream, b.ts, b.id);
    });
    for (size_t k = 1; k < items.size(); ++k) {
        const Item &a = items[k - 1], &b = items[k];
        if (a.device == b.device && a.streamForm == b.streamForm && a.stream == b.stream) {
            const size_t before = deps[b.index].size();
            addDep(b.index, a.id, DepKind::Stream);
            stats.streamDeps += deps[b.index].size() != before ? 1 : 0;
        }
    }
}

bool Converter::checkDeps(ChakraStats &stats)
{
    const auto &plan = link.plan.nodes;
    for (uint32_t i : conversionOrder) {
        auto &list = deps[i];
        for (const Dep &d : list) {
            if (d.index >= 0)
                continue;
            if (compat) {
                diag.error("chakra_et.compat_missing_dep",
                           "node " + std::to_string(plan[i].id) + " ('" + std::string(name(i)) +
                               "') depends on id " + std::to_string(d.id) +
                               ", which is not a converted node; chakra_converter fails here (KeyError in its "
                               "cycle check), so no .et is written");
                return false;
            }
            ++stats.missingDeps;
        }
        list.erase(std::remove_if(list.begin(), list.end(), [](const Dep &d) { return d.index < 0; }), list.end());
    }
    if (stats.missingDeps > 0)
        diag.warning("chakra_et.missing_dep",
                     std::to_string(stats.missingDeps) +
                         " data dependencies point at nodes that are not in the .et; they were left out");
    return true;
}

void Converter::removeDangling(ChakraStats &stats)
{
    // Nodes with no data_deps that nobody depends on (the process node, empty
    // thread roots, nodes outside every thread) are dropped, in one pass.
    removed.assign(link.plan.nodes.size(), 1);
    std::vector<uint8_t> referenced(link.plan.nodes.size(), 0);
    for (uint32_t i : conversionOrder)
        for (const Dep &d : deps[i])
            referenced[static_cast<size_t>(d.index)] = 1;
    for (uint32_t i : conversionOrder) {
        removed[i] = deps[i].empty() && !referenced[i];
        stats.dangling += removed[i];
    }
}

} // namespace syncscope::chakra_detail
