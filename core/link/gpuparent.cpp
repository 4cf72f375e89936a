// SPDX-License-Identifier: MIT
#include "gpuparent.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <map>
#include <string_view>

namespace syncscope {

namespace {

bool nameHasNccl(std::string_view name)
{
    for (size_t i = 0; i + 4 <= name.size(); ++i) {
        if (std::tolower(static_cast<unsigned char>(name[i])) == 'n' &&
            std::tolower(static_cast<unsigned char>(name[i + 1])) == 'c' &&
            std::tolower(static_cast<unsigned char>(name[i + 2])) == 'c' &&
            std::tolower(static_cast<unsigned char>(name[i + 3])) == 'l')
            return true;
    }
    return false;
}

// Chakra's candidate list: CPU ops by ts plus one synthetic record for the
// process and one per thread (tid 0, External id -1); only their ts matters.
struct Candidate {
    double ts;
    int64_t tid;         // Chakra thread key (tid part)
    int64_t externalId;
    int32_t event;       // -1 for synthetic records
    bool coalesced;      // named exactly nccl:coalesced
};

GpuParents chakraParents(const KinetoTrace &trace, const KinetoView &view)
{
    GpuParents r;
    const auto &events = trace.events;
    r.launcher.assign(events.size(), -1);
    r.parent.assign(events.size(), -1);

    std::vector<Candidate> cands;
    cands.reserve(view.cpuOps.size() + view.threads.size() + 1);
    // Process and thread spans over every record with a tid (all of them).
    double processStart = std::numeric_limits<double>::max();
    std::map<int64_t, double> threadStart;
    std::vector<int64_t> threadOrder;
    for (uint32_t idx : view.byTs) {
        const KinetoEvent &e = events[idx];
        processStart = std::min(processStart, e.ts);
        const int64_t tid = threadOf(e, LinkMode::Chakra).second;
        if (threadStart.emplace(tid, e.ts).second)
            threadOrder.push_back(tid);
    }
    if (!events.empty()) {
        cands.push_back({processStart, 0, -1, -1, false});
        for (int64_t tid : threadOrder)
            cands.push_back({threadStart[tid], 0, -1, -1, false});
    }
    for (uint32_t idx : view.cpuOps) {
        const KinetoEvent &e = events[idx];
        cands.push_back({e.ts, threadOf(e, LinkMode::Chakra).second, e.externalId, static_cast<int32_t>(idx),
                         trace.str(e.name) == "nccl:coalesced"});
    }
    // Chakra inserts the synthetic records, then sorts stably by ts.
    std::stable_sort(cands.begin(), cands.end(), [](const Candidate &a, const Candidate &b) { return a.ts < b.ts; });
    std::vector<double> candTs(cands.size());
    for (size_t i = 0; i < cands.size(); ++i)
        candTs[i] = cands[i].ts;

    // Positions per (tid) and per (tid, external id), ascending.
    std::unordered_map<int64_t, std::vector<uint32_t>> byTid;
    std::map<std::pair<int64_t, int64_t>, std::vector<uint32_t>> byTidExt;
    for (uint32_t i = 0; i < cands.size(); ++i) {
        byTid[cands[i].tid].push_back(i);
        byTidExt[{cands[i].tid, cands[i].externalId}].push_back(i);
    }
    // Latest position < limit in `list` that is not a skipped nccl:coalesced.
    auto latestBefore = [&](const std::vector<uint32_t> &list, uint32_t limit, bool skipCoalesced) -> int64_t {
        auto it = std::lower_bound(list.begin(), list.end(), limit);
        while (it != list.begin()) {
            --it;
            if (!(skipCoalesced && cands[*it].coalesced))
                return *it;
        }
        return -1;
    };

    for (uint32_t g : view.gpuOps) {
        const KinetoEvent &k = events[g];
        auto l = view.launchByCorrelation.find(k.correlation);
        if (l == view.launchByCorrelation.end()) {
            ++r.withoutLauncher;
            continue;
        }
        r.launcher[g] = static_cast<int32_t>(l->second);
        const KinetoEvent &launch = events[l->second];
        const int64_t tid = threadOf(launch, LinkMode::Chakra).second; // the GPU op takes the launch's tid
        const auto limit = static_cast<uint32_t>(std::lower_bound(candTs.begin(), candTs.end(), launch.ts) -
                                                 candTs.begin());
        const bool skip = nameHasNccl(trace.str(k.name));
        int64_t found = -1;
        if (auto full = byTidExt.find({tid, k.externalId}); full != byTidExt.end())
            found = latestBefore(full->second, limit, skip);
        if (found < 0)
            if (auto any = byTid.find(tid); any != byTid.end())
                found = latestBefore(any->second, limit, skip);
        if (found < 0 || cands[static_cast<size_t>(found)].event < 0) {
            // A synthetic record as parent has External id -1 and can never be
            // linked to a host node; treat it as no parent.
            if (found < 0)
                ++r.withoutParent;
            r.parent[g] = -1;
            if (found >= 0)
                r.parent[g] = -2; // parent is a synthetic record (kept apart for grouping)
            continue;
        }
        r.parent[g] = cands[static_cast<size_t>(found)].event;
    }
    return r;
}

GpuParents defaultParents(const KinetoTrace &trace, const KinetoView &view)
{
    GpuParents r;
    const auto &events = trace.events;
    r.launcher.assign(events.size(), -1);
    r.parent.assign(events.size(), -1);

    // Per thread: CPU ops ordered by (ts asc, dur desc) with their enclosing parent.
    struct Lane {
        std::vector<uint32_t> ops;
        std::vector<double> ts;
        std::vector<int32_t> up; // position of the enclosing op, -1 at top level
    };
    std::vector<Lane> lanes(view.threads.size());
    for (size_t t = 0; t < view.threads.size(); ++t) {
        Lane &lane = lanes[t];
        lane.ops = view.threadCpuOps[t];
        std::stable_sort(lane.ops.begin(), lane.ops.end(), [&](uint32_t a, uint32_t b) {
            if (events[a].ts != events[b].ts)
                return events[a].ts < events[b].ts;
            return events[a].dur > events[b].dur;
        });
        lane.ts.resize(lane.ops.size());
        lane.up.assign(lane.ops.size(), -1);
        std::vector<int32_t> stack;
        for (size_t i = 0; i < lane.ops.size(); ++i) {
            const KinetoEvent &e = events[lane.ops[i]];
            lane.ts[i] = e.ts;
            while (!stack.empty() && events[lane.ops[static_cast<size_t>(stack.back())]].end() < e.ts)
                stack.pop_back();
            lane.up[i] = stack.empty() ? -1 : stack.back();
            stack.push_back(static_cast<int32_t>(i));
        }
    }

    for (uint32_t g : view.gpuOps) {
        const KinetoEvent &k = events[g];
        auto l = view.launchByCorrelation.find(k.correlation);
        if (!k.has(KinetoEvent::HasCorrelation) || l == view.launchByCorrelation.end()) {
            ++r.withoutLauncher;
            continue;
        }
        r.launcher[g] = static_cast<int32_t>(l->second);
        const KinetoEvent &launch = events[l->second];
        auto ti = view.threadIndex.find(threadOf(launch, LinkMode::Default));
        if (ti == view.threadIndex.end()) {
            ++r.withoutParent;
            continue;
        }
        const Lane &lane = lanes[ti->second];
        // Last op starting at or before the launch, then up to the innermost one still open.
        auto pos = static_cast<int64_t>(std::upper_bound(lane.ts.begin(), lane.ts.end(), launch.ts) -
                                        lane.ts.begin()) - 1;
        int64_t p = pos;
        while (p >= 0 && events[lane.ops[static_cast<size_t>(p)]].end() < launch.ts)
            p = lane.up[static_cast<size_t>(p)];
        if (p < 0)
            p = pos; // not enclosed: Chakra's fallback, the latest op that started before
        if (p < 0) {
            ++r.withoutParent;
            continue;
        }
        r.parent[g] = static_cast<int32_t>(lane.ops[static_cast<size_t>(p)]);
    }
    return r;
}

} // namespace

GpuParents findGpuParents(const KinetoTrace &trace, const KinetoView &view)
{
    return view.mode == LinkMode::Chakra ? chakraParents(trace, view) : defaultParents(trace, view);
}

} // namespace syncscope
