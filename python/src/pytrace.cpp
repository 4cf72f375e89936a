// SPDX-License-Identifier: MIT
#include "pytrace.h"

#include "analysis/whatif.h"
#include "export/sqlitedb.h"
#include "io/outputfile.h"
#include "report/batchreport.h"
#include "report/whatifreport.h"
#include "analysis/stepwindow.h"

#include <chrono>

namespace syncscope::py {

namespace pyb = pybind11;

std::shared_ptr<PyTrace> PyTrace::load(const std::vector<std::string> &argv, pyb::object progress)
{
    auto t = std::make_shared<PyTrace>();
    t->m_argv = argv;
    t->m_parsed = parseRequest(argv);
    AnalysisRequest req = t->m_parsed.cli.request;
    if (req.devicePath.empty())
        throw UsageError("no device trace: give device=DEVICE_TRACE (the Kineto trace)");
    ProgressSink sink(std::move(progress));
    req.progress = sink.function();
    req.cancel = sink.cancelFlag();
    // As `syncscope --batch` without output files: the analysis is the product, so a
    // critical path that fails is exit 6 (app/batch.cpp's criticalPathAsked).
    RankOutputPaths paths;
    paths.criticalPathAsked = true;
    runInterruptible(sink, [&] {
        const auto t0 = std::chrono::steady_clock::now();
        t->m_run = runRankPipeline(req, paths);
        t->m_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    });
    // The analysis keeps its request: drop what points into this call's frame.
    t->m_run.analysis->request.progress = nullptr;
    t->m_run.analysis->request.cancel = nullptr;
    sink.rethrowIfFailed();
    const Analysis &a = *t->m_run.analysis;
    if (!a.inputsOk)
        throw InputError(errorText(a.diagnostics));
    if (a.diagnostics.find("cpa.step_not_found"))
        throw UsageError(errorText(a.diagnostics));
    return t;
}

pyb::dict PyTrace::info() const
{
    const Analysis &a = analysis();
    pyb::dict d;
    d["host"] = a.hostPath.empty() ? pyb::object(pyb::none()) : pyb::object(pyText(a.hostPath));
    d["device"] = pyText(a.devicePath);
    d["swapped"] = a.swapped;
    d["exit_code"] = m_run.exitCode;
    d["seconds"] = m_seconds;
    d["load_seconds"] = a.times.loadSeconds;
    d["rank"] = a.device->distributed.rank ? pyb::object(pyb::int_(*a.device->distributed.rank)) : pyb::object(pyb::none());
    d["world_size"] =
        a.device->distributed.worldSize ? pyb::object(pyb::int_(*a.device->distributed.worldSize)) : pyb::object(pyb::none());
    d["hta_exact"] = isHtaExact(request().cpa);
    d["events"] = a.device->events.size();
    d["window"] = pyText(windowText(a));
    pyb::list diags;
    for (const auto &x : a.diagnostics.items()) {
        pyb::dict dd;
        dd["severity"] = x.severity == Severity::Error ? "error" : x.severity == Severity::Warning ? "warning" : "info";
        dd["code"] = pyText(x.code);
        dd["message"] = pyText(x.message);
        diags.append(dd);
    }
    d["diagnostics"] = diags;
    return d;
}

std::string PyTrace::reportJson() const
{
    ReportContext ctx;
    ctx.analysis = m_run.analysis.get();
    ctx.outputs = m_run.outputs;
    ctx.exitCode = m_run.exitCode;
    ctx.totalSeconds = m_seconds;
    return buildReportJson(ctx);
}

std::string PyTrace::whatIfJson(const std::vector<std::string> &texts) const
{
    std::vector<WhatIfRule> rules;
    for (const std::string &text : texts) {
        WhatIfRule rule;
        std::string error;
        if (!parseWhatIfRule(text, rule, error))
            throw UsageError(error);
        rules.push_back(std::move(rule));
    }
    if (rules.empty())
        throw UsageError("what_if needs at least one rule, e.g. 'cat=kernel&name~gemm*0.5'");
    const Analysis &a = analysis();
    if (!a.criticalPath || !a.criticalPath->success)
        throw AnalysisError("what_if needs the critical path, which could not be computed (" +
                            (a.criticalPath ? a.criticalPath->reason : std::string("not run")) + ")");
    std::string text;
    {
        pyb::gil_scoped_release release;
        WhatIfEngine engine(*a.device, *a.criticalPath, a.device->distributed.rank);
        const WhatIfResult r = engine.evaluate(rules);
        if (!r.ok) {
            text = r.error;
        } else {
            auto j = syncscope::whatIfJson(*a.device, *a.criticalPath, r);
            j["window"] = windowJson(a); // as the CLI's report
            return j.dump();
        }
    }
    throw AnalysisError(text);
}

void PyTrace::exportFile(const std::string &kind, const std::string &path, bool overlayAllEvents) const
{
    requireNoNul(path, "the path");
    if (path.empty())
        throw UsageError("an export needs a file name (got an empty string)");
    RankOutputPaths paths;
    (kind == "et_plus" ? paths.etPlus : kind == "chakra_et" ? paths.chakraEt
                                    : kind == "overlay"     ? paths.overlay
                                                            : paths.criticalPath) = path;
    paths.overlayAllEvents = overlayAllEvents;
    const Analysis &a = analysis();
    const AnalysisRequest &req = request();
    const std::vector<std::string> inputs = {req.hostPath, req.devicePath, a.hostPath, a.devicePath};
    Diagnostics diagnostics;
    std::vector<OutputRecord> records;
    {
        pyb::gil_scoped_release release;
        writeRankOutputs(a, paths, inputs, diagnostics, records);
    }
    for (const OutputRecord &r : records)
        if (r.status != "written") {
            const std::string why = !r.reason.empty() ? r.reason : errorText(diagnostics);
            throw ExportError(path + ": not written (" + r.status + "): " + why);
        }
    if (records.empty())
        throw ExportError(path + ": not written: " + errorText(diagnostics));
}

void PyTrace::toSqlite(const std::string &path) const
{
    requireNoNul(path, "the path");
    if (path.empty())
        throw UsageError("to_sqlite needs a file name (got an empty string)");
    const Analysis &a = analysis();
    const AnalysisRequest &req = request();
    const std::vector<std::string> inputs = {req.hostPath, req.devicePath, a.hostPath, a.devicePath};
    std::string error;
    {
        pyb::gil_scoped_release release;
        try {
            // exit_code NULL as `--sqlite` writes it (the database is written before the run's
            // exit code is known), so both give the same rows.
            writeSqliteDatabase(path, a, inputs);
        } catch (const OutputError &e) {
            error = e.what();
        }
    }
    if (!error.empty())
        throw ExportError(error);
}

CriticalPathOptions PyTrace::sessionOptions() const
{
    // As runAnalysis: the window's analysis reads the trace's sync edges already found.
    CriticalPathOptions cpa = request().cpa;
    cpa.syncEdges = std::make_shared<const std::vector<SyncEdge>>(analysis().syncEdges);
    return cpa;
}

namespace {

pyb::dict facts(const Analysis &a, const CriticalPathResult &cp)
{
    pyb::dict d;
    d["success"] = cp.success;
    d["reason"] = pyText(cp.reason);
    d["weight_us"] = cp.weightUs;
    d["nodes"] = cp.pathNodes.size();
    d["events"] = cp.criticalEvents.size();
    d["whole_trace"] = cp.window.wholeTrace;
    d["window_start_us"] = cp.window.startAbsUs;
    d["hta_exact"] = cp.htaExact;
    d["trace_events"] = a.device->events.size();
    return d;
}

} // namespace

pyb::tuple PyTrace::criticalPath(std::optional<int64_t> step)
{
    const Analysis &a = analysis();
    if (!step) {
        if (!a.criticalPath || !a.criticalPath->success)
            throw AnalysisError("the critical path could not be computed (" +
                                (a.criticalPath ? a.criticalPath->reason : std::string("not run")) + ")");
        const CriticalPathResult &cp = *a.criticalPath;
        return pyb::make_tuple(criticalPathRows(*a.device, cp), boundBySummary(cp.summary), facts(a, cp));
    }
    if (*step < 0) // the pipeline reads a negative step as "the default step"
        throw UsageError("step=" + std::to_string(*step) + ": a ProfilerStep number is 0 or more");
    AnalysisRequest r = request();
    r.window = WindowKind::Step;
    r.stepFirst = r.stepLast = *step;
    r.allSteps = false;
    r.progress = nullptr;
    Diagnostics diag;
    WindowKind used = WindowKind::Step;
    CriticalPathResult cp;
    {
        pyb::gil_scoped_release release;
        cp = analyzeRequestedWindow(*a.device, r, sessionOptions(), diag, used);
    }
    if (diag.find("cpa.step_not_found"))
        throw UsageError(errorText(diag));
    if (!cp.success)
        throw AnalysisError("the critical path of ProfilerStep#" + std::to_string(*step) +
                            " could not be computed (" + cp.reason + ")");
    return pyb::make_tuple(criticalPathRows(*a.device, cp), boundBySummary(cp.summary), facts(a, cp));
}

pyb::object PyTrace::htaCriticalPath(const std::string &annotation, int first, int last)
{
    const Analysis &a = analysis();
    AnalysisRequest r = request();
    r.window = WindowKind::HtaInstance;
    r.allSteps = false;
    r.progress = nullptr;
    CriticalPathOptions cpa = sessionOptions();
    r.cpa.annotation = cpa.annotation = annotation;
    r.cpa.instanceFirst = cpa.instanceFirst = first;
    r.cpa.instanceLast = cpa.instanceLast = last;
    Diagnostics diag;
    WindowKind used = WindowKind::HtaInstance;
    CriticalPathResult cp;
    {
        pyb::gil_scoped_release release;
        cp = analyzeRequestedWindow(*a.device, r, cpa, diag, used);
    }
    if (!annotation.empty() && !cp.window.annotationFound)
        return pyb::none(); // HTA: "Could not find annotation ... in the trace."
    return pyb::make_tuple(criticalPathRows(*a.device, cp), boundBySummary(cp.summary), facts(a, cp));
}

const std::vector<StepResult> &PyTrace::allSteps()
{
    if (request().allSteps)
        return analysis().steps; // loaded with step="all": the session computed them
    {
        pyb::gil_scoped_release release;
        std::lock_guard<std::mutex> lock(m_stepsMutex);
        if (!m_steps) {
            Diagnostics diag;
            m_steps = analyzeAllSteps(*analysis().device, sessionOptions(), diag); // as --step all
        }
    }
    return *m_steps;
}

} // namespace syncscope::py
