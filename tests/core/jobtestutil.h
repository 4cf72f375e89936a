// SPDX-License-Identifier: MIT
// Helpers for the job-analysis suites: run the per-rank pipeline, shift a rank's clock.
#pragma once

#include "job/jobanalysis.h"
#include "analysis/ranksummary.h"
#include "session/analysis.h"
#include "testutil.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <string>
#include <vector>

namespace jobtest {

inline syncscope::RankSummary summarize(const std::string &device, const std::string &host = {},
                                        bool allSteps = false)
{
    syncscope::AnalysisRequest request;
    request.devicePath = device;
    request.hostPath = host;
    request.allSteps = allSteps;
    const auto analysis = syncscope::runAnalysis(request);
    return syncscope::extractRankSummary(*analysis, 0);
}

// The real 8-rank DLRM job (device traces only; old ncclKernel_* names, no process-group args).
inline std::vector<syncscope::RankSummary> dlrmJob()
{
    std::vector<syncscope::RankSummary> ranks;
    for (int r = 0; r < 8; ++r)
        ranks.push_back(
            summarize(testutil::fixture("jobs/param_dlrm_8rank/rank" + std::to_string(r) + ".kineto.json.gz")));
    return ranks;
}

// Moves every time of a summary by `deltaNs`, as if the rank's clock read that much later.
inline void shiftClock(syncscope::RankSummary &s, int64_t deltaNs)
{
    s.traceStartNs += deltaNs;
    s.traceEndNs += deltaNs;
    for (auto &st : s.steps) {
        st.startNs += deltaNs;
        st.endNs += deltaNs;
    }
    for (auto &c : s.collectives) {
        c.startNs += deltaNs;
        c.endNs += deltaNs;
        if (c.launchNs >= 0)
            c.launchNs += deltaNs;
    }
    for (auto &op : s.criticalPath.ops)
        op.startNs += deltaNs;
    for (auto &op : s.ops)
        op.startNs += deltaNs;
    for (auto &n : s.criticalPath.nodes)
        n.timeNs += deltaNs;
}

// Moves the GPU-side times t >= from of a summary (kernel starts/ends, GPU ops, the
// critical-path nodes and ops) by delta; a collective's own end is left to the caller.
inline void shiftGpuFrom(syncscope::RankSummary &s, int64_t from, int64_t delta)
{
    for (auto &c : s.collectives) {
        if (c.startNs >= from)
            c.startNs += delta;
        if (c.endNs >= from)
            c.endNs += delta;
    }
    for (auto &op : s.ops)
        if (op.gpu && op.startNs >= from)
            op.startNs += delta;
    for (auto &op : s.criticalPath.ops)
        if (op.stream >= 0 && op.startNs >= from)
            op.startNs += delta;
    for (auto &n : s.criticalPath.nodes)
        if (n.op >= 0 && s.criticalPath.ops[size_t(n.op)].stream >= 0 && n.timeNs >= from)
            n.timeNs += delta;
}

// Slows CPU op `op` of summary `victim` by `deltaNs`, as a rank would see it: its CPU
// runs deltaNs later from the op's end on (the ops around it take longer), so it
// launches its next collective k that much later and that kernel starts that much
// later; the others wait longer at k, whose kernel then ends later on every rank by
// what the last arrival moved, and so does all GPU work after it. `job` is the
// analysis of `ranks` before the change (for the aligned arrivals).
inline void slowOp(std::vector<syncscope::RankSummary> &ranks, const syncscope::JobAnalysis &job, size_t victim,
                   size_t op, int64_t deltaNs)
{
    using namespace syncscope;
    RankSummary &v = ranks[victim];
    const RankOp slowed = v.ops[op];
    const int64_t end = slowed.startNs + slowed.durNs;
    // The collective it delays: the first launched after the op ends.
    uint32_t k = 0;
    while (k < v.collectives.size() && v.collectives[k].launchNs < end)
        ++k;
    if (k == v.collectives.size())
        return;
    const MatchedCollective *c = nullptr;
    for (const MatchedCollective &m : job.collectives)
        for (size_t p = 0; p < m.ranks.size(); ++p)
            if (m.ranks[p] == v.rank && m.index[p] == k)
                c = &m;
    if (!c)
        return;
    double lastOther = -1e300;
    for (const auto &[r, a] : c->arrivalUs)
        if (r != v.rank)
            lastOther = std::max(lastOther, a);
    const double newArrival = c->arrivalUs.at(v.rank) + double(deltaNs) / 1000.0;
    const int64_t moved = std::max<int64_t>(
        0, std::llround((std::max(newArrival, lastOther) - std::max(c->arrivalUs.at(v.rank), lastOther)) * 1000.0));
    // The victim's CPU.
    for (auto &o : v.ops) {
        if (o.gpu)
            continue;
        if (o.startNs <= slowed.startNs && o.startNs + o.durNs >= end)
            o.durNs += deltaNs; // the op and the ops around it
        else if (o.startNs >= end)
            o.startNs += deltaNs;
    }
    for (auto &col : v.collectives)
        if (col.launchNs >= end)
            col.launchNs += deltaNs;
    // The same in its critical-path graph: the op's own edge is longer, the CPU after it later.
    RankCpGraph &g = v.criticalPath;
    int32_t cpOp = -1;
    for (size_t k = 0; k < g.ops.size(); ++k)
        if (g.ops[k].stream < 0 && g.ops[k].startNs == slowed.startNs && g.ops[k].name == v.opNames[slowed.name])
            cpOp = static_cast<int32_t>(k);
    // (Graph node times went through HTA's µs doubles: match the op's end node, not its time.)
    int32_t endNode = -1;
    for (size_t k = 0; k < g.nodes.size(); ++k)
        if (cpOp >= 0 && g.nodes[k].op == cpOp && !g.nodes[k].isStart)
            endNode = static_cast<int32_t>(k);
    const int64_t endTime = endNode >= 0 ? g.nodes[size_t(endNode)].timeNs : end;
    for (auto &e : g.edges)
        if (e.to == endNode && e.op == cpOp)
            e.weightUs += double(deltaNs) / 1000.0;
    for (auto &n : g.nodes)
        if (n.timeNs >= endTime && (n.op < 0 || g.ops[size_t(n.op)].stream < 0))
            n.timeNs += deltaNs;
    for (auto &o : g.ops) {
        if (o.stream >= 0)
            continue;
        if (o.startNs <= slowed.startNs && o.startNs + o.durNs >= end)
            o.durNs += deltaNs;
        else if (o.startNs >= end)
            o.startNs += deltaNs;
    }
    // Collective k: later on the victim, ends later everywhere; the GPU work after it too.
    const int64_t startK = v.collectives[k].startNs, endK = v.collectives[k].endNs;
    shiftGpuFrom(v, endK, moved);
    v.collectives[k].startNs = startK + deltaNs;
    v.collectives[k].endNs = endK + moved;
    for (size_t p = 0; p < c->ranks.size(); ++p) {
        if (c->ranks[p] == v.rank)
            continue;
        for (RankSummary &r : ranks)
            if (r.rank == c->ranks[p]) {
                const int64_t e = r.collectives[c->index[p]].endNs;
                shiftGpuFrom(r, e + 1, moved);
                r.collectives[c->index[p]].endNs = e + moved;
            }
    }
}

inline const syncscope::RankJobStats &stats(const syncscope::JobAnalysis &job, int64_t rank)
{
    for (const auto &s : job.ranks)
        if (s.rank == rank)
            return s;
    static syncscope::RankJobStats none;
    return none;
}

} // namespace jobtest
