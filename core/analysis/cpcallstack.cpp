// SPDX-License-Identifier: MIT
// Pass B (spec 2.6): per-thread call stacks with HTA's old call_stack.py rules,
// then a depth-first walk that chains the nodes of nested and sibling ops.
#include "cpbuild.h"

#include <algorithm>

namespace syncscope::hta {

namespace {

struct Rec {
    double time;
    double dur;
    uint32_t ev;
    uint32_t local;
    bool isEnd;
};

// HTA's compare_events as a total order. With every duration > 0 (always true for
// the clipped CPU rows, which need dur > 0) it is exactly HTA's order: time, then
// ends before starts, longer starts first, shorter ends first, index ties. Zero
// durations make HTA's comparator intransitive; we then place a zero-length
// event's start and end together after the other records at that time.
int rankOf(const Rec &r)
{
    return r.dur > 0 ? (r.isEnd ? 0 : 1) : 2;
}

bool recLess(const Rec &a, const Rec &b)
{
    if (a.time != b.time)
        return a.time < b.time;
    const int ra = rankOf(a), rb = rankOf(b);
    if (ra != rb)
        return ra < rb;
    if (ra == 0)
        return a.dur != b.dur ? a.dur < b.dur : a.ev > b.ev;
    if (ra == 1)
        return a.dur != b.dur ? a.dur > b.dur : a.ev < b.ev;
    return a.ev != b.ev ? a.ev < b.ev : (!a.isEnd && b.isEnd);
}

struct ThreadKey {
    IdKey pid, tid;
    uint32_t ev;
    bool operator<(const ThreadKey &o) const
    {
        if (!(pid == o.pid))
            return pid < o.pid;
        if (!(tid == o.tid))
            return tid < o.tid;
        return ev < o.ev;
    }
};

void addDistinct(std::vector<IdKey> &set, const IdKey &k)
{
    if (set.size() < 2 && std::find(set.begin(), set.end(), k) == set.end())
        set.push_back(k);
}

} // namespace

void CpaContext::callStackPass(const std::vector<uint32_t> &clipped, CpGraph &g)
{
    const auto &events = trace.events;
    // 1. Forward/backward merge (HTA PR #270): one "forward" thread and one
    //    "autograd" thread, both non-zero and different -> walk them as one.
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
    const bool merge = fwd.size() == 1 && bwd.size() == 1 && truthy(fwd[0]) && truthy(bwd[0]) && !(fwd[0] == bwd[0]);

    // 2. Group by (pid, tid) in ascending key order.
    std::vector<ThreadKey> items;
    items.reserve(clipped.size());
    for (uint32_t ev : clipped) {
        IdKey tid = tidKey(events[ev]);
        if (merge && tid == bwd[0])
            tid = fwd[0];
        items.push_back({pidKey(events[ev]), tid, ev});
    }
    std::sort(items.begin(), items.end());

    std::vector<uint32_t> group;
    std::vector<Rec> recs;
    std::vector<int32_t> parent, firstChild, lastChild, nextSibling;
    for (size_t a = 0; a < items.size();) {
        size_t b = a;
        bool anyPositive = false, allNegative = true;
        while (b < items.size() && items[b].pid == items[a].pid && items[b].tid == items[a].tid) {
            const int64_t s = rows.stream(items[b].ev);
            anyPositive |= s > 0;
            allNegative &= s < 0;
            ++b;
        }
        // Threads with any stream > 0 are GPU streams; a mix of -1 and 0 is "unknown" [QUIRK].
        if (anyPositive || !allNegative) {
            a = b;
            continue;
        }
        group.clear();
        recs.clear();
        for (size_t k = a; k < b; ++k) {
            const uint32_t ev = items[k].ev;
            const uint32_t local = static_cast<uint32_t>(group.size());
            group.push_back(ev);
            const double dur = std::max(0.0, rows.dur(ev));
            recs.push_back({rows.ts(ev), dur, ev, local, false});
            recs.push_back({rows.ts(ev) + dur, dur, ev, local, true});
        }
        a = b;
        std::sort(recs.begin(), recs.end(), recLess);

        // 3. Stack sweep: the parent is fixed at start; an end pops whatever is on top [QUIRK].
        const size_t m = group.size();
        parent.assign(m, -1);
        firstChild.assign(m + 1, -1); // slot m = the root
        lastChild.assign(m + 1, -1);
        nextSibling.assign(m, -1);
        std::vector<uint32_t> stack;
        for (const Rec &r : recs) {
            if (!r.isEnd) {
                const int32_t p = stack.empty() ? -1 : static_cast<int32_t>(stack.back());
                parent[r.local] = p;
                const size_t slot = p < 0 ? m : static_cast<size_t>(p);
                if (lastChild[slot] < 0)
                    firstChild[slot] = static_cast<int32_t>(r.local);
                else
                    nextSibling[lastChild[slot]] = static_cast<int32_t>(r.local);
                lastChild[slot] = static_cast<int32_t>(r.local);
                stack.push_back(r.local);
            } else if (!stack.empty()) {
                stack.pop_back();
            }
        }

        // 4. Depth-first walk chaining the nodes.
        int32_t last = -1, lastParent = -1, depth = 0;
        auto locked = [&](int32_t x, int32_t y) {
            return (rows.nameRoles(static_cast<uint32_t>(g.nodeEvent[x])) & RoleLock) &&
                   (rows.nameRoles(static_cast<uint32_t>(g.nodeEvent[y])) & RoleLock) &&
                   (g.nodeIsStart[x] || !g.nodeIsStart[y]);
        };
        auto parentEvent = [&](uint32_t local) { return parent[local] < 0 ? -1 : static_cast<int32_t>(group[parent[local]]); };
        auto onEnter = [&](uint32_t local) {
            const uint32_t ev = group[local];
            const int32_t s = m_start[ev];
            if (s < 0 || m_end[ev] < 0)
                return;
            if (last >= 0 && !locked(last, s)) {
                // Consecutive top-level ops are ordered with weight 0: idle gaps never count.
                const CpEdgeType type = depth == 0 ? CpEdgeType::Dependency : CpEdgeType::OperatorKernel;
                const double w = type == CpEdgeType::Dependency ? 0.0 : g.nodeTime[s] - g.nodeTime[last];
                attributeEdge(g, g.addEdge(last, s, type, w), lastParent);
            }
            last = s;
            lastParent = parentEvent(local);
            ++depth;
        };
        auto onExit = [&](uint32_t local) {
            const uint32_t ev = group[local];
            const int32_t e = m_end[ev];
            if (m_start[ev] < 0 || e < 0)
                return;
            if (last >= 0 && !locked(last, e)) {
                // Blocking calls (synchronisation) do not count their own time.
                const bool zero = rows.nameRoles(ev) & RoleBlocking;
                const double w = zero ? 0.0 : g.nodeTime[e] - g.nodeTime[last];
                attributeEdge(g, g.addEdge(last, e, CpEdgeType::OperatorKernel, w), lastParent);
            }
            last = e;
            lastParent = parentEvent(local);
            --depth;
        };
        // Iterative DFS: (node, next child to visit); the root is slot m.
        std::vector<std::pair<uint32_t, int32_t>> dfs;
        dfs.emplace_back(static_cast<uint32_t>(m), firstChild[m]);
        while (!dfs.empty()) {
            auto &[node, next] = dfs.back();
            if (next >= 0) {
                const uint32_t child = static_cast<uint32_t>(next);
                next = nextSibling[child];
                onEnter(child);
                dfs.emplace_back(child, firstChild[child]);
            } else {
                if (node != m)
                    onExit(node);
                dfs.pop_back();
            }
        }
    }
}

} // namespace syncscope::hta
