// SPDX-License-Identifier: MIT
// The straggler what-if (stragglerwhatif.h, docs/what_if.md "Straggler what-if"):
// one model of every rank's GPU ops, simulated many times with measured or ideal
// durations, as the study's simulator does (each step from its measured start;
// a collective ends its transfer after the last participant arrived).
#include "stragglerwhatif.h"

#include "analysis/busbw.h"
#include "jobanalysis.h"
#include "util/parallel.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <unordered_map>

namespace syncscope {

namespace {

// At most this many op types get their own add-back simulation (those with the most excess).
constexpr size_t kMaxOpTypes = 32;

struct Model {
    // Per op (aligned ns on the reference clock).
    std::vector<uint32_t> summary, type;
    std::vector<int32_t> step, instance;
    std::vector<double> startM, endM, valueM, delay; // valueM: compute duration, or comm transfer
    std::vector<uint32_t> predStart, preds, succStart, succs;
    std::vector<uint32_t> instStart, instOps;
    std::vector<int64_t> stepNumber;
    std::vector<double> stepStart, stepMeasured;
    std::vector<std::string> typeName;
    std::vector<uint8_t> typeComm;
    std::vector<double> typeIdeal;
    std::vector<int64_t> typeCount;
    size_t size() const { return summary.size(); }
};

std::string bytesText(int64_t b)
{
    const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = double(b);
    int u = 0;
    while (v >= 1024 && u < 4) {
        v /= 1024;
        ++u;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, u ? "%.1f %s" : "%.0f %s", v, units[u]);
    return buf;
}

// A communication op's type: its collective and message size. The two sides of a
// send/recv are one type (the study's pp-comm), whatever each side is called.
std::string commType(const RankCollective &c)
{
    const auto type = static_cast<CollectiveType>(c.busType);
    const std::string &n = c.collectiveName;
    const bool p2p = type == CollectiveType::SendRecv || type == CollectiveType::Send || type == CollectiveType::Recv ||
                     n == "send" || n == "recv" || n == "sendrecv" || c.srcRank >= 0 || c.dstRank >= 0;
    const std::string name = p2p ? "send/recv" : c.collectiveName;
    return c.messageBytes >= 0 ? name + " " + bytesText(c.messageBytes) : name;
}

void csr(size_t n, const std::vector<std::pair<uint32_t, uint32_t>> &pairs, bool byFirst, std::vector<uint32_t> &start,
         std::vector<uint32_t> &items)
{
    start.assign(n + 1, 0);
    for (const auto &p : pairs)
        ++start[(byFirst ? p.first : p.second) + 1];
    for (size_t v = 0; v < n; ++v)
        start[v + 1] += start[v];
    items.resize(pairs.size());
    std::vector<uint32_t> fill(start.begin(), start.end() - 1);
    for (const auto &p : pairs)
        items[fill[byFirst ? p.first : p.second]++] = byFirst ? p.second : p.first;
}

// Builds the model; false with `error` when there is nothing to simulate.
bool buildModel(const std::vector<RankSummary> &ranks, const std::vector<uint8_t> &use,
                const std::vector<MatchedCollective> &collectives, const std::vector<double> &offsetNs, Model &m,
                std::string &error)
{
    const size_t n = ranks.size();
    const bool anySteps = std::any_of(ranks.begin(), ranks.end(), [&](const RankSummary &r) {
        return use[&r - ranks.data()] && r.gpu.present && !r.steps.empty();
    });
    std::map<int64_t, int32_t> stepIndex;
    std::unordered_map<std::string, uint32_t> typeIndex;
    std::vector<std::vector<int32_t>> opOf(n); // per summary: its timeline op -> model op (-1 left out)
    std::vector<std::unordered_map<uint32_t, uint32_t>> opOfCollective(n);
    std::vector<std::pair<uint32_t, uint32_t>> deps; // (pred, succ)
    for (size_t i = 0; i < n; ++i) {
        const RankSummary &r = ranks[i];
        if (!use[i] || !r.gpu.present || (anySteps && r.steps.empty()))
            continue;
        const RankGpuTimeline &g = r.gpu;
        opOf[i].assign(g.ops.size(), -1);
        for (size_t k = 0; k < g.ops.size(); ++k) {
            const RankGpuOp &op = g.ops[k];
            if (anySteps && op.step < 0)
                continue;
            const int64_t number = anySteps ? r.steps[size_t(op.step)].number : -1;
            const int32_t s = stepIndex.try_emplace(number, int32_t(stepIndex.size())).first->second;
            const bool comm = op.collective >= 0;
            const std::string key = comm ? commType(r.collectives[size_t(op.collective)]) : g.names[op.name];
            const auto [t, added] = typeIndex.try_emplace((comm ? "c:" : "k:") + key, uint32_t(m.typeName.size()));
            if (added) {
                m.typeName.push_back(key);
                m.typeComm.push_back(comm);
            }
            const auto v = uint32_t(m.size());
            opOf[i][k] = int32_t(v);
            if (comm)
                opOfCollective[i].emplace(uint32_t(op.collective), v);
            m.summary.push_back(uint32_t(i));
            m.type.push_back(t->second);
            m.step.push_back(s);
            m.instance.push_back(-1);
            const double start = double(op.startNs) + offsetNs[i];
            m.startM.push_back(start);
            m.endM.push_back(start + double(op.durNs));
            m.valueM.push_back(double(op.durNs));
            // Stream order inside the step.
            if (k > 0 && opOf[i][k - 1] >= 0 && g.ops[k - 1].stream == op.stream && g.ops[k - 1].device == op.device &&
                g.ops[k - 1].step == op.step)
                deps.emplace_back(uint32_t(opOf[i][k - 1]), v);
        }
        for (const RankGpuDep &d : g.deps) {
            const int32_t a = opOf[i][d.from], b = opOf[i][d.to];
            if (a >= 0 && b >= 0 && a != b && m.step[size_t(a)] == m.step[size_t(b)])
                deps.emplace_back(uint32_t(a), uint32_t(b));
        }
    }
    if (m.size() == 0) {
        error = "no rank has GPU ops inside a ProfilerStep to simulate";
        return false;
    }
    // Collectives joined across ranks: the instance ends transfer_p after its last arrival.
    std::unordered_map<int64_t, size_t> summaryOf;
    for (size_t i = 0; i < n; ++i)
        if (!opOf[i].empty())
            summaryOf.emplace(ranks[i].rank, i);
    std::vector<std::pair<uint32_t, uint32_t>> instPairs; // (instance, op)
    uint32_t instances = 0;
    for (const MatchedCollective &c : collectives) {
        std::vector<uint32_t> parts;
        for (size_t p = 0; p < c.ranks.size(); ++p) {
            const auto s = summaryOf.find(c.ranks[p]);
            if (s == summaryOf.end())
                continue;
            const auto op = opOfCollective[s->second].find(c.index[p]);
            if (op != opOfCollective[s->second].end() && m.instance[op->second] < 0)
                parts.push_back(op->second);
        }
        if (parts.size() < 2)
            continue;
        double lastArrival = -std::numeric_limits<double>::infinity();
        for (uint32_t v : parts)
            lastArrival = std::max(lastArrival, m.startM[v]);
        for (uint32_t v : parts) {
            m.instance[v] = int32_t(instances);
            m.valueM[v] = std::max(0.0, m.endM[v] - lastArrival);
            instPairs.emplace_back(instances, v);
        }
        ++instances;
    }
    csr(instances, instPairs, true, m.instStart, m.instOps);
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    csr(m.size(), deps, false, m.predStart, m.preds);
    csr(m.size(), deps, true, m.succStart, m.succs);

    // Steps: each starts where its earliest op did; its measured time runs to its last end.
    m.stepNumber.resize(stepIndex.size());
    for (const auto &[number, s] : stepIndex)
        m.stepNumber[size_t(s)] = number;
    m.stepStart.assign(stepIndex.size(), std::numeric_limits<double>::infinity());
    m.stepMeasured.assign(stepIndex.size(), -std::numeric_limits<double>::infinity());
    for (size_t v = 0; v < m.size(); ++v)
        m.stepStart[size_t(m.step[v])] = std::min(m.stepStart[size_t(m.step[v])], m.startM[v]);
    for (size_t v = 0; v < m.size(); ++v) {
        double &t = m.stepMeasured[size_t(m.step[v])];
        t = std::max(t, m.endM[v] - m.stepStart[size_t(m.step[v])]);
    }
    // Launch delays: how long after its dependencies an op started (the study's launch_delay).
    m.delay.resize(m.size());
    for (size_t v = 0; v < m.size(); ++v) {
        double ready = m.stepStart[size_t(m.step[v])];
        for (uint32_t k = m.predStart[v]; k < m.predStart[v + 1]; ++k)
            ready = std::max(ready, m.endM[m.preds[k]]);
        m.delay[v] = std::max(0.0, m.startM[v] - ready);
    }
    // Ideal values: compute, the mean of the type; communication, the median transfer.
    std::vector<std::vector<double>> values(m.typeName.size());
    for (size_t v = 0; v < m.size(); ++v)
        values[m.type[v]].push_back(m.valueM[v]);
    m.typeIdeal.resize(values.size());
    m.typeCount.resize(values.size());
    for (size_t t = 0; t < values.size(); ++t) {
        m.typeCount[t] = int64_t(values[t].size());
        m.typeIdeal[t] = whatIfStatistic(m.typeComm[t] ? WhatIfRule::Median : WhatIfRule::Mean, values[t]);
    }
    return true;
}

// One simulation: measured[v] picks the measured value (else the ideal), delayed[v] keeps the
// op's launch delay (null: none kept); per step, its time (ns). Empty when the
// dependencies and collectives form a cycle.
std::vector<double> simulate(const Model &m, const std::vector<uint8_t> &measured, const std::vector<uint8_t> *delayed)
{
    const size_t n = m.size();
    std::vector<uint32_t> indegree(n), queue;
    std::vector<double> ready(n), start(n), end(n);
    std::vector<uint32_t> left(m.instStart.size() - 1);
    for (size_t i = 0; i + 1 < m.instStart.size(); ++i)
        left[i] = m.instStart[i + 1] - m.instStart[i];
    queue.reserve(n);
    for (size_t v = 0; v < n; ++v) {
        indegree[v] = m.predStart[v + 1] - m.predStart[v];
        ready[v] = m.stepStart[size_t(m.step[v])];
        if (indegree[v] == 0)
            queue.push_back(uint32_t(v));
    }
    size_t finished = 0;
    auto finish = [&](uint32_t v) {
        ++finished;
        for (uint32_t k = m.succStart[v]; k < m.succStart[v + 1]; ++k) {
            const uint32_t w = m.succs[k];
            ready[w] = std::max(ready[w], end[v]);
            if (--indegree[w] == 0)
                queue.push_back(w);
        }
    };
    auto value = [&](uint32_t v) { return measured[v] ? m.valueM[v] : m.typeIdeal[m.type[v]]; };
    for (size_t head = 0; head < queue.size(); ++head) {
        const uint32_t v = queue[head];
        start[v] = ready[v] + (delayed && (*delayed)[v] ? m.delay[v] : 0.0);
        const int32_t inst = m.instance[v];
        if (inst < 0) {
            end[v] = start[v] + value(v);
            finish(v);
            continue;
        }
        if (--left[size_t(inst)] > 0)
            continue;
        double lastArrival = -std::numeric_limits<double>::infinity();
        for (uint32_t k = m.instStart[size_t(inst)]; k < m.instStart[size_t(inst) + 1]; ++k)
            lastArrival = std::max(lastArrival, start[m.instOps[k]]);
        for (uint32_t k = m.instStart[size_t(inst)]; k < m.instStart[size_t(inst) + 1]; ++k)
            end[m.instOps[k]] = lastArrival + value(m.instOps[k]);
        for (uint32_t k = m.instStart[size_t(inst)]; k < m.instStart[size_t(inst) + 1]; ++k)
            finish(m.instOps[k]);
    }
    if (finished != n)
        return {};
    std::vector<double> steps(m.stepStart.size(), 0);
    for (size_t v = 0; v < n; ++v) {
        double &t = steps[size_t(m.step[v])];
        t = std::max(t, end[v] - m.stepStart[size_t(m.step[v])]);
    }
    return steps;
}

double mean(const std::vector<double> &v)
{
    return v.empty() ? 0 : std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
}

} // namespace

StragglerWhatIf stragglerWhatIf(const std::vector<RankSummary> &ranks, const std::vector<uint8_t> &use,
                                const std::vector<MatchedCollective> &collectives, const std::vector<double> &offsetNs,
                                const StragglerOptions &options, Diagnostics &diag)
{
    const auto began = std::chrono::steady_clock::now();
    StragglerWhatIf out;
    auto fail = [&](std::string why) {
        out.error = std::move(why);
        diag.error("straggler.failed", "--straggler-whatif: " + out.error);
        return out;
    };
    if (std::none_of(ranks.begin(), ranks.end(), [](const RankSummary &r) { return r.gpu.present; }))
        return fail("the ranks' GPU timelines were not extracted (the job run did not ask for them)");
    out.layout = jobParallelLayout(ranks, use, collectives, options.parallelism, diag);
    if (out.layout.source == "none")
        return fail("the parallel layout is not usable (see the diagnostics)");
    Model m;
    std::string error;
    if (!buildModel(ranks, use, collectives, offsetNs, m, error))
        return fail(error);
    out.ops = int64_t(m.size());
    out.commOps = int64_t(m.instOps.size());

    // Add-back groups: op types (those with the most excess), dp ranks, stages.
    std::vector<double> excess(m.typeName.size(), 0);
    for (size_t v = 0; v < m.size(); ++v)
        excess[m.type[v]] += std::max(0.0, m.valueM[v] - m.typeIdeal[m.type[v]]);
    std::vector<uint32_t> types(m.typeName.size());
    std::iota(types.begin(), types.end(), 0);
    std::stable_sort(types.begin(), types.end(), [&](uint32_t a, uint32_t b) { return excess[a] > excess[b]; });
    if (types.size() > kMaxOpTypes)
        types.resize(kMaxOpTypes);
    std::map<int64_t, int> dpRanks, stages;
    for (size_t i = 0; i < ranks.size(); ++i)
        if (use[i] && ranks[i].gpu.present) {
            dpRanks[out.layout.dpRank[i]] = 0;
            stages[out.layout.stage[i]] = 0;
        }

    // As the study: every timeline but the replay check without launch delays (CPU-side
    // waits the model does not see, often left by the previous step's straggler), so S is
    // the no-delay timeline against the ideal; launch_slowdown gives the delays' share.
    struct Sim {
        std::vector<uint8_t> measured;
        std::vector<uint8_t> delayed; // empty: no launch delays
        std::vector<double> steps;
    };
    const size_t n = m.size();
    auto mask = [&](auto pick) {
        std::vector<uint8_t> v(n);
        for (size_t k = 0; k < n; ++k)
            v[k] = pick(k) ? 1 : 0;
        return v;
    };
    const std::vector<uint8_t> all(n, 1), none(n, 0);
    auto ofDp = [&](int64_t w) { return [&, w](size_t v) { return out.layout.dpRank[m.summary[v]] == w; }; };
    auto ofStage = [&](int64_t p) { return [&, p](size_t v) { return out.layout.stage[m.summary[v]] == p; }; };
    std::vector<Sim> sims;
    sims.push_back({none, {}, {}}); // 0: ideal
    sims.push_back({all, all, {}}); // 1: measured, replayed with its launch delays (the model check)
    sims.push_back({all, {}, {}});  // 2: measured without launch delays (the study's baseline)
    const size_t typeSims = sims.size();
    for (uint32_t t : types)
        sims.push_back({mask([&](size_t v) { return m.type[v] == t; }), {}, {}});
    for (auto &[w, slot] : dpRanks) {
        slot = int(sims.size());
        sims.push_back({mask(ofDp(w)), {}, {}});
    }
    if (stages.size() > 1)
        for (auto &[p, slot] : stages) {
            slot = int(sims.size());
            sims.push_back({mask(ofStage(p)), {}, {}});
        }
    std::map<int64_t, int> launchDp; // measured durations, the launch delays of one dp rank kept
    for (const auto &[w, slot] : dpRanks) {
        launchDp[w] = int(sims.size());
        sims.push_back({all, mask(ofDp(w)), {}});
    }
    parallelFor(sims.size(), defaultWorkers(), [&](size_t k) {
        sims[k].steps = simulate(m, sims[k].measured, sims[k].delayed.empty() ? nullptr : &sims[k].delayed);
    });
    if (sims[0].steps.empty() || sims[2].steps.empty())
        return fail("the GPU ops' dependencies and the collectives joining them form a cycle");
    const double ideal = mean(sims[0].steps), base = mean(sims[2].steps), measured = mean(m.stepMeasured);
    if (!(ideal > 0) || !(base > 0))
        return fail("the ideal steps take no time");
    auto ratio = [&](const Sim &s, double over) { return s.steps.empty() ? std::nan("") : mean(s.steps) / over; };
    out.measuredStepUs = measured / 1000.0;
    out.noDelayStepUs = base / 1000.0;
    out.idealStepUs = ideal / 1000.0;
    out.slowdown = base / ideal;
    out.launchSlowdown = measured / base;
    out.replayErrorPct = sims[1].steps.empty() ? 100 : std::abs(mean(sims[1].steps) - measured) / measured * 100;
    if (out.replayErrorPct > 1)
        diag.warning("straggler.replay_error",
                     "--straggler-whatif: replaying the measured durations gives a step " +
                         std::to_string(out.replayErrorPct) +
                         " % off the measured one: some dependency of the GPU ops is not in the traces");
    for (size_t s = 0; s < m.stepNumber.size(); ++s)
        out.steps.push_back({m.stepNumber[s], m.stepMeasured[s] / 1000.0, sims[2].steps[s] / 1000.0,
                             sims[0].steps[s] / 1000.0,
                             sims[0].steps[s] > 0 ? sims[2].steps[s] / sims[0].steps[s] : 1.0});
    std::sort(out.steps.begin(), out.steps.end(),
              [](const StragglerStep &a, const StragglerStep &b) { return a.number < b.number; });
    for (size_t k = 0; k < types.size(); ++k) {
        const uint32_t t = types[k];
        out.byOpType.push_back({m.typeName[t], bool(m.typeComm[t]), m.typeCount[t], m.typeIdeal[t] / 1000.0,
                                ratio(sims[typeSims + k], ideal)});
    }
    std::stable_sort(out.byOpType.begin(), out.byOpType.end(),
                     [](const StragglerOpType &a, const StragglerOpType &b) { return a.slowdown > b.slowdown; });
    std::map<int64_t, double> sDp, sStage;
    for (const auto &[w, slot] : dpRanks)
        out.byDpRank.emplace_back(w, sDp[w] = ratio(sims[size_t(slot)], ideal));
    if (stages.size() > 1)
        for (const auto &[p, slot] : stages)
            out.byStage.emplace_back(p, sStage[p] = ratio(sims[size_t(slot)], ideal));
    for (const auto &[w, slot] : launchDp)
        out.launchByDpRank.emplace_back(w, ratio(sims[size_t(slot)], base));
    auto bySlowdown = [](const auto &a, const auto &b) {
        return a.second > b.second || (a.second == b.second && a.first < b.first);
    };
    std::sort(out.byDpRank.begin(), out.byDpRank.end(), bySlowdown);
    std::sort(out.byStage.begin(), out.byStage.end(), bySlowdown);
    std::sort(out.launchByDpRank.begin(), out.launchByDpRank.end(), bySlowdown);

    // Removal: the worst ranks (by min(S_w, S_stage)), then the last stage, set to ideal.
    std::vector<std::pair<int64_t, double>> scores; // (rank, score)
    std::unordered_map<int64_t, size_t> summaryOfRank;
    for (size_t i = 0; i < ranks.size(); ++i)
        if (use[i] && ranks[i].gpu.present) {
            double score = sDp[out.layout.dpRank[i]];
            if (stages.size() > 1)
                score = std::min(score, sStage[out.layout.stage[i]]);
            scores.emplace_back(ranks[i].rank, score);
            summaryOfRank[ranks[i].rank] = i;
        }
    std::sort(scores.begin(), scores.end(), bySlowdown);
    const size_t worst =
        std::min(scores.size(), size_t(std::ceil(double(scores.size()) * options.worstFraction - 1e-9)));
    std::vector<uint8_t> removed(ranks.size(), 0);
    for (size_t k = 0; k < worst; ++k) {
        out.worstRanks.push_back(scores[k].first);
        removed[summaryOfRank[scores[k].first]] = 1;
    }
    const int64_t lastStage = stages.empty() ? 0 : stages.rbegin()->first;
    std::vector<Sim> removal;
    removal.push_back({mask([&](size_t v) { return !removed[m.summary[v]]; }), {}, {}});
    if (stages.size() > 1)
        removal.push_back({mask([&](size_t v) { return out.layout.stage[m.summary[v]] != lastStage; }), {}, {}});
    parallelFor(removal.size(), defaultWorkers(),
                [&](size_t k) { removal[k].steps = simulate(m, removal[k].measured, nullptr); });
    const bool slowed = base - ideal > 1e-3 * base;
    auto share = [&](const Sim &s) -> std::optional<double> {
        if (!slowed || s.steps.empty())
            return std::nullopt;
        return (base - mean(s.steps)) / (base - ideal);
    };
    out.mW = share(removal[0]);
    if (removal.size() > 1)
        out.mS = share(removal[1]);
    out.simulations = int64_t(sims.size() + removal.size());
    out.ok = true;
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    return out;
}

} // namespace syncscope
