// SPDX-License-Identifier: MIT
// What-if: re-weight the critical-path graph of a window and see the projected
// step time, critical path and timeline (docs/what_if.md states the semantics).
// The graph is reused, never rebuilt: an evaluation is O(edges).
#pragma once

#include "criticalpath.h"
#include "model/kinetotrace.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace re2 {
class RE2;
}

namespace syncscope {

// Bounds of the rule language (docs/what_if.md, "Limits"), checked by parseWhatIfRule.
constexpr size_t kWhatIfMaxRuleBytes = 4096;     // one rule's text
constexpr size_t kWhatIfMaxPatternBytes = 1024;  // one name~REGEX pattern
constexpr double kWhatIfMaxFactor = 1e6;         // SELECTOR*FACTOR: FACTOR in [0, 1e6]
// SELECTOR=DURATION: at most 2^60 ns, the longest `dur` a trace may hold
// (docs/hardening.md); it is also where a re-weighted edge saturates.
constexpr double kWhatIfMaxDurationNs = 1152921504606846976.0; // 2^60
constexpr double kWhatIfMaxDurationUs = kWhatIfMaxDurationNs / 1000.0;

// Which events a rule applies to: every term must hold ("&").
struct WhatIfSelector {
    struct Term {
        enum Kind { NameRegex, NameEquals, Category, Comm, Compute, Stream, Rank, Event, Coll, Pg, Step };
        Kind kind = NameEquals;
        std::string text;          // regex / name / category / collective / process group as written
        std::shared_ptr<const re2::RE2> regex; // NameRegex: compiled once, when the rule is parsed
        EventKind category = EventKind::Other;
        int64_t number = 0;        // Stream, Rank, Event (a traceEvents index), Step (N of ProfilerStep#N)
    };
    std::vector<Term> terms;
};

struct WhatIfRule {
    // SetStatistic: SELECTOR=median|mean|min, relative to the data (docs/what_if.md,
    // "Relative to the data"): each matching op's own time (a joined collective's
    // transfer in job mode) set to the statistic over the matching ops of its name.
    enum Action { Scale, Set, DropSync, SetStatistic } action = Scale;
    enum Statistic { Median, Mean, Min } statistic = Median; // SetStatistic
    std::string text;              // as the user wrote it
    WhatIfSelector selector;
    double factor = 1;             // Scale
    double durationUs = 0;         // Set
};

// "median", "mean", "min".
const char *whatIfStatisticName(WhatIfRule::Statistic statistic);

// The statistic of `values` (none: 0): the median as numpy's (the mean of the two
// middle values for an even count), the arithmetic mean, the minimum.
double whatIfStatistic(WhatIfRule::Statistic statistic, std::vector<double> values);

// The largest N a step=N selector takes (ProfilerStep numbers are int64, but a
// larger N is a typo, not a step).
constexpr int64_t kWhatIfMaxStep = int64_t(1) << 53;

// Parses "SELECTOR*FACTOR", "SELECTOR=DURATION" (µs, or with ns/us/ms/s) and
// "sync:SELECTOR=drop". SELECTOR: name~REGEX (RE2 syntax: linear time, no
// back-references), name=NAME, cat=kernel|cpu_op|runtime|memcpy|memset|user_annotation,
// comm, compute, stream=N, rank=N, event=N (one traceEvents entry), coll=NAME (collective
// name), pg=NAME (process group), step=N (inside ProfilerStep#N), or a bare name;
// "SELECTOR=median|mean|min" sets a relative duration (SetStatistic);
// terms joined by '&'. The bounds above are checked: a rule over 4 KiB, a pattern
// over 1 KiB or one RE2 refuses, a factor outside [0, 1e6] or a duration outside
// [0, 2^60 ns] is refused. Returns false with a sentence naming the rule in `error`.
bool parseWhatIfRule(std::string_view text, WhatIfRule &rule, std::string &error);

// Does a NameRegex term's pattern match somewhere in `name` (a search, like re.search)?
bool whatIfRegexSearch(const WhatIfSelector::Term &term, std::string_view name);

// The new weight of one operator-edge piece `w` of an op whose own time (the sum of
// its pieces) is `own`, under a Scale or Set rule (`firstPiece`: the op's first piece,
// which takes all of a Set duration when own is 0). Never NaN or infinite: saturates
// at ±kWhatIfMaxDurationUs (or |w| if larger). Shared by WhatIfEngine and the job what-if.
double whatIfPieceWeight(const WhatIfRule &rule, double w, double own, bool firstPiece);

// The `comm` selector: a collective kernel by name (nccl*/rccl*/hccl*, ncclKernel, ncclDevKernel).
bool isCommKernelName(std::string_view kernelName);

struct WhatIfRuleCount {
    std::string rule;
    int64_t matched = 0;           // events (or sync waits) of the window the rule changed
};

struct WhatIfMovedOp {
    uint32_t event = 0;
    double baselineStartUs = 0;    // trace time base (µs as in the file)
    double projectedStartUs = 0;
    double shiftUs = 0;            // projected - baseline
};

struct WhatIfResult {
    bool ok = false;
    std::string error;             // e.g. a rule that matches nothing
    double baselineUs = 0;         // the critical path weight as measured
    double projectedUs = 0;        // the critical path weight after the rules
    double speedup = 1;            // baseline / projected
    std::vector<WhatIfRuleCount> rules;
    std::vector<int32_t> pathNodes, pathEdges; // the projected critical path
    std::vector<CpSummaryRow> summary;         // its bound-by breakdown
    std::vector<double> edgeWeight;            // the re-weighted graph (removed edges: NaN)
    // Per graph node: how far the rules move it (µs, projected - baseline earliest time).
    std::vector<double> nodeShiftUs;
    std::vector<WhatIfMovedOp> topMoved;       // largest |shift| first, at most 20
};

// How far each moved event's start and end move, in ns (events that do not move
// are left out): what the GUI draws as the projected timeline.
using EventShifts = std::unordered_map<uint32_t, std::pair<double, double>>;
EventShifts eventShifts(const CriticalPathResult &cp, const WhatIfResult &result);

// Precomputes what every evaluation shares (topological order, baseline times).
class WhatIfEngine
{
public:
    // `cp` must be a successful analysis of `trace`; `rank` is the trace's rank (rank=N selectors).
    WhatIfEngine(const KinetoTrace &trace, const CriticalPathResult &cp, std::optional<int64_t> rank = {});

    WhatIfResult evaluate(const std::vector<WhatIfRule> &rules) const;

    // Does the selector hold for event `ev` (exposed for the GUI's "all like this").
    bool matches(const WhatIfSelector &selector, uint32_t ev) const;

private:
    // What coll=, pg= and step= look at, per event: built on first use (most rules
    // never need it), once, thread-safe.
    struct EventFacts {
        std::unordered_map<uint32_t, std::pair<std::string, std::string>> collective; // kernel -> (collective, pg)
        std::vector<int64_t> step; // per event: N of the ProfilerStep#N containing its start, -1 none
    };
    const EventFacts &facts() const;
    bool matchesWith(const WhatIfSelector &selector, uint32_t ev, std::vector<std::vector<int8_t>> *regexMemo) const;
    std::vector<double> earliest(const std::vector<double> &weight) const;

    const KinetoTrace &m_trace;
    const CriticalPathResult &m_cp;
    std::optional<int64_t> m_rank;
    std::vector<int32_t> m_topo;        // graph nodes in a topological order
    std::vector<double> m_baseline;     // earliest time per node with the measured weights
    mutable std::once_flag m_factsOnce;
    mutable std::unique_ptr<EventFacts> m_facts;
};

} // namespace syncscope
