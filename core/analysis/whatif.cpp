// SPDX-License-Identifier: MIT
#include "whatif.h"

#include "boundedregex.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

namespace syncscope {

bool isCommKernelName(std::string_view n)
{
    return n.substr(0, 4) == "nccl" || n.substr(0, 4) == "rccl" || n.substr(0, 4) == "hccl" ||
           n.find("ncclKernel") != std::string_view::npos || n.find("ncclDevKernel") != std::string_view::npos;
}

bool whatIfRegexSearch(const WhatIfSelector::Term &term, std::string_view name)
{
    return term.regex && boundedRegexSearch(*term.regex, name);
}

double whatIfPieceWeight(const WhatIfRule &rule, double w, double own, bool firstPiece)
{
    double v;
    if (rule.action == WhatIfRule::Scale)
        v = w * rule.factor;
    else if (own > 0)
        v = w * (rule.durationUs / own); // pieces keep their proportions
    else
        v = firstPiece ? rule.durationUs : 0; // no own time measured: all of it on the first piece
    if (std::isnan(v)) // 0 * inf, when own is tiny enough for durationUs / own to overflow
        return 0;
    const double limit = std::max(kWhatIfMaxDurationUs, std::fabs(w));
    return std::clamp(v, -limit, limit);
}

EventShifts eventShifts(const CriticalPathResult &cp, const WhatIfResult &result)
{
    EventShifts out;
    const CpGraph &g = cp.graph;
    for (int32_t v = 0; v < g.nodeCount() && v < static_cast<int32_t>(result.nodeShiftUs.size()); ++v) {
        const double shift = result.nodeShiftUs[v];
        if (shift == 0)
            continue;
        auto &s = out[static_cast<uint32_t>(g.nodeEvent[v])];
        (g.nodeIsStart[v] ? s.first : s.second) = shift * 1000.0;
    }
    return out;
}

WhatIfEngine::WhatIfEngine(const KinetoTrace &trace, const CriticalPathResult &cp, std::optional<int64_t> rank)
    : m_trace(trace), m_cp(cp), m_rank(rank)
{
    const CpGraph &g = cp.graph;
    // The same topological order as longestPath, so factor 1 picks exactly the baseline path.
    m_topo = topologicalOrder(g);
    std::vector<double> w(g.edgeWeight);
    for (double &x : w)
        x = x <= -1 ? 0 : x;
    m_baseline = earliest(w);
}

bool WhatIfEngine::matches(const WhatIfSelector &selector, uint32_t ev) const
{
    return matchesWith(selector, ev, nullptr);
}

// `regexMemo` (one vector per term, indexed by StrId: -1 unknown, 0/1) makes a
// regex run once per distinct name instead of once per event.
bool WhatIfEngine::matchesWith(const WhatIfSelector &selector, uint32_t ev,
                               std::vector<std::vector<int8_t>> *regexMemo) const
{
    using Term = WhatIfSelector::Term;
    const KinetoEvent &e = m_trace.events[ev];
    for (size_t i = 0; i < selector.terms.size(); ++i) {
        const Term &t = selector.terms[i];
        switch (t.kind) {
        case Term::NameRegex: {
            int8_t *memo = nullptr;
            if (regexMemo) {
                auto &m = (*regexMemo)[i];
                if (m.empty())
                    m.assign(m_trace.strings.size(), -1);
                memo = &m[e.name];
            }
            bool hit;
            if (memo && *memo >= 0) {
                hit = *memo != 0;
            } else {
                const std::string_view name = m_trace.str(e.name);
                hit = whatIfRegexSearch(t, name);
                if (memo)
                    *memo = hit ? 1 : 0;
            }
            if (!hit)
                return false;
            break;
        }
        case Term::NameEquals:
            if (m_trace.str(e.name) != t.text)
                return false;
            break;
        case Term::Category:
            if (!(e.kind == t.category || (t.category == EventKind::Runtime && e.kind == EventKind::Driver)))
                return false;
            break;
        case Term::Comm:
        case Term::Compute:
            if (e.kind != EventKind::Kernel || isCommKernelName(m_trace.str(e.name)) != (t.kind == Term::Comm))
                return false;
            break;
        case Term::Stream:
            if (!isGpuActivity(e.kind) || e.htaStream() != t.number)
                return false;
            break;
        case Term::Rank:
            if (!m_rank || *m_rank != t.number)
                return false;
            break;
        case Term::Event:
            if (static_cast<int64_t>(ev) != t.number)
                return false;
            break;
        case Term::Coll:
        case Term::Pg: {
            const auto &coll = facts().collective;
            const auto it = coll.find(ev);
            if (it == coll.end() || (t.kind == Term::Coll ? it->second.first : it->second.second) != t.text)
                return false;
            break;
        }
        case Term::Step:
            if (facts().step[ev] != t.number)
                return false;
            break;
        }
    }
    return true;
}

// Earliest time of every node: a node without (remaining) predecessors keeps its
// measured time; any other starts when its latest predecessor edge allows. A NaN
// weight is a removed edge.
std::vector<double> WhatIfEngine::earliest(const std::vector<double> &weight) const
{
    const CpGraph &g = m_cp.graph;
    std::vector<double> t(g.nodeTime);
    for (int32_t v : m_topo) {
        double best = -std::numeric_limits<double>::infinity();
        for (int32_t k = g.inStart[v]; k < g.inStart[v + 1]; ++k) {
            const int32_t e = g.inEdges[k];
            if (!std::isnan(weight[e]))
                best = std::max(best, t[g.edgeFrom[e]] + weight[e]);
        }
        if (best != -std::numeric_limits<double>::infinity())
            t[v] = best;
    }
    return t;
}

WhatIfResult WhatIfEngine::evaluate(const std::vector<WhatIfRule> &rules) const
{
    const CpGraph &g = m_cp.graph;
    WhatIfResult r;
    r.baselineUs = m_cp.weightUs;
    r.edgeWeight = g.edgeWeight;
    for (double &x : r.edgeWeight)
        x = x <= -1 ? 0 : x; // HTA's clamp, applied before any rule
    // Memo per (rule, name): regex tests are the slow part.
    for (const WhatIfRule &rule : rules) {
        std::vector<std::vector<int8_t>> regexMemo(rule.selector.terms.size());
        auto holds = [&](uint32_t ev) { return matchesWith(rule.selector, ev, &regexMemo); };
        int64_t matched = 0;
        if (rule.action == WhatIfRule::DropSync) {
            for (int32_t e = 0; e < g.edgeCount(); ++e)
                if (g.edgeType[e] == CpEdgeType::SyncDependency && !std::isnan(r.edgeWeight[e]) &&
                    holds(static_cast<uint32_t>(g.nodeEvent[g.edgeTo[e]]))) {
                    r.edgeWeight[e] = std::numeric_limits<double>::quiet_NaN();
                    ++matched;
                }
        } else {
            // An event's own time is the sum of its operator edges (one for a leaf or
            // a kernel, the gaps between children for a parent).
            std::unordered_map<int32_t, double> own;
            for (int32_t e = 0; e < g.edgeCount(); ++e) {
                const int32_t ev = g.edgeEvent[e];
                if (g.edgeType[e] == CpEdgeType::OperatorKernel && ev >= 0 && holds(static_cast<uint32_t>(ev)))
                    own[ev] += r.edgeWeight[e];
            }
            matched = static_cast<int64_t>(own.size());
            // =median|mean|min: the statistic of the own times of the matching ops of
            // each name, set as each op's duration.
            std::unordered_map<int32_t, double> target;
            WhatIfRule set;
            set.action = WhatIfRule::Set;
            if (rule.action == WhatIfRule::SetStatistic) {
                std::unordered_map<StrId, std::vector<double>> byName;
                for (const auto &[ev, t] : own)
                    byName[m_trace.events[static_cast<size_t>(ev)].name].push_back(t);
                std::unordered_map<StrId, double> stat;
                for (auto &[name, values] : byName)
                    stat[name] = whatIfStatistic(rule.statistic, std::move(values));
                for (const auto &[ev, t] : own)
                    target[ev] = stat[m_trace.events[static_cast<size_t>(ev)].name];
            }
            std::unordered_map<int32_t, bool> firstPiece;
            for (int32_t e = 0; e < g.edgeCount(); ++e) {
                const int32_t ev = g.edgeEvent[e];
                if (g.edgeType[e] != CpEdgeType::OperatorKernel || ev < 0)
                    continue;
                auto it = own.find(ev);
                if (it == own.end())
                    continue;
                double &w = r.edgeWeight[e];
                const bool first = rule.action != WhatIfRule::Scale && it->second <= 0 &&
                                   firstPiece.try_emplace(ev, true).second;
                if (rule.action == WhatIfRule::SetStatistic) {
                    set.durationUs = target[ev];
                    w = whatIfPieceWeight(set, w, it->second, first);
                } else {
                    w = whatIfPieceWeight(rule, w, it->second, first);
                }
            }
        }
        r.rules.push_back({rule.text, matched});
        if (matched == 0 && r.error.empty())
            r.error = "the what-if rule \"" + rule.text + "\" matches nothing in the analysed window";
    }
    if (!r.error.empty())
        return r;

    // Longest path over the re-weighted graph, with longestPath's tie-breaking.
    LongestPath lp = longestPathWith(g, m_topo, r.edgeWeight);
    if (!lp.ok) {
        r.error = std::string("the re-weighted graph has no critical path: ") + lp.error;
        return r;
    }
    r.pathNodes = std::move(lp.nodes);
    r.pathEdges = std::move(lp.edges);
    r.projectedUs = lp.weight;
    r.speedup = r.projectedUs > 0 ? r.baselineUs / r.projectedUs : std::numeric_limits<double>::infinity();
    const int32_t n = g.nodeCount();

    double bucket[kCpBoundCount] = {};
    bool present[kCpBoundCount] = {};
    double total = 0;
    for (int32_t e : r.pathEdges) {
        const int b = e < static_cast<int32_t>(m_cp.edgeBound.size()) ? static_cast<int>(m_cp.edgeBound[e]) : 0;
        bucket[b] += r.edgeWeight[e];
        present[b] = true;
        total += r.edgeWeight[e];
    }
    for (int b = 0; b < kCpBoundCount; ++b)
        if (present[b])
            r.summary.push_back({cpBoundName(static_cast<CpBound>(b)), total != 0 ? 100.0 * bucket[b] / total : 0.0,
                                 bucket[b]});

    // The projected timeline: every node moves by the change of its earliest time.
    const std::vector<double> projected = earliest(r.edgeWeight);
    r.nodeShiftUs.resize(static_cast<size_t>(n));
    for (int32_t v = 0; v < n; ++v)
        r.nodeShiftUs[v] = projected[v] - m_baseline[v];
    std::vector<WhatIfMovedOp> moved;
    for (int32_t v = 0; v < n; ++v) {
        if (!g.nodeIsStart[v] || r.nodeShiftUs[v] == 0)
            continue;
        const auto ev = static_cast<uint32_t>(g.nodeEvent[v]);
        const double ts = m_trace.events[ev].ts;
        moved.push_back({ev, ts, ts + r.nodeShiftUs[v], r.nodeShiftUs[v]});
    }
    const size_t keep = std::min<size_t>(20, moved.size());
    std::partial_sort(moved.begin(), moved.begin() + static_cast<std::ptrdiff_t>(keep), moved.end(),
                      [](const WhatIfMovedOp &a, const WhatIfMovedOp &b) {
                          const double x = std::fabs(a.shiftUs), y = std::fabs(b.shiftUs);
                          return x != y ? x > y : a.event < b.event;
                      });
    moved.resize(keep);
    r.topMoved = std::move(moved);
    r.ok = true;
    return r;
}

} // namespace syncscope
