// SPDX-License-Identifier: MIT
#include "etplusplan.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

namespace syncscope {

namespace {

constexpr int64_t kNull = std::numeric_limits<int64_t>::min();

// Chakra's UniqueIdAssigner: original id -> new id, handed out from 0.
class IdAssigner
{
public:
    int64_t assign(int64_t original)
    {
        auto [it, inserted] = m_map.try_emplace(original, m_next);
        if (inserted)
            ++m_next;
        return it->second;
    }
    int64_t generate() { return m_next++; }
    // Unassigned ids come back unchanged (Chakra's lookup_new_id).
    int64_t lookup(int64_t original) const
    {
        auto it = m_map.find(original);
        return it == m_map.end() ? original : it->second;
    }
    bool known(int64_t original) const { return m_map.count(original) != 0; }

private:
    std::unordered_map<int64_t, int64_t> m_map;
    int64_t m_next = 0;
};

PyNumber number(double v, bool isInt)
{
    return {v, isInt};
}

PyNumber tsOf(const KinetoEvent &e)
{
    return number(e.ts, !e.has(KinetoEvent::HasTs) || e.has(KinetoEvent::TsIsInteger));
}

PyNumber durOf(const KinetoEvent &e)
{
    return number(e.dur, !e.has(KinetoEvent::HasDur) || e.has(KinetoEvent::DurIsInteger));
}

// Timing fields of a host node linked to Kineto op `ev`; false when not linked.
bool setTiming(EtPlusNode &n, int32_t ev, const KinetoTrace &trace, const std::vector<PyNumber> &exclusive)
{
    if (ev < 0)
        return false;
    const KinetoEvent &k = trace.events[static_cast<size_t>(ev)];
    n.timed = true;
    n.inclusive = durOf(k);
    n.exclusive = exclusive[static_cast<size_t>(ev)];
    n.ts = tsOf(k);
    return true;
}

std::vector<uint32_t> sortedById(const HostTrace &host)
{
    std::vector<uint32_t> order(host.nodes.size());
    for (uint32_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](uint32_t a, uint32_t b) { return host.nodes[a].id < host.nodes[b].id; });
    return order;
}

EtPlusPlan chakraPlan(const HostTrace &host, const KinetoTrace &trace, const EtPlusInputs &in)
{
    EtPlusPlan plan;
    IdAssigner ids;
    const auto &hostEvent = *in.hostEvent;
    const auto &exclusive = *in.exclusive;
    const std::vector<uint32_t> order = sortedById(host);
    std::vector<EtPlusNode> hostNodes;
    std::vector<EtPlusNode> gpuNodes;
    std::vector<std::vector<int64_t>> gpuSyncTo; // per gpu node: sync_dep_to
    hostNodes.reserve(order.size());
    for (uint32_t i : order) {
        const HostNode &h = host.nodes[i];
        EtPlusNode n;
        n.host = i;
        n.id = ids.assign(h.id);
        if (setTiming(n, hostEvent[i], trace, exclusive) && in.interThreadTarget[i] != kNull) {
            n.hasInterThreadDep = true;
            n.interThreadDep = ids.lookup(in.interThreadTarget[i]);
        }
        hostNodes.push_back(n);
        for (const uint32_t *g = in.gpuChildren.begin(i); g != in.gpuChildren.end(i); ++g) {
            const KinetoEvent &k = trace.events[*g];
            EtPlusNode gn = n; // the deep copy of the (already updated) host node
            gn.gpuEvent = static_cast<int32_t>(*g);
            gn.id = ids.generate();
            gn.parentValue = h.id; // remapped below
            gn.inclusive = durOf(k);
            gn.exclusive = durOf(k);
            gn.ts = tsOf(k);
            std::vector<int64_t> syncTo;
            for (int64_t waiterOrig : in.chakraSyncWaiters[*g]) {
                const int64_t v = ids.lookup(waiterOrig);
                if (std::find(syncTo.begin(), syncTo.end(), v) == syncTo.end())
                    syncTo.push_back(v);
            }
            gpuNodes.push_back(gn);
            gpuSyncTo.push_back(std::move(syncTo));
        }
    }
    // sync_dep_to lists become target -> [gpu ids], keys in first-seen order.
    std::vector<int64_t> keys;
    std::unordered_map<int64_t, std::vector<int64_t>> mapping;
    for (size_t g = 0; g < gpuNodes.size(); ++g)
        for (int64_t key : gpuSyncTo[g]) {
            auto [it, inserted] = mapping.try_emplace(key);
            if (inserted)
                keys.push_back(key);
            it->second.push_back(gpuNodes[g].id);
        }

    std::vector<EtPlusNode> all;
    all.reserve(hostNodes.size() + gpuNodes.size());
    all.insert(all.end(), hostNodes.begin(), hostNodes.end());
    all.insert(all.end(), gpuNodes.begin(), gpuNodes.end());
    std::stable_sort(all.begin(), all.end(), [](const EtPlusNode &a, const EtPlusNode &b) { return a.id < b.id; });
    // [QUIRK] every key is looked up again, so an already-renumbered value is
    // mapped twice; when several keys land on one node the last key wins.
    std::unordered_map<int64_t, const std::vector<int64_t> *> syncOfNode;
    for (int64_t key : keys)
        syncOfNode[ids.lookup(key)] = &mapping[key];
    for (EtPlusNode &n : all) {
        const std::vector<int64_t> *sync = nullptr;
        if (auto it = syncOfNode.find(n.id); it != syncOfNode.end())
            sync = it->second;
        if (sync) {
            n.syncBegin = static_cast<uint32_t>(plan.syncDepIds.size());
            plan.syncDepIds.insert(plan.syncDepIds.end(), sync->begin(), sync->end());
            n.syncEnd = static_cast<uint32_t>(plan.syncDepIds.size());
        }
        // Only nodes that have "ctrl_deps" are remapped ([BUG] schema 1.0.1 "parent" is not).
        const HostNode &h = host.nodes[n.host];
        if (n.gpuEvent >= 0) {
            n.rewriteParent = true;
            n.parentValue = ids.assign(n.parentValue);
        } else if (host.layout == HostLayout::Nested && h.has(HostNode::HasParent)) {
            n.rewriteParent = true;
            n.parentValue = ids.assign(h.parent);
        }
    }
    plan.nodes = std::move(all);
    return plan;
}

EtPlusPlan defaultPlan(const HostTrace &host, const KinetoTrace &trace, const EtPlusInputs &in, Diagnostics &diag)
{
    EtPlusPlan plan;
    const auto &hostEvent = *in.hostEvent;
    const auto &exclusive = *in.exclusive;
    const std::vector<uint32_t> order = sortedById(host);
    // Pass 1: new ids (host nodes by id, each followed by its GPU nodes).
    std::vector<int64_t> hostNewId(host.nodes.size(), -1);
    std::unordered_map<uint32_t, int64_t> gpuNewId;
    std::unordered_map<int64_t, int64_t> newIdOfOriginal;
    int64_t next = 0;
    for (uint32_t i : order) {
        hostNewId[i] = next++;
        newIdOfOriginal.try_emplace(host.nodes[i].id, hostNewId[i]);
        for (const uint32_t *g = in.gpuChildren.begin(i); g != in.gpuChildren.end(i); ++g)
            gpuNewId.emplace(*g, next++);
    }
    // Sync dependencies, deduplicated, in the order they were found.
    std::unordered_map<int64_t, std::vector<int64_t>> syncOf; // waiter new id -> gpu new ids
    auto addSync = [&](int64_t waiter, uint32_t gpuEvent) {
        auto it = gpuNewId.find(gpuEvent);
        if (it == gpuNewId.end() || waiter < 0)
            return;
        auto &list = syncOf[waiter];
        if (std::find(list.begin(), list.end(), it->second) == list.end())
            list.push_back(it->second);
    };
    for (auto [hostIndex, gpu] : in.hostWaitsForGpu)
        addSync(hostNewId[hostIndex], gpu);
    for (auto [waiting, gpu] : in.gpuWaitsForGpu)
        if (auto w = gpuNewId.find(waiting); w != gpuNewId.end())
            addSync(w->second, gpu);

    int64_t danglingParents = 0;
    auto parentNewId = [&](int64_t original) {
        auto it = newIdOfOriginal.find(original);
        if (it != newIdOfOriginal.end())
            return it->second;
        ++danglingParents;
        const int64_t fresh = next++;
        newIdOfOriginal.emplace(original, fresh);
        return fresh;
    };
    auto attachSync = [&](EtPlusNode &n) {
        auto it = syncOf.find(n.id);
        if (it == syncOf.end())
            return;
        n.syncBegin = static_cast<uint32_t>(plan.syncDepIds.size());
        plan.syncDepIds.insert(plan.syncDepIds.end(), it->second.begin(), it->second.end());
        n.syncEnd = static_cast<uint32_t>(plan.syncDepIds.size());
    };

    plan.nodes.reserve(host.nodes.size() + gpuNewId.size());
    for (uint32_t i : order) {
        const HostNode &h = host.nodes[i];
        EtPlusNode n;
        n.host = i;
        n.id = hostNewId[i];
        if (setTiming(n, hostEvent[i], trace, exclusive) && in.interThreadTarget[i] >= 0) {
            n.hasInterThreadDep = true;
            n.interThreadDep = hostNewId[static_cast<size_t>(in.interThreadTarget[i])];
        }
        if (h.has(HostNode::HasParent)) {
            n.rewriteParent = true; // ctrl_deps, or "parent" in schema 1.0.1
            n.parentValue = parentNewId(h.parent);
        }
        attachSync(n);
        plan.nodes.push_back(n);
        const EtPlusNode parent = n;
        for (const uint32_t *g = in.gpuChildren.begin(i); g != in.gpuChildren.end(i); ++g) {
            const KinetoEvent &k = trace.events[*g];
            EtPlusNode gn = parent;
            gn.syncBegin = gn.syncEnd = 0;
            gn.gpuEvent = static_cast<int32_t>(*g);
            gn.id = gpuNewId[*g];
            gn.rewriteParent = true;
            gn.parentValue = parent.id;
            gn.inclusive = durOf(k);
            gn.exclusive = durOf(k);
            gn.ts = tsOf(k);
            attachSync(gn);
            plan.nodes.push_back(gn);
        }
    }
    if (danglingParents > 0)
        diag.warning("link.dangling_parent",
                     std::to_string(danglingParents) +
                         " host nodes name a parent id that does not exist; they were given fresh ids",
                     host.path);
    return plan;
}

} // namespace

EtPlusPlan buildEtPlusPlan(const HostTrace &host, const KinetoTrace &trace, const EtPlusInputs &in, Diagnostics &diag)
{
    return in.mode == LinkMode::Chakra ? chakraPlan(host, trace, in) : defaultPlan(host, trace, in, diag);
}

} // namespace syncscope
