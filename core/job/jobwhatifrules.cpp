// SPDX-License-Identifier: MIT
// The what-if rules on the ranks' critical-path graphs (docs/what_if.md, "Jobs" and
// "Relative to the data"): which ops a selector holds for, and the re-weighted edges.
// Rules apply in order to every rank at once, so a =median|mean|min rule takes its
// statistic over the matching ops of all ranks, after the rules before it.
#include "jobwhatif.h"

#include "analysis/cpgraph.h"
#include "jobanalysis.h"
#include "jobrankpath.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string_view>
#include <unordered_map>

namespace syncscope {

namespace {

// The RankStep containing `ns` (the last starting at or before it), -1 none.
int32_t stepIndexOf(const std::vector<RankStep> &steps, int64_t ns)
{
    auto it = std::upper_bound(steps.begin(), steps.end(), ns,
                               [](int64_t t, const RankStep &s) { return t < s.startNs; });
    if (it == steps.begin() || ns > std::prev(it)->endNs)
        return -1;
    return static_cast<int32_t>(std::prev(it) - steps.begin());
}

bool matchesOp(const WhatIfSelector &selector, const RankCpOp &op, int64_t rank, const RankSummary *summary)
{
    using Term = WhatIfSelector::Term;
    const std::string_view kernel = eventKindName(EventKind::Kernel);
    const RankCollective *coll = summary && op.collective >= 0 && size_t(op.collective) < summary->collectives.size()
                                     ? &summary->collectives[size_t(op.collective)]
                                     : nullptr;
    for (const Term &t : selector.terms) {
        bool hit = false;
        switch (t.kind) {
        case Term::NameRegex: hit = whatIfRegexSearch(t, op.name); break;
        case Term::NameEquals: hit = op.name == t.text; break;
        case Term::Category:
            hit = op.kind == eventKindName(t.category) ||
                  (t.category == EventKind::Runtime && op.kind == eventKindName(EventKind::Driver));
            break;
        case Term::Comm:
        case Term::Compute:
            hit = op.kind == kernel && (op.collective >= 0 || isCommKernelName(op.name)) == (t.kind == Term::Comm);
            break;
        case Term::Stream: hit = op.stream >= 0 && op.stream == t.number; break;
        case Term::Rank: hit = rank == t.number; break;
        case Term::Event: hit = false; break;
        case Term::Coll: hit = coll && coll->collectiveName == t.text; break;
        case Term::Pg: hit = coll && coll->processGroup == t.text; break;
        case Term::Step: {
            if (!summary)
                break;
            const int32_t s = coll ? coll->step : stepIndexOf(summary->steps, op.startNs);
            hit = s >= 0 && size_t(s) < summary->steps.size() && summary->steps[size_t(s)].number == t.number;
            break;
        }
        }
        if (!hit)
            return false;
    }
    return true;
}

// One rank's graph while the rules re-weight it.
struct View {
    const RankCpGraph *graph = nullptr;
    const RankSummary *summary = nullptr; // null: coll=, pg=, step= never hold
    int64_t rank = -1;
    const std::unordered_map<int32_t, JobTransfer> *transfers = nullptr;
    std::vector<double> w;
    std::vector<int64_t> *matched = nullptr; // per rule
};

void applyRules(std::vector<View> &views, const std::vector<WhatIfRule> &rules)
{
    const auto opKernel = static_cast<uint8_t>(CpEdgeType::OperatorKernel);
    const auto sync = static_cast<uint8_t>(CpEdgeType::SyncDependency);
    for (size_t r = 0; r < rules.size(); ++r) {
        const WhatIfRule &rule = rules[r];
        // Per view, one selector test per op, not per edge; then each matching op's
        // own time (the sum of its operator edges, as in WhatIfEngine).
        std::vector<std::unordered_map<int32_t, double>> own(views.size());
        for (size_t v = 0; v < views.size(); ++v) {
            View &view = views[v];
            const RankCpGraph &graph = *view.graph;
            std::vector<int8_t> holds(graph.ops.size(), -1);
            auto opHolds = [&](int32_t op) {
                if (op < 0)
                    return false;
                int8_t &h = holds[static_cast<size_t>(op)];
                if (h < 0)
                    h = matchesOp(rule.selector, graph.ops[static_cast<size_t>(op)], view.rank, view.summary) ? 1 : 0;
                return h == 1;
            };
            if (rule.action == WhatIfRule::DropSync) {
                for (size_t e = 0; e < graph.edges.size(); ++e)
                    if (graph.edges[e].type == sync && !std::isnan(view.w[e]) &&
                        opHolds(graph.nodes[static_cast<size_t>(graph.edges[e].to)].op)) {
                        view.w[e] = std::numeric_limits<double>::quiet_NaN();
                        ++(*view.matched)[r];
                    }
                continue;
            }
            for (size_t e = 0; e < graph.edges.size(); ++e)
                if (graph.edges[e].type == opKernel && opHolds(graph.edges[e].op))
                    own[v][graph.edges[e].op] += view.w[e];
            (*view.matched)[r] += static_cast<int64_t>(own[v].size());
        }
        if (rule.action == WhatIfRule::DropSync)
            continue;

        // A joined collective kernel's transfer now: the measured one scaled as the
        // replay scales it (its kernel edge's weight over the measured weight).
        auto transferOf = [&](const View &view, int32_t op) -> const JobTransfer * {
            if (!view.transfers)
                return nullptr;
            const auto it = view.transfers->find(op);
            return it != view.transfers->end() && it->second.edge >= 0 ? &it->second : nullptr;
        };
        std::unordered_map<std::string_view, double> stat;
        if (rule.action == WhatIfRule::SetStatistic) {
            std::unordered_map<std::string_view, std::vector<double>> byName;
            for (size_t v = 0; v < views.size(); ++v)
                for (const auto &[op, t] : own[v]) {
                    double value = t;
                    if (const JobTransfer *tr = transferOf(views[v], op)) {
                        const double was = views[v].graph->edges[size_t(tr->edge)].weightUs;
                        value = was > 0 ? tr->transferUs * (views[v].w[size_t(tr->edge)] / was) : tr->transferUs;
                    }
                    byName[views[v].graph->ops[size_t(op)].name].push_back(value);
                }
            for (auto &[name, values] : byName)
                stat[name] = whatIfStatistic(rule.statistic, std::move(values));
        }
        WhatIfRule set;
        set.action = WhatIfRule::Set;
        for (size_t v = 0; v < views.size(); ++v) {
            View &view = views[v];
            const RankCpGraph &graph = *view.graph;
            // Per matching op: the own time to set (SetStatistic), NaN to leave it.
            std::unordered_map<int32_t, double> target;
            if (rule.action == WhatIfRule::SetStatistic)
                for (const auto &[op, t] : own[v]) {
                    const double s = stat[graph.ops[size_t(op)].name];
                    double d = s;
                    if (const JobTransfer *tr = transferOf(view, op)) {
                        // The kernel edge scaled so that the replay's transfer is s; a
                        // measured transfer of 0 cannot be scaled and stays 0.
                        const double was = graph.edges[size_t(tr->edge)].weightUs;
                        d = tr->transferUs > 0 && was > 0 ? was * (s / tr->transferUs)
                                                          : std::numeric_limits<double>::quiet_NaN();
                    }
                    target[op] = d;
                }
            std::unordered_map<int32_t, bool> firstPiece;
            for (size_t e = 0; e < graph.edges.size(); ++e) {
                if (graph.edges[e].type != opKernel)
                    continue;
                auto it = own[v].find(graph.edges[e].op);
                if (it == own[v].end())
                    continue;
                const bool first = rule.action != WhatIfRule::Scale && it->second <= 0 &&
                                   firstPiece.try_emplace(it->first, true).second;
                if (rule.action != WhatIfRule::SetStatistic) {
                    view.w[e] = whatIfPieceWeight(rule, view.w[e], it->second, first);
                } else if (const double d = target[it->first]; !std::isnan(d)) {
                    set.durationUs = d;
                    view.w[e] = whatIfPieceWeight(set, view.w[e], it->second, first);
                }
            }
        }
    }
}

} // namespace

bool jobWhatIfMatches(const WhatIfSelector &selector, const RankCpOp &op, int64_t rank)
{
    return matchesOp(selector, op, rank, nullptr);
}

bool jobWhatIfMatches(const WhatIfSelector &selector, const RankSummary &summary, const RankCpOp &op)
{
    return matchesOp(selector, op, summary.rank, &summary);
}

std::vector<double> jobWhatIfWeights(const RankCpGraph &graph, int64_t rank, const std::vector<WhatIfRule> &rules,
                                     std::vector<int64_t> &matched)
{
    std::vector<View> views(1);
    views[0].graph = &graph;
    views[0].rank = rank;
    views[0].w = job::measuredWeights(graph);
    views[0].matched = &matched;
    applyRules(views, rules);
    return std::move(views[0].w);
}

JobTransfers jobTransfers(const std::vector<RankSummary> &ranks, const std::vector<uint8_t> &use,
                          const std::vector<MatchedCollective> &collectives)
{
    const size_t n = ranks.size();
    JobTransfers out(n);
    // Per summary: own collective -> (op, kernel edge), as replayJob finds them (the
    // kernel's start and end nodes, and the edge between them attributed to it).
    struct Kernel {
        int32_t op = -1, start = -1, end = -1, edge = -1;
    };
    std::vector<std::unordered_map<uint32_t, Kernel>> kernels(n);
    std::unordered_map<int64_t, uint32_t> summaryOf;
    for (uint32_t i = 0; i < n; ++i) {
        const RankCpGraph &g = ranks[i].criticalPath;
        if (!use[i] || !g.valid)
            continue;
        summaryOf.emplace(ranks[i].rank, i);
        for (size_t k = 0; k < g.nodes.size(); ++k) {
            const int32_t op = g.nodes[k].op;
            if (op >= 0 && g.ops[size_t(op)].collective >= 0) {
                Kernel &kn = kernels[i][uint32_t(g.ops[size_t(op)].collective)];
                kn.op = op;
                (g.nodes[k].isStart ? kn.start : kn.end) = static_cast<int32_t>(k);
            }
        }
        for (size_t e = 0; e < g.edges.size(); ++e) {
            const RankCpEdge &edge = g.edges[e];
            if (edge.op < 0 || g.ops[size_t(edge.op)].collective < 0)
                continue;
            auto it = kernels[i].find(uint32_t(g.ops[size_t(edge.op)].collective));
            if (it != kernels[i].end() && it->second.start == edge.from && it->second.end == edge.to)
                it->second.edge = static_cast<int32_t>(e);
        }
    }
    for (const MatchedCollective &c : collectives) {
        if (c.lastArrivalRank < 0 || !c.arrivalUs.count(c.lastArrivalRank))
            continue;
        std::vector<std::pair<uint32_t, const Kernel *>> parts;
        for (size_t p = 0; p < c.ranks.size() && p < c.index.size(); ++p) {
            const auto found = summaryOf.find(c.ranks[p]);
            if (found == summaryOf.end())
                continue;
            const auto it = kernels[found->second].find(c.index[p]);
            if (it != kernels[found->second].end() && it->second.start >= 0 && it->second.end >= 0)
                parts.emplace_back(found->second, &it->second);
        }
        if (parts.size() < 2)
            continue;
        const double lastArrival = c.arrivalUs.at(c.lastArrivalRank);
        for (const auto &[i, kn] : parts)
            if (const auto end = c.endUs.find(ranks[i].rank); end != c.endUs.end())
                out[i][kn->op] = {std::max(0.0, end->second - lastArrival), kn->edge};
    }
    return out;
}

std::vector<std::vector<double>> jobWhatIfAllWeights(const std::vector<RankSummary> &ranks,
                                                     const std::vector<uint8_t> &use, const JobTransfers &transfers,
                                                     const std::vector<WhatIfRule> &rules,
                                                     std::vector<std::vector<int64_t>> &matched)
{
    std::vector<std::vector<double>> out(ranks.size());
    matched.assign(ranks.size(), std::vector<int64_t>(rules.size(), 0));
    std::vector<View> views;
    std::vector<size_t> summaryOfView;
    for (size_t i = 0; i < ranks.size(); ++i) {
        if (!use[i] || !ranks[i].criticalPath.valid)
            continue;
        View v;
        v.graph = &ranks[i].criticalPath;
        v.summary = &ranks[i];
        v.rank = ranks[i].rank;
        v.transfers = i < transfers.size() ? &transfers[i] : nullptr;
        v.w = job::measuredWeights(*v.graph);
        v.matched = &matched[i];
        views.push_back(std::move(v));
        summaryOfView.push_back(i);
    }
    applyRules(views, rules);
    for (size_t v = 0; v < views.size(); ++v)
        out[summaryOfView[v]] = std::move(views[v].w);
    return out;
}

} // namespace syncscope
