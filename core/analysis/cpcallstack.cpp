// SPDX-License-Identifier: MIT
// Pass B (spec 2.6): per-thread call stacks with HTA's old call_stack.py rules,
// then a depth-first walk that chains the nodes of nested and sibling ops.
#include "cpbuild.h"

#include <algorithm>
#include <climits>
#include <map>

namespace syncscope::hta {

namespace {

struct Start {
    double ts;
    double dur; // clamped to >= 0
    uint32_t ev;
};

// HTA's compare_events order of START records. With every duration > 0 (always
// true for the clipped CPU rows, which need dur > 0) this is exactly HTA's order:
// time, longer first, then index. Zero durations make HTA's comparator
// intransitive; we put a zero-length event after the other records at its time
// and treat it as a leaf (its END follows its START directly).
bool startLess(const Start &a, const Start &b)
{
    if (a.ts != b.ts)
        return a.ts < b.ts;
    const bool za = a.dur == 0, zb = b.dur == 0;
    if (za != zb)
        return zb;
    if (a.dur != b.dur)
        return a.dur > b.dur;
    return a.ev < b.ev;
}

struct ThreadInfo {
    IdKey pid, tid;
    bool anyPositive = false, allNegative = true;
    uint32_t count = 0, first = 0;
};

void addDistinct(std::vector<IdKey> &set, const IdKey &k)
{
    if (set.size() < 2 && std::find(set.begin(), set.end(), k) == set.end())
        set.push_back(k);
}

// The call-stack sweep (HTA's stack build) fused with the depth-first walk: as the
// END records only ever pop "whatever is on top" [QUIRK], the walk enters an event
// when it is pushed and exits the event actually popped, which is exactly HTA's
// DFS over the tree it built. `starts` sorted by startLess, `ends` (of events with
// dur > 0) ascending; an END at the time of a START comes first.
void walkThread(CpaContext &ctx, const std::vector<Start> &starts, const std::vector<double> &ends, CpGraph &g)
{
    const RowTable &rows = ctx.rows;
    int32_t last = -1, lastParent = -1, depth = 0;
    auto locked = [&](int32_t x, int32_t y) {
        // Both hold the CUDA runtime lock and are not (end, start): pass A did them.
        return !ctx.d731 && (rows.nameRoles(static_cast<uint32_t>(g.nodeEvent[x])) & RoleLock) &&
               (rows.nameRoles(static_cast<uint32_t>(g.nodeEvent[y])) & RoleLock) &&
               (g.nodeIsStart[x] || !g.nodeIsStart[y]);
    };
    auto onEnter = [&](uint32_t ev, int32_t parent) {
        int32_t s = ctx.startNode(ev);
        if (ctx.d731) {
            // d731cc2e gives nodes to ops and runtime calls when the walk enters them;
            // its "ev_id > 0" test leaves event 0 out [BUG].
            const uint8_t cat = rows.catRole(ev);
            if (ev == 0 || (cat != CatCpuOp && cat != CatRuntime))
                return;
            s = ctx.addEventNodes(ev, g);
        }
        if (s < 0 || ctx.endNode(ev) < 0)
            return;
        if (last >= 0 && !locked(last, s)) {
            // Consecutive top-level ops are ordered with weight 0: idle gaps never count.
            const CpEdgeType type = depth == 0 ? CpEdgeType::Dependency : CpEdgeType::OperatorKernel;
            const double w = type == CpEdgeType::Dependency ? 0.0 : g.nodeTime[s] - g.nodeTime[last];
            attributeEdge(g, g.addEdge(last, s, type, w), lastParent);
        }
        last = s;
        lastParent = parent;
        ++depth;
    };
    auto onExit = [&](uint32_t ev, int32_t parent) {
        const int32_t e = ctx.endNode(ev);
        if (ctx.startNode(ev) < 0 || e < 0)
            return;
        if (last >= 0 && !locked(last, e)) {
            // Blocking calls (synchronisation) do not count their own time.
            const bool zero = ctx.blockingName[ctx.trace.events[ev].name] != 0;
            const double w = zero ? 0.0 : g.nodeTime[e] - g.nodeTime[last];
            attributeEdge(g, g.addEdge(last, e, CpEdgeType::OperatorKernel, w), lastParent);
        }
        last = e;
        lastParent = parent;
        --depth;
    };
    std::vector<std::pair<uint32_t, int32_t>> stack; // (event, its call-stack parent)
    auto pop = [&] {
        if (stack.empty())
            return;
        const auto [ev, parent] = stack.back();
        stack.pop_back();
        onExit(ev, parent);
    };
    size_t j = 0;
    for (const Start &s : starts) {
        for (; j < ends.size() && ends[j] <= s.ts; ++j)
            pop();
        const int32_t parent = stack.empty() ? -1 : static_cast<int32_t>(stack.back().first);
        stack.emplace_back(s.ev, parent);
        onEnter(s.ev, parent);
        if (s.dur == 0)
            pop();
    }
    for (; j < ends.size(); ++j)
        pop();
}

} // namespace

void CpaContext::callStackPass(const std::vector<uint32_t> &clipped, CpGraph &g)
{
    const auto &events = trace.events;
    // 1. Forward/backward merge (HTA PR #270, not in d731cc2e): one "forward" thread
    //    and one "autograd" thread, both non-zero and different -> walk them as one.
    std::vector<IdKey> fwd, bwd;
    for (uint32_t ev : clipped) {
        const uint8_t cat = rows.catRole(ev);
        if (cat != CatCpuOp && cat != CatUserAnnotation)
            continue;
        const uint16_t roles = rows.nameRoles(ev);
        if (roles & RoleForward)
            addDistinct(fwd, tidKey(events[ev]));
        if (roles & RoleAutograd)
            addDistinct(bwd, tidKey(events[ev]));
    }
    auto truthy = [](const IdKey &k) { return k.isString || k.value != 0; };
    const bool merge = !d731 && fwd.size() == 1 && bwd.size() == 1 && truthy(fwd[0]) && truthy(bwd[0]) && !(fwd[0] == bwd[0]);

    // 2. Group by (pid, tid); groups are walked in ascending key order.
    std::map<std::pair<IdKey, IdKey>, uint32_t> slotOf;
    std::vector<ThreadInfo> threads;
    std::vector<uint32_t> rowSlot(clipped.size());
    std::pair<IdKey, IdKey> lastKey;
    uint32_t lastSlot = UINT32_MAX;
    for (size_t k = 0; k < clipped.size(); ++k) {
        const uint32_t ev = clipped[k];
        IdKey tid = tidKey(events[ev]);
        if (merge && tid == bwd[0])
            tid = fwd[0];
        const std::pair<IdKey, IdKey> key{pidKey(events[ev]), tid};
        if (lastSlot == UINT32_MAX || !(key == lastKey)) {
            auto [it, inserted] = slotOf.emplace(key, static_cast<uint32_t>(threads.size()));
            if (inserted)
                threads.push_back({key.first, key.second});
            lastKey = key;
            lastSlot = it->second;
        }
        ThreadInfo &t = threads[lastSlot];
        const int64_t stream = rows.stream(ev);
        t.anyPositive |= stream > 0;
        t.allNegative &= stream < 0;
        ++t.count;
        rowSlot[k] = lastSlot;
    }
    std::vector<uint32_t> rank(threads.size());
    uint32_t next = 0, offset = 0;
    for (const auto &[key, slot] : slotOf) {
        rank[slot] = next++;
        threads[slot].first = offset;
        offset += threads[slot].count;
    }
    std::vector<uint32_t> grouped(clipped.size()); // rows by thread, file order within
    {
        std::vector<uint32_t> fill(threads.size());
        for (size_t t = 0; t < threads.size(); ++t)
            fill[t] = threads[t].first;
        for (size_t k = 0; k < clipped.size(); ++k)
            grouped[fill[rowSlot[k]]++] = clipped[k];
    }
    std::vector<uint32_t>().swap(rowSlot);
    std::vector<uint32_t> byRank(threads.size());
    for (size_t t = 0; t < threads.size(); ++t)
        byRank[rank[t]] = static_cast<uint32_t>(t);

    std::vector<Start> starts;
    std::vector<double> ends;
    for (uint32_t slot : byRank) {
        const ThreadInfo &t = threads[slot];
        // Threads with any stream > 0 are GPU streams; a mix of -1 and 0 is "unknown" [QUIRK].
        if (t.anyPositive || !t.allNegative)
            continue;
        starts.clear();
        ends.clear();
        for (uint32_t k = t.first; k < t.first + t.count; ++k) {
            const uint32_t ev = grouped[k];
            const double dur = std::max(0.0, rows.dur(ev));
            starts.push_back({rows.ts(ev), dur, ev});
            if (dur > 0)
                ends.push_back(rows.ts(ev) + dur);
        }
        std::sort(starts.begin(), starts.end(), startLess);
        std::sort(ends.begin(), ends.end());
        walkThread(*this, starts, ends, g);
    }
}

} // namespace syncscope::hta
