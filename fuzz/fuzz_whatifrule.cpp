// SPDX-License-Identifier: MIT
// The what-if rule language (docs/what_if.md) and --parallelism: arbitrary text, one rule per line
// (at most 8), parsed, and the rules that parse evaluated on a small fixed pair
// (tests/data/golden/trace_link, analysed once) by the single-trace engine and by
// the job layer's re-weighting of the same rank's critical-path graph. Invariants:
// a refused rule says why; a parsed rule is inside the documented bounds; every
// projected figure is finite; nothing crashes, hangs or grows with the input
// beyond linear (RE2, bounded rule and pattern sizes).
#include "fuzzinput.h"

#include "analysis/whatif.h"
#include "job/jobanalysis.h"
#include "job/jobwhatif.h"
#include "analysis/ranksummary.h"
#include "job/stragglerwhatif.h"
#include "session/analysis.h"

#include <cmath>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

using namespace syncscope;

namespace {

struct Fixture {
    std::shared_ptr<Analysis> analysis;
    RankSummary summary;
};

const Fixture &fixture()
{
    static const Fixture f = [] {
        Fixture out;
        AnalysisRequest req;
        req.hostPath = SYNCSCOPE_PAIR_DIR "/host.0.json";
        req.devicePath = SYNCSCOPE_PAIR_DIR "/device.0.json";
        out.analysis = runAnalysis(req);
        if (!out.analysis->inputsOk || !out.analysis->criticalPath || !out.analysis->criticalPath->success)
            std::abort(); // the fixed pair must analyse, or the harness tests nothing
        out.summary = extractRankSummary(*out.analysis, 0);
        if (!out.summary.criticalPath.valid)
            std::abort();
        return out;
    }();
    return f;
}

void check(bool invariant)
{
    if (!invariant)
        std::abort();
}

} // namespace

extern "C" int SYNCSCOPE_FUZZ_ENTRY(const uint8_t *data, size_t size)
{
    const Fixture &f = fixture();
    const std::string_view text(reinterpret_cast<const char *>(data), size);
    std::vector<WhatIfRule> rules;
    size_t start = 0;
    for (int line = 0; line < 8 && start <= text.size(); ++line) {
        const size_t nl = text.find('\n', start);
        const std::string_view part = text.substr(start, nl == std::string_view::npos ? text.npos : nl - start);
        start = nl == std::string_view::npos ? text.size() + 1 : nl + 1;
        // --parallelism is a small language of its own: sizes in bounds, or a reason.
        ParallelismSpec spec;
        std::string parallelismError;
        if (parseParallelism(part, spec, parallelismError))
            check(spec.given && spec.dp >= 0 && spec.pp >= 0 && spec.tp >= 0 && spec.dp <= (int64_t(1) << 20) &&
                  spec.pp <= (int64_t(1) << 20) && spec.tp <= (int64_t(1) << 20) && (spec.dp || spec.pp || spec.tp));
        else
            check(!parallelismError.empty() && parallelismError.size() < part.size() + 256);
        WhatIfRule rule;
        std::string error;
        if (!parseWhatIfRule(part, rule, error)) {
            check(!error.empty());
            check(error.size() < 4096 + 1024); // quotes a long rule, never copies it whole
            continue;
        }
        check(part.size() <= kWhatIfMaxRuleBytes);
        check(rule.factor >= 0 && rule.factor <= kWhatIfMaxFactor);
        check(rule.durationUs >= 0 && rule.durationUs <= kWhatIfMaxDurationUs * (1 + 1e-12));
        for (const auto &t : rule.selector.terms) {
            check(t.kind != WhatIfSelector::Term::NameRegex || (t.regex && t.text.size() <= kWhatIfMaxPatternBytes));
            check(t.kind != WhatIfSelector::Term::Step || (t.number >= 0 && t.number <= kWhatIfMaxStep));
            check((t.kind != WhatIfSelector::Term::Coll && t.kind != WhatIfSelector::Term::Pg) || !t.text.empty());
        }
        rules.push_back(std::move(rule));
    }
    if (rules.empty())
        return 0;

    // Single trace, as batch mode and the What-if panel evaluate it.
    const Analysis &a = *f.analysis;
    WhatIfEngine engine(*a.device, *a.criticalPath, a.device->distributed.rank);
    const WhatIfResult r = engine.evaluate(rules);
    check(r.rules.size() == rules.size());
    if (r.ok) {
        check(std::isfinite(r.projectedUs) && std::isfinite(r.baselineUs));
        // baseline / projected: infinite only when the projection is (next to) 0.
        check(!std::isnan(r.speedup) && (std::isfinite(r.speedup) || r.projectedUs < 1e-300));
        for (double w : r.edgeWeight)
            check(std::isnan(w) || std::isfinite(w));
        for (double s : r.nodeShiftUs)
            check(std::isfinite(s));
        for (const auto &m : r.topMoved)
            check(std::isfinite(m.shiftUs) && std::isfinite(m.projectedStartUs));
        for (const auto &row : r.summary)
            check(std::isfinite(row.percent) && std::isfinite(row.durationUs));
        (void)eventShifts(*a.criticalPath, r);
    } else {
        check(!r.error.empty());
    }
    for (uint32_t ev = 0; ev < a.device->events.size(); ++ev)
        (void)engine.matches(rules.front().selector, ev);

    // The job layer's re-weighting of the same rank's graph.
    std::vector<int64_t> matched(rules.size(), 0);
    const std::vector<double> w = jobWhatIfWeights(f.summary.criticalPath, f.summary.rank, rules, matched);
    check(w.size() == f.summary.criticalPath.edges.size());
    for (double x : w)
        check(std::isnan(x) || std::isfinite(x));
    check(std::isfinite(rankLongestPathUs(f.summary.criticalPath, w)));

    // With the summary (coll=, pg=, step= read its collectives and steps), as a job of
    // one rank: =median|mean|min over its ops.
    std::vector<std::vector<int64_t>> perRank;
    static const std::vector<RankSummary> one{f.summary};
    const auto all = jobWhatIfAllWeights(one, {1}, jobTransfers(one, {1}, {}), rules, perRank);
    check(all.size() == 1 && all[0].size() == w.size() && perRank[0].size() == rules.size());
    for (double x : all[0])
        check(std::isnan(x) || std::isfinite(x));
    return 0;
}
