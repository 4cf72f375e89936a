// SPDX-License-Identifier: MIT
#include "jobreport.h"

#include <cmath>
#include <unordered_map>

namespace syncscope {

namespace {

double ns(double us)
{
    const double r = std::round(us * 1000.0) / 1000.0;
    return r == 0 ? 0.0 : r; // no "-0.0"
}

nlohmann::json byRank(const std::map<int64_t, double> &values)
{
    nlohmann::json o = nlohmann::json::object();
    for (const auto &[rank, v] : values)
        o[std::to_string(rank)] = ns(v);
    return o;
}

nlohmann::json rootCausesJson(const std::vector<RootCauseOp> &causes)
{
    nlohmann::json a = nlohmann::json::array();
    for (const RootCauseOp &r : causes)
        a.push_back({{"rank", r.rank},
                     {"op", r.op},
                     {"gpu", r.gpu},
                     {"start_us", ns(r.startUs)},
                     {"dur_us", ns(r.durUs)},
                     {"excess_us", ns(r.excessUs)},
                     {"self_excess_us", ns(r.selfExcessUs)},
                     {"context", r.context}});
    return a;
}

nlohmann::json latenessJson(const std::map<int64_t, RankLateness> &values)
{
    nlohmann::json o = nlohmann::json::object();
    for (const auto &[rank, l] : values)
        o[std::to_string(rank)] = {{"late_us", ns(l.lateUs)},
                                   {"start_skew_us", ns(l.startSkewUs)},
                                   {"work_excess_us", ns(l.workExcessUs)},
                                   {"unexplained_us", ns(l.unexplainedUs)},
                                   {"from_window_start", l.fromWindowStart}};
    return o;
}

} // namespace

nlohmann::json rankJobJson(const RankJobStats &s)
{
    return {{"clock_offset_us", ns(s.clockOffsetUs)},
            {"clock", s.clock},
            {"host", s.host.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.host)},
            {"clock_offset_fitted_us", ns(s.fittedOffsetUs)},
            {"clock_offset_spread_us", ns(s.clockSpreadUs)},
            {"clock_offset_samples", s.offsetSamples},
            {"collective_wait_us", ns(s.collectiveWaitUs)},
            {"collective_wait_caused_us", ns(s.collectiveWaitCausedUs)},
            {"last_arrivals", s.lastArrivals},
            {"collectives", s.collectives},
            {"work_delay_cost_us", ns(s.workDelayCostUs)},
            {"start_skew_cost_us", ns(s.startSkewCostUs)},
            {"start_offset_us", ns(s.startOffsetUs)}};
}

nlohmann::json jobWhatIfJson(const JobWhatIf &w)
{
    nlohmann::json rules = nlohmann::json::array();
    for (const WhatIfRuleCount &r : w.rules)
        rules.push_back({{"rule", r.rule}, {"matched", r.matched}});
    nlohmann::json out = {{"ok", w.ok}, {"rules", rules}};
    if (!w.ok) {
        out["error"] = w.error;
        return out;
    }
    out["baseline_us"] = ns(w.baselineUs);
    out["projected_us"] = ns(w.projectedUs);
    out["speedup"] = w.speedup;
    nlohmann::json ranks = nlohmann::json::array();
    for (const JobWhatIfRank &r : w.ranks)
        ranks.push_back({{"rank", r.rank},
                         {"baseline_us", ns(r.baselineUs)},
                         {"projected_us", ns(r.projectedUs)},
                         {"matched", r.matched}});
    out["ranks"] = ranks;
    nlohmann::json summary = nlohmann::json::object();
    for (const auto &[bound, pct] : w.summaryPct)
        summary[bound] = pct;
    out["critical_path"] = {{"ranks_on_path", w.ranksOnPath}, {"summary", summary}};
    return out;
}

nlohmann::json jobAnalysisJson(const JobAnalysis &job)
{
    nlohmann::json collectives = nlohmann::json::array();
    for (const MatchedCollective &c : job.collectives)
        collectives.push_back({{"name", c.name},
                               {"process_group", c.processGroup},
                               {"matched_by", c.matchedBy},
                               {"complete", c.complete},
                               {"ranks", c.ranks},
                               {"arrival_us", byRank(c.arrivalUs)},
                               {"end_us", byRank(c.endUs)},
                               {"wait_us", byRank(c.waitUs)},
                               {"last_arrival_rank", c.lastArrivalRank},
                               {"spread_us", ns(c.spreadUs)},
                               {"wait_caused_us", ns(waitCausedUs(c))},
                               {"lateness", latenessJson(c.lateness)},
                               {"window_edge", c.windowEdge},
                               {"skew_from", c.skewFrom >= 0 ? nlohmann::json(c.skewFrom) : nlohmann::json(nullptr)},
                               {"root_causes", rootCausesJson(c.rootCauses)},
                               {"root_cause_by_name", c.topOpByName.empty()
                                                          ? nlohmann::json(nullptr)
                                                          : nlohmann::json{{"op", c.topOpByName},
                                                                           {"count", c.topOpCount},
                                                                           {"excess_us", ns(c.topOpExcessUs)}}}});
    std::unordered_map<int64_t, const RankJobStats *> statsOf;
    for (const RankJobStats &s : job.ranks)
        statsOf.emplace(s.rank, &s); // the first summary of a rank is the one analysed
    nlohmann::json stragglers = nlohmann::json::array();
    for (int64_t rank : job.stragglers) {
        const RankJobStats &s = *statsOf.at(rank);
        stragglers.push_back({{"rank", rank},
                              {"work_delay_cost_us", ns(s.workDelayCostUs)},
                              {"start_skew_us", ns(s.startSkewCostUs)},
                              {"collective_wait_caused_us", ns(s.collectiveWaitCausedUs)},
                              {"last_arrivals", s.lastArrivals},
                              {"worst_collectives", collectivesDelayedBy(job, rank, 5)}});
    }
    nlohmann::json skewed = nlohmann::json::array();
    for (int64_t rank : job.startSkewed) {
        const RankJobStats &s = *statsOf.at(rank);
        std::vector<uint32_t> edges;
        for (uint32_t k = 0; k < job.collectives.size(); ++k)
            if (job.collectives[k].windowEdge && job.collectives[k].lastArrivalRank == rank)
                edges.push_back(k);
        skewed.push_back({{"rank", rank},
                          {"start_skew_cost_us", ns(s.startSkewCostUs)},
                          {"window_edge_collectives", edges}});
    }
    // The ops that cost the most waits (at most 50: a large job has thousands).
    nlohmann::json delayCosts = nlohmann::json::array();
    for (size_t k = 0; k < job.delayCosts.size() && k < 50; ++k) {
        const DelayCost &d = job.delayCosts[k];
        delayCosts.push_back({{"rank", d.rank},
                              {"op", d.op},
                              {"direct_us", ns(d.directUs)},
                              {"propagated_us", ns(d.propagatedUs)}});
    }
    const JobCriticalPath &cp = job.criticalPath;
    nlohmann::json path = nlohmann::json::array();
    for (const JobCriticalPathRow &row : cp.path)
        path.push_back({row.rank, row.op, ns(row.startUs), ns(row.durUs), row.boundBy});
    nlohmann::json summary = nlohmann::json::object();
    for (const auto &[bound, pct] : cp.summaryPct)
        summary[bound] = pct;
    const JobStepTime &st = cp.stepTime;
    nlohmann::json segments = nlohmann::json::array();
    for (const JobPathSegment &g : st.segments)
        segments.push_back({g.rank, g.collective ? "collective" : "work", ns(g.startUs), ns(g.endUs - g.startUs),
                            g.collectiveIndex, ns(g.cpuStartUs), ns(g.cpuEndUs - g.cpuStartUs)});
    nlohmann::json critical = {{"valid", cp.valid},
                               {"step_time_valid", st.valid},
                               {"step_time_us", ns(st.stepTimeUs)},
                               {"work_us", ns(st.workUs)},
                               {"wait_us", ns(st.waitUs)},
                               {"unmatched_us", ns(st.unmatchedUs)},
                               {"outside_window_us", ns(st.outsideWindowUs)},
                               {"step_path", segments},
                               {"weight_us", ns(cp.weightUs)},
                               {"summary", summary},
                               {"ranks_on_path", cp.ranksOnPath},
                               {"collectives_crossed", cp.collectivesCrossed},
                               {"path", path}};
    if (!cp.valid)
        critical["reason"] = cp.reason;
    nlohmann::json diagnostics = nlohmann::json::array();
    for (const Diagnostic &d : job.diagnostics.items())
        diagnostics.push_back(
            {{"severity", severityName(d.severity)}, {"code", d.code}, {"message", d.message}, {"count", d.count}});
    nlohmann::json out = {{"clock_reference_rank", job.clockReferenceRank},
                          {"collectives", collectives},
                          {"stragglers", stragglers},
                          {"start_skew", skewed},
                          {"delay_costs", delayCosts},
                          {"job_critical_path", critical},
                          {"job_diagnostics", diagnostics}};
    if (job.whatIf)
        out["what_if"] = jobWhatIfJson(*job.whatIf);
    if (job.straggler)
        out["straggler_whatif"] = stragglerWhatIfJson(*job.straggler);
    return out;
}

} // namespace syncscope
