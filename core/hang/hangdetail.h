// SPDX-License-Identifier: MIT
// Internal to the hang analysis (core/hang/hang*.cpp only, not installed): the state the
// phases of analyzeHang share and the helpers more than one of them needs. The rules are in
// hanganalysis.h.
#pragma once

#include "hang/hanganalysis.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace syncscope::hangdetail {

enum class DataKind : uint8_t { Ok, Empty, None };

struct Member {
    int64_t rank = -1;
    DataKind data = DataKind::None;
    int dump = -1;                  // index into dumps
    int64_t lastEnqueued = -1, lastStarted = -1, lastCompleted = -1;
    std::string_view lastState;     // of its last entry in the group ("" never)
    bool lastP2p = false;           // its last entry in the group was point-to-point
    bool statusKnown = false;       // pg_status gave its progress in the group
    // Active-only dumps (no completed entry anywhere): a rank with a dump, no entry in the
    // group and no pg_status for it finished all it enqueued there, or never did any;
    // nobody can tell, so it is judged in no finding of the group.
    bool unknown = false;
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

    Member &member(int64_t rank);
};

using RankData = std::unordered_map<int64_t, std::pair<DataKind, int>>; // rank -> (data, dump index)

// What the phases build up and read: the dumps, each rank's data, the groups.
struct HangState {
    const std::vector<FrDump> &dumps;
    std::vector<std::string> &warnings;             // the result's, in the order found
    RankData rankData;
    std::vector<Group> groups;
    std::unordered_map<std::string, size_t> groupIndex;
    bool activeOnly = false;                        // no dump holds a completed entry
    // Groups whose members all entered one collective and none completed it: the answer
    // when nothing else is found; else they are queued behind the hang (not reported).
    std::vector<std::string> insideCollective;

    Group &groupOf(const std::string &name);        // added when new
    void initMember(Member &m);                     // its data kind and dump (a rank with none: None)
};

// Phases, in the order analyzeHang runs them.
// Membership (hanganalysis.cpp): each rank's data kind, then the groups from pg_config.
RankData readRanks(const std::vector<FrDump> &dumps, const std::vector<int64_t> &missingDumps,
                   int64_t worldSize, std::vector<std::string> &warnings);
void mergeConfigs(HangState &st);
// Progress (hanganalysis.cpp): one pass over the entries (blocks, p2p ops), then pg_status.
void readEntries(HangState &st);
void applyPgStatus(HangState &st);
// Findings (hangmatch.cpp): per group, its collective finding, then its p2p finding.
std::optional<HangSuspect> collectiveFinding(HangState &st, const Group &g);
std::optional<HangSuspect> p2pFinding(const HangState &st, const Group &g);
// Explanation and order (hangrank.cpp): roots, cycles, the final order into out.suspects.
void rankFindings(std::vector<HangSuspect> found, HangAnalysis &out);
std::vector<HangGroupStatus> groupStatus(const std::vector<Group> &groups);
// Each root's missing ranks: their last entries (hanganalysis.cpp).
void describeMissing(const HangState &st, HangAnalysis &out);

// Helpers shared by the phases.
// The member's progress in its group is known: from its entries or its pg_status.
inline bool progressKnown(const Member &m) { return m.data == DataKind::Ok || m.statusKnown; }

inline uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    return h;
}

inline bool isP2pName(std::string_view op)
{
    return op.find("send") != std::string_view::npos || op.find("recv") != std::string_view::npos;
}

constexpr uint64_t kBlockSeed = 0xc0a1e5cedULL;

uint64_t signature(const FrEntry &e);
bool parseInt(std::string_view s, int64_t &v);
// The entry endCoalescing records for a block: "nccl:coalesced", "nccl:ALLGATHER_coalesced",
// "nccl:REDUCE_SCATTER_coalesced" (not "nccl:allreduce_coalesced", one fused op).
bool isCoalescedMarker(std::string_view op);

} // namespace syncscope::hangdetail
