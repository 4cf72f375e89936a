// SPDX-License-Identifier: MIT
// Where each rank sits in a job (data-parallel rank, pipeline stage) for the
// straggler what-if: --parallelism, else pg_config descriptions, else inferred
// from the collectives (docs/what_if.md, "Straggler what-if").
#include "stragglerwhatif.h"

#include "analysis/busbw.h"
#include "jobanalysis.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <queue>
#include <set>
#include <unordered_map>

namespace syncscope {

namespace {

constexpr int64_t kMaxParallelSize = int64_t(1) << 20;

std::vector<int64_t> parseRankList(const std::string &text)
{
    std::vector<int64_t> out;
    const char *p = text.data(), *end = p + text.size();
    while (p < end) {
        if (*p < '0' || *p > '9') {
            ++p;
            continue;
        }
        int64_t v = 0;
        const auto r = std::from_chars(p, end, v);
        if (r.ec != std::errc())
            return {};
        out.push_back(v);
        p = r.ptr;
    }
    return out;
}

// The group whose description is `exact`, else the first containing `part`.
const RankProcessGroup *groupByDesc(const RankSummary &s, std::string_view exact, std::string_view part)
{
    const RankProcessGroup *found = nullptr;
    for (const RankProcessGroup &g : s.processGroups) {
        if (g.desc == exact)
            return &g;
        if (!found && g.desc.find(part) != std::string::npos)
            found = &g;
    }
    return found;
}

// Pipeline stages from the send/recv chains: a path of ranks, ordered from the end
// whose first transfer is a send.
void inferStages(const std::vector<RankSummary> &ranks, const std::vector<uint8_t> &use,
                 const std::vector<MatchedCollective> &collectives, ParallelLayout &out, Diagnostics &diag)
{
    std::unordered_map<int64_t, size_t> summaryOf;
    for (size_t i = 0; i < ranks.size(); ++i)
        if (use[i])
            summaryOf.emplace(ranks[i].rank, i);
    std::map<size_t, std::set<size_t>> adj;
    for (const MatchedCollective &c : collectives) {
        if (c.matchedBy != "p2p_order" || c.ranks.size() != 2)
            continue;
        const auto a = summaryOf.find(c.ranks[0]), b = summaryOf.find(c.ranks[1]);
        if (a == summaryOf.end() || b == summaryOf.end() || a->second == b->second)
            continue;
        adj[a->second].insert(b->second);
        adj[b->second].insert(a->second);
    }
    auto sendsFirst = [&](size_t i) {
        for (const RankCollective &c : ranks[i].collectives) { // ascending start
            int64_t src = -1, dst = -1;
            if (p2pEnds(c, ranks[i].rank, src, dst))
                return src == ranks[i].rank;
        }
        return false;
    };
    std::set<size_t> seen;
    bool unordered = false;
    for (const auto &[first, _] : adj) {
        if (seen.count(first))
            continue;
        std::vector<size_t> component;
        std::queue<size_t> q;
        q.push(first);
        seen.insert(first);
        while (!q.empty()) {
            const size_t v = q.front();
            q.pop();
            component.push_back(v);
            for (size_t w : adj[v])
                if (seen.insert(w).second)
                    q.push(w);
        }
        std::vector<size_t> ends;
        bool path = true;
        for (size_t v : component) {
            if (adj[v].size() > 2)
                path = false;
            if (adj[v].size() == 1)
                ends.push_back(v);
        }
        if (!path || ends.size() != 2) {
            unordered = true;
            continue;
        }
        std::sort(ends.begin(), ends.end(), [&](size_t a, size_t b) { return ranks[a].rank < ranks[b].rank; });
        const size_t root = sendsFirst(ends[1]) && !sendsFirst(ends[0]) ? ends[1] : ends[0];
        size_t prev = root, at = root;
        int64_t stage = 0;
        for (;;) {
            out.stage[at] = stage++;
            size_t next = at;
            for (size_t w : adj[at])
                if (w != prev)
                    next = w;
            if (next == at)
                break;
            prev = at;
            at = next;
        }
    }
    if (unordered)
        diag.warning("straggler.stages_unordered",
                     "the send/recv partners of some ranks form no chain (a ring or a tree), so their pipeline "
                     "stages are not known; they count as stage 0 (give --parallelism dp=D,pp=P,tp=T)");
}

// The data-parallel group of rank i: its reduce-scatter / all-gather group, else the
// largest all-reduce group; empty when the collectives do not list their ranks.
std::vector<int64_t> inferDpGroup(const RankSummary &s)
{
    std::map<std::string, int64_t> shards, reduces;
    for (const RankCollective &c : s.collectives) {
        const auto type = static_cast<CollectiveType>(c.busType);
        if (c.groupRanks.empty())
            continue;
        if (type == CollectiveType::ReduceScatter || type == CollectiveType::AllGather)
            ++shards[c.groupRanks];
        else if (type == CollectiveType::AllReduce)
            ++reduces[c.groupRanks];
    }
    const auto &pick = shards.empty() ? reduces : shards;
    std::vector<int64_t> best;
    int64_t bestCount = 0;
    for (const auto &[text, count] : pick) {
        std::vector<int64_t> g = parseRankList(text);
        // Shards: the most used group; all-reduce: the largest (tensor-parallel groups are busier).
        const bool better = shards.empty() ? g.size() > best.size() : count > bestCount;
        if (better && std::find(g.begin(), g.end(), s.rank) != g.end()) {
            best = std::move(g);
            bestCount = count;
        }
    }
    std::sort(best.begin(), best.end());
    return best;
}

} // namespace

bool parseParallelism(std::string_view text, ParallelismSpec &out, std::string &error)
{
    ParallelismSpec spec;
    spec.given = true;
    size_t pos = 0;
    while (pos <= text.size()) {
        const size_t comma = std::min(text.find(',', pos), text.size());
        const std::string_view item = text.substr(pos, comma - pos);
        const size_t eq = item.find('=');
        const std::string_view key = item.substr(0, eq);
        int64_t v = 0;
        const std::string_view digits = eq == std::string_view::npos ? std::string_view{} : item.substr(eq + 1);
        const auto r = std::from_chars(digits.data(), digits.data() + digits.size(), v);
        int64_t *slot = key == "dp" ? &spec.dp : key == "pp" ? &spec.pp : key == "tp" ? &spec.tp : nullptr;
        if (!slot || digits.empty() || r.ec != std::errc() || r.ptr != digits.data() + digits.size() || v < 1 ||
            v > kMaxParallelSize) {
            error = "--parallelism takes dp=D,pp=P,tp=T (sizes 1 to " + std::to_string(kMaxParallelSize) +
                    ", any subset); '" + std::string(item) + "' is not one of them";
            return false;
        }
        *slot = v;
        pos = comma + 1;
    }
    out = spec;
    return true;
}

ParallelLayout jobParallelLayout(const std::vector<RankSummary> &ranks, const std::vector<uint8_t> &use,
                                 const std::vector<MatchedCollective> &collectives, const ParallelismSpec &spec,
                                 Diagnostics &diag)
{
    ParallelLayout out;
    const size_t n = ranks.size();
    out.dpRank.assign(n, -1);
    out.stage.assign(n, -1);
    int64_t world = 0;
    for (size_t i = 0; i < n; ++i)
        if (use[i])
            world = std::max({world, ranks[i].rank + 1, ranks[i].worldSize.value_or(0)});

    if (spec.given) {
        int64_t dp = spec.dp, pp = spec.pp, tp = spec.tp;
        if (!tp && (!dp || !pp))
            tp = 1;
        if (!pp && !dp)
            pp = 1;
        const int64_t known = std::max<int64_t>(1, dp) * std::max<int64_t>(1, pp) * std::max<int64_t>(1, tp);
        int64_t &missing = !dp ? dp : !pp ? pp : tp;
        if (!dp || !pp || !tp)
            missing = world % known == 0 ? world / known : 0;
        if (!missing || dp * pp * tp != world) {
            diag.error("straggler.bad_parallelism",
                       "--parallelism gives dp x pp x tp = " + std::to_string(known) + " but the job has " +
                           std::to_string(world) + " ranks (the world size)");
            out.source = "none";
            return out;
        }
        out.source = "parallelism";
        out.dpSize = dp;
        out.ppSize = pp;
        out.tpSize = tp;
        for (size_t i = 0; i < n; ++i)
            if (use[i]) {
                out.dpRank[i] = (ranks[i].rank / tp) % dp;
                out.stage[i] = ranks[i].rank / (tp * dp);
            }
        return out;
    }

    bool fromConfig = false;
    for (size_t i = 0; i < n; ++i) {
        if (!use[i])
            continue;
        if (const RankProcessGroup *g = groupByDesc(ranks[i], "DATA_PARALLEL_GROUP", "DATA_PARALLEL")) {
            out.dpRank[i] = g->index;
            out.dpSize = std::max(out.dpSize, g->size);
            fromConfig = true;
        }
        if (const RankProcessGroup *g = groupByDesc(ranks[i], "PIPELINE_MODEL_PARALLEL_GROUP", "PIPELINE_MODEL_PARALLEL")) {
            out.stage[i] = g->index;
            out.ppSize = std::max(out.ppSize, g->size);
            fromConfig = true;
        }
    }
    out.source = fromConfig ? "pg_config" : "inferred";
    // What pg_config did not say, the collectives do.
    if (std::none_of(out.stage.begin(), out.stage.end(), [](int64_t s) { return s >= 0; })) {
        inferStages(ranks, use, collectives, out, diag);
        out.ppSize = 1;
        for (size_t i = 0; i < n; ++i)
            out.ppSize = std::max(out.ppSize, out.stage[i] + 1);
    }
    for (size_t i = 0; i < n; ++i)
        if (use[i] && out.stage[i] < 0)
            out.stage[i] = 0;
    std::map<int64_t, std::vector<size_t>> byStage; // for ranks no group places
    for (size_t i = 0; i < n; ++i)
        if (use[i])
            byStage[out.stage[i]].push_back(i);
    for (auto &[stage, members] : byStage) {
        std::sort(members.begin(), members.end(), [&](size_t a, size_t b) { return ranks[a].rank < ranks[b].rank; });
        for (size_t k = 0; k < members.size(); ++k) {
            const size_t i = members[k];
            if (out.dpRank[i] >= 0)
                continue;
            const std::vector<int64_t> group = inferDpGroup(ranks[i]);
            const auto at = std::find(group.begin(), group.end(), ranks[i].rank);
            if (at != group.end()) {
                out.dpRank[i] = at - group.begin();
                out.dpSize = std::max<int64_t>(out.dpSize, static_cast<int64_t>(group.size()));
            } else {
                out.dpRank[i] = static_cast<int64_t>(k);
                out.dpSize = std::max<int64_t>(out.dpSize, static_cast<int64_t>(members.size()));
            }
        }
    }
    out.tpSize = std::max<int64_t>(1, world / std::max<int64_t>(1, out.dpSize * out.ppSize));
    // The same check as --parallelism's, for every source: a pg_config that says dp 4, pp 2
    // on a 4-rank job is as wrong as --parallelism dp=4,pp=2 (issue 40).
    if (out.dpSize * out.ppSize * out.tpSize != world) {
        diag.error("straggler.bad_layout",
                   "the layout from " + out.source + " gives dp x pp x tp = " + std::to_string(out.dpSize) + " x " +
                       std::to_string(out.ppSize) + " x " + std::to_string(out.tpSize) + " = " +
                       std::to_string(out.dpSize * out.ppSize * out.tpSize) + " but the job has " +
                       std::to_string(world) + " ranks (the world size); give --parallelism");
        out.source = "none";
    }
    return out;
}

} // namespace syncscope
