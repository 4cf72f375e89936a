// SPDX-License-Identifier: MIT
// One rank's GPU timeline for the straggler what-if (core/job/stragglerwhatif.h):
// every kernel, copy and memset of the trace with its step (by where it was
// launched) and the dependencies a re-simulation must keep beyond stream order.
#include "analysis/ranksummary.h"

#include "session/analysis.h"

#include <algorithm>
#include <tuple>
#include <unordered_map>

namespace syncscope {

void addRankGpuTimeline(const Analysis &analysis, RankSummary &s)
{
    if (!analysis.device)
        return;
    const KinetoTrace &trace = *analysis.device;
    RankGpuTimeline &out = s.gpu;
    out = {};
    out.present = true;

    // Where (and on which thread) each correlation's runtime call started.
    struct Launch {
        int64_t ts, pid, tid;
    };
    std::unordered_map<int64_t, Launch> launchOf;
    for (const KinetoEvent &e : trace.events)
        if ((e.kind == EventKind::Runtime || e.kind == EventKind::Driver) && e.correlation >= 0 &&
            e.has(KinetoEvent::HasTs))
            launchOf.emplace(e.correlation, Launch{e.tsNs, e.pid, e.tid});
    std::unordered_map<uint32_t, int32_t> collectiveOfEvent;
    for (size_t k = 0; k < s.collectives.size(); ++k)
        collectiveOfEvent.emplace(s.collectives[k].event, static_cast<int32_t>(k));

    std::vector<uint32_t> events;
    for (uint32_t i = 0; i < trace.events.size(); ++i) {
        const KinetoEvent &e = trace.events[i];
        if (isGpuActivity(e.kind) && e.has(KinetoEvent::HasTs) && e.ph == 'X')
            events.push_back(i);
    }
    auto lane = [&](uint32_t i) {
        const KinetoEvent &e = trace.events[i];
        return std::tuple{e.device, e.htaStream(), e.tsNs, i};
    };
    std::sort(events.begin(), events.end(), [&](uint32_t a, uint32_t b) { return lane(a) < lane(b); });
    if (events.size() > kMaxRankGpuOps) {
        s.diagnostics.warning("job.gpu_ops_truncated",
                              trace.path + ": the trace has " + std::to_string(events.size()) + " GPU ops; the first " +
                                  std::to_string(kMaxRankGpuOps) + " (by stream) go into the straggler what-if",
                              trace.path);
        events.resize(kMaxRankGpuOps);
    }
    std::unordered_map<StrId, uint32_t> nameIndex;
    std::unordered_map<uint32_t, uint32_t> opOfEvent;
    std::vector<int64_t> launchNs(events.size(), -1);
    out.ops.reserve(events.size());
    for (uint32_t k = 0; k < events.size(); ++k) {
        const KinetoEvent &e = trace.events[events[k]];
        auto [it, added] = nameIndex.try_emplace(e.name, static_cast<uint32_t>(out.names.size()));
        if (added)
            out.names.emplace_back(trace.str(e.name));
        RankGpuOp op;
        op.name = it->second;
        op.stream = static_cast<int32_t>(e.htaStream());
        op.device = static_cast<int32_t>(e.device);
        op.startNs = e.tsNs;
        op.durNs = std::max<int64_t>(0, e.durNs);
        const auto l = e.correlation >= 0 ? launchOf.find(e.correlation) : launchOf.end();
        if (l != launchOf.end())
            launchNs[k] = l->second.ts;
        // A step's GPU work runs after its CPU span: the launch says which step it is.
        op.step = stepOf(s.steps, launchNs[k] >= 0 ? launchNs[k] : e.tsNs);
        if (const auto c = collectiveOfEvent.find(events[k]); c != collectiveOfEvent.end())
            op.collective = c->second;
        opOfEvent.emplace(events[k], k);
        out.ops.push_back(op);
    }

    // Per lane, its ops by launch time: the first op each lane got after a CPU wait.
    struct LaneLaunches {
        std::vector<std::pair<int64_t, uint32_t>> byLaunch;
    };
    std::vector<LaneLaunches> lanes;
    {
        size_t first = 0;
        for (size_t k = 1; k <= out.ops.size(); ++k) {
            if (k < out.ops.size() && out.ops[k].device == out.ops[first].device &&
                out.ops[k].stream == out.ops[first].stream)
                continue;
            LaneLaunches l;
            for (size_t j = first; j < k; ++j)
                if (launchNs[j] >= 0)
                    l.byLaunch.emplace_back(launchNs[j], static_cast<uint32_t>(j));
            std::sort(l.byLaunch.begin(), l.byLaunch.end());
            lanes.push_back(std::move(l));
            first = k;
        }
    }
    for (const SyncEdge &edge : analysis.syncEdges) {
        const auto from = opOfEvent.find(edge.src);
        if (from == opOfEvent.end())
            continue;
        if (edge.gpuToGpu) {
            const auto to = opOfEvent.find(edge.dst);
            if (to != opOfEvent.end() && to->second != from->second)
                out.deps.push_back({from->second, to->second});
            continue;
        }
        if (edge.dst >= trace.events.size())
            continue;
        const int64_t resumedNs = trace.events[edge.dst].endNs();
        for (const LaneLaunches &l : lanes) {
            const auto next = std::lower_bound(l.byLaunch.begin(), l.byLaunch.end(),
                                               std::pair<int64_t, uint32_t>{resumedNs, 0});
            if (next != l.byLaunch.end() && next->second != from->second)
                out.deps.push_back({from->second, next->second});
        }
    }
    std::sort(out.deps.begin(), out.deps.end(),
              [](const RankGpuDep &a, const RankGpuDep &b) { return std::tie(a.to, a.from) < std::tie(b.to, b.from); });
    out.deps.erase(std::unique(out.deps.begin(), out.deps.end(),
                               [](const RankGpuDep &a, const RankGpuDep &b) { return a.to == b.to && a.from == b.from; }),
                   out.deps.end());
}

} // namespace syncscope
