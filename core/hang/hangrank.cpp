// SPDX-License-Identifier: MIT
// Hang analysis, explanation and order: which finding explains which, the roots (cycles
// broken), the final order of the findings, and the per-group status. Rules in hanganalysis.h.
#include "hang/hangdetail.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <set>
#include <unordered_map>

namespace syncscope::hangdetail {

namespace {

const char *dumpName(DataKind k)
{
    return k == DataKind::Ok ? "ok" : k == DataKind::Empty ? "empty" : "none";
}

int kindRank(const std::string &k)
{
    if (k == "desync")
        return 0;
    if (k == "missing")
        return 1;
    if (k == "empty_dump")
        return 2;
    return 3;
}

bool groupNameLess(const std::string &a, const std::string &b)
{
    int64_t x = 0, y = 0;
    const bool na = parseInt(a, x), nb = parseInt(b, y);
    if (na != nb)
        return na;
    if (na && x != y)
        return x < y;
    return a < b;
}

// rank -> the findings it is stuck in (waiting or mismatched), in finding order.
using RankFindings = std::unordered_map<int64_t, std::vector<size_t>>;

RankFindings stuckIndex(const std::vector<HangSuspect> &found)
{
    RankFindings stuckIn;
    for (size_t i = 0; i < found.size(); ++i) {
        for (int64_t r : found[i].waitingRanks)
            stuckIn[r].push_back(i);
        for (int64_t r : found[i].mismatchedRanks)
            stuckIn[r].push_back(i);
    }
    return stuckIn;
}

// Per finding, the findings that explain it (empty: not explained, a root candidate).
std::vector<std::set<size_t>> explanations(const std::vector<HangSuspect> &found, const RankFindings &stuckIn)
{
    const size_t n = found.size();
    RankFindings missingIn;
    for (size_t i = 0; i < n; ++i)
        for (int64_t r : found[i].missingRanks)
            missingIn[r].push_back(i);
    auto earlier = [&](size_t a, size_t b) { // a's stuck op created before b's
        return found[a].timeCreatedNs >= 0 && found[b].timeCreatedNs >= 0 && found[a].timeCreatedNs < found[b].timeCreatedNs;
    };
    std::vector<std::set<size_t>> explainedBy(n);
    for (size_t f = 0; f < n; ++f) {
        if (!found[f].mismatchedRanks.empty() || found[f].missingRanks.empty())
            continue;
        std::set<size_t> by;
        bool all = true;
        for (int64_t r : found[f].missingRanks) {
            std::optional<size_t> e;
            if (auto it = stuckIn.find(r); it != stuckIn.end())
                for (size_t c : it->second)
                    if (c != f && (!e || earlier(c, *e)))
                        e = c;
            // Missing from an earlier collective: it stopped before that one. A pending p2p
            // op says only that the peer had not posted its side yet (pipelines post ahead),
            // so it explains no collective; a p2p finding is explained by any collective
            // its peer never entered.
            auto explainsAsMissing = [&](size_t c) {
                if (c == f)
                    return false;
                return found[f].p2p ? (!found[c].p2p || earlier(c, f)) : (!found[c].p2p && earlier(c, f));
            };
            auto better = [&](size_t c, size_t than) { // collectives first, then the earliest
                return found[c].p2p != found[than].p2p ? !found[c].p2p : earlier(c, than);
            };
            if (!e)
                if (auto it = missingIn.find(r); it != missingIn.end())
                    for (size_t c : it->second)
                        if (explainsAsMissing(c) && (!e || better(c, *e)))
                            e = c;
            if (!e) {
                all = false;
                break;
            }
            by.insert(*e);
        }
        if (all)
            explainedBy[f] = std::move(by);
    }
    return explainedBy;
}

// Per finding, its missing ranks stuck in another finding (the earliest created).
void markHeld(std::vector<HangSuspect> &found, const RankFindings &stuckIn)
{
    for (size_t f = 0; f < found.size(); ++f)
        for (int64_t r : found[f].missingRanks) {
            auto it = stuckIn.find(r);
            if (it == stuckIn.end())
                continue;
            std::optional<size_t> e;
            for (size_t c : it->second)
                if (c != f && (!e || found[c].timeCreatedNs < found[*e].timeCreatedNs))
                    e = c;
            if (!e)
                continue;
            found[f].heldRanks.push_back(r);
            found[f].heldIn.push_back("pg " + found[*e].pgName + (found[*e].p2p ? " p2p" : ""));
        }
    // The kind follows the ranks the hang starts with, not those held elsewhere.
    for (HangSuspect &s : found) {
        if (s.kind == "desync" || s.heldRanks.empty() || s.heldRanks.size() == s.missingRanks.size())
            continue;
        auto in = [](const std::vector<int64_t> &v, int64_t r) { return std::binary_search(v.begin(), v.end(), r); };
        size_t seen = 0, empty = 0;
        for (int64_t r : s.missingRanks) {
            if (in(s.heldRanks, r))
                continue;
            if (in(s.emptyDumpRanks, r))
                ++empty;
            else if (!in(s.noDumpRanks, r))
                ++seen;
        }
        s.kind = seen ? "missing" : empty ? "empty_dump" : "no_dump";
    }
}

} // namespace

void rankFindings(std::vector<HangSuspect> found, HangAnalysis &out)
{
    const RankFindings stuckIn = stuckIndex(found); // markHeld changes no waiting or mismatched rank
    markHeld(found, stuckIn);
    const size_t n = found.size();
    std::vector<std::set<size_t>> explainedBy = explanations(found, stuckIn);
    auto orderLess = [&](size_t a, size_t b) {
        const HangSuspect &x = found[a], &y = found[b];
        // A wrong op first; then collectives, whose members all reach them at one point of
        // the program, before p2p ops, which a pipeline posts ahead of its peer.
        const bool dx = x.kind == "desync", dy = y.kind == "desync";
        if (dx != dy)
            return dx;
        if (x.p2p != y.p2p)
            return !x.p2p;
        if (kindRank(x.kind) != kindRank(y.kind))
            return kindRank(x.kind) < kindRank(y.kind);
        const int64_t tx = x.timeCreatedNs < 0 ? std::numeric_limits<int64_t>::max() : x.timeCreatedNs;
        const int64_t ty = y.timeCreatedNs < 0 ? std::numeric_limits<int64_t>::max() : y.timeCreatedNs;
        if (tx != ty)
            return tx < ty;
        if (x.pgName != y.pgName)
            return groupNameLess(x.pgName, y.pgName);
        if (x.p2p != y.p2p)
            return !x.p2p;
        return x.collectiveSeqId + x.p2pSeqId < y.collectiveSeqId + y.p2pSeqId;
    };
    // Roots; findings only reachable through a cycle become roots too.
    std::vector<char> reached(n, 0);
    std::vector<std::vector<size_t>> explains(n);
    for (size_t f = 0; f < n; ++f)
        for (size_t e : explainedBy[f])
            explains[e].push_back(f);
    auto reach = [&](size_t i) {
        std::vector<size_t> stack{i};
        while (!stack.empty()) {
            size_t c = stack.back();
            stack.pop_back();
            if (reached[c])
                continue;
            reached[c] = 1;
            for (size_t x : explains[c])
                stack.push_back(x);
        }
    };
    for (size_t f = 0; f < n; ++f)
        if (explainedBy[f].empty())
            reach(f);
    for (;;) {
        std::optional<size_t> pick;
        for (size_t f = 0; f < n; ++f)
            if (!reached[f] && (!pick || orderLess(f, *pick)))
                pick = f;
        if (!pick)
            break;
        out.warnings.push_back("pg " + found[*pick].pgName + ": its finding and others explain each other (a cross-group deadlock); taken as a root");
        for (size_t e : explainedBy[*pick])
            explains[e].erase(std::remove(explains[e].begin(), explains[e].end(), *pick), explains[e].end());
        explainedBy[*pick].clear();
        reach(*pick);
    }
    std::vector<size_t> order(n);
    for (size_t i = 0; i < n; ++i)
        order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        const bool ra = explainedBy[a].empty(), rb = explainedBy[b].empty();
        if (ra != rb)
            return ra;
        return orderLess(a, b);
    });
    std::vector<size_t> pos(n);
    for (size_t i = 0; i < n; ++i)
        pos[order[i]] = i;
    for (size_t i = 0; i < n; ++i) {
        HangSuspect s = std::move(found[order[i]]);
        s.root = explainedBy[order[i]].empty();
        for (size_t x : explains[order[i]])
            s.explains.push_back(pos[x]);
        for (size_t x : explainedBy[order[i]])
            s.explainedBy.push_back(pos[x]);
        std::sort(s.explains.begin(), s.explains.end());
        std::sort(s.explainedBy.begin(), s.explainedBy.end());
        out.suspects.push_back(std::move(s));
    }
}

// Group status, by group name.
std::vector<HangGroupStatus> groupStatus(const std::vector<Group> &groups)
{
    std::vector<HangGroupStatus> out;
    std::vector<size_t> gorder(groups.size());
    for (size_t i = 0; i < groups.size(); ++i)
        gorder[i] = i;
    std::sort(gorder.begin(), gorder.end(), [&](size_t a, size_t b) { return groupNameLess(groups[a].name, groups[b].name); });
    for (size_t gi : gorder) {
        const Group &g = groups[gi];
        HangGroupStatus st;
        st.pgName = g.name;
        st.pgDesc = g.desc;
        st.members.reserve(g.members.size());
        for (const Member &m : g.members) {
            HangMemberStatus ms;
            ms.rank = m.rank;
            ms.lastEnqueued = m.lastEnqueued;
            ms.lastStarted = m.lastStarted;
            ms.lastCompleted = m.lastCompleted;
            ms.state = m.lastState.empty() ? "never" : std::string(m.lastState);
            ms.dump = dumpName(m.data);
            st.members.push_back(std::move(ms));
        }
        out.push_back(std::move(st));
    }
    return out;
}

} // namespace syncscope::hangdetail
