// SPDX-License-Identifier: MIT
// Flight recorder dump sets with a known hang (issue 29): a small simulator runs each
// rank's program of collectives and point-to-point ops (a rank blocks in an op until every
// member entered it with the same op, sizes and dtype, or its peer posted the matching
// transfer), stops chosen ranks before a chosen op, and writes down what each rank's NCCL
// flight recorder would hold: entries, pg_config, pg_status. Deterministic.
#include "tracegen.h"
#include "tracegenpickle.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <tuple>

using syncscope::FrDump;
using syncscope::FrEntry;
using syncscope::FrGroupStatus;
using syncscope::FrProcessGroup;

namespace tracegen {

namespace {

constexpr int64_t kBaseNs = 1'760'000'000'000'000'000LL;

struct SimOp {
    std::string pg;
    std::string name;               // "nccl:all_reduce", ... (p2p: "send" / "recv")
    std::vector<int64_t> size;
    std::string dtype;
    bool p2p = false;
    bool async = false;             // an isend: the rank goes on without waiting for it
    int64_t peer = -1;              // p2p: the peer's group rank
    // A coalesced block (name: its marker, "nccl:coalesced"): the members one rank enqueues
    // between startCoalescing and endCoalescing, collectives or (batch_isend_irecv) p2p ops.
    std::vector<SimOp> members;
};

struct Sim {
    std::vector<FrProcessGroup> groups;
    std::map<std::string, size_t> groupIndex;
    int world = 0;
    std::vector<std::vector<SimOp>> program;
    std::vector<size_t> halt;       // rank stops before program[rank][halt]
    std::set<std::pair<std::string, int64_t>> neverCompletes; // (group, seq): entered by all, never done

    explicit Sim(int w) : world(w), program(size_t(w)), halt(size_t(w), SIZE_MAX) {}

    void group(const std::string &name, const std::string &desc, std::vector<int64_t> ranks)
    {
        groupIndex[name] = groups.size();
        groups.push_back({name, desc, std::move(ranks)});
    }
    const FrProcessGroup &pg(const std::string &name) const { return groups[groupIndex.at(name)]; }
    int64_t localRank(const std::string &name, int64_t rank) const
    {
        const auto &r = pg(name).ranks;
        for (size_t i = 0; i < r.size(); ++i)
            if (r[i] == rank)
                return int64_t(i);
        return -1;
    }
    void coll(int64_t rank, const std::string &g, const std::string &op, std::vector<int64_t> size,
              const std::string &dtype)
    {
        program[size_t(rank)].push_back({g, op, std::move(size), dtype, false, false, -1, {}});
    }
    void send(int64_t rank, const std::string &g, int64_t peerLocal, std::vector<int64_t> size, const std::string &dtype)
    {
        program[size_t(rank)].push_back({g, "send", std::move(size), dtype, true, false, peerLocal, {}});
    }
    // A pipeline's isend: posted ahead of the peer's receive, the rank goes on.
    void isend(int64_t rank, const std::string &g, int64_t peerLocal, std::vector<int64_t> size, const std::string &dtype)
    {
        program[size_t(rank)].push_back({g, "send", std::move(size), dtype, true, true, peerLocal, {}});
    }
    void recv(int64_t rank, const std::string &g, int64_t peerLocal, std::vector<int64_t> size, const std::string &dtype)
    {
        program[size_t(rank)].push_back({g, "recv", std::move(size), dtype, true, false, peerLocal, {}});
    }
    // The members are the last `n` ops added to the rank's program: they become one block.
    void coalesce(int64_t rank, size_t n, const std::string &marker = "nccl:coalesced")
    {
        auto &p = program[size_t(rank)];
        SimOp b;
        b.pg = p[p.size() - n].pg;
        b.name = marker;
        b.p2p = p.back().p2p;
        b.members.assign(p.end() - std::ptrdiff_t(n), p.end());
        p.resize(p.size() - n);
        p.push_back(std::move(b));
    }

    std::vector<FrDump> run() const
    {
        const size_t W = size_t(world);
        std::vector<FrDump> dumps(W);
        std::vector<size_t> pos(W, 0);
        std::vector<char> waiting(W, 0);
        std::vector<std::map<std::string, int64_t>> collSeq(W), p2pSeq(W);
        std::vector<std::map<std::tuple<std::string, int64_t, int64_t, bool>, int64_t>> pairCount(W);
        std::map<std::pair<std::string, int64_t>, std::vector<std::pair<size_t, size_t>>> pendingColl;
        using PKey = std::tuple<std::string, int64_t, int64_t, int64_t>; // pg, src, dst, ordinal
        std::map<PKey, std::pair<std::optional<std::pair<size_t, size_t>>, std::optional<std::pair<size_t, size_t>>>> pendingP2p;
        int64_t tick = 0;
        std::map<std::pair<size_t, size_t>, size_t> batchOf; // (rank, p2p member entry) -> its marker entry
        std::vector<size_t> unmatched(W, 0);                 // a rank's batch members without counterpart
        // A rank's block at a collective entry: (name, sizes, dtypes) of the entries of its seq.
        auto blockKey = [&](size_t r, size_t idx) {
            const auto &es = dumps[r].entries;
            std::vector<std::tuple<std::string, std::vector<std::vector<int64_t>>, std::vector<std::string>>> k;
            for (size_t i = idx + 1; i-- > 0;) {
                if (es[i].pgName != es[idx].pgName || es[i].isP2p)
                    continue;
                if (es[i].collectiveSeqId != es[idx].collectiveSeqId)
                    break;
                k.emplace_back(es[i].profilingName, es[i].inputSizes, es[i].inputDtypes);
            }
            return k;
        };
        std::set<std::pair<size_t, size_t>> asyncEntries; // (rank, entry) the rank did not wait for
        auto complete = [&](size_t r, size_t idx) {
            FrEntry &e = dumps[r].entries[idx];
            e.state = "completed";
            e.retired = true;
            e.timeDiscoveredCompletedNs = kBaseNs + (++tick) * 1000;
            e.durationMs = double(*e.timeDiscoveredCompletedNs - e.timeCreatedNs) / 1e6;
            if (asyncEntries.count({r, idx}))
                return;
            waiting[r] = 0;
            ++pos[r];
        };
        bool progress = true;
        while (progress) {
            progress = false;
            for (size_t r = 0; r < W; ++r) {
                if (waiting[r] || pos[r] >= halt[r] || pos[r] >= program[r].size())
                    continue;
                const SimOp &top = program[r][pos[r]];
                const FrProcessGroup &g = pg(top.pg);
                const int64_t self = localRank(top.pg, int64_t(r));
                // ProcessGroupNCCL bumps a block's seq once, at its first member: the members
                // and the marker endCoalescing records share it.
                const int64_t cseq = top.p2p ? collSeq[r][top.pg] : ++collSeq[r][top.pg];
                const int64_t pseq = top.p2p ? ++p2pSeq[r][top.pg] : p2pSeq[r][top.pg];
                const bool block = !top.members.empty();
                std::vector<size_t> batchMembers;
                auto emit = [&](const SimOp &op, bool member) {
                    FrEntry e;
                    e.recordId = int64_t(dumps[r].entries.size());
                    e.opId = e.recordId + 1;
                    e.pgName = g.name;
                    e.pgDesc = g.desc;
                    e.pgId = int64_t(groupIndex.at(op.pg));
                    if (!op.members.empty()) { // the marker: no tensors of its own
                        e.inputSizes = e.outputSizes = {};
                    } else {
                        e.inputSizes = e.outputSizes = {op.size};
                        e.inputDtypes = e.outputDtypes = {op.dtype};
                    }
                    // Members are not what the watchdog follows: left "scheduled" here (the
                    // analysis takes a block's state from its marker).
                    e.state = member ? "scheduled" : "started";
                    e.timeCreatedNs = kBaseNs + (++tick) * 1000;
                    if (!member)
                        e.timeDiscoveredStartedNs = e.timeCreatedNs + 500;
                    e.timeoutMs = 600000;
                    e.frames = {"forward (model.py:42)", "train_step (train.py:117)"};
                    e.collectiveSeqId = cseq;
                    e.p2pSeqId = pseq;
                    e.isP2p = op.p2p || (!op.members.empty() && top.p2p);
                    const size_t idx = dumps[r].entries.size();
                    if (op.p2p && op.members.empty()) {
                        const bool isSend = op.name == "send";
                        e.profilingName = isSend ? "nccl:send " + std::to_string(self) + "->" + std::to_string(op.peer)
                                                 : "nccl:recv " + std::to_string(self) + "<-" + std::to_string(op.peer);
                        const int64_t src = isSend ? int64_t(r) : g.ranks[size_t(op.peer)];
                        const int64_t dst = isSend ? g.ranks[size_t(op.peer)] : int64_t(r);
                        const int64_t ord = pairCount[r][{op.pg, src, dst, isSend}]++;
                        auto &slot = pendingP2p[{op.pg, src, dst, ord}];
                        (isSend ? slot.first : slot.second) = std::make_pair(r, idx);
                        if (member)
                            batchMembers.push_back(idx);
                    } else {
                        e.profilingName = op.name;
                        if (!member && !top.p2p)
                            pendingColl[{op.pg, cseq}].push_back({r, idx});
                    }
                    dumps[r].entries.push_back(std::move(e));
                };
                for (const SimOp &m : top.members)
                    emit(m, true);
                emit(top, false);
                if (block && top.p2p) {
                    for (size_t i : batchMembers)
                        batchOf[{r, i}] = dumps[r].entries.size() - 1;
                    unmatched[r] = batchMembers.size();
                }
                if (top.async) {
                    asyncEntries.insert({r, dumps[r].entries.size() - 1});
                    ++pos[r];
                } else {
                    waiting[r] = 1;
                }
                progress = true;
            }
            for (auto it = pendingColl.begin(); it != pendingColl.end();) {
                const auto &v = it->second;
                bool done = v.size() == pg(it->first.first).ranks.size() && !neverCompletes.count(it->first);
                for (size_t i = 1; done && i < v.size(); ++i)
                    done = blockKey(v[0].first, v[0].second) == blockKey(v[i].first, v[i].second);
                if (!done) {
                    ++it;
                    continue;
                }
                for (const auto &[r, idx] : v)
                    complete(r, idx);
                it = pendingColl.erase(it);
                progress = true;
            }
            for (auto it = pendingP2p.begin(); it != pendingP2p.end();) {
                const auto &[s, rv] = it->second;
                if (!s || !rv || dumps[s->first].entries[s->second].inputSizes != dumps[rv->first].entries[rv->second].inputSizes ||
                    dumps[s->first].entries[s->second].inputDtypes != dumps[rv->first].entries[rv->second].inputDtypes) {
                    ++it;
                    continue;
                }
                for (const auto &[r, idx] : {*s, *rv}) {
                    auto b = batchOf.find({r, idx});
                    if (b == batchOf.end())
                        complete(r, idx);
                    else if (--unmatched[r] == 0) // a batch completes as one NCCL group
                        complete(r, b->second);
                }
                it = pendingP2p.erase(it);
                progress = true;
            }
        }
        for (size_t r = 0; r < W; ++r) {
            FrDump &d = dumps[r];
            d.version = "2.4";
            d.rank = int64_t(r);
            d.path = "rank" + std::to_string(r) + ".json";
            d.json = true;
            d.pgConfig = groups;
            for (const auto &g : groups) {
                FrGroupStatus st;
                st.name = g.name;
                bool member = false;
                for (int64_t x : g.ranks)
                    member = member || x == int64_t(r);
                if (!member)
                    continue;
                for (const FrEntry &e : d.entries) {
                    if (e.pgName != g.name || e.isP2p)
                        continue;
                    st.lastEnqueued = std::max(st.lastEnqueued, e.collectiveSeqId);
                    if (e.state != "scheduled")
                        st.lastStarted = std::max(st.lastStarted, e.collectiveSeqId);
                    if (e.state == "completed")
                        st.lastCompleted = std::max(st.lastCompleted, e.collectiveSeqId);
                }
                d.pgStatus.push_back(st);
            }
        }
        return dumps;
    }
};

std::vector<int64_t> range(int64_t a, int64_t b) // [a, b)
{
    std::vector<int64_t> v;
    for (int64_t i = a; i < b; ++i)
        v.push_back(i);
    return v;
}

HangExpected expect(std::string pg, std::string kind, int64_t seq, std::vector<int64_t> missing,
                    std::vector<int64_t> mismatched, std::vector<int64_t> waiting, bool root = true,
                    std::vector<std::string> explains = {}, bool p2p = false)
{
    HangExpected e;
    e.pgName = std::move(pg);
    e.kind = std::move(kind);
    e.seq = seq;
    e.missing = std::move(missing);
    e.mismatched = std::move(mismatched);
    e.waiting = std::move(waiting);
    e.root = root;
    e.explains = std::move(explains);
    e.p2p = p2p;
    return e;
}

HangCase neverEnters()
{
    Sim sim(8);
    sim.group("0", "default_pg", range(0, 8));
    for (int64_t r = 0; r < 8; ++r)
        for (int i = 0; i < 10; ++i)
            sim.coll(r, "0", "nccl:all_reduce", {1024}, "Float");
    sim.halt[5] = 6;
    HangCase c{"never_enters", sim.run(), {}, 8, {}};
    c.expected = {expect("0", "missing", 7, {5}, {}, {0, 1, 2, 3, 4, 6, 7})};
    return c;
}

HangCase otherSize()
{
    Sim sim(4);
    sim.group("0", "default_pg", range(0, 4));
    for (int64_t r = 0; r < 4; ++r)
        for (int i = 0; i < 6; ++i)
            sim.coll(r, "0", "nccl:all_reduce", {r == 2 && i == 3 ? 2048 : 1024}, "Float");
    HangCase c{"other_size", sim.run(), {}, 4, {}};
    c.expected = {expect("0", "desync", 4, {}, {2}, {0, 1, 3})};
    return c;
}

HangCase emptyAndAbsent()
{
    Sim sim(8);
    sim.group("0", "default_pg", range(0, 8));
    sim.group("1", "TENSOR_MODEL_PARALLEL_GROUP", range(0, 4));
    sim.group("2", "TENSOR_MODEL_PARALLEL_GROUP", range(4, 8));
    for (int64_t r = 0; r < 8; ++r)
        for (int i = 0; i < 5; ++i) {
            sim.coll(r, "0", "nccl:all_reduce", {4096}, "Float");
            sim.coll(r, r < 4 ? "1" : "2", "nccl:all_gather", {8, 512}, "BFloat16");
        }
    sim.halt[2] = 9;
    sim.halt[5] = 9;
    std::vector<FrDump> dumps = sim.run();
    dumps[2].entries.clear();
    dumps[2].pgStatus.clear();
    dumps.erase(dumps.begin() + 5);
    HangCase c{"empty_and_absent", std::move(dumps), {5}, 8, {}};
    c.expected = {expect("1", "empty_dump", 5, {2}, {}, {0, 1, 3}), expect("2", "no_dump", 5, {5}, {}, {4, 6, 7})};
    return c;
}

HangCase p2pDesync()
{
    Sim sim(4);
    sim.group("0", "default_pg", range(0, 4));
    for (int i = 0; i < 4; ++i) {
        const bool last = i == 3;
        sim.send(0, "0", 1, {8, 1024}, "BFloat16");
        sim.recv(1, "0", 0, {8, last ? 2048 : 1024}, "BFloat16");
        sim.send(2, "0", 3, {8, 1024}, "BFloat16");
        sim.recv(3, "0", 2, {8, 1024}, "BFloat16");
        for (int64_t r = 0; r < 4; ++r)
            sim.coll(r, "0", "nccl:all_reduce", {1024}, "Float");
    }
    HangCase c{"p2p_desync", sim.run(), {}, 4, {}};
    c.expected = {expect("0", "desync", 4, {}, {1}, {0}, true, {"0"}, true),
                  expect("0", "missing", 4, {0, 1}, {}, {2, 3}, false)};
    return c;
}

// Coalesced blocks as ProcessGroupNCCL records them (docs/hang_diagnosis.md): the member
// entries, then the marker, all at one collective_seq_id.
void unevenAllGather(Sim &sim, int64_t r, std::vector<int64_t> second = {5, 5})
{
    sim.coll(r, "0", "nccl:_broadcast_oop", {4, 4}, "Float");
    sim.coll(r, "0", "nccl:_broadcast_oop", std::move(second), "Float");
    sim.coalesce(r, 2, "nccl:ALLGATHER_coalesced");
}

void twoAllReduces(Sim &sim, int64_t r)
{
    sim.coll(r, "0", "nccl:all_reduce", {1024}, "Float");
    sim.coll(r, "0", "nccl:all_reduce", {2048}, "Float");
    sim.coalesce(r, 2);
}

// Two healthy blocks on every rank (seqs 4 and 5), then rank 3 stops before seq 6.
HangCase coalescedHealthy()
{
    Sim sim(4);
    sim.group("0", "default_pg", range(0, 4));
    for (int64_t r = 0; r < 4; ++r) {
        for (int i = 0; i < 3; ++i)
            sim.coll(r, "0", "nccl:all_reduce", {1024}, "Float");
        unevenAllGather(sim, r);
        twoAllReduces(sim, r);
        sim.coll(r, "0", "nccl:all_reduce", {1024}, "Float");
    }
    sim.halt[3] = 5;
    HangCase c{"coalesced_healthy", sim.run(), {}, 4, {}};
    c.expected = {expect("0", "missing", 6, {3}, {}, {0, 1, 2})};
    return c;
}

// Rank 2's uneven all_gather block has another second member: a desync at the block (seq 3).
HangCase coalescedOtherSize()
{
    Sim sim(4);
    sim.group("0", "default_pg", range(0, 4));
    for (int64_t r = 0; r < 4; ++r) {
        for (int i = 0; i < 2; ++i)
            sim.coll(r, "0", "nccl:all_reduce", {1024}, "Float");
        unevenAllGather(sim, r, r == 2 ? std::vector<int64_t>{6, 5} : std::vector<int64_t>{5, 5});
    }
    HangCase c{"coalesced_other_size", sim.run(), {}, 4, {}};
    c.expected = {expect("0", "desync", 3, {}, {2}, {0, 1, 3})};
    return c;
}

// Rank 1 stops before the block (seq 3) the others entered alike.
HangCase coalescedNeverEntered()
{
    Sim sim(4);
    sim.group("0", "default_pg", range(0, 4));
    for (int64_t r = 0; r < 4; ++r) {
        for (int i = 0; i < 2; ++i)
            sim.coll(r, "0", "nccl:all_reduce", {1024}, "Float");
        twoAllReduces(sim, r);
    }
    sim.halt[1] = 2;
    HangCase c{"coalesced_never_entered", sim.run(), {}, 4, {}};
    c.expected = {expect("0", "missing", 3, {1}, {}, {0, 2, 3})};
    return c;
}

// Pipeline-style exchanges with batch_isend_irecv (pairs 0<->1, 2<->3: a send and a recv
// each, one p2p_seq_id, then the "nccl:coalesced" marker, is_p2p) and an all_reduce per
// step; rank 3 stops before the last all_reduce (seq 4). Rank 0's ring buffer lost its
// first batch: the pairs' histories differ in length and must still match.
HangCase batchP2pHealthy()
{
    Sim sim(4);
    sim.group("0", "default_pg", range(0, 4));
    for (int step = 0; step < 4; ++step)
        for (int64_t r = 0; r < 4; ++r) {
            const int64_t peer = r ^ 1;
            sim.send(r, "0", peer, {8, 1024}, "BFloat16");
            sim.recv(r, "0", peer, {8, 1024}, "BFloat16");
            sim.coalesce(r, 2);
            sim.coll(r, "0", "nccl:all_reduce", {1024}, "Float");
        }
    sim.halt[3] = 7;
    std::vector<FrDump> dumps = sim.run();
    dumps[0].entries.erase(dumps[0].entries.begin(), dumps[0].entries.begin() + 3);
    HangCase c{"batch_p2p_healthy", std::move(dumps), {}, 4, {}};
    c.expected = {expect("0", "missing", 4, {3}, {}, {0, 1, 2})};
    return c;
}

// 16 ranks: rank = edp * 8 + ep * 4 + tp. TP groups of 4 consecutive ranks ("1".."4"),
// EP pairs {r, r + 4} ("5".."12"), dense DP groups of the same tp index ("13".."16").
// Each step: TP all_reduce, EP all_to_all, DP all_reduce; rank 12 stops before step 2's
// all_to_all. Its EP partner 8 waits (the root); DP {0,4,8,12} waits for 8 and 12; the
// TP groups of step 3 wait for 0, 4 (stuck in DP), 8 (in EP) and 12.
HangCase nestedEp()
{
    Sim sim(16);
    sim.group("0", "default_pg", range(0, 16));
    for (int t = 0; t < 4; ++t)
        sim.group(std::to_string(1 + t), "TENSOR_MODEL_PARALLEL_GROUP", range(4 * t, 4 * t + 4));
    const int64_t epBase[8] = {0, 1, 2, 3, 8, 9, 10, 11};
    for (int i = 0; i < 8; ++i)
        sim.group(std::to_string(5 + i), "EXPERT_MODEL_PARALLEL_GROUP", {epBase[i], epBase[i] + 4});
    for (int t = 0; t < 4; ++t)
        sim.group(std::to_string(13 + t), "DATA_PARALLEL_GROUP", {t, t + 4, t + 8, t + 12});
    for (int64_t r = 0; r < 16; ++r) {
        const std::string tp = std::to_string(1 + r / 4);
        const int64_t base = r % 4 + (r >= 8 ? 8 : 0);
        int epIdx = 0;
        while (epBase[epIdx] != base)
            ++epIdx;
        const std::string ep = std::to_string(5 + epIdx);
        const std::string dp = std::to_string(13 + r % 4);
        for (int step = 0; step < 4; ++step) {
            sim.coll(r, tp, "nccl:all_reduce", {4096, 5120}, "BFloat16");
            sim.coll(r, ep, "nccl:all_to_all", {4027, 5120}, "BFloat16");
            sim.coll(r, dp, "nccl:all_reduce", {1048576}, "Float");
        }
    }
    sim.halt[12] = 7;
    HangCase c{"nested_ep", sim.run(), {}, 16, {}};
    c.expected = {expect("9", "missing", 3, {12}, {}, {8}, true, {"13", "3", "4"}),
                  expect("13", "missing", 3, {8, 12}, {}, {0, 4}, false, {"1", "2"}),
                  expect("1", "missing", 4, {0}, {}, {1, 2, 3}, false),
                  expect("2", "missing", 4, {4}, {}, {5, 6, 7}, false),
                  expect("3", "missing", 4, {8}, {}, {9, 10, 11}, false),
                  expect("4", "missing", 4, {12}, {}, {13, 14, 15}, false)};
    return c;
}

// The dumps as PyTorch >= 2.6 writes them on a timeout with only active entries (format
// 2.9): completed entries dropped, pg_config the rank's own groups, pg_status keyed by each
// group's uid on the rank (0, 1, 2, ... in creation order), not by the group's name.
void activeOnly(std::vector<FrDump> &dumps)
{
    for (FrDump &d : dumps) {
        d.version = "2.9";
        std::erase_if(d.entries, [](const FrEntry &e) { return e.state == "completed"; });
        std::vector<FrProcessGroup> own;
        for (const FrProcessGroup &g : d.pgConfig)
            if (std::find(g.ranks.begin(), g.ranks.end(), d.rank.value_or(-1)) != g.ranks.end())
                own.push_back(g);
        d.pgConfig = std::move(own);
        for (size_t i = 0; i < d.pgStatus.size(); ++i)
            d.pgStatus[i].name = std::to_string(i);
    }
}

// nested_ep with active-only dumps: the same answer from pg_status and the pending entries.
HangCase nestedEpActiveOnly()
{
    HangCase c = nestedEp();
    c.name = "nested_ep_active_only";
    activeOnly(c.dumps);
    // Rank 12 finished all it enqueued: its dump is empty, pg_status has its progress.
    c.expected = {expect("9", "empty_dump", 3, {12}, {}, {8}, true, {"13", "3", "4"}),
                  expect("13", "empty_dump", 3, {8, 12}, {}, {0, 4}, false, {"1", "2"}),
                  expect("1", "missing", 4, {0}, {}, {1, 2, 3}, false),
                  expect("2", "missing", 4, {4}, {}, {5, 6, 7}, false),
                  expect("3", "missing", 4, {8}, {}, {9, 10, 11}, false),
                  expect("4", "empty_dump", 4, {12}, {}, {13, 14, 15}, false)};
    return c;
}

// A 4-stage pipeline (group "1", ranks 0..3) as Megatron runs it: each stage receives from
// the previous one, posts an isend to the next and goes on, then every rank joins a world
// all_reduce (group "0"). With `ring`, stage 0 receives from stage 3 too (as interleaved
// pipelines do): "recv 0<-3" on one rank and "recv 3<-0" on another are different pairs, not a
// desync. Rank 2 stops before step 3's receive (pipeline) or isend (ring), a blocked CPU: its
// dump holds no active entry. The isend to 2 and the receive from 2 stay pending; the
// all_reduce of step 3 (seq 4) waits for 2, and for 3, stuck in its receive.
HangCase pipelineActiveOnly(bool ring)
{
    Sim sim(4);
    sim.group("0", "default_pg", range(0, 4));
    sim.group("1", "PIPELINE_MODEL_PARALLEL_GROUP", range(0, 4));
    for (int step = 0; step < 4; ++step)
        for (int64_t r = 0; r < 4; ++r) {
            if (ring) {
                sim.isend(r, "1", (r + 1) % 4, {8, 1024}, "BFloat16");
                sim.recv(r, "1", (r + 3) % 4, {8, 1024}, "BFloat16");
            } else {
                if (r > 0)
                    sim.recv(r, "1", r - 1, {8, 1024}, "BFloat16");
                if (r < 3)
                    sim.isend(r, "1", r + 1, {8, 1024}, "BFloat16");
            }
            sim.coll(r, "0", "nccl:all_reduce", {1024}, "Float");
        }
    sim.halt[2] = 9; // step 3's first op
    HangCase c{ring ? "pp_ring_active_only" : "pp_pipeline_active_only", sim.run(), {}, 4, {}};
    activeOnly(c.dumps);
    // The p2p finding shows the earliest pending op: the pipeline's receive (p2p seq 4 on rank 3)
    // or the ring's send from rank 1 (its 7th p2p op in the group).
    c.expected = {expect("0", "empty_dump", 4, {2, 3}, {}, {0, 1}, true, {"1"}),
                  expect("1", "empty_dump", ring ? 7 : 4, {2}, {}, {1, 3}, false, {}, true)};
    return c;
}

// Every member entered the last all_reduce and none completed it (a hang inside NCCL or the
// network), active-only dumps: no suspect, a warning naming the collective.
HangCase allEnteredActiveOnly()
{
    Sim sim(4);
    sim.group("0", "default_pg", range(0, 4));
    for (int64_t r = 0; r < 4; ++r)
        for (int i = 0; i < 5; ++i)
            sim.coll(r, "0", "nccl:all_reduce", {1024}, "Float");
    sim.neverCompletes.insert({"0", 5});
    HangCase c{"all_entered_active_only", sim.run(), {}, 4, {}};
    activeOnly(c.dumps);
    return c;
}

// pg_config's "ranks" as FlightRecorder.cpp's ranks_str writes it: "[0, 1, 2]".
std::string ranksText(const std::vector<int64_t> &ranks)
{
    std::string t = "[";
    for (size_t k = 0; k < ranks.size(); ++k)
        t += (k ? ", " : "") + std::to_string(ranks[k]);
    return t + "]";
}

nlohmann::json entryJson(const FrEntry &e)
{
    using nlohmann::json;
    return {{"record_id", e.recordId},
            {"pg_id", e.pgId},
            {"process_group", {e.pgName, e.pgDesc}},
            {"collective_seq_id", e.collectiveSeqId},
            {"p2p_seq_id", e.p2pSeqId},
            {"op_id", e.opId},
            {"profiling_name", e.profilingName},
            {"time_created_ns", e.timeCreatedNs},
            {"input_sizes", e.inputSizes},
            {"input_dtypes", e.inputDtypes},
            {"output_sizes", e.outputSizes},
            {"output_dtypes", e.outputDtypes},
            {"state", e.state},
            {"time_discovered_started_ns", e.timeDiscoveredStartedNs ? json(*e.timeDiscoveredStartedNs) : json(nullptr)},
            {"time_discovered_completed_ns", e.timeDiscoveredCompletedNs ? json(*e.timeDiscoveredCompletedNs) : json(nullptr)},
            {"retired", e.retired},
            {"timeout_ms", e.timeoutMs},
            {"is_p2p", e.isP2p},
            {"duration_ms", e.durationMs ? json(*e.durationMs) : json(nullptr)},
            {"frames", [&] {
                 json f = json::array();
                 for (const auto &s : e.frames) {
                     // "name (file:line)" -> {name, filename, line}
                     const size_t open = s.rfind(" ("), colon = s.rfind(':');
                     if (open != std::string::npos && colon != std::string::npos && colon > open)
                         f.push_back({{"name", s.substr(0, open)},
                                      {"filename", s.substr(open + 2, colon - open - 2)},
                                      {"line", std::atoll(s.c_str() + colon + 1)}});
                     else
                         f.push_back({{"name", s}, {"filename", ""}, {"line", 0}});
                 }
                 return f;
             }()}};
}

} // namespace

std::vector<HangCase> generateHangCases()
{
    // nested_ep stays last (tests take it as cases.back()).
    return {neverEnters(),         otherSize(),          emptyAndAbsent(),
            p2pDesync(),           coalescedHealthy(),   coalescedOtherSize(),
            coalescedNeverEntered(), batchP2pHealthy(),  nestedEpActiveOnly(),
            pipelineActiveOnly(false), pipelineActiveOnly(true), allEnteredActiveOnly(),
            nestedEp()};
}

HangCase generateHangScale(int ranks, int entriesPerRank)
{
    ranks = std::max(16, ranks - ranks % 8);
    entriesPerRank = std::max(4, entriesPerRank);
    const int64_t culprit = ranks / 2 + 3;
    HangCase c;
    c.name = "scale_" + std::to_string(ranks) + "x" + std::to_string(entriesPerRank);
    c.worldSize = ranks;
    std::vector<FrProcessGroup> groups;
    groups.push_back({"0", "default_pg", range(0, ranks)});
    for (int t = 0; t < ranks / 8; ++t)
        groups.push_back({std::to_string(1 + t), "TENSOR_MODEL_PARALLEL_GROUP", range(8 * t, 8 * t + 8)});
    // Op k of the window: a world all_reduce when k % 4 == 3, else a TP all_reduce; the
    // last op is forced to TP. The window is the ring buffer's tail of a longer run.
    const int64_t worldBase = 10000, tpBase = 30000;
    int64_t tpLastSeq = -1;
    // Python stacks as the recorder captures them (innermost first), 14 frames each.
    std::vector<std::string> tpStack = {
        "all_reduce (torch/distributed/distributed_c10d.py:2806)",
        "wrapper (torch/distributed/c10d_logger.py:81)",
        "reduce_from_tensor_model_parallel_region (megatron/core/tensor_parallel/mappings.py:428)",
        "forward (megatron/core/tensor_parallel/layers.py:1021)",
        "_call_impl (torch/nn/modules/module.py:1750)",
        "_wrapped_call_impl (torch/nn/modules/module.py:1739)",
        "forward (megatron/core/transformer/attention.py:530)",
        "_call_impl (torch/nn/modules/module.py:1750)",
        "_wrapped_call_impl (torch/nn/modules/module.py:1739)",
        "forward (megatron/core/transformer/transformer_layer.py:371)",
        "forward (megatron/core/transformer/transformer_block.py:545)",
        "forward (megatron/core/models/gpt/gpt_model.py:264)",
        "forward_step (pretrain_gpt.py:205)",
        "train_step (megatron/training/training.py:1120)"};
    std::vector<std::string> worldStack = tpStack;
    worldStack[2] = "all_reduce_gradients (megatron/core/distributed/distributed_data_parallel.py:389)";
    worldStack[3] = "finalize_model_grads (megatron/core/distributed/finalize_model_grads.py:250)";
    c.dumps.resize(size_t(ranks));
    for (int64_t r = 0; r < ranks; ++r) {
        FrDump &d = c.dumps[size_t(r)];
        d.version = "2.4";
        d.rank = r;
        d.json = true;
        d.path = "rank" + std::to_string(r) + ".json";
        // A rank records only the groups it is a member of (ProcessGroupNCCL's constructor).
        d.pgConfig = {groups[0], groups[size_t(1 + r / 8)]};
        const std::string tp = std::to_string(1 + r / 8);
        const bool culpritGroup = r / 8 == culprit / 8;
        const int n = r == culprit ? entriesPerRank - 1 : entriesPerRank;
        d.entries.reserve(size_t(n));
        int64_t ws = worldBase, ts = tpBase;
        FrGroupStatus sw{"0", -1, -1, -1}, st{tp, -1, -1, -1};
        for (int k = 0; k < n; ++k) {
            const bool world = k % 4 == 3 && k != entriesPerRank - 1;
            FrEntry e;
            e.recordId = 100000 + k;
            e.opId = e.recordId;
            e.pgName = world ? "0" : tp;
            e.pgDesc = world ? "default_pg" : "TENSOR_MODEL_PARALLEL_GROUP";
            e.pgId = world ? 0 : 1 + r / 8;
            e.collectiveSeqId = world ? ++ws : ++ts;
            e.p2pSeqId = 0;
            e.profilingName = "nccl:all_reduce";
            e.inputSizes = {{world ? 1048576 : 4096}};
            e.outputSizes = e.inputSizes;
            e.inputDtypes = {world ? "Float" : "BFloat16"};
            e.outputDtypes = e.inputDtypes;
            e.timeCreatedNs = kBaseNs + int64_t(k) * 1'000'000 + r;
            e.timeDiscoveredStartedNs = e.timeCreatedNs + 1000;
            e.timeoutMs = 600000;
            e.frames = world ? worldStack : tpStack;
            const bool stuck = culpritGroup && k == entriesPerRank - 1;
            e.state = stuck ? "started" : "completed";
            if (!stuck) {
                e.timeDiscoveredCompletedNs = e.timeCreatedNs + 200000;
                e.durationMs = 0.2;
                e.retired = true;
            }
            FrGroupStatus &s = world ? sw : st;
            s.lastEnqueued = e.collectiveSeqId;
            s.lastStarted = e.collectiveSeqId;
            if (!stuck)
                s.lastCompleted = e.collectiveSeqId;
            if (!world && k == entriesPerRank - 1)
                tpLastSeq = e.collectiveSeqId;
            d.entries.push_back(std::move(e));
        }
        d.pgStatus = {sw, st};
    }
    std::vector<int64_t> waiting;
    for (int64_t r = culprit / 8 * 8; r < culprit / 8 * 8 + 8; ++r)
        if (r != culprit)
            waiting.push_back(r);
    c.expected = {expect(std::to_string(1 + culprit / 8), "missing", tpLastSeq, {culprit}, {}, waiting)};
    return c;
}

bool writeHangDumps(const HangCase &c, const std::string &dir, std::string &error, HangDumpFormat format)
{
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) {
        error = dir + ": " + ec.message();
        return false;
    }
    for (const FrDump &d : c.dumps) {
        nlohmann::json pgConfig = nlohmann::json::object(), pgStatus = nlohmann::json::object();
        for (const auto &g : d.pgConfig)
            pgConfig[g.name] = {{"name", g.name}, {"desc", g.desc}, {"ranks", ranksText(g.ranks.get())}};
        for (const auto &s : d.pgStatus)
            pgStatus[s.name] = {{"last_enqueued_collective", s.lastEnqueued},
                                {"last_started_collective", s.lastStarted},
                                {"last_completed_collective", s.lastCompleted}};
        nlohmann::json entries = nlohmann::json::array();
        for (const FrEntry &e : d.entries)
            entries.push_back(entryJson(e));
        nlohmann::json doc = {{"version", d.version.empty() ? "2.4" : d.version},
                              {"rank", d.rank.value_or(-1)},
                              {"pg_config", pgConfig},
                              {"pg_status", pgStatus},
                              {"entries", entries}};
        const bool pickle = format == HangDumpFormat::Pickle;
        if (!pickle)
            for (auto &e : doc["entries"])
                e.erase("frames"); // dump_json writes no stacks
        const std::string path = dir + "/rank" + std::to_string(d.rank.value_or(-1)) + (pickle ? "" : ".json");
        std::ofstream f(path, std::ios::binary);
        f << (pickle ? toTorchPickle(doc) : doc.dump());
        if (!f) {
            error = path + ": cannot write";
            return false;
        }
    }
    return true;
}

} // namespace tracegen
