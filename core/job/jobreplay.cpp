// SPDX-License-Identifier: MIT
// A job's step replayed under a what-if (docs/what_if.md, "Jobs"): every rank's
// critical-path graph re-timed with the new edge weights, in one topological pass
// over all ranks, the collectives joining them. A node starts when its binding
// predecessor (the one it waited for in the measurement) says so, keeping the gap
// measured after it, and no earlier than any other predecessor allows; a collective
// kernel ends its measured time after the replayed last arrival. With the measured
// weights this reproduces the measured times; a shorter edge moves what waited for it.
#include "jobinternal.h"
#include "jobrankpath.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>
#include <unordered_map>

namespace syncscope::job {

namespace {

struct Constraint {
    int32_t from, to; // global node ids
    double addNs;     // to' >= from' + addNs
};

// (end node of a GPU op, start node of the next op on its stream), per stream by start.
std::vector<std::pair<int32_t, int32_t>> streamOrder(const RankCpGraph &g)
{
    std::vector<int32_t> startOf(g.ops.size(), -1), endOf(g.ops.size(), -1);
    for (size_t k = 0; k < g.nodes.size(); ++k)
        if (g.nodes[k].op >= 0)
            (g.nodes[k].isStart ? startOf : endOf)[size_t(g.nodes[k].op)] = static_cast<int32_t>(k);
    std::vector<int32_t> gpu;
    for (size_t op = 0; op < g.ops.size(); ++op)
        if (g.ops[op].stream >= 0 && startOf[op] >= 0 && endOf[op] >= 0)
            gpu.push_back(static_cast<int32_t>(op));
    std::sort(gpu.begin(), gpu.end(), [&](int32_t a, int32_t b) {
        const RankCpOp &x = g.ops[size_t(a)], &y = g.ops[size_t(b)];
        return std::tie(x.stream, x.startNs, a) < std::tie(y.stream, y.startNs, b);
    });
    std::vector<std::pair<int32_t, int32_t>> out;
    for (size_t k = 1; k < gpu.size(); ++k)
        if (g.ops[size_t(gpu[k])].stream == g.ops[size_t(gpu[k - 1])].stream &&
            g.nodes[size_t(endOf[size_t(gpu[k - 1])])].timeNs <= g.nodes[size_t(startOf[size_t(gpu[k])])].timeNs)
            out.emplace_back(endOf[size_t(gpu[k - 1])], startOf[size_t(gpu[k])]);
    return out;
}

} // namespace

JobReplay replayJob(const std::vector<RankSummary> &ranks, const std::vector<uint8_t> &use,
                    const std::vector<MatchedCollective> &collectives, const std::vector<double> &offsetNs,
                    const std::vector<std::vector<double>> &weights)
{
    JobReplay out;
    const size_t n = ranks.size();
    out.kernels.resize(n);
    out.endShiftNs.assign(n, 0);
    std::vector<int32_t> base(n, -1);
    size_t total = 0;
    for (uint32_t i = 0; i < n; ++i)
        if (use[i] && ranks[i].criticalPath.valid && weights[i].size() == ranks[i].criticalPath.edges.size()) {
            base[i] = static_cast<int32_t>(total);
            total += ranks[i].criticalPath.nodes.size();
        }
    std::vector<double> measured(total), replayed(total);
    for (uint32_t i = 0; i < n; ++i)
        for (size_t k = 0; base[i] >= 0 && k < ranks[i].criticalPath.nodes.size(); ++k)
            measured[size_t(base[i]) + k] = double(ranks[i].criticalPath.nodes[k].timeNs);

    // Collective kernels: (summary, own collective) -> start/end node and kernel edge.
    struct Kernel {
        int32_t start = -1, end = -1, edge = -1;
    };
    std::vector<std::unordered_map<uint32_t, Kernel>> kernels(n);
    for (uint32_t i = 0; i < n; ++i) {
        if (base[i] < 0)
            continue;
        const RankCpGraph &g = ranks[i].criticalPath;
        for (size_t k = 0; k < g.nodes.size(); ++k) {
            const int32_t op = g.nodes[k].op;
            if (op >= 0 && g.ops[size_t(op)].collective >= 0) {
                Kernel &kn = kernels[i][uint32_t(g.ops[size_t(op)].collective)];
                (g.nodes[k].isStart ? kn.start : kn.end) = base[i] + static_cast<int32_t>(k);
            }
        }
        for (size_t e = 0; e < g.edges.size(); ++e) {
            const RankCpEdge &edge = g.edges[e];
            if (edge.op < 0 || g.ops[size_t(edge.op)].collective < 0)
                continue;
            auto it = kernels[i].find(uint32_t(g.ops[size_t(edge.op)].collective));
            if (it != kernels[i].end() && it->second.start == base[i] + edge.from && it->second.end == base[i] + edge.to)
                it->second.edge = static_cast<int32_t>(e);
        }
    }
    // Joined collectives: their kernel edges give way to the cross-rank constraints.
    std::unordered_map<int64_t, uint32_t> summaryOf;
    for (uint32_t i = 0; i < n; ++i)
        if (use[i])
            summaryOf.emplace(ranks[i].rank, i);
    std::vector<std::vector<uint8_t>> joinedEdge(n);
    std::vector<Constraint> cons;
    for (const MatchedCollective &c : collectives) {
        std::vector<std::pair<uint32_t, const Kernel *>> parts;
        for (size_t p = 0; p < c.ranks.size(); ++p) {
            const auto found = summaryOf.find(c.ranks[p]);
            if (found == summaryOf.end() || base[found->second] < 0)
                continue;
            const uint32_t i = found->second;
            auto it = kernels[i].find(c.index[p]);
            if (it != kernels[i].end() && it->second.start >= 0 && it->second.end >= 0)
                parts.emplace_back(i, &it->second);
        }
        if (parts.size() < 2 || c.lastArrivalRank < 0)
            continue;
        const double lastArrivalNs = c.arrivalUs.at(c.lastArrivalRank) * 1000.0;
        for (const auto &[i, kn] : parts) {
            const double endAligned = c.endUs.at(ranks[i].rank) * 1000.0;
            double after = std::max(0.0, endAligned - lastArrivalNs);
            if (kn->edge >= 0) {
                const double was = ranks[i].criticalPath.edges[size_t(kn->edge)].weightUs;
                const double now = weights[i][size_t(kn->edge)];
                if (was > 0 && !std::isnan(now))
                    after *= now / was;
                joinedEdge[i].resize(ranks[i].criticalPath.edges.size(), 0);
                joinedEdge[i][size_t(kn->edge)] = 1;
            }
            for (const auto &[q, kq] : parts) // aligned: start'(q) + off_q + after - off_i
                cons.push_back({kq->start, kn->end, offsetNs[q] - offsetNs[i] + after});
        }
    }
    // The ranks' own edges, plus the order of each GPU stream (HTA links a kernel to the
    // previous one only within 1.5 ms and not behind a sync, and a kernel it links to
    // nothing would otherwise keep its measured time: a saving upstream would stop there).
    // Binding (the measured maximum) keeps its gap, others none.
    for (uint32_t i = 0; i < n; ++i) {
        if (base[i] < 0)
            continue;
        const RankCpGraph &g = ranks[i].criticalPath;
        const std::vector<double> was = measuredWeights(g);
        struct Link {
            int32_t from, to;
            double wasUs, nowUs; // NaN now: dropped
            int32_t edge;        // graph edge, -1 stream order
        };
        std::vector<Link> links;
        links.reserve(g.edges.size());
        for (size_t e = 0; e < g.edges.size(); ++e)
            if (joinedEdge[i].empty() || !joinedEdge[i][e])
                links.push_back({g.edges[e].from, g.edges[e].to, was[e], weights[i][e], int32_t(e)});
        for (const auto &[from, to] : streamOrder(g))
            links.push_back({from, to, 0.0, 0.0, -1});
        std::vector<int32_t> binding(g.nodes.size(), -1);
        std::vector<double> bound(g.nodes.size(), -std::numeric_limits<double>::infinity());
        for (size_t k = 0; k < links.size(); ++k) {
            const double t = double(g.nodes[size_t(links[k].from)].timeNs) + links[k].wasUs * 1000.0;
            if (t > bound[size_t(links[k].to)]) {
                bound[size_t(links[k].to)] = t;
                binding[size_t(links[k].to)] = static_cast<int32_t>(k);
            }
        }
        for (size_t k = 0; k < links.size(); ++k) {
            const Link &l = links[k];
            if (std::isnan(l.nowUs))
                continue;
            const double gap = double(g.nodes[size_t(l.to)].timeNs - g.nodes[size_t(l.from)].timeNs) - l.wasUs * 1000.0;
            const double keep = binding[size_t(l.to)] == int32_t(k) ? gap : std::min(0.0, gap);
            cons.push_back({base[i] + l.from, base[i] + l.to, l.nowUs * 1000.0 + keep});
        }
    }

    // One topological pass; a node nothing constrains keeps its measured time.
    std::vector<int32_t> start(total + 1, 0), order(cons.size()), indegree(total, 0);
    for (const Constraint &c : cons) {
        ++start[size_t(c.from) + 1];
        ++indegree[size_t(c.to)];
    }
    for (size_t v = 0; v < total; ++v)
        start[v + 1] += start[v];
    {
        std::vector<int32_t> fill(start.begin(), start.end() - 1);
        for (size_t k = 0; k < cons.size(); ++k)
            order[size_t(fill[size_t(cons[k].from)]++)] = static_cast<int32_t>(k);
    }
    std::vector<uint8_t> constrained(total, 0);
    std::vector<int32_t> queue;
    queue.reserve(total);
    for (size_t v = 0; v < total; ++v) {
        replayed[v] = measured[v];
        if (indegree[v] == 0)
            queue.push_back(static_cast<int32_t>(v));
    }
    for (size_t head = 0; head < queue.size(); ++head) {
        const int32_t u = queue[head];
        for (int32_t k = start[size_t(u)]; k < start[size_t(u) + 1]; ++k) {
            const Constraint &c = cons[size_t(order[size_t(k)])];
            const double t = replayed[size_t(u)] + c.addNs;
            if (!constrained[size_t(c.to)] || t > replayed[size_t(c.to)])
                replayed[size_t(c.to)] = t;
            constrained[size_t(c.to)] = 1;
            if (--indegree[size_t(c.to)] == 0)
                queue.push_back(c.to);
        }
    }
    if (queue.size() != total) {
        out.reason = "the ranks' graphs joined by the collectives have a cycle";
        return out;
    }
    out.ok = true;
    for (uint32_t i = 0; i < n; ++i) {
        if (base[i] < 0)
            continue;
        for (const auto &[own, kn] : kernels[i])
            out.kernels[i][own] = {replayed[size_t(kn.start)] - measured[size_t(kn.start)],
                                   replayed[size_t(kn.end)] - measured[size_t(kn.end)]};
        // The rank's step ends as its last node moves.
        double lastMeasured = -std::numeric_limits<double>::infinity(), lastReplayed = lastMeasured;
        for (size_t k = 0; k < ranks[i].criticalPath.nodes.size(); ++k) {
            lastMeasured = std::max(lastMeasured, measured[size_t(base[i]) + k]);
            lastReplayed = std::max(lastReplayed, replayed[size_t(base[i]) + k]);
        }
        out.endShiftNs[i] = lastReplayed - lastMeasured;
    }
    return out;
}

} // namespace syncscope::job
