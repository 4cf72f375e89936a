// SPDX-License-Identifier: MIT
// Cross-rank hang analysis over flight recorder dumps: the rules are in hanganalysis.h.
// This file: the driver, membership and progress; the findings are in hangmatch.cpp, their
// explanation and order in hangrank.cpp.
#include "hang/hanganalysis.h"
#include "hang/hangdetail.h"

#include <algorithm>
#include <charconv>
#include <functional>
#include <tuple>
#include <unordered_map>

namespace syncscope {

namespace hangdetail {

Member &Group::member(int64_t rank)
{
    if (auto f = index.find(rank); f != index.end())
        return members[f->second];
    auto [it, inserted] = index.emplace(rank, members.size());
    if (inserted) {
        ranks.push_back(rank);
        Member m;
        m.rank = rank;
        members.push_back(m);
    }
    return members[it->second];
}

Group &HangState::groupOf(const std::string &name)
{
    auto [it, inserted] = groupIndex.emplace(name, groups.size());
    if (inserted) {
        groups.emplace_back();
        groups.back().name = name;
    }
    return groups[it->second];
}

void HangState::initMember(Member &m)
{
    auto it = rankData.find(m.rank);
    if (it == rankData.end()) {
        m.data = DataKind::None;
        rankData.emplace(m.rank, std::make_pair(DataKind::None, -1));
    } else {
        m.data = it->second.first;
        m.dump = it->second.second;
    }
}

namespace {

bool isAllToAll(std::string_view op)
{
    return op.find("all_to_all") != std::string_view::npos || op.find("alltoall") != std::string_view::npos;
}

// "nccl:send 0->1" / "nccl:recv 1<-0": send flag and (src, dst) as written.
bool parseP2p(std::string_view name, bool &send, int64_t &src, int64_t &dst)
{
    const bool s = name.find("send") != std::string_view::npos;
    const bool r = name.find("recv") != std::string_view::npos;
    if (s == r)
        return false;
    send = s;
    const size_t sp = name.rfind(' ');
    if (sp == std::string_view::npos)
        return false;
    std::string_view pair = name.substr(sp + 1);
    size_t at = pair.find("->");
    if (at != std::string_view::npos)
        return parseInt(pair.substr(0, at), src) && parseInt(pair.substr(at + 2), dst);
    at = pair.find("<-");
    if (at != std::string_view::npos)
        return parseInt(pair.substr(0, at), dst) && parseInt(pair.substr(at + 2), src);
    return false;
}

int stateRank(std::string_view s) { return s == "completed" ? 2 : s == "started" ? 1 : 0; }

// Counts a member's finished block into its group's signatures and progress.
void flushBlock(Group &g, Member &m)
{
    if (m.blockSeq < 0)
        return;
    const int64_t seq = m.blockSeq;
    const int st = m.blockMarkerState >= 0 ? m.blockMarkerState : m.blockMinState;
    m.lastEnqueued = std::max(m.lastEnqueued, seq);
    if (st >= 1)
        m.lastStarted = std::max(m.lastStarted, seq);
    if (st >= 2)
        m.lastCompleted = std::max(m.lastCompleted, seq);
    const uint64_t h = m.blockCount == 1 ? m.blockFirstSig : m.blockFold;
    auto &v = g.sigs[seq];
    auto it = std::find_if(v.begin(), v.end(), [h](const SigCount &c) { return c.hash == h; });
    if (it == v.end()) {
        v.push_back({h, 0, m.rank, m.blockFirst});
        it = v.end() - 1;
    }
    ++it->count;
    if (m.rank < it->firstRank) {
        it->firstRank = m.rank;
        it->first = m.blockFirst;
    }
    m.blockSeq = -1;
}

// The few groups a rank records, without hashing each entry's group name: name, group, member.
using SeenGroups = std::vector<std::tuple<const std::string *, size_t, size_t>>;

// Points g and m at the group of e and the rank's member in it (added, with a warning, where
// the group or the rank is in no pg_config).
void lookUpGroup(HangState &st, int64_t rank, const FrEntry &e, SeenGroups &seen, const std::string *&lastName,
                 Group *&g, Member *&m)
{
    auto c = std::find_if(seen.begin(), seen.end(), [&](const auto &t) { return *std::get<0>(t) == e.pgName; });
    if (c != seen.end()) {
        g = &st.groups[std::get<1>(*c)];
        m = &g->members[std::get<2>(*c)];
        lastName = std::get<0>(*c);
        return;
    }
    auto it = st.groupIndex.find(e.pgName);
    if (it == st.groupIndex.end()) {
        Group &ng = st.groupOf(e.pgName);
        ng.desc = e.pgDesc;
        st.warnings.push_back("pg " + e.pgName + " is in the entries but in no pg_config: its members are the ranks that recorded it");
        g = &ng;
    } else {
        g = &st.groups[it->second];
    }
    lastName = &e.pgName;
    const size_t before = g->members.size();
    m = &g->member(rank);
    if (g->members.size() != before) {
        st.initMember(*m);
        if (g->configured)
            st.warnings.push_back("rank " + std::to_string(rank) + " recorded pg " + g->name +
                                  " but is not in its pg_config");
    }
    if (g->desc.empty())
        g->desc = e.pgDesc;
    if (seen.size() < 64)
        seen.emplace_back(&e.pgName, size_t(g - st.groups.data()), size_t(m - g->members.data()));
}

// A batch_isend_irecv marker: the batch's state is its marker's, the one Work the watchdog follows.
void setBatchState(Group &g, int64_t rank, const FrEntry &e)
{
    for (size_t k = g.p2p.size(); k-- > 0;) {
        P2pOp &q = g.p2p[k];
        if (q.rank != rank || q.entry->p2pSeqId != e.p2pSeqId)
            break;
        q.state = e.state;
    }
}

// Adds a send or recv of rank to g with global src and dst; false when its peer is unreadable.
bool addP2pOp(Group &g, int64_t rank, const FrEntry &e)
{
    P2pOp op;
    op.rank = rank;
    op.entry = &e;
    op.state = e.state;
    int64_t a = -1, b = -1;
    if (!parseP2p(e.profilingName, op.send, a, b))
        return false;
    auto global = [&](int64_t v) { return v >= 0 && size_t(v) < g.ranks.size() && g.configured ? g.ranks[size_t(v)] : v; };
    op.src = global(a);
    op.dst = global(b);
    const int64_t self = op.send ? op.src : op.dst;
    if (self != rank) { // not group ranks after all: take them as global
        op.src = a;
        op.dst = b;
        if ((op.send ? a : b) != rank)
            return false;
    }
    if (op.src < 0 || op.src > kFrMaxRank || op.dst < 0 || op.dst > kFrMaxRank)
        return false;
    g.p2p.push_back(op);
    return true;
}

} // namespace

uint64_t signature(const FrEntry &e)
{
    std::hash<std::string_view> hs;
    uint64_t h = hs(e.profilingName);
    for (const auto &d : e.inputDtypes)
        h = mix(h, hs(d));
    if (!isAllToAll(e.profilingName)) {
        for (const auto &s : e.inputSizes) {
            h = mix(h, 0xabcdefULL + s.size());
            for (int64_t v : s)
                h = mix(h, uint64_t(v));
        }
    }
    return h;
}

bool parseInt(std::string_view s, int64_t &v)
{
    while (!s.empty() && s.front() == ' ')
        s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ')
        s.remove_suffix(1);
    if (s.empty())
        return false;
    auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

bool isCoalescedMarker(std::string_view op)
{
    const size_t colon = op.find(':');
    const std::string_view n = colon == std::string_view::npos ? op : op.substr(colon + 1);
    constexpr std::string_view suffix = "_coalesced";
    if (n == "coalesced")
        return true;
    if (n.size() <= suffix.size() || n.substr(n.size() - suffix.size()) != suffix)
        return false;
    for (char c : n.substr(0, n.size() - suffix.size()))
        if (!(c >= 'A' && c <= 'Z') && c != '_')
            return false;
    return true;
}

RankData readRanks(const std::vector<FrDump> &dumps, const std::vector<int64_t> &missingDumps,
                   int64_t worldSize, std::vector<std::string> &warnings)
{
    RankData rankData;
    size_t partial = 0;
    for (const FrDump &d : dumps)
        partial += d.seqRenumbered && !d.seqFromStart ? 1 : 0;
    if (partial)
        warnings.push_back(std::to_string(partial) + " torchcomms dump(s) do not start at the process's first entry: "
                           "torchcomms numbers collectives per process, so their groups' collectives are numbered "
                           "from the first entry kept and may not line up across ranks");
    for (size_t i = 0; i < dumps.size(); ++i) {
        int64_t rank = dumps[i].rank.value_or(-1);
        if (!dumps[i].rank) {
            rank = int64_t(i);
            warnings.push_back("dump " + std::to_string(i) + " (" + frText(dumps[i].path) +
                               ") names no rank: taken as rank " + std::to_string(rank));
        }
        if (rank < 0 || rank > kFrMaxRank) {
            warnings.push_back("dump " + std::to_string(i) + " (" + frText(dumps[i].path) + "): rank " + std::to_string(rank) +
                               " is outside 0.." + std::to_string(kFrMaxRank) + ": left out");
            continue;
        }
        const DataKind k = dumps[i].entries.empty() ? DataKind::Empty : DataKind::Ok;
        auto [it, inserted] = rankData.emplace(rank, std::make_pair(k, int(i)));
        if (!inserted)
            warnings.push_back("two dumps for rank " + std::to_string(rank) + ": the first is used");
    }
    for (int64_t r : missingDumps)
        if (r >= 0 && r <= kFrMaxRank)
            rankData.emplace(r, std::make_pair(DataKind::None, -1));
    worldSize = std::min(worldSize, kFrMaxRank + 1);
    if (worldSize > 0) {
        std::vector<int64_t> unlisted;
        for (int64_t r = 0; r < worldSize; ++r)
            if (rankData.emplace(r, std::make_pair(DataKind::None, -1)).second)
                unlisted.push_back(r);
        if (!unlisted.empty())
            warnings.push_back(std::to_string(unlisted.size()) + " rank(s) below the world size " +
                               std::to_string(worldSize) + " have no dump (first: rank " +
                               std::to_string(unlisted.front()) + ")");
    }
    return rankData;
}

// Groups: the union of the configs.
void mergeConfigs(HangState &st)
{
    const std::vector<FrProcessGroup> *refConfig = nullptr; // the first dump's, merged in full
    size_t memberships = 0, leftOut = 0;
    const std::string *firstLeftOut = nullptr;
    for (const auto &d : st.dumps)
        for (size_t pi = 0; pi < d.pgConfig.size(); ++pi) {
            const FrProcessGroup &pg = d.pgConfig[pi];
            if (!refConfig)
                refConfig = &d.pgConfig;
            else if (refConfig != &d.pgConfig && pi < refConfig->size() && (*refConfig)[pi].name == pg.name &&
                     (*refConfig)[pi].ranks == pg.ranks)
                continue; // the same group at the same place: merged already, no hashing
            const auto known = st.groupIndex.find(pg.name);
            if (known != st.groupIndex.end() && st.groups[known->second].firstConfig &&
                *st.groups[known->second].firstConfig == pg.ranks)
                continue; // every rank writes the same config: merge each one once
            if (pg.ranks.size() > kFrMaxMemberships - memberships) {
                if (leftOut++ == 0)
                    firstLeftOut = &pg.name;
                continue;
            }
            memberships += pg.ranks.size();
            Group &g = st.groupOf(pg.name);
            g.configured = true;
            if (g.desc.empty())
                g.desc = pg.desc;
            if (!g.firstConfig)
                g.firstConfig = &pg.ranks.get();
            for (int64_t r : pg.ranks)
                if (r >= 0 && r <= kFrMaxRank) // the folder reader says how many were left out
                    g.member(r);
        }
    if (leftOut > 0)
        st.warnings.push_back(std::to_string(leftOut) + " process group(s) of pg_config left out (first: pg " +
                              frText(*firstLeftOut) + "): with them the groups would have more than " +
                              std::to_string(kFrMaxMemberships) + " members in all");
    for (auto &g : st.groups)
        for (auto &m : g.members)
            st.initMember(m);
}

// One pass over the entries. A rank's collective entries of one seq in a group are one
// block (a coalesced block: its members, then the marker), counted when the seq changes.
void readEntries(HangState &st)
{
    std::vector<std::pair<size_t, size_t>> openBlocks; // (group, member) with a block being read
    size_t unparsedP2p = 0;
    for (size_t di = 0; di < st.dumps.size(); ++di) {
        const FrDump &d = st.dumps[di];
        const int64_t rank = d.rank.value_or(int64_t(di));
        auto rd = st.rankData.find(rank);
        if (rd == st.rankData.end() || rd->second.second != int(di) || d.entries.empty())
            continue;
        const std::string *lastName = nullptr;
        Group *g = nullptr;
        Member *m = nullptr;
        SeenGroups seen;
        for (const FrEntry &e : d.entries) {
            if (!lastName || *lastName != e.pgName)
                lookUpGroup(st, rank, e, seen, lastName, g, m);
            m->lastState = e.state;
            const bool marker = isCoalescedMarker(e.profilingName);
            // A batch_isend_irecv block ends in a marker too (is_p2p set where PyTorch sets it).
            const bool p2p = e.isP2p || isP2pName(e.profilingName) || (marker && m->lastP2p);
            m->lastP2p = p2p;
            if (p2p && marker) {
                setBatchState(*g, rank, e);
                continue;
            }
            if (p2p) {
                if (!addP2pOp(*g, rank, e))
                    ++unparsedP2p;
                continue;
            }
            const int64_t seq = e.collectiveSeqId;
            if (seq < 0)
                continue;
            const uint64_t h = signature(e);
            if (m->blockSeq != seq) {
                flushBlock(*g, *m);
                m->blockSeq = seq;
                m->blockFirstSig = h;
                m->blockFold = mix(kBlockSeed, h);
                m->blockCount = 1;
                m->blockFirst = &e;
                m->blockMinState = marker ? 2 : stateRank(e.state);
                m->blockMarkerState = marker ? stateRank(e.state) : -1;
                openBlocks.emplace_back(size_t(g - st.groups.data()), size_t(m - g->members.data()));
            } else {
                m->blockFold = mix(m->blockFold, h);
                ++m->blockCount;
                if (marker)
                    m->blockMarkerState = stateRank(e.state);
                else
                    m->blockMinState = std::min(m->blockMinState, stateRank(e.state));
            }
        }
        for (const auto &[gi, mi] : openBlocks)
            flushBlock(st.groups[gi], st.groups[gi].members[mi]);
        openBlocks.clear();
    }
    if (unparsedP2p)
        st.warnings.push_back(std::to_string(unparsedP2p) + " point-to-point entries without a readable peer (\"nccl:send A->B\") were skipped");
}

namespace {

// pg_status is keyed by each process group's uid on the rank (ProcessGroupNCCL's counter of
// the groups it built), pg_config by the group's name: they agree only where every rank is
// in every group. Both count up in creation order, so the k-th uid is the k-th group, by
// number, that the rank is a member of. The groups of pg_status in its order; empty when
// they cannot be paired (names that are not numbers, counts that differ).
// Pairs pg_status with the groups `names` (in pg_config order): by equal key sets, else
// numbered keys and names in numeric order; empty when neither fits.
std::vector<const std::string *> pairStatus(const std::vector<FrGroupStatus> &status,
                                            const std::vector<const std::string *> &names)
{
    if (names.size() != status.size())
        return {};
    std::unordered_map<std::string_view, const std::string *> byKey;
    for (const std::string *n : names)
        byKey.emplace(*n, n);
    std::vector<const std::string *> out(status.size(), nullptr);
    bool same = byKey.size() == status.size();
    for (size_t i = 0; same && i < status.size(); ++i) {
        auto it = byKey.find(status[i].name);
        same = it != byKey.end();
        if (same)
            out[i] = it->second;
    }
    if (same) // uids equal names (every rank in every group), or a writer that keys by name
        return out;
    std::vector<std::pair<int64_t, size_t>> uids, numbered;
    for (size_t i = 0; i < status.size(); ++i) {
        int64_t u = 0, n = 0;
        if (!parseInt(status[i].name, u) || !parseInt(*names[i], n))
            return {};
        uids.emplace_back(u, i);
        numbered.emplace_back(n, i);
    }
    std::sort(uids.begin(), uids.end());
    std::sort(numbered.begin(), numbered.end());
    for (size_t k = 0; k < uids.size(); ++k)
        out[uids[k].second] = names[numbered[k].second];
    return out;
}

// pg_status is keyed by each process group's uid on the rank (ProcessGroupNCCL's counter of
// the groups it built), pg_config by the group's name: they agree only where every rank is
// in every group. Both count up in creation order, so the k-th uid is the k-th group, by
// number, that the rank is a member of. The group of each pg_status entry; empty when they
// cannot be paired.
std::vector<const std::string *> statusGroups(const FrDump &d, int64_t rank)
{
    std::vector<const std::string *> all;
    for (const FrProcessGroup &pg : d.pgConfig)
        all.push_back(&pg.name);
    // PyTorch's pg_config holds the rank's own groups: paired without reading member lists.
    if (auto out = pairStatus(d.pgStatus, all); !out.empty())
        return out;
    std::vector<const std::string *> member; // a writer that lists every group of the job
    for (const FrProcessGroup &pg : d.pgConfig) {
        const auto &r = pg.ranks.get();
        if (r.empty() || std::find(r.begin(), r.end(), rank) != r.end())
            member.push_back(&pg.name);
    }
    return pairStatus(d.pgStatus, member);
}

} // namespace

// pg_status raises the entries' progress (it is newer than a ring buffer that evicted
// entries, and the only progress of an active-only dump's finished groups). Not in groups
// with point-to-point traffic: there it counts the p2p ops, not the collectives.
void applyPgStatus(HangState &st)
{
    size_t unpaired = 0;
    for (size_t di = 0; di < st.dumps.size(); ++di) {
        const FrDump &d = st.dumps[di];
        const int64_t rank = d.rank.value_or(int64_t(di));
        auto rd = st.rankData.find(rank);
        if (rd == st.rankData.end() || rd->second.second != int(di) || d.pgStatus.empty())
            continue;
        const std::vector<const std::string *> names = statusGroups(d, rank);
        if (names.empty()) {
            ++unpaired;
            continue;
        }
        for (size_t i = 0; i < d.pgStatus.size(); ++i) {
            const FrGroupStatus &ps = d.pgStatus[i];
            auto it = st.groupIndex.find(*names[i]);
            if (it == st.groupIndex.end())
                continue;
            Group &g = st.groups[it->second];
            auto mi = g.index.find(rank);
            if (mi == g.index.end() || !g.p2p.empty())
                continue;
            Member &m = g.members[mi->second];
            m.lastEnqueued = std::max(m.lastEnqueued, ps.lastEnqueued);
            m.lastStarted = std::max(m.lastStarted, ps.lastStarted);
            m.lastCompleted = std::max(m.lastCompleted, ps.lastCompleted);
            m.statusKnown = true;
        }
    }
    if (unpaired)
        st.warnings.push_back(std::to_string(unpaired) + " dump(s) have a pg_status whose process groups cannot be "
                              "paired with pg_config (not numbered, or other counts): their progress comes from "
                              "the entries alone");
    bool anyEntry = false, anyCompleted = false;
    for (const FrDump &d : st.dumps)
        for (const FrEntry &e : d.entries) {
            anyEntry = true;
            anyCompleted = anyCompleted || e.state == "completed";
        }
    st.activeOnly = anyEntry && !anyCompleted;
    if (st.activeOnly)
        for (Group &g : st.groups)
            for (Member &m : g.members)
                m.unknown = m.data == DataKind::Ok && m.lastState.empty() && !m.statusKnown;
}

void describeMissing(const HangState &st, HangAnalysis &out)
{
    for (HangSuspect &s : out.suspects) {
        if (!s.root)
            continue;
        const Group *g = nullptr;
        if (auto it = st.groupIndex.find(s.pgName); it != st.groupIndex.end())
            g = &st.groups[it->second];
        for (int64_t r : s.missingRanks) {
            if (std::binary_search(s.heldRanks.begin(), s.heldRanks.end(), r))
                continue;
            HangLastEntry l;
            l.rank = r;
            auto rd = st.rankData.find(r);
            const DataKind k = rd == st.rankData.end() ? DataKind::None : rd->second.first;
            l.dump = k == DataKind::Ok ? "ok" : k == DataKind::Empty ? "empty" : "none";
            if (k == DataKind::Ok) {
                const FrEntry &e = st.dumps[size_t(rd->second.second)].entries.back();
                l.pgName = e.pgName;
                l.pgDesc = e.pgDesc;
                l.op = e.profilingName;
                l.state = e.state;
                l.collectiveSeqId = e.collectiveSeqId;
                l.p2pSeqId = e.p2pSeqId;
                l.p2p = e.isP2p || isP2pName(e.profilingName);
                l.timeCreatedNs = e.timeCreatedNs;
                l.frames.assign(e.frames.begin(), e.frames.begin() + std::ptrdiff_t(std::min<size_t>(e.frames.size(), 8)));
            }
            if (g)
                if (auto mi = g->index.find(r); mi != g->index.end() && progressKnown(g->members[mi->second]))
                    l.groupLastEnqueued = g->members[mi->second].lastEnqueued;
            s.lastEntries.push_back(std::move(l));
        }
    }
}

} // namespace hangdetail

namespace {

// A message's kind: its text with every run of digits as '#'.
std::string warningShape(const std::string &w)
{
    std::string k;
    k.reserve(w.size());
    bool digit = false;
    for (char c : w) {
        const bool d = c >= '0' && c <= '9';
        if (!d)
            k += c;
        else if (!digit)
            k += '#';
        digit = d;
    }
    return k;
}

// One warning per seq or group is 200,000 lines at scale: of each kind the first three,
// then how many more there are.
void aggregateWarnings(std::vector<std::string> &warnings)
{
    constexpr size_t kShown = 3;
    std::unordered_map<std::string, size_t> total, shown;
    std::vector<std::string> shapes;
    shapes.reserve(warnings.size());
    for (const std::string &w : warnings)
        ++total[shapes.emplace_back(warningShape(w))];
    std::vector<std::string> out;
    for (size_t i = 0; i < warnings.size(); ++i) {
        const size_t n = ++shown[shapes[i]];
        if (n > kShown)
            continue;
        out.push_back(std::move(warnings[i]));
        if (n == kShown && total[shapes[i]] > kShown)
            out.push_back("... and " + std::to_string(total[shapes[i]] - kShown) + " more warning(s) like the one above");
    }
    warnings = std::move(out);
}

} // namespace

size_t HangAnalysis::roots() const
{
    return size_t(std::count_if(suspects.begin(), suspects.end(), [](const HangSuspect &s) { return s.root; }));
}

HangAnalysis analyzeHang(const std::vector<FrDump> &dumps, const std::vector<int64_t> &missingDumps,
                         int64_t worldSize)
{
    using namespace hangdetail;
    HangAnalysis out;
    HangState st{dumps, out.warnings, readRanks(dumps, missingDumps, worldSize, out.warnings), {}, {}, false, {}};
    mergeConfigs(st);
    readEntries(st);
    applyPgStatus(st);

    // Per group its collective finding, then its p2p finding: the warnings keep that order.
    std::vector<HangSuspect> found;
    for (const Group &g : st.groups) {
        if (auto h = collectiveFinding(st, g))
            found.push_back(std::move(*h));
        if (auto h = p2pFinding(st, g))
            found.push_back(std::move(*h));
    }
    if (found.empty())
        out.warnings.insert(out.warnings.end(), st.insideCollective.begin(), st.insideCollective.end());
    rankFindings(std::move(found), out);
    describeMissing(st, out);
    aggregateWarnings(out.warnings);
    out.groups = groupStatus(st.groups);
    return out;
}

} // namespace syncscope
