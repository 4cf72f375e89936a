// SPDX-License-Identifier: MIT
#include "jobdocument.h"

#include "jobbandwidthreport.h"
#include "jobreport.h"
#include "rankbreakdown.h"
#include "report/batchreport.h"
#include "session/exitcodes.h"
#include "analysis/stepwindow.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace syncscope {

using ojson = nlohmann::ordered_json;

namespace {

bool analysable(const RankSummary &r)
{
    return r.exitCode != ExitBadInput && r.exitCode != ExitInternal && !r.devicePath.empty();
}

ojson pathOrNull(const std::string &p)
{
    return p.empty() ? ojson(nullptr) : ojson(p);
}

ojson linkJson(const RankLinkStats &l)
{
    if (!l.present)
        return nullptr;
    ojson j;
    j["host_ops"] = l.hostOps;
    j["host_ops_linked"] = l.hostOpsLinked;
    j["host_ops_with_twin"] = l.hostOpsWithTwin;
    j["coverage_percent"] = 100.0 * l.coverage;
    j["kineto_cpu_ops"] = l.kinetoCpuOps;
    j["kineto_cpu_ops_linked"] = l.kinetoCpuOpsLinked;
    j["gpu_ops"] = l.gpuOps;
    j["gpu_ops_linked"] = l.gpuOpsLinked;
    return j;
}

ojson criticalPathJson(const RankCpGraph &cp)
{
    ojson summary = ojson::object();
    for (const auto &[bound, pct] : cp.summaryPct)
        summary[bound] = pct;
    return {{"weight_us", cp.valid ? ojson(cp.weightUs) : ojson(nullptr)},
            {"summary", summary},
            {"step", cp.windowStep >= 0 ? ojson(cp.windowStep) : ojson(nullptr)}}; // N of its ProfilerStep#N window
}

// The step most ranks' critical paths cover (ties: the lowest N), -1 none, and on how many ranks.
std::pair<int64_t, size_t> commonWindowStep(const std::vector<RankSummary> &ranks)
{
    std::map<int64_t, size_t> votes;
    for (const RankSummary &r : ranks)
        if (r.criticalPath.valid && r.criticalPath.windowStep >= 0)
            ++votes[r.criticalPath.windowStep];
    std::pair<int64_t, size_t> best{-1, 0};
    for (const auto &[step, n] : votes)
        if (n > best.second)
            best = {step, n};
    return best;
}

} // namespace

// The job report's "window": the rule the ranks followed (README "Steps and HTA instances").
ojson jobWindowJson(const JobReportInput &in)
{
    const AnalysisRequest defaults;
    const AnalysisRequest &req = in.request ? *in.request : defaults;
    const auto [step, onStep] = commonWindowStep(*in.ranks);
    bool anySteps = false;
    for (const RankSummary &r : *in.ranks)
        anySteps |= !r.steps.empty();
    const WindowKind kind = requestedWindowKind(req);
    ojson w;
    // The default on ranks without ProfilerStep#N (and annotation "") is the whole trace.
    const bool whole = kind == WindowKind::Step ? !anySteps : req.cpa.annotation.empty();
    w["kind"] = whole ? "whole_trace" : windowKindName(kind);
    w["default"] = req.window == WindowKind::Default;
    w["step"] = step >= 0 ? ojson(step) : ojson(nullptr);
    w["name"] = step >= 0 ? ojson("ProfilerStep#" + std::to_string(step)) : ojson(nullptr);
    w["ranks_on_step"] = onStep;
    if (kind == WindowKind::HtaInstance) {
        w["annotation"] = req.cpa.annotation;
        w["instance"] = req.cpa.instanceFirst;
        if (req.cpa.instanceLast != req.cpa.instanceFirst)
            w["instance_last"] = req.cpa.instanceLast;
    }
    return w;
}

namespace {

std::map<int64_t, const RankJobStats *> statsByRank(const JobAnalysis *a)
{
    std::map<int64_t, const RankJobStats *> m;
    if (a)
        for (const auto &s : a->ranks)
            m[s.rank] = &s;
    return m;
}

std::string fixed(double v, int decimals = 2)
{
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

std::string column(std::string s, size_t width, bool right = true);

// Why the last arrivers of the collectives that cost the most waits came late: start
// skew (at the window edge: not the rank's work) or work excess.
std::string latenessLines(const JobAnalysis &job)
{
    std::vector<uint32_t> order;
    for (uint32_t k = 0; k < job.collectives.size(); ++k)
        if (waitCausedUs(job.collectives[k]) > 0 && job.collectives[k].lateness.count(job.collectives[k].lastArrivalRank))
            order.push_back(k);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        return waitCausedUs(job.collectives[a]) > waitCausedUs(job.collectives[b]);
    });
    if (order.size() > 3)
        order.resize(3);
    std::string s;
    for (uint32_t k : order) {
        const MatchedCollective &c = job.collectives[k];
        const RankLateness &l = c.lateness.at(c.lastArrivalRank);
        s += "  " + c.name + " #" + std::to_string(k) + ": rank " + std::to_string(c.lastArrivalRank) + " came " +
             fixed(l.lateUs / 1e3) + " ms after the first = start skew " + fixed(l.startSkewUs / 1e3) +
             " ms + work excess " + fixed(l.workExcessUs / 1e3) + " ms";
        if (l.unexplainedUs > 0.0005)
            s += " + " + fixed(l.unexplainedUs / 1e3) + " ms unexplained";
        if (c.windowEdge)
            s += "; window edge: it started the recorded step later (often the profiler starting later on that "
                 "rank), not slower work";
        s += "\n";
        if (c.skewFrom >= 0 && l.startSkewUs >= 0.5 * l.lateUs)
            s += "    its start skew carries on the late end of " + job.collectives[size_t(c.skewFrom)].name + " #" +
                 std::to_string(c.skewFrom) + " (the causes there get it as propagated delay cost)\n";
        // Only extra work that is a good part of the lateness is explained by ops.
        if (!c.windowEdge && !c.rootCauses.empty() && l.workExcessUs >= std::max(1.0, 0.05 * l.lateUs)) {
            size_t waited = 0;
            for (const auto &[r, w] : c.waitUs)
                waited += r != c.lastArrivalRank && w > 0 ? 1 : 0;
            const RootCauseOp &top = c.rootCauses.front();
            s += "    rank " + std::to_string(c.lastArrivalRank) + " made " + std::to_string(waited) + " rank(s) wait " +
                 fixed(waitCausedUs(c) / 1e3) + " ms at " + c.name + " #" + std::to_string(k) + ": ";
            // Only an op whose excess explains a good part of the extra work is named as the cause.
            if (top.selfExcessUs >= 0.25 * l.workExcessUs)
                s += top.op + " ran " + fixed(top.selfExcessUs / 1e3, 3) + " ms longer than on the other ranks" +
                     (top.context.empty() ? std::string() : " (in " + top.context + ")") + "\n";
            else if (c.topOpCount > 1 && c.topOpExcessUs >= 0.25 * l.workExcessUs)
                s += std::to_string(c.topOpCount) + " x " + c.topOpByName + " ran " +
                     fixed(c.topOpExcessUs / 1e3, 3) + " ms longer in all than on the other ranks\n";
            else
                s += "no single op explains its " + fixed(l.workExcessUs / 1e3) + " ms of extra work (largest: " +
                     top.op + " +" + fixed(top.selfExcessUs / 1e3, 3) + " ms)\n";
        }
    }
    return s.empty() ? s : "Why the last arrivers were late (top collectives by waits caused):\n" + s;
}

std::string column(std::string s, size_t width, bool right)
{
    if (s.size() >= width)
        return s;
    return right ? std::string(width - s.size(), ' ') + s : s + std::string(width - s.size(), ' ');
}

std::string topBound(const RankCpGraph &cp)
{
    if (!cp.valid || cp.summaryPct.empty())
        return "-";
    auto best = std::max_element(cp.summaryPct.begin(), cp.summaryPct.end(),
                                 [](const auto &a, const auto &b) { return a.second < b.second; });
    return best->first + " " + fixed(best->second, 0) + "%";
}

} // namespace

std::vector<RankSummary> analysableRanks(const std::vector<RankSummary> &ranks)
{
    std::vector<RankSummary> out;
    for (const auto &r : ranks)
        if (analysable(r))
            out.push_back(r);
    return out;
}

int jobExitCode(const JobDiscovery &discovery, const std::vector<RankSummary> &ranks)
{
    int code = discovery.diagnostics.hasErrors() || ranks.empty() ? ExitBadInput : ExitOk;
    for (const auto &r : ranks)
        code = std::max(code, r.exitCode);
    return code;
}

double rankStepTimeUs(const RankSummary &r, const CriticalPathOptions &window)
{
    if (r.criticalPath.windowStep >= 0) // the step its critical path covers (--step N picks by name)
        for (const RankStep &st : r.steps)
            if (st.number == r.criticalPath.windowStep)
                return static_cast<double>(st.endNs - st.startNs) / 1e3;
    const auto first = static_cast<size_t>(std::max(0, window.instanceFirst));
    const auto last = static_cast<size_t>(std::max(window.instanceFirst, window.instanceLast));
    if (!r.steps.empty() && last < r.steps.size())
        return static_cast<double>(r.steps[last].endNs - r.steps[first].startNs) / 1e3;
    if (r.traceEndNs > r.traceStartNs)
        return static_cast<double>(r.traceEndNs - r.traceStartNs) / 1e3;
    return -1;
}

std::string buildJobReportJson(const JobReportInput &in)
{
    const JobDiscovery &d = *in.discovery;
    const auto stats = statsByRank(in.analysis);
    const CriticalPathOptions defaultWindow;
    const CriticalPathOptions &window = in.window ? *in.window : defaultWindow;
    ojson r;

    ojson job;
    job["syncscope_version"] = SYNCSCOPE_VERSION;
    // Discovery's world_size, else the ranks' own (within the same bounds: 1e18 is no world).
    std::optional<int64_t> world = d.worldSize;
    if (!world && in.analysis && in.analysis->worldSize && *in.analysis->worldSize >= 1 &&
        *in.analysis->worldSize <= kMaxJobWorldSize)
        world = in.analysis->worldSize;
    job["world_size"] = world ? ojson(*world) : ojson(nullptr);
    job["ranks_found"] = in.ranks->size();
    ojson rankNumbers = ojson::array();
    for (const auto &s : *in.ranks)
        rankNumbers.push_back(s.rank);
    job["ranks"] = rankNumbers;
    // As [first, last] ranges: as many as the ranks found, however large world_size is.
    ojson missing = ojson::array();
    for (const RankRange &g : d.missingRankRanges)
        missing.push_back({g.first, g.last});
    job["missing_ranks"] = missing;
    job["missing_rank_count"] = d.missingRankCount;
    job["clock_reference_rank"] = in.analysis && in.analysis->clockReferenceRank >= 0
                                      ? ojson(in.analysis->clockReferenceRank)
                                      : ojson(nullptr);
    job["clocks"] = in.analysis ? ojson(clockModeName(in.analysis->clockMode)) : ojson(nullptr);
    job["exit_code"] = in.exitCode;
    Diagnostics all = d.diagnostics;
    if (in.analysis)
        all.append(in.analysis->diagnostics);
    job["diagnostics"] = diagnosticsJson(all);
    job["window"] = jobWindowJson(in);
    r["job"] = job;

    ojson rows = ojson::array();
    for (const auto &s : *in.ranks) {
        ojson row;
        row["rank"] = s.rank;
        row["host"] = pathOrNull(s.hostPath);
        row["device"] = pathOrNull(s.devicePath);
        row["exit_code"] = s.exitCode;
        const double step = rankStepTimeUs(s, window);
        row["step_time_us"] = step >= 0 ? ojson(step) : ojson(nullptr);
        row["link"] = linkJson(s.link);
        const auto it = stats.find(s.rank);
        const ojson jobStats = it != stats.end() ? ojson(rankJobJson(*it->second)) : ojson(nullptr);
        for (const char *key : {"clock_offset_us"})
            row[key] = jobStats.is_object() && jobStats.contains(key) ? jobStats[key] : ojson(nullptr);
        row["critical_path"] = criticalPathJson(s.criticalPath);
        for (const char *key : {"collective_wait_us", "collective_wait_caused_us", "last_arrivals"})
            row[key] = jobStats.is_object() && jobStats.contains(key) ? jobStats[key] : ojson(nullptr);
        if (jobStats.is_object()) // anything further the cross-rank layer reports per rank
            for (const auto &[key, value] : jobStats.items())
                if (!row.contains(key))
                    row[key] = value;
        ojson outs = ojson::array();
        for (const auto &[kind, path] : s.outputs)
            outs.push_back({{"kind", kind}, {"path", path}});
        row["outputs"] = outs;
        // The rank's whole-trace breakdowns (with --report or --step all), compact (rankbreakdown.h).
        row["breakdown"] = s.breakdown ? rankBreakdownJson(*s.breakdown) : ojson(nullptr);
        row["diagnostics"] = diagnosticsJson(s.diagnostics);
        rows.push_back(row);
    }
    r["ranks"] = rows;

    const ojson cross = in.analysis ? ojson(jobAnalysisJson(*in.analysis)) : ojson(nullptr);
    for (const char *key : {"collectives", "stragglers", "start_skew", "delay_costs", "job_critical_path"})
        r[key] = cross.is_object() && cross.contains(key) ? cross[key] : ojson(nullptr);
    for (const char *key : {"what_if", "straggler_whatif"})
        if (cross.is_object() && cross.contains(key))
            r[key] = cross[key];
    if (in.analysis) { // message size, transfer, algbw / busbw and the slow flag per instance
        const std::vector<CollectiveBandwidth> bw = jobCollectiveBandwidths(*in.ranks, *in.analysis);
        for (size_t k = 0; k < bw.size() && k < r["collectives"].size(); ++k) {
            const ojson members = collectiveBandwidthJson(bw[k]);
            for (const auto &[key, value] : members.items())
                r["collectives"][k][key] = value;
        }
        r["job"]["collective_bandwidth"] = jobBandwidthJson(bw);
    } else {
        r["job"]["collective_bandwidth"] = nullptr;
    }

    if (!in.outputs.empty()) { // job-wide files, as the single-pair report lists its outputs
        ojson outs = ojson::array();
        for (const OutputRecord &o : in.outputs) {
            ojson oj = {{"kind", o.kind}, {"path", o.path}, {"bytes", o.bytes}, {"status", o.status}};
            if (!o.reason.empty())
                oj["reason"] = o.reason;
            if (o.writeSeconds >= 0)
                oj["write_s"] = o.writeSeconds;
            outs.push_back(oj);
        }
        r["outputs"] = outs;
    }
    const JobTiming &t = in.timing;
    r["timing"] = {{"discovery_s", t.discoverySeconds}, {"ranks_s", t.ranksSeconds},
                   {"cross_rank_s", t.analysisSeconds}, {"total_s", t.totalSeconds},
                   {"workers", t.workers},          {"processes", t.processes}};
    if (in.analysis && in.analysis->straggler) // its own share of cross_rank_s
        r["timing"]["straggler_whatif_s"] = in.analysis->straggler->seconds;
    // File names need not be UTF-8 (nor the messages naming them): invalid bytes
    // become U+FFFD instead of failing the whole report.
    return r.dump(2, ' ', false, ojson::error_handler_t::replace) + "\n";
}

std::string formatJobSummary(const JobReportInput &in)
{
    const JobDiscovery &d = *in.discovery;
    const auto stats = statsByRank(in.analysis);
    const CriticalPathOptions defaultWindow;
    const CriticalPathOptions &window = in.window ? *in.window : defaultWindow;
    std::string s = "Job: " + std::to_string(in.ranks->size()) + " rank(s)";
    if (d.worldSize)
        s += " of world_size " + std::to_string(*d.worldSize);
    if (in.analysis && in.analysis->clockReferenceRank >= 0)
        s += ", clocks aligned on rank " + std::to_string(in.analysis->clockReferenceRank);
    s += "; " + std::to_string(in.timing.workers) + " worker(s)" +
         (in.timing.processes > 1 ? " x " + std::to_string(in.timing.processes) + " MPI processes" : "") + ", " +
         fixed(in.timing.totalSeconds, 1) + " s\n";

    { // which window rule the ranks followed, and which step
        const ojson w = jobWindowJson(in);
        std::string line = w["kind"] == "whole_trace" ? std::string("whole trace")
                           : w["step"].is_null()       ? std::string("no common ProfilerStep#N")
                                                       : w["name"].get<std::string>() + " on " +
                                                       std::to_string(w["ranks_on_step"].get<size_t>()) + " rank(s)";
        if (w["kind"] == "step")
            line += w["default"].get<bool>() ? ", whole step, default --step" : ", whole step, --step";
        else if (w["kind"] == "hta_instance")
            line += " (HTA instance " + std::to_string(w["instance"].get<int>()) + ")";
        s += "  window " + line + "\n";
    }
    s += "  rank exit   step ms  crit path ms  bound by (top)                  wait ms  caused ms     link\n";
    for (const auto &r : *in.ranks) {
        const auto it = stats.find(r.rank);
        const RankJobStats *st = it == stats.end() ? nullptr : it->second;
        const double step = rankStepTimeUs(r, window);
        s += column(std::to_string(r.rank), 6) + column(std::to_string(r.exitCode), 5) +
             column(step >= 0 ? fixed(step / 1e3) : "-", 10) +
             column(r.criticalPath.valid ? fixed(r.criticalPath.weightUs / 1e3) : "-", 14) + "  " +
             column(topBound(r.criticalPath), 30, false) +
             column(st ? fixed(st->collectiveWaitUs / 1e3) : "-", 9) +
             column(st ? fixed(st->collectiveWaitCausedUs / 1e3) : "-", 11) +
             column(r.link.present ? fixed(100 * r.link.coverage, 1) + " %" : "-", 9) + "\n";
    }

    if (in.analysis && !in.analysis->stragglers.empty()) {
        s += "Top stragglers (waits their extra work caused):\n";
        for (size_t i = 0; i < in.analysis->stragglers.size() && i < 3; ++i) {
            const int64_t rank = in.analysis->stragglers[i];
            const auto it = stats.find(rank);
            if (it == stats.end() || it->second->collectiveWaitCausedUs <= 0)
                break;
            s += "  rank " + std::to_string(rank) + ": " + fixed(it->second->workDelayCostUs / 1e3) +
                 " ms by extra work;";
            // The collectives this rank held back most: the others' waits where it came last.
            std::vector<std::pair<double, const MatchedCollective *>> delayed;
            for (const auto &c : in.analysis->collectives)
                if (c.lastArrivalRank == rank) {
                    double caused = 0;
                    for (const auto &[other, wait] : c.waitUs)
                        caused += other == rank ? 0 : wait;
                    delayed.emplace_back(caused, &c);
                }
            std::sort(delayed.begin(), delayed.end(), [](const auto &a, const auto &b) { return a.first > b.first; });
            s += " " + fixed(it->second->collectiveWaitCausedUs / 1e3) + " ms caused in all, last in " +
                 std::to_string(it->second->lastArrivals) + " collective(s)";
            for (size_t k = 0; k < delayed.size() && k < 3; ++k)
                s += std::string(k ? ", " : "; most: ") + delayed[k].second->name + " #" +
                     std::to_string(delayed[k].second - in.analysis->collectives.data()) +
                     (delayed[k].second->processGroup.empty() ? "" : " [" + delayed[k].second->processGroup + "]") +
                     " " + fixed(delayed[k].first / 1e3) + " ms";
            s += "\n";
        }
    }
    if (in.analysis && !in.analysis->startSkewed.empty()) {
        s += "Start skew (waits caused by starting later, not by work):";
        for (size_t i = 0; i < in.analysis->startSkewed.size() && i < 3; ++i) {
            const auto it = stats.find(in.analysis->startSkewed[i]);
            if (it != stats.end())
                s += std::string(i ? "," : "") + " rank " + std::to_string(it->first) + " " +
                     fixed(it->second->startSkewCostUs / 1e3) + " ms";
        }
        s += "\n";
    }
    if (in.analysis)
        s += latenessLines(*in.analysis);
    s += formatRankBreakdowns(*in.ranks);
    if (in.analysis)
        s += formatJobBandwidth(jobCollectiveBandwidths(*in.ranks, *in.analysis));
    if (in.analysis && in.analysis->criticalPath.stepTime.valid) {
        const JobStepTime &st = in.analysis->criticalPath.stepTime;
        std::string through;
        for (const JobPathSegment &g : st.segments)
            if (through.empty() || through.substr(through.rfind(' ') + 1) != std::to_string(g.rank))
                through += (through.empty() ? "" : " ->") + std::string(" ") + std::to_string(g.rank);
        s += "Job step " + fixed(st.stepTimeUs / 1e3) + " ms = work " + fixed(st.workUs / 1e3) + " ms + collectives " +
             fixed(st.waitUs / 1e3) + " ms + before the window " + fixed(st.outsideWindowUs / 1e3) +
             " ms (start skew); walked back through the waits over rank(s)" + through + "\n";
    }
    if (in.analysis && in.analysis->criticalPath.valid)
        s += "Job critical path: " + fixed(in.analysis->criticalPath.weightUs / 1e3) + " ms through rank(s) " +
             [&] {
                 std::string t;
                 for (auto r : in.analysis->criticalPath.ranksOnPath)
                     t += (t.empty() ? "" : ", ") + std::to_string(r);
                 return t;
             }() +
             "\n";
    if (in.analysis && in.analysis->whatIf && in.analysis->whatIf->ok) {
        const JobWhatIf &w = *in.analysis->whatIf;
        s += "What-if: job step " + fixed(w.baselineUs / 1e3) + " ms -> " + fixed(w.projectedUs / 1e3) +
             " ms (" + fixed(w.speedup) + "x);";
        for (const WhatIfRuleCount &r : w.rules)
            s += " '" + r.rule + "' matched " + std::to_string(r.matched) + ";";
        s.back() = '\n';
    }
    if (in.analysis && in.analysis->straggler && in.analysis->straggler->ok)
        s += stragglerWhatIfText(*in.analysis->straggler);

    auto problems = [&](const Diagnostics &diag, const std::string &prefix) {
        for (const auto &x : diag.items())
            if (x.severity != Severity::Info)
                s += std::string("  ") + severityName(x.severity) + ": " + prefix + x.message + "\n";
    };
    std::string before = s;
    problems(d.diagnostics, "");
    if (in.analysis)
        problems(in.analysis->diagnostics, "");
    for (const auto &r : *in.ranks)
        if (r.exitCode != ExitOk)
            for (const auto &x : r.diagnostics.items())
                if (x.severity == Severity::Error)
                    s += "  error: rank " + std::to_string(r.rank) + ": " + x.message + "\n";
    if (s.size() != before.size())
        s.insert(before.size(), "Problems:\n");
    s += "Exit code " + std::to_string(in.exitCode) + "\n";
    return s;
}

} // namespace syncscope
