// SPDX-License-Identifier: MIT
// Cross-rank hang analysis over flight recorder dumps already read (issue 29, part 2):
// per process group, the first collective (or point-to-point transfer) the members do not
// agree on, who never entered it, who entered it differently and who waits in it; then the
// findings ranked root cause first (a finding whose missing ranks are stuck in another
// finding is that finding's consequence). Display-free; near-linear in the entries.
//
// Rules as implemented:
//  - Ranks: FrDump::rank, else the dump's position in the vector (a warning). Ranks in
//    `missingDumps`, and ranks < worldSize with no dump at all, have "no dump"; a dump with
//    no entries is an "empty dump" (its pg_status is then ignored too). Both are dataless.
//  - Membership: the union of every dump's pg_config per group name (the first config seen
//    gives the order of the group's ranks); a group seen only in entries has the ranks that
//    recorded it (a warning).
//  - Progress per (rank, group): pg_status where the dump has it for that group, else the
//    entries (last enqueued = highest collective_seq_id, started = highest started or
//    completed, completed = highest completed; of blocks, see below).
//  - Collectives (not is_p2p and not a "send"/"recv" profiling name) match by
//    collective_seq_id. A group's collective finding is at the lowest seq s where either
//    the entries recorded at s disagree (profiling_name, input dtypes, and input sizes except
//    for all_to_all variants, whose splits may differ legitimately; the reference is the
//    most common signature, ties to the lowest rank's; a disagreement every member with data
//    completed is only a warning) or a member's last enqueued seq is
//    below s while another member's is at least s (s = lowest last enqueued + 1). When the
//    members with data agree and one of them waits, dataless members make a finding at the
//    lowest seq not completed by everyone.
//    missing: never enqueued s (last enqueued < s, or dataless); mismatched: recorded s
//    with another signature; waiting: enqueued s with the reference signature (or evicted
//    it from its ring buffer) and last completed < s. The three sets are disjoint.
//  - Coalesced blocks: a rank's collective entries of one group and collective_seq_id are
//    one block (PyTorch records a slow-path coalesced block as its member ops, then a marker
//    "nccl:coalesced" / "nccl:ALLGATHER_coalesced" / "nccl:REDUCE_SCATTER_coalesced", all
//    at one seq). Its signature is its entries' signatures in record order (a block of one
//    entry: that entry's), so a block matches across ranks as one op; its state is the
//    marker's where it has one (the Work the watchdog follows), else its least advanced
//    member's. A suspect or mismatch at a block shows "MARKER [member, member, ...]" (at most
//    8 names), the members' input sizes and dtypes in order. "nccl:allreduce_coalesced"
//    and the other fused *_coalesced ops are one entry and no marker.
//  - Point-to-point: the peer from profiling_name "nccl:send A->B" / "nccl:recv B<-A"
//    (group ranks, mapped to global ranks through the group's pg_config order; a number
//    outside it is taken as global). p2p_seq_id counts every p2p op of a rank in a group,
//    so it only agrees between the two ends when they talk to nobody else; the match is
//    therefore per directed pair (src, dst) in p2p_seq_id order, aligned after each side's
//    last completed op on that pair (a completed transfer had its counterpart; older ones
//    may be evicted). The k-th pending send pairs with the k-th pending receive: other
//    sizes or dtypes -> desync (mismatched: the receiver); a pending op with no
//    counterpart -> its peer is missing, or mismatched when the peer is stuck in another
//    p2p op of the group. A group's p2p finding is the earliest (time_created) such op.
//    batch_isend_irecv: its sends/recvs share one p2p_seq_id and end in a "nccl:coalesced"
//    marker (is_p2p, or following the batch's p2p entries); the marker is no p2p op and its
//    state is the state of the rank's p2p entries of that p2p_seq_id before it.
//  - Explanation: a missing rank of finding F is explained by the finding E != F in which
//    it is stuck (waiting or mismatched), else by the earliest finding E created before F
//    in which it is missing too (it stopped before E, so it never reached F). F is a
//    consequence when every missing rank is explained and it has no mismatched rank; its
//    explainers list F in `explains`. Findings in an explanation cycle (a cross-group
//    deadlock) are made roots (a warning).
//  - Order: roots first, then consequences; each by kind (desync, missing, empty_dump,
//    no_dump: evidence of a wrong op first, then a rank seen to stop, then ranks we cannot
//    see), then the stuck op's earliest time_created, then group name, then seq.
#pragma once

#include "hang/flightrecorder.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace syncscope {

struct HangMismatch {
    int64_t rank = -1;
    std::string op, dtype;           // dtype: input dtypes joined by ","
    std::vector<std::vector<int64_t>> inputSizes;
};

// What a root finding's missing rank did last (beyond who is missing: why).
struct HangLastEntry {
    int64_t rank = -1;
    std::string dump;                // "ok", "empty" (no active entry: all it enqueued completed), "none"
    std::string pgName, pgDesc, op, state; // its dump's last entry ("" none)
    int64_t collectiveSeqId = -1, p2pSeqId = -1;
    bool p2p = false;
    int64_t timeCreatedNs = -1;
    std::vector<std::string> frames; // the entry's stack where recorded, innermost first
    int64_t groupLastEnqueued = -1;  // its last enqueued collective in the finding's group (entries or pg_status)
};

struct HangSuspect {
    std::string pgName, pgDesc;      // pg_config's key (pg_id in the JSON) and desc
    std::string op;                  // the reference profiling_name ("nccl:all_to_all")
    std::vector<std::vector<int64_t>> inputSizes;
    std::string dtype;               // input dtypes joined by ","
    bool p2p = false;
    int64_t collectiveSeqId = -1;    // collectives
    int64_t p2pSeqId = -1;           // p2p: the stuck op's p2p_seq_id on the rank that posted it
    std::vector<int64_t> missingRanks, mismatchedRanks, waitingRanks; // ascending
    std::vector<int64_t> emptyDumpRanks, noDumpRanks;                 // subsets of missingRanks
    std::vector<HangMismatch> mismatches;                             // one per mismatched rank
    std::string kind;                // "desync", "missing", "empty_dump", "no_dump"
    int64_t timeCreatedNs = -1;      // earliest time_created of the stuck op (-1 unknown)
    bool root = false;
    std::vector<size_t> explains;    // indices of the suspects this one explains
    std::vector<size_t> explainedBy;
    // Missing ranks that wait (or entered another op) in another finding: held up there,
    // not where the hang starts. Ascending, a subset of missingRanks; the first such finding's group.
    std::vector<int64_t> heldRanks;
    std::vector<std::string> heldIn;        // per held rank: "pg 1 p2p", "pg 74"
    std::vector<HangLastEntry> lastEntries; // roots: one per missing rank not held elsewhere
};

struct HangMemberStatus {
    int64_t rank = -1;
    int64_t lastEnqueued = -1, lastStarted = -1, lastCompleted = -1; // collective seq ids
    std::string state;               // of its last entry in the group: completed/started/scheduled/never
    std::string dump;                // "ok", "empty", "none"
};

struct HangGroupStatus {
    std::string pgName, pgDesc;
    std::vector<HangMemberStatus> members; // in pg_config order
};

struct HangAnalysis {
    std::vector<HangSuspect> suspects;  // roots first
    std::vector<HangGroupStatus> groups; // by group name (numeric names numerically)
    std::vector<std::string> warnings;
    size_t roots() const;
};

HangAnalysis analyzeHang(const std::vector<FrDump> &dumps, const std::vector<int64_t> &missingDumps = {},
                         int64_t worldSize = -1);

// "4027x5120" (inputs joined by ","), "bf16" (dtypes shortened).
std::string hangSizesText(const std::vector<std::vector<int64_t>> &sizes);
std::string hangDtypeText(const std::string &dtypes);
// Leads with the root cause: "hang: pg 74 EXPERT_MODEL_PARALLEL_GROUP nccl:all_to_all
// 4027x5120 bf16 seq 3 - rank 12 never entered; 1 rank waits", one line per root, then
// the consequences. "no hang found" when there is no suspect.
std::string hangSummaryText(const HangAnalysis &analysis);
// The report's `hang` object: {suspects: [...], groups: [...], warnings: [...]}.
nlohmann::json hangAnalysisJson(const HangAnalysis &analysis);

} // namespace syncscope
