// SPDX-License-Identifier: MIT
// Hang analysis, findings: per group the first collective block (coalesced blocks included)
// and the first point-to-point transfer the members do not agree on. Rules in hanganalysis.h.
#include "hang/hangdetail.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <map>

namespace syncscope::hangdetail {

namespace {

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

// A collective block's signature: its one entry's, else every entry's in record order.
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

// Entry i of a dump is point-to-point: a send/recv, or a batch's marker, which follows the
// batch's p2p ops of group pg.
bool isP2pEntry(const std::vector<FrEntry> &entries, size_t i, const std::string &pg)
{
    const FrEntry &e = entries[i];
    if (e.isP2p || isP2pName(e.profilingName))
        return true;
    if (!isCoalescedMarker(e.profilingName))
        return false;
    for (size_t k = i; k-- > 0;) // a batch's marker follows the batch's p2p ops
        if (entries[k].pgName == pg)
            return entries[k].isP2p || isP2pName(entries[k].profilingName);
    return false;
}

// The block a rank recorded at a collective seq of a group, in record order (searched
// from the end: stuck ops are there); empty when none.
std::vector<const FrEntry *> blockAt(const std::vector<FrDump> &dumps, const Member &m, const std::string &pg,
                                     int64_t seq)
{
    std::vector<const FrEntry *> b;
    if (m.dump < 0)
        return b;
    const auto &entries = dumps[size_t(m.dump)].entries;
    for (size_t i = entries.size(); i-- > 0;) {
        const FrEntry &e = entries[i];
        if (e.pgName != pg || e.collectiveSeqId < 0 || isP2pEntry(entries, i, pg))
            continue;
        if (e.collectiveSeqId == seq)
            b.push_back(&e);
        else if (e.collectiveSeqId < seq || !b.empty())
            break;
    }
    std::reverse(b.begin(), b.end());
    return b;
}

// The collective seq of g's finding, -1 none (warnings for disagreements all completed and for
// a hang inside a collective every member entered).
int64_t suspectSeq(HangState &st, const Group &g)
{
    int64_t minL = std::numeric_limits<int64_t>::max(), maxL = -1, minC = std::numeric_limits<int64_t>::max();
    bool anyData = false, anyDataless = false, anyWaits = false;
    for (const Member &m : g.members) {
        if (m.unknown)
            continue;
        if (!progressKnown(m)) {
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
            st.warnings.push_back("pg " + g.name + " seq " + std::to_string(seq) +
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
                st.insideCollective.push_back("pg " + g.name + " seq " + std::to_string(minL) +
                                      ": every member entered it with the same op and none completed it (a hang inside the collective: network, NCCL)");
        }
    }
    return s;
}

struct PairOps {
    std::vector<const P2pOp *> sends, recvs;
};

bool bySeq(const P2pOp *a, const P2pOp *b)
{
    if (a->entry->p2pSeqId != b->entry->p2pSeqId)
        return a->entry->p2pSeqId < b->entry->p2pSeqId;
    return a->entry->recordId < b->entry->recordId;
}

// Keeps the ops after the last completed one, in p2p_seq_id order.
void pendingTail(std::vector<const P2pOp *> &v)
{
    std::stable_sort(v.begin(), v.end(), bySeq);
    size_t start = 0;
    for (size_t i = 0; i < v.size(); ++i)
        if (v[i]->state == "completed")
            start = i + 1;
    v.erase(v.begin(), v.begin() + std::ptrdiff_t(start));
}

// A p2p finding at op: its op, inputs and time, its rank waiting unless completed.
HangSuspect p2pSuspect(const Group &g, const P2pOp &op)
{
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
}

// The rank's member of g, else a stand-in with its data kind.
Member memberOf(const HangState &st, const Group &g, int64_t rank)
{
    Member m;
    m.rank = rank;
    auto it = g.index.find(rank);
    if (it != g.index.end())
        return g.members[it->second];
    auto rd = st.rankData.find(rank);
    m.data = rd == st.rankData.end() ? DataKind::None : rd->second.first;
    return m;
}

} // namespace

std::optional<HangSuspect> collectiveFinding(HangState &st, const Group &g)
{
    const int64_t s = suspectSeq(st, g);
    if (s < 0)
        return std::nullopt;
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
            rb = blockAt(st.dumps, g.members[it->second], g.name, s);
        if (rb.empty())
            rb = {ref->first};
        describeBlock(rb, h.op, h.inputSizes, h.dtype);
    }
    for (const Member &m : g.members) {
        if (m.unknown)
            continue;
        if (!progressKnown(m) || m.lastEnqueued < s) {
            addMissing(h, m);
            continue;
        }
        const std::vector<const FrEntry *> b = blockAt(st.dumps, m, g.name, s);
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
    if (h.missingRanks.empty() && h.mismatchedRanks.empty())
        return std::nullopt;
    // No dump holds an entry at s and nobody waits in it: only progress counters (pg_status)
    // say it exists. Not a hang of this group, and never a root that hides the real one.
    if (!ref && h.waitingRanks.empty()) {
        st.warnings.push_back("pg " + g.name + " seq " + std::to_string(s) +
                              ": pg_status counts it as enqueued, but no dump holds an entry at it and nobody waits "
                              "in it (an inconsistent pg_status?): no finding");
        return std::nullopt;
    }
    return h;
}

// Point-to-point: per directed pair, the ops pending after each side's last completed one.
// The earliest pair whose k-th send and k-th receive differ is a desync; else every pending
// op without a counterpart makes one finding: its peers never posted theirs (a pipeline's
// peer that is busy elsewhere is missing here, and the explanation finds where it is stuck).
std::optional<HangSuspect> p2pFinding(const HangState &st, const Group &g)
{
    if (g.p2p.empty())
        return std::nullopt;
    std::map<std::pair<int64_t, int64_t>, PairOps> pairs;
    for (const P2pOp &op : g.p2p) {
        PairOps &p = pairs[{op.src, op.dst}];
        (op.send ? p.sends : p.recvs).push_back(&op);
    }
    std::optional<HangSuspect> desync;
    std::vector<const P2pOp *> unmatched;
    for (auto &[key, p] : pairs) {
        pendingTail(p.sends);
        pendingTail(p.recvs);
        const size_t n = std::min(p.sends.size(), p.recvs.size());
        for (size_t j = 0; j < n; ++j)
            if (p2pSignature(*p.sends[j]->entry) != p2pSignature(*p.recvs[j]->entry)) {
                HangSuspect h = p2pSuspect(g, *p.sends[j]);
                minTime(h, p.recvs[j]->entry);
                h.mismatchedRanks.push_back(p.recvs[j]->rank);
                h.mismatches.push_back(mismatchOf(p.recvs[j]->rank, *p.recvs[j]->entry));
                finishKind(h);
                if (!desync || (h.timeCreatedNs >= 0 && (desync->timeCreatedNs < 0 || h.timeCreatedNs < desync->timeCreatedNs)))
                    desync = std::move(h);
                break;
            }
        const auto &extra = p.sends.size() > n ? p.sends : p.recvs;
        for (size_t j = n; j < extra.size(); ++j)
            unmatched.push_back(extra[j]);
    }
    if (desync)
        return desync;
    if (unmatched.empty())
        return std::nullopt;
    const P2pOp *first = unmatched.front();
    for (const P2pOp *op : unmatched)
        if (op->entry->timeCreatedNs >= 0 &&
            (first->entry->timeCreatedNs < 0 || op->entry->timeCreatedNs < first->entry->timeCreatedNs))
            first = op;
    HangSuspect h = p2pSuspect(g, *first);
    for (const P2pOp *op : unmatched) {
        if (op->state != "completed")
            h.waitingRanks.push_back(op->rank);
        // A peer without a pending op here has not posted it (its side would be pending too).
        addMissing(h, memberOf(st, g, op->send ? op->dst : op->src));
    }
    finishKind(h);
    if (h.missingRanks.empty())
        return std::nullopt;
    return h;
}

} // namespace syncscope::hangdetail
