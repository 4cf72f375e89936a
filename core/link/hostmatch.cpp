// SPDX-License-Identifier: MIT
#include "hostmatch.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

namespace syncscope {

namespace {

constexpr size_t kWindow = 64;        // look-ahead for the next matching name
constexpr size_t kLongJump = 1 << 15; // how far a verified re-synchronisation may jump
constexpr size_t kJumpCandidates = 64;

bool isLinkableHostNode(const HostTrace &host, const HostNode &n)
{
    return !n.has(HostNode::IsRootLike) && !isProfilerStepName(host.str(n.name));
}

// Positions of each name in a Kineto sequence.
using Occurrences = std::unordered_map<uint32_t, std::vector<uint32_t>>;

Occurrences indexNames(const std::vector<uint32_t> &names)
{
    Occurrences occ;
    for (uint32_t i = 0; i < names.size(); ++i)
        occ[names[i]].push_back(i);
    return occ;
}

// First position >= from and < to holding `name`, or -1.
int64_t findIn(const Occurrences &occ, uint32_t name, size_t from, size_t to)
{
    auto it = occ.find(name);
    if (it == occ.end())
        return -1;
    auto pos = std::lower_bound(it->second.begin(), it->second.end(), static_cast<uint32_t>(from));
    if (pos == it->second.end() || *pos >= to)
        return -1;
    return *pos;
}

std::vector<int32_t> align(const std::vector<uint32_t> &h, const std::vector<uint32_t> &k, const Occurrences &occ,
                           size_t anchor, size_t limit)
{
    std::vector<int32_t> out(std::min(h.size(), limit), -1);
    std::vector<uint8_t> used(k.size(), 0);
    size_t p = anchor;
    auto matchAt = [&](size_t i, size_t q) {
        out[i] = static_cast<int32_t>(q);
        used[q] = 1;
        p = std::max(p, q + 1);
    };
    // Do host ops i+1..i+n follow closely from position `from`?
    auto followsFrom = [&](size_t i, size_t from, size_t n, size_t gap) {
        size_t at = from;
        for (size_t j = i + 1; j <= i + n; ++j) {
            if (j >= h.size())
                return j > i + 1; // at least one follower checked
            const int64_t next = findIn(occ, h[j], at, std::min(k.size(), at + gap));
            if (next < 0)
                return false;
            at = static_cast<size_t>(next) + 1;
        }
        return true;
    };
    for (size_t i = 0; i < out.size(); ++i) {
        const int64_t q = findIn(occ, h[i], p, std::min(k.size(), p + kWindow));
        // Locally swapped ops (equal start times): an unused occurrence just behind
        // the cursor wins when it is at least as close as the next one ahead.
        int64_t back = -1;
        for (size_t d = 1; d <= 4 && d <= p && back < 0; ++d)
            if (!used[p - d] && k[p - d] == h[i])
                back = static_cast<int64_t>(p - d);
        if (back >= 0 && (q < 0 || static_cast<int64_t>(p) - back <= q - static_cast<int64_t>(p))) {
            out[i] = static_cast<int32_t>(back);
            used[static_cast<size_t>(back)] = 1;
            continue;
        }
        if (q >= 0) {
            matchAt(i, static_cast<size_t>(q));
            continue;
        }
        // The op is simply missing from Kineto when the next ones continue here.
        if (followsFrom(i, p, 3, kWindow))
            continue;
        // Otherwise re-synchronise further ahead, but only on strong evidence.
        auto it = occ.find(h[i]);
        if (it == occ.end())
            continue;
        auto pos = std::lower_bound(it->second.begin(), it->second.end(), static_cast<uint32_t>(p));
        for (size_t tries = 0; pos != it->second.end() && *pos < p + kLongJump && tries < kJumpCandidates;
             ++pos, ++tries) {
            if (followsFrom(i, *pos + 1, 6, 8)) {
                matchAt(i, *pos);
                break;
            }
        }
    }
    return out;
}

size_t countMatched(const std::vector<int32_t> &m)
{
    return static_cast<size_t>(std::count_if(m.begin(), m.end(), [](int32_t v) { return v >= 0; }));
}

HostMatch matchByRfId(const HostTrace &host, const std::vector<uint32_t> &nodes, const KinetoTrace &trace,
                      const std::unordered_map<int64_t, uint32_t> &byId, bool requireSameName, MatchStrategy strategy)
{
    HostMatch m;
    m.strategy = strategy;
    m.hostEvent.assign(host.nodes.size(), -1);
    for (uint32_t i : nodes) {
        const HostNode &n = host.nodes[i];
        if (!n.has(HostNode::HasRfId))
            continue;
        auto it = byId.find(n.rfId);
        if (it == byId.end())
            continue;
        const bool sameName = trace.str(trace.events[it->second].name) == host.str(n.name);
        if (!sameName) {
            ++m.nameMismatches;
            if (requireSameName)
                continue;
        }
        m.hostEvent[i] = static_cast<int32_t>(it->second);
    }
    return m;
}

HostMatch matchByNameOrder(const HostTrace &host, const KinetoTrace &trace, const KinetoView &view)
{
    HostMatch m;
    m.strategy = MatchStrategy::NameOrder;
    m.hostEvent.assign(host.nodes.size(), -1);
    const auto &events = trace.events;

    // Host threads: linkable nodes by ET tid, in id order. Names are compared as
    // Kineto string ids (host names absent from Kineto get a sentinel).
    constexpr uint32_t kAbsent = 0xffffffffu;
    std::map<int64_t, std::vector<uint32_t>> hostThreads;
    std::vector<uint32_t> order(host.nodes.size());
    for (uint32_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](uint32_t a, uint32_t b) { return host.nodes[a].id < host.nodes[b].id; });
    for (uint32_t i : order)
        if (isLinkableHostNode(host, host.nodes[i]))
            hostThreads[host.nodes[i].tid].push_back(i);

    // Kineto threads in start order, parents before children.
    std::vector<std::vector<uint32_t>> kOps = view.threadCpuOps;
    std::vector<std::vector<uint32_t>> kNames(kOps.size());
    std::vector<Occurrences> kOcc(kOps.size());
    for (size_t t = 0; t < kOps.size(); ++t) {
        // Start order. At equal start times the External id (a counter taken when an
        // op starts) is the true order; without it, longer (enclosing) ops first.
        std::stable_sort(kOps[t].begin(), kOps[t].end(), [&](uint32_t a, uint32_t b) {
            const KinetoEvent &x = events[a], &y = events[b];
            if (x.ts != y.ts)
                return x.ts < y.ts;
            if (x.has(KinetoEvent::HasExternalId) && y.has(KinetoEvent::HasExternalId) && x.externalId != y.externalId)
                return x.externalId < y.externalId;
            return x.dur > y.dur;
        });
        for (uint32_t idx : kOps[t])
            kNames[t].push_back(events[idx].name);
        kOcc[t] = indexNames(kNames[t]);
    }

    struct Candidate {
        size_t score;
        int64_t hostThread;
        size_t kThread;
        size_t anchor;
    };
    std::vector<Candidate> cands;
    std::map<int64_t, std::vector<uint32_t>> hostNames;
    for (auto &[tid, nodes] : hostThreads) {
        auto &names = hostNames[tid];
        for (uint32_t i : nodes) {
            const int64_t id = trace.strings.find(host.str(host.nodes[i].name));
            names.push_back(id < 0 ? kAbsent : static_cast<uint32_t>(id));
        }
        for (size_t t = 0; t < kOps.size(); ++t) {
            // Anchor candidates: occurrences of one of the first host op names.
            Candidate best{0, tid, t, 0};
            double bestDrift = INFINITY;
            for (size_t first = 0; first < std::min<size_t>(3, names.size()); ++first) {
                auto it = kOcc[t].find(names[first]);
                if (it == kOcc[t].end())
                    continue;
                for (size_t c = 0; c < std::min<size_t>(32, it->second.size()); ++c) {
                    const size_t anchor = it->second[c];
                    std::vector<uint32_t> tail(names.begin() + static_cast<ptrdiff_t>(first), names.end());
                    const size_t score = countMatched(align(tail, kNames[t], kOcc[t], anchor, 300));
                    // Between equal scores prefer the anchor whose External id is closest to the
                    // host rf_id: they coincide for the iteration the ET was recorded in.
                    const HostNode &h = host.nodes[nodes[first]];
                    const double drift = h.has(HostNode::HasRfId)
                                             ? std::fabs(double(events[kOps[t][anchor]].externalId - h.rfId))
                                             : 0.0;
                    if (score > best.score || (score == best.score && drift < bestDrift)) {
                        best = {score, tid, t, anchor >= first ? anchor - first : 0};
                        bestDrift = drift;
                    }
                }
                if (best.score > 0)
                    break;
            }
            if (best.score > 0)
                cands.push_back(best);
        }
    }
    // Pair host and Kineto threads one to one, best scores first.
    std::stable_sort(cands.begin(), cands.end(), [](const Candidate &a, const Candidate &b) { return a.score > b.score; });
    std::map<int64_t, bool> hostUsed;
    std::vector<bool> kUsed(kOps.size(), false);
    for (const Candidate &c : cands) {
        if (hostUsed[c.hostThread] || kUsed[c.kThread])
            continue;
        hostUsed[c.hostThread] = true;
        kUsed[c.kThread] = true;
        const auto &names = hostNames[c.hostThread];
        const auto matched = align(names, kNames[c.kThread], kOcc[c.kThread], c.anchor, names.size());
        const auto &nodes = hostThreads[c.hostThread];
        for (size_t i = 0; i < matched.size(); ++i)
            if (matched[i] >= 0)
                m.hostEvent[nodes[i]] = static_cast<int32_t>(kOps[c.kThread][static_cast<size_t>(matched[i])]);
    }
    return m;
}

} // namespace

std::vector<int32_t> alignByNameAndOrder(const std::vector<uint32_t> &hostNames,
                                         const std::vector<uint32_t> &kinetoNames, size_t anchor)
{
    return align(hostNames, kinetoNames, indexNames(kinetoNames), anchor, hostNames.size());
}

HostMatch matchHostOps(const HostTrace &host, const HostGraph &graph, const KinetoTrace &trace,
                       const KinetoView &view, Diagnostics &diag)
{
    if (view.mode == LinkMode::Chakra) {
        HostMatch m = matchByRfId(host, graph.reachable, trace, view.cpuOpByRfId, false,
                                  MatchStrategy::RecordFunctionId);
        if (std::none_of(m.hostEvent.begin(), m.hostEvent.end(), [](int32_t v) { return v >= 0; }))
            m.strategy = MatchStrategy::None;
        return m;
    }

    std::vector<uint32_t> candidates;
    for (uint32_t i = 0; i < host.nodes.size(); ++i)
        if (!host.nodes[i].has(HostNode::IsRootLike))
            candidates.push_back(i);

    // ETs whose rf_id attributes are all 0 (or absent) cannot be matched by id at all.
    bool hostRf = false;
    for (uint32_t i : candidates)
        hostRf |= host.nodes[i].has(HostNode::HasRfId) && host.nodes[i].rfId != 0;
    if (!hostRf) {
        diag.warning("host.all_rf_zero",
                     host.path + ": no node has a non-zero rf_id, so nothing can be matched by id; falling back to "
                                 "matching by name and order",
                     host.path);
        HostMatch m = matchByNameOrder(host, trace, view);
        if (countMatched(m.hostEvent) == 0)
            m.strategy = MatchStrategy::None;
        return m;
    }

    bool anyRf = false, nonZeroRf = false;
    for (uint32_t idx : view.cpuOps) {
        const KinetoEvent &e = trace.events[idx];
        if (e.has(KinetoEvent::HasRfId)) {
            anyRf = true;
            nonZeroRf |= e.rfId != 0;
        }
    }
    if (anyRf && !nonZeroRf)
        diag.warning("kineto.all_rf_zero",
                     trace.path + ": every \"Record function id\" is 0 (a PyTorch bug, pytorch/pytorch#123640); "
                                  "they cannot be used for linking, falling back to other keys",
                     trace.path);
    if (nonZeroRf) {
        HostMatch m = matchByRfId(host, candidates, trace, view.cpuOpByRfId, false, MatchStrategy::RecordFunctionId);
        if (m.nameMismatches > 0)
            diag.warning("link.rf_name_mismatch",
                         std::to_string(m.nameMismatches) +
                             " host ops were matched by Record function id to a Kineto op of another name; "
                             "the pair may come from different runs",
                         host.path);
        return m;
    }

    // External id == rf_id holds in some older traces (HTA's simple_add); trust it
    // only where the names agree, and only when it does for most ops.
    std::unordered_map<int64_t, uint32_t> byExternal;
    for (uint32_t idx : view.cpuOps)
        byExternal[trace.events[idx].externalId] = idx;
    HostMatch byExt = matchByRfId(host, candidates, trace, byExternal, true, MatchStrategy::ExternalId);
    size_t linkable = 0;
    for (uint32_t i : candidates)
        linkable += isLinkableHostNode(host, host.nodes[i]) ? 1 : 0;
    const size_t extMatched = countMatched(byExt.hostEvent);
    if (linkable > 0 && extMatched * 10 >= linkable * 9) {
        byExt.nameMismatches = 0;
        return byExt;
    }
    HostMatch m = matchByNameOrder(host, trace, view);
    if (countMatched(m.hostEvent) == 0)
        m.strategy = MatchStrategy::None;
    return m;
}

} // namespace syncscope
