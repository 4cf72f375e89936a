// SPDX-License-Identifier: MIT
#include "linker.h"

#include "link/etplusplan.h"
#include "link/exclusivetime.h"
#include "link/gpuparent.h"
#include "link/hostgraph.h"
#include "link/hostmatch.h"
#include "link/interthread.h"
#include "link/kinetoview.h"

#include <algorithm>
#include <limits>
#include <unordered_map>
#include <unordered_set>

namespace syncscope {

const char *matchStrategyName(MatchStrategy s)
{
    switch (s) {
    case MatchStrategy::RecordFunctionId:
        return "record_function_id";
    case MatchStrategy::ExternalId:
        return "external_id";
    case MatchStrategy::NameOrder:
        return "name_order";
    case MatchStrategy::None:
        break;
    }
    return "none";
}

namespace {

constexpr int64_t kNullId = std::numeric_limits<int64_t>::min();

void reportViewProblems(const KinetoTrace &device, const KinetoView &view, LinkMode mode, Diagnostics &diag)
{
    if (!view.duplicateCorrelations.empty())
        diag.warning("kineto.duplicate_correlation",
                     device.path + ": " + std::to_string(view.duplicateCorrelations.size()) +
                         " runtime calls reuse a correlation id (first: " +
                         std::to_string(view.duplicateCorrelations.front()) + ")" +
                         (mode == LinkMode::Chakra ? "; chakra_trace_link stops with \"Duplicate correlation ID\" here"
                                                   : "; the first call with each id is used"),
                     device.path);
    if (view.flowsWithoutId > 0 || view.flowsWithBadPhase > 0)
        diag.warning("kineto.bad_flow",
                     device.path + ": " + std::to_string(view.flowsWithoutId + view.flowsWithBadPhase) +
                         " ac2g flow events lack an id or have a phase other than s/f" +
                         (mode == LinkMode::Chakra ? "; chakra_trace_link stops on such events" : "; they are ignored"),
                     device.path);
}

// Exclusive times per thread, in the order each mode's rule needs.
std::vector<PyNumber> exclusiveTimes(const KinetoTrace &device, const KinetoView &view)
{
    const auto &events = device.events;
    std::vector<PyNumber> exclusive(events.size());
    for (auto ops : view.threadCpuOps) {
        if (view.mode == LinkMode::Chakra) {
            std::stable_sort(ops.begin(), ops.end(), [&](uint32_t a, uint32_t b) {
                if (events[a].ts != events[b].ts)
                    return events[a].ts < events[b].ts;
                return events[a].dur < events[b].dur;
            });
        } else {
            // Longer first at equal start: a child that starts with its parent is
            // then subtracted (Chakra's order leaves it in the parent's self time).
            std::stable_sort(ops.begin(), ops.end(), [&](uint32_t a, uint32_t b) {
                if (events[a].ts != events[b].ts)
                    return events[a].ts < events[b].ts;
                return events[a].dur > events[b].dur;
            });
        }
        computeExclusiveTimes(device, ops, exclusive);
    }
    if (view.mode == LinkMode::Default)
        for (auto &e : exclusive)
            e.value = std::max(e.value, 0.0);
    return exclusive;
}

Csr toCsr(size_t keys, const std::vector<std::pair<uint32_t, uint32_t>> &pairs)
{
    Csr csr;
    csr.offsets.assign(keys + 1, 0);
    for (auto [k, v] : pairs)
        ++csr.offsets[k + 1];
    for (size_t k = 0; k < keys; ++k)
        csr.offsets[k + 1] += csr.offsets[k];
    csr.items.resize(pairs.size());
    std::vector<uint32_t> fill(csr.offsets.begin(), csr.offsets.end() - 1);
    for (auto [k, v] : pairs)
        csr.items[fill[k]++] = v;
    return csr;
}

// The first CPU op on e's thread that starts at or after `t` (default-mode waiter); with
// `eventHost`, the first one linked to a host node (at most 64 looked at: ops the ET
// does not have are few and short).
int32_t firstOpFrom(const KinetoTrace &device, const KinetoView &view, const KinetoEvent &e, double t,
                    const std::vector<int32_t> *eventHost = nullptr)
{
    auto it = view.threadIndex.find(threadOf(e, LinkMode::Default));
    if (it == view.threadIndex.end())
        return -1;
    const auto &ops = view.threadCpuOps[it->second];
    auto pos = std::lower_bound(ops.begin(), ops.end(), t,
                                [&](uint32_t idx, double value) { return device.events[idx].ts < value; });
    for (int looked = 0; pos != ops.end() && looked < 64; ++pos, ++looked)
        if (!eventHost || (*eventHost)[*pos] >= 0)
            return static_cast<int32_t>(*pos);
    return -1;
}

} // namespace

LinkResult linkTraces(const HostTrace &host, const KinetoTrace &device, const LinkOptions &options,
                      const std::vector<SyncEdgeRef> &syncEdges, Diagnostics &diag)
{
    LinkResult r;
    r.mode = options.mode;
    const bool chakra = options.mode == LinkMode::Chakra;
    const auto &events = device.events;
    const KinetoView view = buildKinetoView(device, options.mode);
    const HostGraph graph = buildHostGraph(host);
    reportViewProblems(device, view, options.mode, diag);

    r.exclusive = exclusiveTimes(device, view);
    const std::vector<int32_t> interThread = findInterThreadDeps(device, view, options.interThreadGapUs);
    GpuParents parents = findGpuParents(device, view);
    HostMatch match = matchHostOps(host, graph, device, view, diag);
    r.strategy = match.strategy;
    r.hostEvent = std::move(match.hostEvent);
    r.gpuLauncher = std::move(parents.launcher);

    // Host ops in the order Chakra links them (ascending id); later links win.
    const std::vector<uint32_t> &linkOrder = chakra ? graph.reachable : graph.byId;
    r.eventHost.assign(events.size(), -1);
    EtPlusInputs in;
    in.mode = options.mode;
    in.hostEvent = &r.hostEvent;
    in.exclusive = &r.exclusive;
    in.interThreadTarget.assign(host.nodes.size(), chakra ? kNullId : -1);
    for (uint32_t i : linkOrder) {
        const int32_t ev = r.hostEvent[i];
        if (ev < 0)
            continue;
        r.eventHost[static_cast<size_t>(ev)] = static_cast<int32_t>(i);
        if (chakra) {
            // Resolved now, through the rf_id map, to whatever host node that Kineto op
            // is linked to so far ([QUIRK]: later host ids are not linked yet -> null).
            const int32_t dep = interThread[static_cast<size_t>(ev)];
            if (dep >= 0) {
                auto x = view.cpuOpByRfId.find(events[static_cast<size_t>(dep)].rfId);
                if (x != view.cpuOpByRfId.end() && r.eventHost[x->second] >= 0)
                    in.interThreadTarget[i] = host.nodes[static_cast<size_t>(r.eventHost[x->second])].id;
            }
        }
    }
    if (!chakra)
        for (uint32_t i : linkOrder) {
            const int32_t ev = r.hostEvent[i];
            if (ev >= 0 && interThread[static_cast<size_t>(ev)] >= 0)
                in.interThreadTarget[i] = r.eventHost[static_cast<size_t>(interThread[static_cast<size_t>(ev)])];
        }

    // GPU children of each host node, in GPU ts order.
    r.gpuParent.assign(events.size(), -1);
    std::vector<std::pair<uint32_t, uint32_t>> children;
    if (chakra) {
        // [QUIRK] grouped by the parent's External id, not by the op itself.
        std::unordered_map<int64_t, std::vector<uint32_t>> groups;
        for (uint32_t g : view.gpuOps) {
            const int32_t p = parents.parent[g];
            if (p == -1)
                continue;
            r.gpuParent[g] = p >= 0 ? p : -1;
            groups[p >= 0 ? events[static_cast<size_t>(p)].externalId : -1].push_back(g);
        }
        for (uint32_t i : graph.reachable) {
            const int32_t ev = r.hostEvent[i];
            if (ev < 0)
                continue;
            auto it = groups.find(events[static_cast<size_t>(ev)].externalId);
            if (it != groups.end())
                for (uint32_t g : it->second)
                    children.emplace_back(i, g);
        }
    } else {
        for (uint32_t g : view.gpuOps) {
            const int32_t p = parents.parent[g];
            if (p < 0)
                continue;
            r.gpuParent[g] = p;
            const int32_t h = r.eventHost[static_cast<size_t>(p)];
            if (h >= 0)
                children.emplace_back(static_cast<uint32_t>(h), g);
        }
    }
    in.gpuChildren = toCsr(host.nodes.size(), children);

    // Synchronisation dependencies.
    if (chakra) {
        // HTA edge (start, end) -> sync[end External id] += start External id.
        std::vector<int64_t> keys;
        std::unordered_map<int64_t, std::vector<int64_t>> sync;
        for (const SyncEdgeRef &edge : syncEdges) {
            const KinetoEvent &s = events[edge.src];
            const KinetoEvent &e = events[edge.dst];
            if (!s.has(KinetoEvent::HasExternalId) || !e.has(KinetoEvent::HasExternalId) ||
                s.externalId == e.externalId)
                continue;
            auto [it, inserted] = sync.try_emplace(e.externalId);
            if (inserted)
                keys.push_back(e.externalId);
            it->second.push_back(s.externalId);
        }
        std::vector<std::vector<uint32_t>> mustWait(events.size()); // per record G: CPU ops C
        for (const auto &records : view.threadAllRecords)
            for (uint32_t rIdx : records) {
                auto it = sync.find(events[rIdx].externalId);
                if (it == sync.end())
                    continue;
                for (int64_t startExt : it->second) {
                    auto g = view.latestByExternalId.find(startExt);
                    if (g == view.latestByExternalId.end())
                        continue;
                    auto c = std::upper_bound(view.cpuOpTs.begin(), view.cpuOpTs.end(), events[rIdx].ts);
                    if (c == view.cpuOpTs.end())
                        continue;
                    const uint32_t cIdx = view.cpuOps[static_cast<size_t>(c - view.cpuOpTs.begin())];
                    // [BUG] the duplicate guard looks at C's list, not G's.
                    const auto &cList = mustWait[cIdx];
                    if (std::find(cList.begin(), cList.end(), g->second) == cList.end())
                        mustWait[g->second].push_back(cIdx);
                }
            }
        in.chakraSyncWaiters.assign(events.size(), {});
        for (uint32_t g = 0; g < events.size(); ++g)
            for (uint32_t c : mustWait[g]) {
                const int32_t h = r.eventHost[c];
                if (h >= 0)
                    in.chakraSyncWaiters[g].push_back(host.nodes[static_cast<size_t>(h)].id);
                r.syncDeps.push_back({g, c});
            }
    } else {
        for (const SyncEdgeRef &edge : syncEdges) {
            const KinetoEvent &d = events[edge.dst];
            if (isGpuActivity(d.kind)) {
                in.gpuWaitsForGpu.emplace_back(edge.dst, edge.src);
                r.syncDeps.push_back({edge.src, edge.dst});
                continue;
            }
            r.blockingWaits.push_back({edge.src, edge.dst});
            // The CPU op that can only start once the wait is over.
            const int32_t waiter = firstOpFrom(device, view, d, d.end());
            if (waiter < 0)
                continue;
            r.syncDeps.push_back({edge.src, static_cast<uint32_t>(waiter)});
            // The .et carries the wait on the first op after the call that has a host node.
            const int32_t linked = firstOpFrom(device, view, d, d.end(), &r.eventHost);
            if (linked >= 0)
                in.hostWaitsForGpu.emplace_back(static_cast<uint32_t>(r.eventHost[size_t(linked)]), edge.src);
        }
    }

    r.plan = buildEtPlusPlan(host, device, in, diag);

    // Inter-thread edges for viewers: (dependency, first op of each group).
    for (const auto &ops : view.threadCpuOps) {
        int32_t previous = -1;
        for (uint32_t op : ops) {
            const int32_t dep = interThread[op];
            if (dep >= 0 && dep != previous)
                r.interThreadDeps.push_back({static_cast<uint32_t>(dep), op});
            previous = dep;
        }
    }

    // Counts for the coverage report. A linked op has a twin by definition (even when
    // the names differ), so "with twin" = linked + unlinked ops that an unlinked
    // Kineto op of the same name could have matched; coverage never exceeds 100 %.
    LinkCounts &c = r.counts;
    std::unordered_map<std::string_view, int64_t> hostNames, kinetoNames;
    for (uint32_t i = 0; i < host.nodes.size(); ++i) {
        const HostNode &n = host.nodes[i];
        if (n.has(HostNode::IsRootLike))
            continue;
        ++c.hostOps;
        if (r.hostEvent[i] >= 0)
            ++c.hostOpsLinked;
        else if (!isProfilerStepName(host.str(n.name)))
            ++hostNames[host.str(n.name)];
    }
    for (uint32_t idx : view.cpuOps) {
        if (r.eventHost[idx] >= 0)
            ++c.kinetoCpuOpsLinked;
        else
            ++kinetoNames[device.str(events[idx].name)];
    }
    c.hostOpsWithTwin = c.hostOpsLinked;
    for (auto &[name, count] : hostNames)
        if (auto it = kinetoNames.find(name); it != kinetoNames.end())
            c.hostOpsWithTwin += std::min(count, it->second);
    c.kinetoCpuOps = static_cast<int64_t>(view.cpuOps.size());
    c.gpuOps = static_cast<int64_t>(view.gpuOps.size());
    std::unordered_set<int32_t> gpuInPlan;
    for (const EtPlusNode &n : r.plan.nodes) {
        if (n.gpuEvent >= 0)
            gpuInPlan.insert(n.gpuEvent);
        else if (n.timed && n.hasInterThreadDep)
            ++c.interThreadDeps;
        c.syncDeps += n.syncEnd - n.syncBegin;
    }
    c.gpuOpsLinked = static_cast<int64_t>(gpuInPlan.size());
    c.gpuOpsWithoutLauncher = parents.withoutLauncher;
    c.gpuOpsWithoutParent = parents.withoutParent;
    c.etPlusNodes = static_cast<int64_t>(r.plan.nodes.size());

    if (c.gpuOpsWithoutLauncher > 0)
        diag.warning("link.gpu_without_launcher",
                     std::to_string(c.gpuOpsWithoutLauncher) +
                         " GPU activities have no runtime call with the same correlation id; they are not linked",
                     device.path);
    return r;
}

} // namespace syncscope
