// SPDX-License-Identifier: MIT
// The stages of analyzeJob, shared between its source files (not installed API).
#pragma once

#include "jobanalysis.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace syncscope::job {


// One rank's kernel in a collective instance: indices into the summaries and
// into that summary's collectives.
struct Participation {
    uint32_t rank = 0;
    uint32_t collective = 0;
};

struct Instance {
    std::string name, processGroup, matchedBy;
    std::vector<Participation> parts;
    std::string population; // the process group (or kernel name) whose ranks should take part
    size_t expected = 0;    // participants the group should have (0: every rank of the population)
};

// Groups every rank's collective kernels into instances (near-linear: hash maps
// keyed by process group + seq, by order per group and name, or by order per
// kernel name; send/recv by order per (group, src, dst)). `use[i]` false skips
// summary i (a duplicate rank). Instances seen on one rank only are dropped and counted.
std::vector<Instance> matchCollectives(const std::vector<RankSummary> &ranks, const std::vector<uint8_t> &use,
                                       Diagnostics &diag);

struct ClockFit {
    std::vector<double> offsetNs;  // per summary: added to its clock to reach the reference clock
    std::vector<double> spreadNs;  // MAD of the estimates
    std::vector<int64_t> samples;
    std::vector<uint8_t> aligned;
};

// Ranks of one host (RankSummary::host) share a clock: each member gets its host's
// offset (the median of its aligned members' fits; the reference's host: 0) and their
// spread around it. Returns the hosts of two ranks or more.
size_t alignHosts(const std::vector<RankSummary> &ranks, const std::vector<uint8_t> &use, uint32_t reference,
                  ClockFit &fit);

// Offsets from matched collective ends, propagated from the reference over the
// participation graph (a rank sharing no collective with the reference is
// aligned through ranks already aligned). O(total participations).
ClockFit alignClocks(const std::vector<RankSummary> &ranks, const std::vector<Instance> &instances, uint32_t reference,
                     Diagnostics &diag);

// The job critical path (docs/job_analysis.md): the step's wait-state walk
// (jobStepTime), inside each stretch of work the rank's own critical path over its
// nodes there. `offsetNs` per summary. `weights` (what-if): per summary, the weight
// of each of its graph's edges (NaN: left out) instead of the measured one; the step
// is then replayed with them.
JobCriticalPath jobCriticalPath(const std::vector<RankSummary> &ranks, const std::vector<uint8_t> &use,
                                const std::vector<MatchedCollective> &collectives, const std::vector<double> &offsetNs,
                                Diagnostics &diag, const std::vector<std::vector<double>> *weights = nullptr);

// What-if across the job (jobwhatif.cpp): the rules on every rank's graph, the
// job critical path recomputed over the re-weighted graphs.
JobWhatIf jobWhatIf(const std::vector<RankSummary> &ranks, const std::vector<uint8_t> &use,
                    const std::vector<MatchedCollective> &collectives, const std::vector<double> &offsetNs,
                    const std::vector<WhatIfRule> &rules, const JobCriticalPath &baseline, Diagnostics &diag);

double median(std::vector<double> values); // 0 for none

// The rank's previous synchronisation point before its collective k (own clock, ns):
// the end of its previous collective kernel in the same step, else the start of the
// step holding the collective (the trace start when none); fromWindowStart says which.
int64_t previousSyncNs(const RankSummary &r, uint32_t k, bool &fromWindowStart);

// The ranks' graphs re-timed under a what-if's edge weights (jobreplay.cpp): how far
// each collective kernel's start and end and each rank's end moved (ns). Linear in
// the edges of all graphs plus the participations of the collectives joined.
struct JobReplay {
    bool ok = false;
    std::string reason;
    std::vector<std::unordered_map<uint32_t, std::pair<double, double>>> kernels; // per summary: own collective -> shifts
    std::vector<double> endShiftNs;                                               // per summary
};
JobReplay replayJob(const std::vector<RankSummary> &ranks, const std::vector<uint8_t> &use,
                    const std::vector<MatchedCollective> &collectives, const std::vector<double> &offsetNs,
                    const std::vector<std::vector<double>> &weights);

// The job step (as measured, or as `replay` moved it) walked back through the waits
// (jobsteptime.cpp). O(collectives).
JobStepTime jobStepTime(const std::vector<RankSummary> &ranks, const std::vector<uint8_t> &use,
                        const std::vector<MatchedCollective> &collectives, const std::vector<double> &offsetNs,
                        const JobReplay *replay);

// Fills MatchedCollective::rootCauses and JobAnalysis::delayCosts (jobrootcause.cpp).
// Linear in the ops of the intervals compared.
void findRootCauses(const std::vector<RankSummary> &ranks, const std::vector<uint8_t> &use,
                    const std::vector<double> &offsetNs, JobAnalysis &job);

// Fills MatchedCollective::lateness and windowEdge (joblateness.cpp). O(participations).
void decomposeLateness(const std::vector<RankSummary> &ranks, const std::vector<uint8_t> &use,
                       const std::vector<double> &offsetNs, std::vector<MatchedCollective> &collectives);

} // namespace syncscope::job
