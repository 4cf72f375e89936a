// SPDX-License-Identifier: MIT
#include "pyjob.h"

#include "job/collectivebw.h"

#include "analysis/busbw.h"
#include "job/jobdocument.h"
#include "job/jobreport.h"
#include "util/parallel.h"

#include <pybind11/stl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

namespace syncscope::py {

namespace pyb = pybind11;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double secondsSince(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

std::shared_ptr<PyJob> PyJob::load(const std::vector<std::string> &argv, pyb::object progress)
{
    auto j = std::make_shared<PyJob>();
    j->m_parsed = parseRequest(argv);
    std::string error;
    if (!buildJobCli(j->m_parsed.args, j->m_parsed.cli, defaultWorkers(), j->m_job, error))
        throw UsageError(error);
    // report() is the CLI's --report, which carries each rank's breakdowns (computed while
    // the rank's trace is loaded: the job keeps only its summary).
    j->m_job.run.breakdowns = true;
    j->m_job.run.request.breakdowns = true;
    ProgressSink sink(std::move(progress));
    j->m_job.run.request.cancel = sink.cancelFlag();
    j->m_job.run.rankDone = [&sink](size_t done, size_t total, const RankSummary &) {
        sink.report("ranks", total ? double(done) / double(total) : 1.0);
    };
    int prepared = ExitOk;
    runInterruptible(sink, [&] {
        // The steps of runBatchJob and finishJob (app/batchjob.cpp), without its printing.
        const auto t0 = std::chrono::steady_clock::now();
        j->m_timing.workers = j->m_job.run.workers;
        j->m_discovery = discoverJobInputs(j->m_job);
        prepared = prepareJobOutputs(j->m_job, j->m_discovery, error);
        j->m_timing.discoverySeconds = secondsSince(t0);
        if (prepared == ExitOk && !j->m_discovery.ranks.empty()) {
            sink.report("ranks", 0);
            const auto t1 = std::chrono::steady_clock::now();
            j->m_ranks = runJobRanks(j->m_discovery.ranks, j->m_job.run);
            j->m_timing.ranksSeconds = secondsSince(t1);
            const auto t2 = std::chrono::steady_clock::now();
            sink.report("cross-rank analysis", 0);
            JobOptions options;
            options.whatIf = j->m_job.whatIf;
            options.clocks = j->m_job.clocks;
            // --straggler-whatif / --parallelism (buildJobCli also made the ranks keep
            // their GPU timelines: m_job.run.gpuTimelines), as finishJob passes them.
            options.stragglerWhatIf = j->m_job.stragglerWhatIf;
            options.straggler.parallelism = j->m_job.parallelism;
            j->m_analysis = analyzeJob(analysableRanks(j->m_ranks), options);
            j->m_timing.analysisSeconds = secondsSince(t2);
            j->m_timing.totalSeconds = secondsSince(t0);
        }
    });
    j->m_job.run.rankDone = nullptr;
    j->m_job.run.request.cancel = nullptr;
    sink.rethrowIfFailed();
    if (prepared != ExitOk)
        throw UsageError(error);
    if (j->m_discovery.ranks.empty())
        throw InputError(errorText(j->m_discovery.diagnostics).empty()
                             ? "no rank found under the job's folder(s)"
                             : errorText(j->m_discovery.diagnostics));
    j->m_exitCode = jobExitCode(j->m_discovery, j->m_ranks);
    if (j->m_analysis.whatIf && !j->m_analysis.whatIf->ok)
        j->m_exitCode = std::max<int>(j->m_exitCode, ExitAnalysis);
    if (j->m_analysis.straggler && !j->m_analysis.straggler->ok) // as finishJob: no steps or GPU ops, a cycle
        j->m_exitCode = std::max<int>(j->m_exitCode, ExitAnalysis);
    return j;
}

std::string PyJob::reportJson() const
{
    JobReportInput in;
    in.discovery = &m_discovery;
    in.ranks = &m_ranks;
    in.analysis = &m_analysis;
    in.window = &m_job.run.request.cpa;
    in.request = &m_job.run.request;
    in.exitCode = m_exitCode;
    in.timing = m_timing;
    return buildJobReportJson(in);
}

std::optional<std::string> PyJob::stragglerWhatIfJson() const
{
    if (!m_analysis.straggler)
        return std::nullopt; // loaded without --straggler-whatif
    // The report's straggler_whatif object itself (core/job/stragglerreport.cpp).
    return syncscope::stragglerWhatIfJson(*m_analysis.straggler)
        .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

const RankJobStats *PyJob::statsOf(int64_t rank) const
{
    for (const RankJobStats &s : m_analysis.ranks)
        if (s.rank == rank)
            return &s;
    return nullptr;
}

pyb::dict PyJob::ranks() const
{
    Columns c;
    auto &rank = c.i64("rank");
    auto &exitCode = c.i64("exit_code");
    auto &host = c.text("host");
    auto &device = c.text("device");
    auto &step = c.f64("step_time_us");
    auto &cp = c.f64("critical_path_us");
    auto &cpStep = c.i64("critical_path_step");
    auto &topBound = c.text("top_bound_by");
    auto &topPct = c.f64("top_bound_by_percent");
    auto &coverage = c.f64("link_coverage_percent");
    auto &offset = c.f64("clock_offset_us");
    auto &startOffset = c.f64("start_offset_us");
    auto &collectives = c.i64("collectives");
    auto &wait = c.f64("collective_wait_us");
    auto &caused = c.f64("collective_wait_caused_us");
    auto &last = c.i64("last_arrivals");
    auto &work = c.f64("work_delay_cost_us");
    auto &skew = c.f64("start_skew_cost_us");
    for (const RankSummary &s : m_ranks) {
        rank.push_back(s.rank);
        exitCode.push_back(s.exitCode);
        host.push_back(s.hostPath);
        device.push_back(s.devicePath);
        const double st = rankStepTimeUs(s, m_job.run.request.cpa);
        step.push_back(st < 0 ? kNaN : st);
        cp.push_back(s.criticalPath.valid ? s.criticalPath.weightUs : kNaN);
        cpStep.push_back(s.criticalPath.windowStep);
        std::pair<std::string, double> top{"", kNaN};
        for (const auto &[b, pct] : s.criticalPath.summaryPct)
            if (std::isnan(top.second) || pct > top.second)
                top = {b.empty() ? std::string("dependency") : b, pct};
        topBound.push_back(top.first);
        topPct.push_back(top.second);
        coverage.push_back(s.link.present ? 100.0 * s.link.coverage : kNaN);
        const RankJobStats *js = statsOf(s.rank);
        offset.push_back(js ? js->clockOffsetUs : kNaN);
        startOffset.push_back(js ? js->startOffsetUs : kNaN);
        collectives.push_back(js ? js->collectives : 0);
        wait.push_back(js ? js->collectiveWaitUs : kNaN);
        caused.push_back(js ? js->collectiveWaitCausedUs : kNaN);
        last.push_back(js ? js->lastArrivals : 0);
        work.push_back(js ? js->workDelayCostUs : kNaN);
        skew.push_back(js ? js->startSkewCostUs : kNaN);
    }
    return c.toPython();
}

pyb::dict PyJob::collectives() const
{
    Columns c;
    auto &index = c.i64("collective");
    auto &name = c.text("name");
    auto &pg = c.text("process_group");
    auto &matchedBy = c.text("matched_by");
    auto &participants = c.i64("participants");
    auto &complete = c.boolean("complete");
    auto &first = c.f64("first_arrival_us");
    auto &lastArrival = c.f64("last_arrival_us");
    auto &spread = c.f64("spread_us");
    auto &lastRank = c.i64("last_arrival_rank");
    auto &maxWait = c.f64("max_wait_us");
    auto &caused = c.f64("wait_caused_us");
    auto &edge = c.boolean("window_edge");
    auto &skewFrom = c.i64("skew_from");
    auto &late = c.f64("last_late_us");
    auto &skew = c.f64("last_start_skew_us");
    auto &excess = c.f64("last_work_excess_us");
    // The job report's bandwidth fields (core/job/collectivebw.h); -1 / unknown become NaN.
    auto &bytes = c.f64("message_bytes");
    auto &transferUs = c.f64("transfer_us");
    auto &algbw = c.f64("algbw_gbps");
    auto &busbw = c.f64("busbw_gbps");
    auto &slow = c.boolean("slow_busbw");
    const std::vector<CollectiveBandwidth> bw = jobCollectiveBandwidths(m_ranks, m_analysis);
    auto known = [](double v) { return v >= 0 ? v : kNaN; };
    for (size_t i = 0; i < m_analysis.collectives.size(); ++i) {
        const CollectiveBandwidth *b = i < bw.size() ? &bw[i] : nullptr;
        bytes.push_back(b && b->messageBytes ? double(*b->messageBytes) : kNaN);
        transferUs.push_back(b ? known(b->transferUs) : kNaN);
        algbw.push_back(b ? known(b->algBwGBps) : kNaN);
        busbw.push_back(b ? known(b->busBwGBps) : kNaN);
        slow.push_back(b && b->slow);
        const MatchedCollective &m = m_analysis.collectives[i];
        index.push_back(int64_t(i));
        name.push_back(m.name);
        pg.push_back(m.processGroup);
        matchedBy.push_back(m.matchedBy);
        participants.push_back(int64_t(m.ranks.size()));
        complete.push_back(m.complete);
        double lo = kNaN, hi = kNaN, mw = 0;
        for (const auto &[r, t] : m.arrivalUs) {
            lo = std::isnan(lo) ? t : std::min(lo, t);
            hi = std::isnan(hi) ? t : std::max(hi, t);
        }
        for (const auto &[r, w] : m.waitUs)
            mw = std::max(mw, w);
        first.push_back(lo);
        lastArrival.push_back(hi);
        spread.push_back(m.spreadUs);
        lastRank.push_back(m.lastArrivalRank);
        maxWait.push_back(mw);
        caused.push_back(waitCausedUs(m));
        edge.push_back(m.windowEdge);
        skewFrom.push_back(m.skewFrom);
        const auto l = m.lateness.find(m.lastArrivalRank);
        late.push_back(l != m.lateness.end() ? l->second.lateUs : kNaN);
        skew.push_back(l != m.lateness.end() ? l->second.startSkewUs : kNaN);
        excess.push_back(l != m.lateness.end() ? l->second.workExcessUs : kNaN);
    }
    return c.toPython();
}

pyb::dict PyJob::arrivals() const
{
    Columns c;
    auto &index = c.i64("collective");
    auto &name = c.text("name");
    auto &rank = c.i64("rank");
    auto &arrival = c.f64("arrival_us");
    auto &end = c.f64("end_us");
    auto &wait = c.f64("wait_us");
    auto &transfer = c.f64("transfer_us");
    auto &kernel = c.f64("kernel_us");
    auto &late = c.f64("late_us");
    auto &skew = c.f64("start_skew_us");
    auto &excess = c.f64("work_excess_us");
    auto &unexplained = c.f64("unexplained_us");
    auto &fromStart = c.boolean("from_window_start");
    auto &isLast = c.boolean("last_arrival");
    auto &factor = c.f64("busbw_factor");
    for (size_t i = 0; i < m_analysis.collectives.size(); ++i) {
        const MatchedCollective &m = m_analysis.collectives[i];
        double lastUs = -std::numeric_limits<double>::infinity();
        for (const auto &[r, t] : m.arrivalUs)
            lastUs = std::max(lastUs, t);
        // nccl-tests' bus-bandwidth factor for this collective and group (core/analysis/busbw.h).
        const double f = busBwFactor(collectiveTypeOf(m.name), int64_t(m.ranks.size()));
        for (int64_t r : m.ranks) {
            index.push_back(int64_t(i));
            name.push_back(m.name);
            rank.push_back(r);
            const auto a = m.arrivalUs.find(r), e = m.endUs.find(r), w = m.waitUs.find(r);
            const double at = a != m.arrivalUs.end() ? a->second : kNaN;
            const double et = e != m.endUs.end() ? e->second : kNaN;
            arrival.push_back(at);
            end.push_back(et);
            wait.push_back(w != m.waitUs.end() ? w->second : kNaN);
            transfer.push_back(et - lastUs);
            kernel.push_back(et - at);
            const auto l = m.lateness.find(r);
            const bool hasL = l != m.lateness.end();
            late.push_back(hasL ? l->second.lateUs : kNaN);
            skew.push_back(hasL ? l->second.startSkewUs : kNaN);
            excess.push_back(hasL ? l->second.workExcessUs : kNaN);
            unexplained.push_back(hasL ? l->second.unexplainedUs : kNaN);
            fromStart.push_back(hasL && l->second.fromWindowStart);
            isLast.push_back(r == m.lastArrivalRank);
            factor.push_back(f);
        }
    }
    return c.toPython();
}

pyb::dict PyJob::rootCauses() const
{
    Columns c;
    auto &index = c.i64("collective");
    auto &rank = c.i64("rank");
    auto &op = c.text("op");
    auto &gpu = c.boolean("gpu");
    auto &start = c.f64("start_us");
    auto &dur = c.f64("dur_us");
    auto &excess = c.f64("excess_us");
    for (size_t i = 0; i < m_analysis.collectives.size(); ++i)
        for (const RootCauseOp &r : m_analysis.collectives[i].rootCauses) {
            index.push_back(int64_t(i));
            rank.push_back(r.rank);
            op.push_back(r.op);
            gpu.push_back(r.gpu);
            start.push_back(r.startUs);
            dur.push_back(r.durUs);
            excess.push_back(r.excessUs);
        }
    return c.toPython();
}

pyb::dict PyJob::delays() const
{
    Columns c;
    auto &rank = c.i64("rank");
    auto &op = c.text("op");
    auto &gpu = c.boolean("gpu");
    auto &direct = c.f64("direct_us");
    auto &propagated = c.f64("propagated_us");
    auto &first = c.f64("first_start_us");
    for (const DelayCost &d : m_analysis.delayCosts) {
        rank.push_back(d.rank);
        op.push_back(d.op);
        gpu.push_back(d.gpu);
        direct.push_back(d.directUs);
        propagated.push_back(d.propagatedUs);
        first.push_back(d.firstStartUs);
    }
    return c.toPython();
}

pyb::dict PyJob::stragglers() const
{
    Columns c;
    auto &rank = c.i64("rank");
    auto &kind = c.text("kind");
    auto &work = c.f64("work_delay_cost_us");
    auto &skew = c.f64("start_skew_cost_us");
    auto &caused = c.f64("collective_wait_caused_us");
    auto &last = c.i64("last_arrivals");
    for (const auto &[list, label] : {std::pair{&m_analysis.stragglers, "work"}, std::pair{&m_analysis.startSkewed, "start_skew"}})
        for (int64_t r : *list) {
            const RankJobStats *s = statsOf(r);
            rank.push_back(r);
            kind.push_back(label);
            work.push_back(s ? s->workDelayCostUs : kNaN);
            skew.push_back(s ? s->startSkewCostUs : kNaN);
            caused.push_back(s ? s->collectiveWaitCausedUs : kNaN);
            last.push_back(s ? s->lastArrivals : 0);
        }
    return c.toPython();
}

pyb::tuple PyJob::criticalPath() const
{
    const JobCriticalPath &p = m_analysis.criticalPath;
    Columns rows;
    auto &rank = rows.i64("rank");
    auto &op = rows.text("op");
    auto &start = rows.f64("start_us");
    auto &dur = rows.f64("dur_us");
    auto &bound = rows.text("bound_by");
    for (const JobCriticalPathRow &r : p.path) {
        rank.push_back(r.rank);
        op.push_back(r.op);
        start.push_back(r.startUs);
        dur.push_back(r.durUs);
        bound.push_back(r.boundBy.empty() ? std::string("dependency") : r.boundBy);
    }
    Columns summary;
    auto &b = summary.text("bound_by");
    auto &pct = summary.f64("percent");
    for (const auto &[name, v] : p.summaryPct) {
        b.push_back(name.empty() ? std::string("dependency") : name);
        pct.push_back(v);
    }
    pyb::dict facts;
    facts["valid"] = p.valid;
    facts["reason"] = pyText(p.reason);
    facts["weight_us"] = p.weightUs;
    facts["ranks_on_path"] = p.ranksOnPath;
    facts["collectives_crossed"] = p.collectivesCrossed;
    facts["step_time_us"] = p.stepTime.stepTimeUs;
    facts["work_us"] = p.stepTime.workUs;
    facts["wait_us"] = p.stepTime.waitUs;
    facts["outside_window_us"] = p.stepTime.outsideWindowUs;
    return pyb::make_tuple(rows.toPython(), summary.toPython(), facts);
}

} // namespace syncscope::py
