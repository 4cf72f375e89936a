// SPDX-License-Identifier: MIT
// The job critical path (docs/job_analysis.md, "Job critical path"): the step's
// wait-state walk across ranks (jobsteptime.cpp) with, inside each stretch of a
// rank's work, that rank's own critical path over its graph's nodes there (HTA's
// single-rank semantics), and each collective on the walk from its last arrival.
// Its length is the step minus the time before the walk's first rank started.
#include "analysis/criticalpath.h"
#include "jobinternal.h"
#include "jobrankpath.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <set>
#include <unordered_map>

namespace syncscope::job {

JobCriticalPath jobCriticalPath(const std::vector<RankSummary> &ranks, const std::vector<uint8_t> &use,
                                const std::vector<MatchedCollective> &collectives, const std::vector<double> &offsetNs,
                                Diagnostics &diag, const std::vector<std::vector<double>> *weights)
{
    JobCriticalPath out;
    const size_t n = ranks.size();
    std::vector<std::unique_ptr<RankPathIndex>> indices(n);
    auto indexOf = [&](uint32_t i) -> const RankPathIndex & {
        if (!indices[i])
            indices[i] = std::make_unique<RankPathIndex>(ranks[i].criticalPath);
        return *indices[i];
    };
    std::vector<std::vector<double>> measured(n);
    // A what-if that changes no weight is the measurement (exactly, not by a replay).
    bool changed = false;
    for (uint32_t i = 0; weights && i < n && !changed; ++i)
        if (!(*weights)[i].empty()) {
            measured[i] = measuredWeights(ranks[i].criticalPath);
            for (size_t e = 0; e < measured[i].size() && !changed; ++e)
                changed = !((*weights)[i][e] == measured[i][e]);
        }
    JobReplay replay;
    if (changed) {
        replay = replayJob(ranks, use, collectives, offsetNs, *weights);
        if (!replay.ok) {
            out.reason = replay.reason;
            diag.warning("job.replay_failed", "what-if replay: " + replay.reason);
            return out;
        }
    }
    out.stepTime = jobStepTime(ranks, use, collectives, offsetNs, changed ? &replay : nullptr);
    const JobStepTime &st = out.stepTime;
    if (st.ranksLeftOut > 0)
        diag.warning("job.step_mismatch",
                     "job critical path: " + std::to_string(st.ranksLeftOut) + " rank(s) have no " +
                         (st.stepNumber >= 0 ? "ProfilerStep#" + std::to_string(st.stepNumber) : std::string("window")) +
                         " (the step most ranks analysed; their traces hold other steps) and are left out of it");
    if (st.ranksOtherWindow > 0)
        diag.warning("job.step_mismatch",
                     "job critical path: " + std::to_string(st.ranksOtherWindow) +
                         " rank(s) analysed another window than ProfilerStep#" + std::to_string(st.stepNumber) +
                         " (their traces start at another step): the path keeps their times there but names none "
                         "of their ops");
    bool anyGraph = false;
    for (uint32_t i = 0; i < n; ++i)
        anyGraph |= use[i] && ranks[i].criticalPath.valid && !ranks[i].criticalPath.nodes.empty();
    if (!anyGraph) {
        out.reason = "no rank has a single-rank critical path";
        return out;
    }
    if (!st.valid) {
        out.reason = st.stepNumber >= 0 ? "no rank has ProfilerStep#" + std::to_string(st.stepNumber)
                                        : std::string("no rank has a window to walk");
        return out;
    }
    out.valid = true;
    out.weightUs = st.workUs + st.waitUs;

    std::unordered_map<int64_t, uint32_t> summaryOf;
    for (uint32_t i = 0; i < n; ++i)
        if (use[i])
            summaryOf.emplace(ranks[i].rank, i);
    double bucket[kCpBoundCount] = {};
    for (const JobPathSegment &g : st.segments) {
        if (std::find(out.ranksOnPath.begin(), out.ranksOnPath.end(), g.rank) == out.ranksOnPath.end())
            out.ranksOnPath.push_back(g.rank);
        const uint32_t i = summaryOf.at(g.rank);
        const double offsetUs = offsetNs[i] / 1000.0;
        if (g.collective && g.collectiveIndex < 0) {
            // An unmatched kernel (jobsteptime.cpp): collective time, its kernels on the path.
            bucket[int(CpBound::GpuCommunication)] += g.endUs - g.startUs;
            for (const RankCollective &k : ranks[i].collectives)
                if (k.startNs < g.windowToNs && k.endNs > g.windowFromNs)
                    out.path.push_back({g.rank, k.kernelName, double(k.startNs) / 1000.0 + offsetUs,
                                        double(k.endNs - k.startNs) / 1000.0, cpBoundName(CpBound::GpuCommunication)});
            continue;
        }
        if (g.collective) {
            const uint32_t j = static_cast<uint32_t>(g.collectiveIndex);
            out.collectivesCrossed.push_back(j);
            bucket[int(CpBound::GpuCommunication)] += g.endUs - g.startUs;
            const MatchedCollective &c = collectives[j];
            const size_t p = size_t(std::find(c.ranks.begin(), c.ranks.end(), g.rank) - c.ranks.begin());
            const RankCollective &k = ranks[i].collectives[c.index[p]];
            out.path.push_back({g.rank, k.kernelName, double(k.startNs) / 1000.0 + offsetUs,
                                double(k.endNs - k.startNs) / 1000.0, cpBoundName(CpBound::GpuCommunication)});
            continue;
        }
        const RankCpGraph &graph = ranks[i].criticalPath;
        const double length = g.endUs - g.startUs;
        if (!graph.valid || graph.nodes.empty() || graph.windowStep != st.stepNumber) {
            bucket[int(CpBound::None)] += length;
            continue;
        }
        const std::vector<double> *w = weights && !(*weights)[i].empty() ? &(*weights)[i] : nullptr;
        if (!w) {
            if (measured[i].empty())
                measured[i] = measuredWeights(graph);
            w = &measured[i];
        }
        const RankPathIndex::Path sub = indexOf(i).longest(g.windowFromNs, g.windowToNs, *w, true);
        // The stretch's length, shared out as its rank path's edges are.
        double parts[kCpBoundCount] = {};
        double total = 0;
        std::set<int32_t> seen;
        for (int32_t id : sub.edges) {
            const RankCpEdge &e = graph.edges[size_t(id)];
            const double x = (*w)[size_t(id)];
            const int b = e.bound < kCpBoundCount ? e.bound : 0;
            parts[b] += x;
            total += x;
            if (e.op < 0 || !seen.insert(e.op).second)
                continue;
            const RankCpOp &op = graph.ops[size_t(e.op)];
            out.path.push_back({g.rank, op.name, double(op.startNs) / 1000.0 + offsetUs, double(op.durNs) / 1000.0,
                                b != 0 ? cpBoundName(static_cast<CpBound>(b)) : std::string()});
        }
        for (int b = 0; b < kCpBoundCount; ++b)
            bucket[b] += total > 0 ? length * parts[b] / total : (b == 0 ? length : 0.0);
    }
    const double sum = out.weightUs;
    for (int b = 0; b < kCpBoundCount; ++b)
        if (bucket[b] != 0)
            out.summaryPct.emplace_back(cpBoundName(static_cast<CpBound>(b)), sum > 0 ? 100.0 * bucket[b] / sum : 0.0);
    return out;
}

} // namespace syncscope::job
