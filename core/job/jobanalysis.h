// SPDX-License-Identifier: MIT
// The cross-rank layer of a job: collective matching, clock alignment, arrival
// and waits, stragglers and the job critical path, computed from the small
// per-rank summaries only (display-free, no traces needed).
#pragma once

#include "jobwhatif.h"
#include "analysis/ranksummary.h"
#include "stragglerwhatif.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace syncscope {

// How the ranks' clocks are put on one time base (docs/job_analysis.md, "Clocks").
enum class ClockMode : uint8_t {
    Align, // shift every rank so that matched collective ends coincide (the default)
    Auto,  // shift a rank only where its collective ends disagree with the reference beyond noise
    Trust, // keep every rank's own clock (one host, or traces already aligned)
};
// "auto", "align", "trust" (false for anything else).
bool parseClockMode(std::string_view text, ClockMode &out);
const char *clockModeName(ClockMode mode);
// Auto keeps a rank's clock when |offset| <= max(this, kAutoClockSpreads x its spread),
// and never when the offset exceeds kAutoClockMaxKeptUs (no shared clock is a second off).
constexpr double kAutoClockFloorUs = 10;
constexpr double kAutoClockSpreads = 3;
constexpr double kAutoClockMaxKeptUs = 1e6;

struct JobOptions {
    int64_t clockReferenceRank = -1; // -1: the lowest rank present
    ClockMode clocks = ClockMode::Align;
    std::vector<WhatIfRule> whatIf; // --what-if rules (docs/what_if.md, "Jobs"); none: no what-if
    // --straggler-whatif (docs/what_if.md, "Straggler what-if"): needs the ranks' GPU
    // timelines (JobRunOptions::gpuTimelines).
    bool stragglerWhatIf = false;
    StragglerOptions straggler;
};

// Why a rank arrived late at a collective, relative to the earliest arriver e
// (docs/job_analysis.md, "Lateness"): the interval since its previous common
// synchronisation point s (its previous collective's end, or for its first
// collective its step start) is split into start skew (s_r - s_e) and work
// excess ((a_r - s_r) - (a_e - s_e)), each clamped to what is left of the lateness.
struct RankLateness {
    double lateUs = 0;        // arrival - earliest arrival, >= 0
    double startSkewUs = 0;   // explained by starting the interval later
    double workExcessUs = 0;  // explained by a longer interval than the earliest arriver's
    double unexplainedUs = 0; // the rest (0 unless a part was negative)
    bool fromWindowStart = false; // s is the step (or trace) start: no earlier collective in the window
};

// An op of the last arriver that ran longer than the same op on the other ranks in
// the same interval (docs/job_analysis.md, "Root causes").
struct RootCauseOp {
    int64_t rank = -1;
    std::string op;
    bool gpu = false;
    double startUs = 0, durUs = 0; // aligned start, duration
    double excessUs = 0;           // duration - median of the same op (name, occurrence) on the other ranks
    // The excess of its own time: excessUs less its children's excess. Causes are ranked
    // by it, so the innermost op that grew leads and an ancestor is named only when its
    // own time grew (a parent's excess holds its children's).
    double selfExcessUs = 0;
    std::string context;           // its enclosing ops, outermost first, " > " between ("" at top level)
};

// The waits an op caused (Scalasca's delay cost): direct at the collective its excess
// delayed, propagated where a rank that waited there was then late itself.
struct DelayCost {
    int64_t rank = -1;
    std::string op;
    double directUs = 0, propagatedUs = 0;
    bool gpu = false;
    double firstStartUs = 0; // aligned start of its earliest occurrence charged (to show it)
};

// One collective instance matched across the ranks that took part.
struct MatchedCollective {
    std::string name;               // collective name (or kernel name when unknown)
    std::string processGroup;       // "" when unknown
    std::string matchedBy;          // "seq", "p2p_order", "process_group_order" or "kernel_order"
    std::vector<int64_t> ranks;     // participants, ascending
    std::vector<uint32_t> index;    // per participant: index into that rank's RankSummary::collectives
    std::map<int64_t, double> arrivalUs; // rank -> aligned kernel start (µs, reference clock)
    std::map<int64_t, double> endUs;     // rank -> aligned kernel end
    std::map<int64_t, double> waitUs;    // rank -> last arrival - own arrival, >= 0
    int64_t lastArrivalRank = -1;
    double spreadUs = 0;            // last arrival - first arrival
    bool complete = true;           // every expected participant was found
    std::map<int64_t, RankLateness> lateness; // rank -> why it arrived when it did
    // The last arriver's lateness is mostly start skew at its first collective of the
    // window: the cause lies before what was recorded (often the profiler starting
    // later on that rank), so nobody's work is blamed.
    bool windowEdge = false;
    std::vector<RootCauseOp> rootCauses; // the last arriver's ops with the most excess, at most 5
    // The collective whose late end the last arriver's start skew carried on (its
    // previous one, whose causes get this wait's skew share as propagated cost), -1 none.
    int32_t skewFrom = -1;
    // The op name whose occurrences together had the most excess (a slower GPU spreads
    // its delay over every kernel): name, occurrences with excess, their summed excess.
    std::string topOpByName;
    int64_t topOpCount = 0;
    double topOpExcessUs = 0;
};

struct RankJobStats {
    int64_t rank = -1;
    double clockOffsetUs = 0;       // ADDED to this rank's timestamps to reach the reference clock
    double clockSpreadUs = 0;       // robust spread (e.g. MAD) of the per-collective offset estimates
    int64_t offsetSamples = 0;
    // "reference", "aligned" (shifted), "trusted" (own clock kept: --clocks trust, auto where
    // the ends agree within noise, or the reference's host) or "unaligned" (no collective
    // path to the reference). Ranks of one host move together (their host's offset).
    std::string clock = "trusted";
    std::string host;               // RankSummary::host ("" unknown): its host's offset when it shares one
    double fittedOffsetUs = 0;      // the offset the fit found (auto: also where it was not applied)
    double collectiveWaitUs = 0;    // waits suffered
    double collectiveWaitCausedUs = 0;
    int64_t lastArrivals = 0;
    int64_t collectives = 0;        // matched instances this rank took part in
    // When this rank's trace starts after the job's earliest (aligned, µs): where a
    // simulator replaying the rank's .et should start it (issue 21).
    double startOffsetUs = 0;
    // collectiveWaitCausedUs split by why this rank came last (each instance's waits
    // in proportion to its lateness parts): its extra work, its start skew, the rest.
    double workDelayCostUs = 0;
    double startSkewCostUs = 0;
    double unexplainedCostUs = 0;
};

struct JobCriticalPathRow {
    int64_t rank = -1;
    std::string op;
    double startUs = 0, durUs = 0;  // aligned
    std::string boundBy;
};

// One stretch of the job step's wait-state path (docs/job_analysis.md, "Where the
// job's step time went"): a rank's own work between collectives, or a collective
// from its last arrival to its end.
struct JobPathSegment {
    int64_t rank = -1;
    double startUs = 0, endUs = 0; // aligned
    bool collective = false;       // false: work
    int32_t collectiveIndex = -1;  // into JobAnalysis::collectives when collective
    // Work: the CPU side of the same stretch, between the launches of the collectives
    // around it (the CPU runs ahead of the GPU), aligned; the ops there are on the path.
    double cpuStartUs = 0, cpuEndUs = 0;
    // Work: the rank's critical-path nodes of this stretch (own clock), whose longest
    // path gives the stretch's ops (HTA's semantics inside a rank).
    int64_t windowFromNs = 0, windowToNs = 0;
};

// The job step's time, walked back from the rank that ended last: at each
// collective where that rank waited, the walk continues on the last arriver. The
// parts add up to the step time exactly.
struct JobStepTime {
    bool valid = false;
    double stepTimeUs = 0;      // latest step end - earliest step start (aligned)
    double workUs = 0;          // the ranks' own work on the path
    double waitUs = 0;          // collectives on the path, from the last arrival to the end
    double unmatchedUs = 0;     // of waitUs: kernels of collectives no other rank matched (partner unknown)
    double outsideWindowUs = 0; // before the path's first rank started the step (start skew)
    int64_t stepNumber = -1;    // the ProfilerStep#N walked (most ranks' window), -1: whole traces
    size_t ranksLeftOut = 0;    // ranks without that step
    size_t ranksOtherWindow = 0; // ranks whose critical path is of another window (no ops on the path)
    std::vector<JobPathSegment> segments; // in time order
};

struct JobCriticalPath {
    bool valid = false;
    std::string reason;             // why not, when !valid
    double weightUs = 0;
    std::vector<std::pair<std::string, double>> summaryPct; // bound_by -> percent
    std::vector<int64_t> ranksOnPath;
    std::vector<uint32_t> collectivesCrossed; // indices into JobAnalysis::collectives
    std::vector<JobCriticalPathRow> path;
    JobStepTime stepTime;
};

struct JobAnalysis {
    std::optional<int64_t> worldSize;
    int64_t clockReferenceRank = -1;
    ClockMode clockMode = ClockMode::Align;
    std::vector<RankJobStats> ranks;           // same order as the input summaries
    std::vector<MatchedCollective> collectives; // in aligned time order
    // Ranks whose extra work made others wait, by that delay cost (descending); a rank
    // that was last only because it started later is not one of them.
    std::vector<int64_t> stragglers;
    std::vector<int64_t> startSkewed;          // ranks whose start skew made others wait, by that cost
    std::vector<DelayCost> delayCosts;         // per (rank, op), by direct + propagated, descending
    JobCriticalPath criticalPath;
    std::optional<JobWhatIf> whatIf;           // with JobOptions::whatIf
    std::optional<StragglerWhatIf> straggler;  // with JobOptions::stragglerWhatIf
    Diagnostics diagnostics;                   // unmatched / inconsistent collectives, alignment problems
};

// Runs the cross-rank analysis. Never throws for bad input (problems are diagnostics).
// Near-linear in the total number of collectives (no all-pairs matching).
JobAnalysis analyzeJob(const std::vector<RankSummary> &ranks, const JobOptions &options);

// The collectives `rank` arrived last at, as indices into JobAnalysis::collectives,
// sorted by the waits it caused there (descending), at most `limit` of them.
std::vector<uint32_t> collectivesDelayedBy(const JobAnalysis &job, int64_t rank, size_t limit);

// The waits a collective's last arriver caused there: the sum of the others' waits.
double waitCausedUs(const MatchedCollective &collective);

} // namespace syncscope
