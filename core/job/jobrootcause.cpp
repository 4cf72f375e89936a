// SPDX-License-Identifier: MIT
// Root causes of waits per op and their delay costs (docs/job_analysis.md, "Root
// causes"): data-parallel ranks run the same ops in the same order between two
// collectives, so the last arriver's ops are compared with the same op (name and
// occurrence in the interval) on the other ranks; the ops that ran longest over the
// others' median are why it came late. The waits its extra work caused are the
// direct delay cost of those ops; a later wait because a rank that waited was then
// late is their propagated cost (Böhme et al., ICPP 2010).
#include "jobinternal.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string_view>
#include <unordered_map>

namespace syncscope::job {

namespace {

constexpr size_t kTopCauses = 5;

// What a rank did before its collective k: on the CPU, the ops since the launch of its
// previous collective (the CPU runs ahead of the GPU, so CPU ops are compared in
// launch order); on the GPU, the ops since its previous collective kernel ended.
// Both from the window start at its first collective of the window.
struct Interval {
    int64_t cpuFrom, cpuTo, gpuFrom, gpuTo;
    bool contains(const RankOp &op) const
    {
        return op.gpu ? op.startNs >= gpuFrom && op.startNs < gpuTo : op.startNs >= cpuFrom && op.startNs < cpuTo;
    }
};

Interval intervalOf(const RankSummary &r, uint32_t k)
{
    const RankCollective &c = r.collectives[k];
    bool fromStart = false;
    Interval in;
    in.gpuFrom = previousSyncNs(r, k, fromStart);
    in.gpuTo = c.startNs;
    in.cpuTo = c.launchNs >= 0 ? c.launchNs : c.startNs;
    in.cpuFrom = !fromStart && r.collectives[k - 1].launchNs >= 0 ? r.collectives[k - 1].launchNs : in.gpuFrom;
    if (fromStart)
        in.cpuFrom = std::min(in.gpuFrom, in.cpuTo);
    return in;
}

// The ops of a rank in the interval, as indices into RankSummary::ops, in start order.
std::vector<size_t> opsIn(const RankSummary &r, const Interval &in)
{
    const int64_t from = std::min(in.cpuFrom, in.gpuFrom), to = std::max(in.cpuTo, in.gpuTo);
    auto lo = std::lower_bound(r.ops.begin(), r.ops.end(), from,
                               [](const RankOp &op, int64_t t) { return op.startNs < t; });
    std::vector<size_t> out;
    for (auto it = lo; it != r.ops.end() && it->startNs < to; ++it)
        if (in.contains(*it))
            out.push_back(static_cast<size_t>(it - r.ops.begin()));
    return out;
}

struct Key {
    std::string_view name;
    uint32_t occurrence;
    bool operator==(const Key &o) const { return occurrence == o.occurrence && name == o.name; }
};
struct KeyHash {
    size_t operator()(const Key &k) const { return std::hash<std::string_view>()(k.name) * 31 + k.occurrence; }
};

// An op's own work: its time less what it spent blocked on the GPU (a .item() on a
// rank whose GPU is slow takes longer, but the cause is the GPU work it waited for).
double workUs(const RankOp &op)
{
    return double(std::max<int64_t>(0, op.durNs - op.waitNs)) / 1000.0;
}

// (rank, op name) -> share of a collective's delay.
using Attribution = std::vector<std::pair<std::pair<int64_t, std::string>, double>>;

// For each op of `mine` (indices into r.ops in start order), the position in `mine` of
// the innermost CPU op that encloses it, -1 at top level. GPU ops do not nest.
std::vector<int32_t> nestingParents(const RankSummary &r, const std::vector<size_t> &mine)
{
    std::vector<int32_t> parent(mine.size(), -1);
    // Start order, the longer of two ops that start together first (it encloses the other).
    std::vector<size_t> order(mine.size());
    for (size_t m = 0; m < order.size(); ++m)
        order[m] = m;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        const RankOp &x = r.ops[mine[a]], &y = r.ops[mine[b]];
        return x.startNs != y.startNs ? x.startNs < y.startNs : x.durNs > y.durNs;
    });
    std::vector<size_t> open; // positions in mine, each enclosing the next
    for (size_t m : order) {
        const RankOp &op = r.ops[mine[m]];
        if (op.gpu)
            continue;
        while (!open.empty()) {
            const RankOp &top = r.ops[mine[open.back()]];
            if (op.startNs >= top.startNs && op.startNs + op.durNs <= top.startNs + top.durNs)
                break;
            open.pop_back();
        }
        if (!open.empty())
            parent[m] = static_cast<int32_t>(open.back());
        open.push_back(m);
    }
    return parent;
}

} // namespace

void findRootCauses(const std::vector<RankSummary> &ranks, const std::vector<uint8_t> &use,
                    const std::vector<double> &offsetNs, JobAnalysis &job)
{
    std::unordered_map<int64_t, uint32_t> summaryOf;
    for (uint32_t i = 0; i < ranks.size(); ++i)
        if (use[i])
            summaryOf.emplace(ranks[i].rank, i);
    // (summary, its collective index) -> job collective, to find a rank's previous one.
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> jobIndex;
    for (uint32_t j = 0; j < job.collectives.size(); ++j)
        for (size_t p = 0; p < job.collectives[j].ranks.size(); ++p)
            jobIndex[{summaryOf.at(job.collectives[j].ranks[p]), job.collectives[j].index[p]}] = j;

    std::vector<Attribution> attribution(job.collectives.size());
    std::map<std::pair<int64_t, std::string>, DelayCost> costs;
    std::map<std::pair<int64_t, std::string>, std::pair<bool, double>> where; // (gpu, earliest start) of a charged op
    auto addCost = [&](const std::pair<int64_t, std::string> &key, double direct, double propagated) {
        DelayCost &c = costs[key];
        c.rank = key.first;
        c.op = key.second;
        if (const auto w = where.find(key); w != where.end()) {
            c.gpu = w->second.first;
            c.firstStartUs = w->second.second;
        }
        c.directUs += direct;
        c.propagatedUs += propagated;
    };

    // Job collectives are in aligned time order: a rank's previous one comes first.
    for (uint32_t j = 0; j < job.collectives.size(); ++j) {
        MatchedCollective &c = job.collectives[j];
        const double caused = waitCausedUs(c);
        const auto lit = c.lateness.find(c.lastArrivalRank);
        if (caused <= 0 || lit == c.lateness.end() || lit->second.lateUs <= 0)
            continue;
        const RankLateness &late = lit->second;
        const size_t lastPos =
            static_cast<size_t>(std::find(c.ranks.begin(), c.ranks.end(), c.lastArrivalRank) - c.ranks.begin());
        const uint32_t L = summaryOf.at(c.lastArrivalRank);
        const RankSummary &lr = ranks[L];

        // The last arriver's ops in its interval, keyed by (name, occurrence).
        const std::vector<size_t> mine = opsIn(lr, intervalOf(lr, c.index[lastPos]));
        std::unordered_map<Key, std::vector<double>, KeyHash> others;
        std::vector<Key> keys(mine.size());
        {
            std::unordered_map<std::string_view, uint32_t> seen;
            for (size_t m = 0; m < mine.size(); ++m) {
                const std::string_view name = lr.opNames[lr.ops[mine[m]].name];
                keys[m] = {name, seen[name]++};
                others.try_emplace(keys[m]);
            }
        }
        // The same ops on the other participants, in their own intervals.
        for (size_t p = 0; p < c.ranks.size() && !keys.empty(); ++p) {
            if (p == lastPos)
                continue;
            const RankSummary &r = ranks[summaryOf.at(c.ranks[p])];
            std::unordered_map<std::string_view, uint32_t> seen;
            for (size_t k : opsIn(r, intervalOf(r, c.index[p]))) {
                const std::string_view name = r.opNames[r.ops[k].name];
                auto it = others.find(Key{name, seen[name]++});
                if (it != others.end())
                    it->second.push_back(workUs(r.ops[k]));
            }
        }
        // Each op's excess, then its own part: less its children's (the ops nested in
        // it, CPU ops by time on the rank, as the trace nests them).
        std::vector<double> xs(mine.size());
        for (size_t m = 0; m < mine.size(); ++m) {
            const std::vector<double> &durs = others.at(keys[m]);
            // An op the others did not run at all is extra work in full.
            xs[m] = workUs(lr.ops[mine[m]]) - (durs.empty() ? 0.0 : median(durs));
        }
        const std::vector<int32_t> parent = nestingParents(lr, mine);
        std::vector<double> self = xs;
        for (size_t m = 0; m < mine.size(); ++m)
            if (parent[m] >= 0)
                self[static_cast<size_t>(parent[m])] -= xs[m];
        std::vector<std::pair<size_t, double>> excess; // (position in mine, own excess µs)
        for (size_t m = 0; m < mine.size(); ++m)
            if (xs[m] > 0 && self[m] > 0)
                excess.emplace_back(m, self[m]);
        {
            std::map<std::string_view, std::pair<int64_t, double>> byName;
            for (const auto &[m, x] : excess) {
                auto &[count, sum] = byName[lr.opNames[lr.ops[mine[m]].name]];
                ++count;
                sum += x;
            }
            for (const auto &[name, v] : byName)
                if (v.second > c.topOpExcessUs) {
                    c.topOpByName = std::string(name);
                    c.topOpCount = v.first;
                    c.topOpExcessUs = v.second;
                }
        }
        std::stable_sort(excess.begin(), excess.end(), [](const auto &a, const auto &b) { return a.second > b.second; });
        if (excess.size() > kTopCauses)
            excess.resize(kTopCauses);
        const double offsetUs = offsetNs[L] / 1000.0;
        for (const auto &[m, x] : excess) {
            const RankOp &op = lr.ops[mine[m]];
            std::string context;
            for (int32_t p = parent[m]; p >= 0; p = parent[static_cast<size_t>(p)])
                context = std::string(lr.opNames[lr.ops[mine[static_cast<size_t>(p)]].name]) +
                          (context.empty() ? "" : " > " + context);
            c.rootCauses.push_back({c.lastArrivalRank, lr.opNames[op.name], op.gpu,
                                    double(op.startNs) / 1000.0 + offsetUs, double(op.durNs) / 1000.0, xs[m], x,
                                    std::move(context)});
        }
        // Back to op indices on L for the delay costs below.
        for (auto &e : excess)
            e.first = mine[e.first];

        // Direct cost: the waits its extra work caused, over the innermost causes (a
        // parent's excess contains its children's, so it is not counted twice).
        Attribution &share = attribution[j];
        const double workCost = caused * late.workExcessUs / late.lateUs;
        std::vector<uint8_t> inner(excess.size(), 1);
        for (size_t a = 0; a < excess.size(); ++a)
            for (size_t b = 0; b < excess.size(); ++b) {
                const RankOp &pa = lr.ops[excess[a].first], &pb = lr.ops[excess[b].first];
                if (a != b && pa.gpu == pb.gpu && pb.startNs >= pa.startNs &&
                    pb.startNs + pb.durNs <= pa.startNs + pa.durNs && (pb.startNs != pa.startNs || b > a))
                    inner[a] = 0; // b lies inside a
            }
        double total = 0;
        for (size_t a = 0; a < excess.size(); ++a)
            total += inner[a] ? excess[a].second : 0.0;
        for (size_t a = 0; a < excess.size() && total > 0; ++a) {
            if (!inner[a])
                continue;
            const std::pair<int64_t, std::string> key{c.lastArrivalRank, lr.opNames[lr.ops[excess[a].first].name]};
            const RankOp &charged = lr.ops[excess[a].first];
            const double startUs = double(charged.startNs) / 1000.0 + offsetUs;
            if (auto [w, fresh] = where.try_emplace(key, charged.gpu, startUs); !fresh && startUs < w->second.second)
                w->second = {charged.gpu, startUs};
            const double part = excess[a].second / total;
            addCost(key, workCost * part, 0);
            share.emplace_back(key, workCost * part);
        }
        // Propagated cost: the last arriver started late because its previous collective
        // ended late (it waited there, or came last there itself); the causes of that
        // end made this wait too.
        const double skewCost = caused * late.startSkewUs / late.lateUs;
        if (skewCost > 0 && !late.fromWindowStart && c.index[lastPos] > 0) {
            const auto prev = jobIndex.find({L, c.index[lastPos] - 1});
            if (prev != jobIndex.end() && prev->second < j) {
                double sum = 0;
                for (const auto &[key, v] : attribution[prev->second])
                    sum += v;
                if (sum > 0)
                    c.skewFrom = static_cast<int32_t>(prev->second);
                if (sum > 0)
                    for (const auto &[key, v] : attribution[prev->second]) {
                        addCost(key, 0, skewCost * v / sum);
                        share.emplace_back(key, skewCost * v / sum);
                    }
            }
        }
    }
    for (auto &[key, cost] : costs)
        job.delayCosts.push_back(std::move(cost));
    std::stable_sort(job.delayCosts.begin(), job.delayCosts.end(), [](const DelayCost &a, const DelayCost &b) {
        return a.directUs + a.propagatedUs > b.directUs + b.propagatedUs;
    });
}

} // namespace syncscope::job
