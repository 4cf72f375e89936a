// SPDX-License-Identifier: MIT
// Cross-rank hang analysis over flight recorder dumps: the rules are in hanganalysis.h.
#include "hang/hanganalysis.h"

#include <algorithm>
#include <charconv>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <tuple>
#include <unordered_map>

namespace syncscope {

namespace {

enum class DataKind : uint8_t { Ok, Empty, None };

const char *dumpName(DataKind k)
{
    return k == DataKind::Ok ? "ok" : k == DataKind::Empty ? "empty" : "none";
}

struct Member {
    int64_t rank = -1;
    DataKind data = DataKind::None;
    int dump = -1;                  // index into dumps
    int64_t lastEnqueued = -1, lastStarted = -1, lastCompleted = -1;
    std::string_view lastState;     // of its last entry in the group ("" never)
    bool lastP2p = false;           // its last entry in the group was point-to-point
    // The collective block being read: the entries of one collective_seq_id (a coalesced
    // block is several), counted into the group's signatures when the seq changes.
    int64_t blockSeq = -1;
    uint64_t blockFirstSig = 0, blockFold = 0;
    size_t blockCount = 0;
    const FrEntry *blockFirst = nullptr;
    int blockMinState = 2;          // of the members (0 scheduled, 1 started, 2 completed)
    int blockMarkerState = -1;      // of its coalesced marker, -1 none
};

struct SigCount {
    uint64_t hash = 0;
    size_t count = 0;
    int64_t firstRank = std::numeric_limits<int64_t>::max();
    const FrEntry *first = nullptr;
};

struct P2pOp {
    int64_t rank = -1;              // the rank that posted it
    int64_t src = -1, dst = -1;     // global ranks
    bool send = false;
    const FrEntry *entry = nullptr;
    std::string_view state;         // entry's, or its batch's marker's (batch_isend_irecv)
};

struct Group {
    std::string name, desc;
    std::vector<int64_t> ranks;                      // config order
    std::unordered_map<int64_t, size_t> index;       // rank -> members index
    std::vector<Member> members;
    std::unordered_map<int64_t, std::vector<SigCount>> sigs; // collective seq -> signatures
    std::vector<P2pOp> p2p;
    bool configured = false;
    const std::vector<int64_t> *firstConfig = nullptr; // the first pg_config ranks merged

    Member &member(int64_t rank)
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
};

uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    return h;
}

bool isAllToAll(std::string_view op)
{
    return op.find("all_to_all") != std::string_view::npos || op.find("alltoall") != std::string_view::npos;
}

bool isP2pName(std::string_view op)
{
    return op.find("send") != std::string_view::npos || op.find("recv") != std::string_view::npos;
}

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

uint64_t p2pSignature(const FrEntry &e)
{
    uint64_t h = 77;
    std::hash<std::string_view> hs;
    for (const auto &d : e.inputDtypes)
        h = mix(h, hs(d));
    for (const auto &s : e.inputSizes) {
        h = mix(h, 0xabcdefULL + s.size());
        for (int64_t v : s)
            h = mix(h, uint64_t(v));
    }
    return h;
}

std::string joinDtypes(const std::vector<std::string> &d)
{
    std::string out;
    for (size_t i = 0; i < d.size(); ++i) {
        if (i)
            out += ",";
        out += d[i];
    }
    return out;
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

// The entry endCoalescing records for a block: "nccl:coalesced", "nccl:ALLGATHER_coalesced",
// "nccl:REDUCE_SCATTER_coalesced" (not "nccl:allreduce_coalesced", one fused op).
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

constexpr uint64_t kBlockSeed = 0xc0a1e5cedULL;

// A collective block's signature: its one entry's, else every entry's in record order.
uint64_t blockSignature(const std::vector<const FrEntry *> &b);

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

void sortUnique(std::vector<int64_t> &v)
{
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
}

void finishKind(HangSuspect &s)
{
    for (auto *v : {&s.missingRanks, &s.mismatchedRanks, &s.waitingRanks, &s.emptyDumpRanks, &s.noDumpRanks})
        sortUnique(*v);
    if (!s.mismatchedRanks.empty())
        s.kind = "desync";
    else if (s.missingRanks.size() > s.emptyDumpRanks.size() + s.noDumpRanks.size())
        s.kind = "missing";
    else if (!s.emptyDumpRanks.empty())
        s.kind = "empty_dump";
    else
        s.kind = "no_dump";
}

void addMissing(HangSuspect &s, const Member &m)
{
    s.missingRanks.push_back(m.rank);
    if (m.data == DataKind::Empty)
        s.emptyDumpRanks.push_back(m.rank);
    else if (m.data == DataKind::None)
        s.noDumpRanks.push_back(m.rank);
}

void minTime(HangSuspect &s, const FrEntry *e)
{
    if (e && e->timeCreatedNs >= 0 && (s.timeCreatedNs < 0 || e->timeCreatedNs < s.timeCreatedNs))
        s.timeCreatedNs = e->timeCreatedNs;
}

uint64_t blockSignature(const std::vector<const FrEntry *> &b)
{
    if (b.size() == 1)
        return signature(*b.front());
    uint64_t h = kBlockSeed;
    for (const FrEntry *e : b)
        h = mix(h, signature(*e));
    return h;
}

// What a block shows: one entry as itself; a coalesced block as
// "nccl:coalesced [nccl:_broadcast_oop, nccl:_broadcast_oop]" with its members' inputs and dtypes.
void describeBlock(const std::vector<const FrEntry *> &b, std::string &op,
                   std::vector<std::vector<int64_t>> &sizes, std::string &dtype)
{
    if (b.size() == 1 && !isCoalescedMarker(b.front()->profilingName)) {
        op = b.front()->profilingName;
        sizes = b.front()->inputSizes;
        dtype = joinDtypes(b.front()->inputDtypes);
        return;
    }
    std::string marker = "coalesced", names;
    std::vector<std::string> dtypes;
    size_t n = 0;
    sizes.clear();
    for (const FrEntry *e : b) {
        if (isCoalescedMarker(e->profilingName)) {
            marker = e->profilingName;
            continue;
        }
        if (++n <= 8)
            names += (n > 1 ? ", " : "") + e->profilingName;
        sizes.insert(sizes.end(), e->inputSizes.begin(), e->inputSizes.end());
        dtypes.insert(dtypes.end(), e->inputDtypes.begin(), e->inputDtypes.end());
    }
    if (n > 8)
        names += ", +" + std::to_string(n - 8) + " more";
    op = marker + " [" + names + "]";
    dtype = joinDtypes(dtypes);
}

HangMismatch mismatchOf(int64_t rank, const std::vector<const FrEntry *> &b)
{
    HangMismatch m;
    m.rank = rank;
    describeBlock(b, m.op, m.inputSizes, m.dtype);
    return m;
}

HangMismatch mismatchOf(int64_t rank, const FrEntry &e)
{
    HangMismatch m;
    m.rank = rank;
    m.op = e.profilingName;
    m.inputSizes = e.inputSizes;
    m.dtype = joinDtypes(e.inputDtypes);
    return m;
}

} // namespace

size_t HangAnalysis::roots() const
{
    return size_t(std::count_if(suspects.begin(), suspects.end(), [](const HangSuspect &s) { return s.root; }));
}

HangAnalysis analyzeHang(const std::vector<FrDump> &dumps, const std::vector<int64_t> &missingDumps,
                         int64_t worldSize)
{
    HangAnalysis out;
    std::unordered_map<int64_t, std::pair<DataKind, int>> rankData; // rank -> (data, dump index)
    for (size_t i = 0; i < dumps.size(); ++i) {
        int64_t rank = dumps[i].rank.value_or(-1);
        if (!dumps[i].rank) {
            rank = int64_t(i);
            out.warnings.push_back("dump " + std::to_string(i) + " (" + dumps[i].path +
                                   ") names no rank: taken as rank " + std::to_string(rank));
        }
        const DataKind k = dumps[i].entries.empty() ? DataKind::Empty : DataKind::Ok;
        auto [it, inserted] = rankData.emplace(rank, std::make_pair(k, int(i)));
        if (!inserted)
            out.warnings.push_back("two dumps for rank " + std::to_string(rank) + ": the first is used");
    }
    for (int64_t r : missingDumps)
        rankData.emplace(r, std::make_pair(DataKind::None, -1));
    if (worldSize > 0) {
        std::vector<int64_t> unlisted;
        for (int64_t r = 0; r < worldSize; ++r)
            if (rankData.emplace(r, std::make_pair(DataKind::None, -1)).second)
                unlisted.push_back(r);
        if (!unlisted.empty())
            out.warnings.push_back(std::to_string(unlisted.size()) + " rank(s) below the world size " +
                                   std::to_string(worldSize) + " have no dump (first: rank " +
                                   std::to_string(unlisted.front()) + ")");
    }

    // Groups: the union of the configs.
    std::vector<Group> groups;
    std::unordered_map<std::string, size_t> groupIndex;
    auto groupOf = [&](const std::string &name) -> Group & {
        auto [it, inserted] = groupIndex.emplace(name, groups.size());
        if (inserted) {
            groups.emplace_back();
            groups.back().name = name;
        }
        return groups[it->second];
    };
    const std::vector<FrProcessGroup> *refConfig = nullptr; // the first dump's, merged in full
    for (const auto &d : dumps)
        for (size_t pi = 0; pi < d.pgConfig.size(); ++pi) {
            const FrProcessGroup &pg = d.pgConfig[pi];
            if (!refConfig)
                refConfig = &d.pgConfig;
            else if (refConfig != &d.pgConfig && pi < refConfig->size() && (*refConfig)[pi].name == pg.name &&
                     (*refConfig)[pi].ranks == pg.ranks)
                continue; // the same group at the same place: merged already, no hashing
            Group &g = groupOf(pg.name);
            g.configured = true;
            if (g.desc.empty())
                g.desc = pg.desc;
            if (g.firstConfig && *g.firstConfig == pg.ranks)
                continue; // every rank writes the same config: merge each one once
            if (!g.firstConfig)
                g.firstConfig = &pg.ranks.get();
            for (int64_t r : pg.ranks)
                g.member(r);
        }
    auto initMember = [&](Member &m) {
        auto it = rankData.find(m.rank);
        if (it == rankData.end()) {
            m.data = DataKind::None;
            rankData.emplace(m.rank, std::make_pair(DataKind::None, -1));
        } else {
            m.data = it->second.first;
            m.dump = it->second.second;
        }
    };
    for (auto &g : groups)
        for (auto &m : g.members)
            initMember(m);

    // One pass over the entries. A rank's collective entries of one seq in a group are one
    // block (a coalesced block: its members, then the marker), counted when the seq changes.
    auto flushBlock = [](Group &g, Member &m) {
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
    };
    std::vector<std::pair<size_t, size_t>> openBlocks; // (group, member) with a block being read
    size_t unparsedP2p = 0;
    for (size_t di = 0; di < dumps.size(); ++di) {
        const FrDump &d = dumps[di];
        const int64_t rank = d.rank.value_or(int64_t(di));
        if (rankData[rank].second != int(di) || d.entries.empty())
            continue;
        const std::string *lastName = nullptr;
        Group *g = nullptr;
        Member *m = nullptr;
        // The few groups a rank records, without hashing each entry's group name.
        std::vector<std::tuple<const std::string *, size_t, size_t>> seen; // name, group, member
        for (const FrEntry &e : d.entries) {
            if (!lastName || *lastName != e.pgName) {
                auto c = std::find_if(seen.begin(), seen.end(), [&](const auto &t) { return *std::get<0>(t) == e.pgName; });
                if (c != seen.end()) {
                    g = &groups[std::get<1>(*c)];
                    m = &g->members[std::get<2>(*c)];
                    lastName = std::get<0>(*c);
                    goto lookedUp;
                }
                auto it = groupIndex.find(e.pgName);
                if (it == groupIndex.end()) {
                    Group &ng = groupOf(e.pgName);
                    ng.desc = e.pgDesc;
                    out.warnings.push_back("pg " + e.pgName + " is in the entries but in no pg_config: its members are the ranks that recorded it");
                    g = &ng;
                } else {
                    g = &groups[it->second];
                }
                lastName = &e.pgName;
                const size_t before = g->members.size();
                m = &g->member(rank);
                if (g->members.size() != before) {
                    initMember(*m);
                    if (g->configured)
                        out.warnings.push_back("rank " + std::to_string(rank) + " recorded pg " + g->name +
                                               " but is not in its pg_config");
                }
                if (g->desc.empty())
                    g->desc = e.pgDesc;
                if (seen.size() < 64)
                    seen.emplace_back(&e.pgName, size_t(g - groups.data()), size_t(m - g->members.data()));
            }
        lookedUp:
            m->lastState = e.state;
            const bool marker = isCoalescedMarker(e.profilingName);
            // A batch_isend_irecv block ends in a marker too (is_p2p set where PyTorch sets it).
            const bool p2p = e.isP2p || isP2pName(e.profilingName) || (marker && m->lastP2p);
            m->lastP2p = p2p;
            if (p2p && marker) {
                // The batch's state is its marker's: the one Work the watchdog follows.
                for (size_t k = g->p2p.size(); k-- > 0;) {
                    P2pOp &q = g->p2p[k];
                    if (q.rank != rank || q.entry->p2pSeqId != e.p2pSeqId)
                        break;
                    q.state = e.state;
                }
                continue;
            }
            if (p2p) {
                P2pOp op;
                op.rank = rank;
                op.entry = &e;
                op.state = e.state;
                int64_t a = -1, b = -1;
                if (!parseP2p(e.profilingName, op.send, a, b)) {
                    ++unparsedP2p;
                    continue;
                }
                auto global = [&](int64_t v) { return v >= 0 && size_t(v) < g->ranks.size() && g->configured ? g->ranks[size_t(v)] : v; };
                op.src = global(a);
                op.dst = global(b);
                const int64_t self = op.send ? op.src : op.dst;
                if (self != rank) { // not group ranks after all: take them as global
                    op.src = a;
                    op.dst = b;
                    if ((op.send ? a : b) != rank) {
                        ++unparsedP2p;
                        continue;
                    }
                }
                g->p2p.push_back(op);
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
                openBlocks.emplace_back(size_t(g - groups.data()), size_t(m - g->members.data()));
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
            flushBlock(groups[gi], groups[gi].members[mi]);
        openBlocks.clear();
    }
    if (unparsedP2p)
        out.warnings.push_back(std::to_string(unparsedP2p) + " point-to-point entries without a readable peer (\"nccl:send A->B\") were skipped");
    // pg_status overrides the entries' progress.
    for (size_t di = 0; di < dumps.size(); ++di) {
        const FrDump &d = dumps[di];
        const int64_t rank = d.rank.value_or(int64_t(di));
        if (rankData[rank].second != int(di) || d.entries.empty())
            continue;
        for (const auto &st : d.pgStatus) {
            auto it = groupIndex.find(st.name);
            if (it == groupIndex.end())
                continue;
            Group &g = groups[it->second];
            auto mi = g.index.find(rank);
            if (mi == g.index.end())
                continue;
            Member &m = g.members[mi->second];
            m.lastEnqueued = st.lastEnqueued;
            m.lastStarted = st.lastStarted;
            m.lastCompleted = st.lastCompleted;
        }
    }

    // The block a rank recorded at a collective seq of a group, in record order (searched
    // from the end: stuck ops are there); empty when none.
    auto blockAt = [&](const Member &m, const std::string &pg, int64_t seq) {
        std::vector<const FrEntry *> b;
        if (m.dump < 0)
            return b;
        const auto &entries = dumps[size_t(m.dump)].entries;
        auto p2pEntry = [&](size_t i) {
            const FrEntry &e = entries[i];
            if (e.isP2p || isP2pName(e.profilingName))
                return true;
            if (!isCoalescedMarker(e.profilingName))
                return false;
            for (size_t k = i; k-- > 0;) // a batch's marker follows the batch's p2p ops
                if (entries[k].pgName == pg)
                    return entries[k].isP2p || isP2pName(entries[k].profilingName);
            return false;
        };
        for (size_t i = entries.size(); i-- > 0;) {
            const FrEntry &e = entries[i];
            if (e.pgName != pg || e.collectiveSeqId < 0 || p2pEntry(i))
                continue;
            if (e.collectiveSeqId == seq)
                b.push_back(&e);
            else if (e.collectiveSeqId < seq || !b.empty())
                break;
        }
        std::reverse(b.begin(), b.end());
        return b;
    };

    std::vector<HangSuspect> found;
    for (Group &g : groups) {
        // Collectives.
        int64_t minL = std::numeric_limits<int64_t>::max(), maxL = -1, minC = std::numeric_limits<int64_t>::max();
        bool anyData = false, anyDataless = false, anyWaits = false;
        for (const Member &m : g.members) {
            if (m.data != DataKind::Ok) {
                anyDataless = true;
                continue;
            }
            anyData = true;
            minL = std::min(minL, m.lastEnqueued);
            maxL = std::max(maxL, m.lastEnqueued);
            minC = std::min(minC, m.lastCompleted);
            if (m.lastCompleted < m.lastEnqueued)
                anyWaits = true;
        }
        int64_t s = -1;
        if (anyData && maxL >= 0) {
            const int64_t bound = maxL > minL ? minL + 1 : minL;
            // A disagreement every member completed is no hang: a warning, and the search goes on.
            std::vector<int64_t> disagree;
            for (const auto &[seq, v] : g.sigs)
                if (v.size() > 1 && seq <= bound)
                    disagree.push_back(seq);
            std::sort(disagree.begin(), disagree.end());
            int64_t desync = std::numeric_limits<int64_t>::max();
            for (int64_t seq : disagree) {
                if (seq > minC) {
                    desync = seq;
                    break;
                }
                out.warnings.push_back("pg " + g.name + " seq " + std::to_string(seq) +
                                       ": members recorded different ops, sizes or dtypes, and all completed it");
            }
            if (desync != std::numeric_limits<int64_t>::max())
                s = desync;
            else if (maxL > minL)
                s = minL + 1;
            else if (anyDataless && anyWaits)
                s = minC + 1;
            else if (anyWaits && minC == minL - 1 && g.members.size() > 1) {
                bool none = true;
                for (const Member &m : g.members)
                    if (m.lastCompleted >= minL)
                        none = false;
                if (none)
                    out.warnings.push_back("pg " + g.name + " seq " + std::to_string(minL) +
                                           ": every member entered it with the same op and none completed it (a hang inside the collective: network, NCCL)");
            }
        }
        if (s >= 0) {
            HangSuspect h;
            h.pgName = g.name;
            h.pgDesc = g.desc;
            h.collectiveSeqId = s;
            const SigCount *ref = nullptr;
            auto sit = g.sigs.find(s);
            if (sit != g.sigs.end())
                for (const auto &c : sit->second)
                    if (!ref || c.count > ref->count || (c.count == ref->count && c.firstRank < ref->firstRank))
                        ref = &c;
            if (ref) {
                std::vector<const FrEntry *> rb;
                if (auto it = g.index.find(ref->firstRank); it != g.index.end())
                    rb = blockAt(g.members[it->second], g.name, s);
                if (rb.empty())
                    rb = {ref->first};
                describeBlock(rb, h.op, h.inputSizes, h.dtype);
            }
            for (const Member &m : g.members) {
                if (m.data != DataKind::Ok || m.lastEnqueued < s) {
                    addMissing(h, m);
                    continue;
                }
                const std::vector<const FrEntry *> b = blockAt(m, g.name, s);
                if (!b.empty())
                    minTime(h, b.front());
                if (!b.empty() && ref && blockSignature(b) != ref->hash) {
                    h.mismatchedRanks.push_back(m.rank);
                    h.mismatches.push_back(mismatchOf(m.rank, b));
                } else if (m.lastCompleted < s) {
                    h.waitingRanks.push_back(m.rank);
                }
            }
            finishKind(h);
            if (!h.missingRanks.empty() || !h.mismatchedRanks.empty())
                found.push_back(std::move(h));
        }

        // Point-to-point: per directed pair, the ops pending after each side's last completed one.
        if (g.p2p.empty())
            continue;
        struct PairOps {
            std::vector<const P2pOp *> sends, recvs;
        };
        std::map<std::pair<int64_t, int64_t>, PairOps> pairs;
        std::unordered_map<int64_t, std::vector<const P2pOp *>> pendingOf; // rank -> its pending p2p ops
        for (const P2pOp &op : g.p2p) {
            PairOps &p = pairs[{op.src, op.dst}];
            (op.send ? p.sends : p.recvs).push_back(&op);
            if (op.state != "completed")
                pendingOf[op.rank].push_back(&op);
        }
        auto bySeq = [](const P2pOp *a, const P2pOp *b) {
            if (a->entry->p2pSeqId != b->entry->p2pSeqId)
                return a->entry->p2pSeqId < b->entry->p2pSeqId;
            return a->entry->recordId < b->entry->recordId;
        };
        auto pendingTail = [&](std::vector<const P2pOp *> &v) {
            std::stable_sort(v.begin(), v.end(), bySeq);
            size_t start = 0;
            for (size_t i = 0; i < v.size(); ++i)
                if (v[i]->state == "completed")
                    start = i + 1;
            v.erase(v.begin(), v.begin() + std::ptrdiff_t(start));
        };
        std::optional<HangSuspect> best;
        auto consider = [&](HangSuspect h) {
            finishKind(h);
            if (!best || (h.timeCreatedNs >= 0 && (best->timeCreatedNs < 0 || h.timeCreatedNs < best->timeCreatedNs)))
                best = std::move(h);
        };
        auto start = [&](const P2pOp &op) {
            HangSuspect h;
            h.pgName = g.name;
            h.pgDesc = g.desc;
            h.p2p = true;
            h.op = op.entry->profilingName;
            h.inputSizes = op.entry->inputSizes;
            h.dtype = joinDtypes(op.entry->inputDtypes);
            h.p2pSeqId = op.entry->p2pSeqId;
            minTime(h, op.entry);
            if (op.state != "completed")
                h.waitingRanks.push_back(op.rank);
            return h;
        };
        auto memberOf = [&](int64_t rank) {
            Member m;
            m.rank = rank;
            auto it = g.index.find(rank);
            if (it != g.index.end())
                return g.members[it->second];
            auto rd = rankData.find(rank);
            m.data = rd == rankData.end() ? DataKind::None : rd->second.first;
            return m;
        };
        for (auto &[key, p] : pairs) {
            pendingTail(p.sends);
            pendingTail(p.recvs);
            const size_t n = std::min(p.sends.size(), p.recvs.size());
            for (size_t j = 0; j < n; ++j)
                if (p2pSignature(*p.sends[j]->entry) != p2pSignature(*p.recvs[j]->entry)) {
                    HangSuspect h = start(*p.sends[j]);
                    minTime(h, p.recvs[j]->entry);
                    h.mismatchedRanks.push_back(p.recvs[j]->rank);
                    h.mismatches.push_back(mismatchOf(p.recvs[j]->rank, *p.recvs[j]->entry));
                    consider(std::move(h));
                    break;
                }
            const auto &extra = p.sends.size() > n ? p.sends : p.recvs;
            if (extra.size() > n) {
                const P2pOp &op = *extra[n];
                const int64_t peer = op.send ? op.dst : op.src;
                HangSuspect h = start(op);
                const Member pm = memberOf(peer);
                if (pm.data != DataKind::Ok) {
                    addMissing(h, pm);
                } else {
                    const P2pOp *other = nullptr;
                    auto it = pendingOf.find(peer);
                    if (it != pendingOf.end())
                        for (const P2pOp *q : it->second)
                            if (!(q->src == op.src && q->dst == op.dst) && (!other || bySeq(q, other)))
                                other = q;
                    if (other) {
                        h.mismatchedRanks.push_back(peer);
                        h.mismatches.push_back(mismatchOf(peer, *other->entry));
                    } else {
                        h.missingRanks.push_back(peer);
                    }
                }
                consider(std::move(h));
            }
        }
        if (best)
            found.push_back(std::move(*best));
    }

    // Explanations.
    const size_t n = found.size();
    std::unordered_map<int64_t, std::vector<size_t>> stuckIn, missingIn;
    for (size_t i = 0; i < n; ++i) {
        for (int64_t r : found[i].waitingRanks)
            stuckIn[r].push_back(i);
        for (int64_t r : found[i].mismatchedRanks)
            stuckIn[r].push_back(i);
        for (int64_t r : found[i].missingRanks)
            missingIn[r].push_back(i);
    }
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
            if (!e)
                if (auto it = missingIn.find(r); it != missingIn.end())
                    for (size_t c : it->second)
                        if (c != f && earlier(c, f) && (!e || earlier(c, *e)))
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
    auto orderLess = [&](size_t a, size_t b) {
        const HangSuspect &x = found[a], &y = found[b];
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
    std::function<void(size_t)> reach = [&](size_t i) {
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

    // Group status.
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
        out.groups.push_back(std::move(st));
    }
    return out;
}

} // namespace syncscope
