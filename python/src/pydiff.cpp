// SPDX-License-Identifier: MIT
#include "pydiff.h"

#include "batchdiff.h"
#include "diff/diffreport.h"

#include <limits>

namespace syncscope::py {

namespace pyb = pybind11;

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}

std::shared_ptr<PyDiff> PyDiff::run(const std::vector<std::string> &argv, pyb::object progress)
{
    const ParsedRequest parsed = parseRequest(argv);
    DiffSideSpec base, cand;
    std::string error;
    if (!diffSides(parsed.args, base, cand, error))
        throw UsageError(error);
    if (base.jobFolder || cand.jobFolder)
        throw UsageError("syncscope.diff compares two runs (pairs or device traces); for two job folders use "
                         "`syncscope --batch --diff JOB_A JOB_B --diff-report FILE`");
    ProgressSink sink(std::move(progress));
    AnalysisRequest requests[2] = {diffRequest(parsed.cli, parsed.args, base), diffRequest(parsed.cli, parsed.args, cand)};
    auto d = std::make_shared<PyDiff>();
    std::shared_ptr<Analysis> runs[2];
    const char *labels[2] = {"baseline", "candidate"};
    runInterruptible(sink, [&] {
        for (int k = 0; k < 2; ++k) {
            requests[k].cancel = sink.cancelFlag();
            sink.report(std::string("load ") + labels[k], 0);
            runs[k] = runAnalysis(requests[k]);
            runs[k]->request.cancel = nullptr;
        }
    });
    sink.rethrowIfFailed();
    for (int k = 0; k < 2; ++k)
        if (!runs[k]->inputsOk)
            throw InputError(errorText(runs[k]->diagnostics, std::string(labels[k]) + ": "));
    for (int k = 0; k < 2; ++k)
        if (runs[k]->diagnostics.find("cpa.step_not_found"))
            throw UsageError(errorText(runs[k]->diagnostics, std::string(labels[k]) + ": "));
    // As app/batchdiff.cpp: a run without a critical path is exit 6, the diff still runs.
    for (int k = 0; k < 2; ++k)
        if (!runs[k]->criticalPath || !runs[k]->criticalPath->success)
            d->m_exitCode = ExitAnalysis;
    {
        pyb::gil_scoped_release release;
        sink.report("diff", 0);
        DiffOptions options;
        options.baselineWindow = windowOf(*runs[0]);
        options.candidateWindow = windowOf(*runs[1]);
        d->m_diff = diffRuns(runs[0], runs[1], options);
    }
    sink.rethrowIfFailed();
    return d;
}

std::string PyDiff::reportJson() const
{
    return diffReportJson(*m_diff).dump(1) + "\n"; // byte for byte the --diff-report file
}

pyb::dict PyDiff::steps() const
{
    Columns c;
    auto &index = c.i64("step");
    auto &bName = c.text("baseline_name");
    auto &cName = c.text("candidate_name");
    auto &bUs = c.f64("baseline_us");
    auto &cUs = c.f64("candidate_us");
    auto &delta = c.f64("delta_us");
    auto &bCp = c.f64("baseline_cp_us");
    auto &cCp = c.f64("candidate_cp_us");
    for (const StepDiff &s : m_diff->steps) {
        index.push_back(s.index);
        bName.push_back(s.inBaseline ? s.baselineName : std::string());
        cName.push_back(s.inCandidate ? s.candidateName : std::string());
        bUs.push_back(s.inBaseline ? s.baselineUs : kNaN);
        cUs.push_back(s.inCandidate ? s.candidateUs : kNaN);
        delta.push_back(s.inBaseline && s.inCandidate ? s.deltaUs() : kNaN);
        bCp.push_back(s.inBaseline ? s.baselineCpUs : kNaN);
        cCp.push_back(s.inCandidate ? s.candidateCpUs : kNaN);
    }
    return c.toPython();
}

namespace {

// count, total_us, mean_us of both sides (and self_us for ops).
struct SideColumns {
    std::vector<int64_t> *count[2];
    std::vector<double> *total[2], *mean[2], *self[2] = {nullptr, nullptr};
    SideColumns(Columns &c, bool withSelf)
    {
        const char *sides[2] = {"baseline", "candidate"};
        for (int k = 0; k < 2; ++k) {
            const std::string s = sides[k];
            count[k] = &c.i64(s + "_count");
            total[k] = &c.f64(s + "_us");
            mean[k] = &c.f64(s + "_mean_us");
            if (withSelf)
                self[k] = &c.f64(s + "_self_us");
        }
    }
    void push(const DiffSide &b, const DiffSide &cand)
    {
        const DiffSide *s[2] = {&b, &cand};
        for (int k = 0; k < 2; ++k) {
            count[k]->push_back(s[k]->count);
            total[k]->push_back(s[k]->totalUs);
            mean[k]->push_back(s[k]->meanUs());
            if (self[k])
                self[k]->push_back(s[k]->selfUs);
        }
    }
};

} // namespace

pyb::dict PyDiff::ops() const
{
    Columns c;
    auto &path = c.text("path");
    auto &name = c.text("name");
    SideColumns sides(c, true);
    auto &matched = c.i64("matched");
    auto &added = c.i64("added");
    auto &removed = c.i64("removed");
    auto &delta = c.f64("delta_us");
    auto &selfDelta = c.f64("self_delta_us");
    for (const OpDiff &r : m_diff->ops) {
        path.push_back(m_diff->paths.path(r.path));
        name.push_back(m_diff->paths.leaf(r.path));
        sides.push(r.baseline, r.candidate);
        matched.push_back(r.matched);
        added.push_back(r.added);
        removed.push_back(r.removed);
        delta.push_back(r.deltaUs());
        selfDelta.push_back(r.selfDeltaUs());
    }
    return c.toPython();
}

pyb::dict PyDiff::gpu(bool memcpys, bool byOp) const
{
    const auto &rows = memcpys ? (byOp ? m_diff->memcpysByOp : m_diff->memcpys)
                               : (byOp ? m_diff->kernelsByOp : m_diff->kernels);
    Columns c;
    auto &category = c.text("category");
    auto &name = c.text("name");
    auto &launch = c.text("launched_by");
    SideColumns sides(c, false);
    auto &delta = c.f64("delta_us");
    for (const GpuDiff &r : rows) {
        category.push_back(r.category);
        name.push_back(r.name);
        launch.push_back(m_diff->pathText(r.launchPath));
        sides.push(r.baseline, r.candidate);
        delta.push_back(r.deltaUs());
    }
    return c.toPython();
}

pyb::dict PyDiff::syncWaits(bool byWaiter) const
{
    Columns c;
    auto &kind = c.text("kind");
    auto &call = c.text("call");
    auto &waiter = c.text("waiter");
    SideColumns sides(c, false);
    auto &delta = c.f64("delta_us");
    for (const SyncDiff &r : byWaiter ? m_diff->syncByWaiter : m_diff->syncByKind) {
        kind.push_back(r.kind);
        call.push_back(r.call);
        waiter.push_back(m_diff->pathText(r.waiter));
        sides.push(r.baseline, r.candidate);
        delta.push_back(r.deltaUs());
    }
    return c.toPython();
}

pyb::dict PyDiff::boundBy() const
{
    Columns c;
    auto &bound = c.text("bound_by");
    auto &bp = c.f64("baseline_percent");
    auto &cp = c.f64("candidate_percent");
    auto &dp = c.f64("delta_percent");
    auto &bu = c.f64("baseline_us");
    auto &cu = c.f64("candidate_us");
    for (const BoundDiff &r : m_diff->bound) {
        bound.push_back(r.boundBy);
        bp.push_back(r.baselinePercent);
        cp.push_back(r.candidatePercent);
        dp.push_back(r.candidatePercent - r.baselinePercent);
        bu.push_back(r.baselineUs);
        cu.push_back(r.candidateUs);
    }
    return c.toPython();
}

pyb::dict PyDiff::topChanges() const
{
    Columns c;
    auto &position = c.i64("position");
    auto &category = c.text("category");
    auto &name = c.text("name");
    auto &where = c.text("where");
    auto &b = c.f64("baseline_us");
    auto &cand = c.f64("candidate_us");
    auto &delta = c.f64("delta_us");
    for (size_t i = 0; i < m_diff->top.size(); ++i) {
        const TopChange &t = m_diff->top[i];
        position.push_back(int64_t(i + 1));
        category.push_back(t.category);
        name.push_back(t.name);
        where.push_back(t.where);
        b.push_back(t.baselineUs);
        cand.push_back(t.candidateUs);
        delta.push_back(t.deltaUs());
    }
    return c.toPython();
}

} // namespace syncscope::py
