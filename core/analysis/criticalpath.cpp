// SPDX-License-Identifier: MIT
// Entry points: window selection (spec 2.2), one analysis, one per step.
#include "criticalpath.h"

#include "cpbuild.h"
#include "syncedges.h"
#include "link/hostgraph.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

namespace syncscope {

std::vector<size_t> CriticalPathResult::edgeCountsByType() const
{
    std::vector<size_t> counts(kCpEdgeTypeCount, 0);
    for (CpEdgeType t : graph.edgeType)
        ++counts[static_cast<size_t>(t)];
    return counts;
}

std::vector<size_t> CriticalPathResult::pathEdgeCountsByType() const
{
    std::vector<size_t> counts(kCpEdgeTypeCount, 0);
    for (int32_t e : pathEdges)
        ++counts[static_cast<size_t>(graph.edgeType[e])];
    return counts;
}

double CriticalPathResult::percent(const std::string &boundBy) const
{
    for (const auto &row : summary)
        if (row.boundBy == boundBy)
            return row.percent;
    return 0;
}

const char *htaVersionName(HtaVersion v)
{
    return v == HtaVersion::D731cc2e ? "d731cc2e" : "f4d0062";
}

bool parseHtaVersion(std::string_view text, HtaVersion &out)
{
    // The short hash or any longer prefix of the full commit id.
    auto isPrefixOf = [&](std::string_view full, size_t shortLen) {
        return text.size() >= shortLen && text.size() <= full.size() && full.substr(0, text.size()) == text;
    };
    if (isPrefixOf("f4d0062c382f42bd8a74838bcdad1916c7d5d2da", 7)) {
        out = HtaVersion::F4d0062;
        return true;
    }
    if (isPrefixOf("d731cc2e2249976c97129d409a83bd53d93051f6", 8)) {
        out = HtaVersion::D731cc2e;
        return true;
    }
    return false;
}

namespace {

using namespace hta;

double secondsSince(std::chrono::steady_clock::time_point t)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// Facts about the input that explain an empty or odd graph.
void describeInput(const RowTable &rows, Diagnostics &diag)
{
    const std::string &path = rows.trace().path;
    size_t gpu = 0, unlinkedGpu = 0, cpu = 0;
    for (uint32_t i = 0; i < rows.eventCount(); ++i) {
        if (!rows.isLoaded(i))
            continue;
        const EventKind k = rows.trace().events[i].kind;
        if (isGpuActivity(k)) {
            ++gpu;
            unlinkedGpu += rows.partner(i) < 0 ? 1 : 0;
        }
        const uint8_t cat = rows.catRole(i);
        cpu += (cat == CatCpuOp || cat == CatRuntime) ? 1 : 0;
    }
    if (gpu == 0)
        diag.warning("cpa.no_gpu_events",
                     path + ": the trace has no GPU activities (kernel, gpu_memcpy, gpu_memset); the critical path "
                            "is CPU-only",
                     path);
    if (cpu == 0)
        diag.warning("cpa.no_cpu_events",
                     path + ": the trace has no CPU ops or runtime calls (cpu_op, cuda_runtime); GPU activities "
                            "cannot be reached from the CPU and are not in the graph",
                     path);
    if (unlinkedGpu > 0)
        diag.warning("cpa.unlinked_gpu",
                     path + ": " + std::to_string(unlinkedGpu) +
                         " GPU activities have no launching runtime call (their correlation id matches no CPU event); "
                         "they are left out of the graph",
                     path);
}

// Picks the window; returns false (with out.reason) when the instance is out of range.
bool selectWindow(const RowTable &rows, const CriticalPathOptions &o, CriticalPathResult &out, Diagnostics &diag)
{
    const std::string &path = rows.trace().path;
    CpWindow &w = out.window;
    double minTs = std::numeric_limits<double>::infinity();
    for (uint32_t i = 0; i < rows.eventCount(); ++i)
        if (rows.isLoaded(i))
            minTs = std::min(minTs, rows.ts(i));
    auto whole = [&] {
        w.wholeTrace = true;
        w.startUs = minTs;
        w.endUs = std::numeric_limits<double>::infinity();
    };
    if (o.annotation.empty()) {
        whole();
        diag.info("cpa.whole_trace", path + ": annotation \"\": the whole trace is the critical-path window", path);
        return true;
    }
    const std::vector<uint8_t> contains = rows.stringsContaining(o.annotation);
    std::vector<uint32_t> matches;
    for (uint32_t i : rows.tableOrder())
        if (contains[rows.trace().events[i].name])
            matches.push_back(i);
    w.annotationFound = !matches.empty();
    w.instanceCount = static_cast<int>(matches.size());
    if (matches.empty()) {
        whole();
        diag.warning("cpa.annotation_not_found",
                     path + ": no event name contains the annotation \"" + o.annotation +
                         "\"; the whole trace is the critical-path window (HTA would stop here)",
                     path);
        return true;
    }
    const int count = static_cast<int>(matches.size());
    if (o.instanceFirst < 0 || o.instanceFirst >= count || o.instanceLast < o.instanceFirst) {
        out.reason = "instance " + std::to_string(o.instanceFirst) +
                     (o.instanceLast != o.instanceFirst ? ".." + std::to_string(o.instanceLast) : std::string()) +
                     " is out of range: \"" + o.annotation + "\" has " + std::to_string(count) +
                     " instances (0.." + std::to_string(count - 1) + ")";
        diag.error("cpa.instance_out_of_range", path + ": " + out.reason, path);
        return false;
    }
    w.instanceFirst = o.instanceFirst;
    w.instanceLast = std::min(o.instanceLast, count - 1);
    if (w.instanceLast != o.instanceLast)
        diag.warning("cpa.instance_clamped",
                     path + ": the instance range ends at " + std::to_string(o.instanceLast) + " but \"" +
                         o.annotation + "\" has only " + std::to_string(count) + " instances; using " +
                         std::to_string(w.instanceFirst) + ".." + std::to_string(w.instanceLast),
                     path);
    w.firstEvent = static_cast<int32_t>(matches[w.instanceFirst]);
    w.startUs = std::numeric_limits<double>::infinity();
    w.endUs = -std::numeric_limits<double>::infinity();
    for (int k = w.instanceFirst; k <= w.instanceLast; ++k) {
        w.startUs = std::min(w.startUs, rows.ts(matches[k]));
        w.endUs = std::max(w.endUs, rows.end(matches[k]));
    }
    return true;
}

} // namespace

// How HTA loads the rows for these options (one place for every entry point).
static RowOptions rowOptionsFor(const CriticalPathOptions &options, bool dropLastStep)
{
    RowOptions r;
    r.nsRounding = options.nsRounding;
    r.profilerStepSubstring = options.htaVersion == HtaVersion::D731cc2e;
    r.dropLastProfilerStep = dropLastStep;
    return r;
}

CriticalPathResult analyzeCriticalPath(const KinetoTrace &trace, const CriticalPathOptions &options, Diagnostics &diag)
{
    CriticalPathResult out;
    auto t0 = std::chrono::steady_clock::now();
    const bool exact = isHtaExact(options);
    checkCudaSyncPresent(trace, diag, exact);
    // HTA's loader drops the last ProfilerStep; by default the whole trace keeps it
    // and ends at its last event.
    const RowOptions rowOptions = rowOptionsFor(options, /*dropLastStep=*/exact || !options.annotation.empty());
    CpaContext ctx(trace, options, rowOptions, diag);
    out.timings.prepare = secondsSince(t0);
    out.loadedRows = ctx.rows.loadedRows();
    if (out.loadedRows == 0) {
        out.reason = "the trace has no events with ts, dur and cat";
        diag.error("cpa.failed", trace.path + ": critical-path analysis failed: " + out.reason, trace.path);
        return out;
    }
    t0 = std::chrono::steady_clock::now();
    describeInput(ctx.rows, diag);
    if (!selectWindow(ctx.rows, options, out, diag))
        return out;
    out.window.startAbsUs = out.window.startUs + ctx.rows.minTs();
    const std::vector<uint32_t> clipped = ctx.clip(out.window.startUs, out.window.endUs);
    out.timings.window = secondsSince(t0);
    hta::analyzeWindow(ctx, clipped, out, diag);
    return out;
}

namespace {

// The ProfilerStep#N annotation rows of the context, in ts order.
std::vector<uint32_t> stepAnnotations(const CpaContext &ctx)
{
    std::vector<uint32_t> annotations;
    for (uint32_t i = 0; i < ctx.rows.eventCount(); ++i)
        if (ctx.rows.isLoaded(i) && ctx.rows.catRole(i) == CatUserAnnotation &&
            (ctx.rows.nameRoles(i) & RoleProfilerStep))
            annotations.push_back(i);
    std::sort(annotations.begin(), annotations.end(), [&](uint32_t a, uint32_t b) {
        return ctx.rows.ts(a) != ctx.rows.ts(b) ? ctx.rows.ts(a) < ctx.rows.ts(b) : a < b;
    });
    return annotations;
}

} // namespace

std::vector<uint32_t> profilerStepEvents(const KinetoTrace &trace)
{
    std::vector<uint32_t> steps;
    for (uint32_t i = 0; i < trace.events.size(); ++i)
        if (trace.events[i].kind == EventKind::UserAnnotation &&
            isProfilerStepName(trace.str(trace.events[i].name)))
            steps.push_back(i);
    std::stable_sort(steps.begin(), steps.end(),
                     [&](uint32_t a, uint32_t b) { return trace.events[a].ts < trace.events[b].ts; });
    return steps;
}

CriticalPathResult analyzeSteps(const KinetoTrace &trace, const CriticalPathOptions &options, int first, int last,
                                Diagnostics &diag)
{
    CriticalPathResult out;
    auto t0 = std::chrono::steady_clock::now();
    checkCudaSyncPresent(trace, diag, isHtaExact(options));
    const RowOptions rowOptions = rowOptionsFor(options, /*dropLastStep=*/false); // keep the last step's events
    CpaContext ctx(trace, options, rowOptions, diag);
    out.timings.prepare = secondsSince(t0);
    out.loadedRows = ctx.rows.loadedRows();
    const std::vector<uint32_t> steps = stepAnnotations(ctx);
    CpWindow &w = out.window;
    w.profilerSteps = true;
    w.instanceCount = static_cast<int>(steps.size());
    w.annotationFound = !steps.empty();
    if (first < 0 || last < first || first >= w.instanceCount) {
        out.reason = "step " + std::to_string(first) + " is out of range: the trace has " +
                     std::to_string(steps.size()) + " ProfilerSteps";
        diag.error("cpa.instance_out_of_range", trace.path + ": " + out.reason, trace.path);
        return out;
    }
    w.instanceFirst = first;
    w.instanceLast = std::min(last, w.instanceCount - 1);
    w.firstEvent = static_cast<int32_t>(steps[static_cast<size_t>(first)]);
    w.startUs = std::numeric_limits<double>::infinity();
    w.endUs = -std::numeric_limits<double>::infinity();
    for (int k = w.instanceFirst; k <= w.instanceLast; ++k) {
        w.startUs = std::min(w.startUs, ctx.rows.ts(steps[static_cast<size_t>(k)]));
        w.endUs = std::max(w.endUs, ctx.rows.end(steps[static_cast<size_t>(k)]));
    }
    w.startAbsUs = w.startUs + ctx.rows.minTs();
    hta::analyzeWindow(ctx, ctx.clip(w.startUs, w.endUs), out, diag);
    return out;
}

std::vector<StepResult> analyzeAllSteps(const KinetoTrace &trace, const CriticalPathOptions &options, Diagnostics &diag)
{
    std::vector<StepResult> steps;
    checkCudaSyncPresent(trace, diag, isHtaExact(options));
    const RowOptions rowOptions = rowOptionsFor(options, /*dropLastStep=*/false); // keep the last step's events
    CpaContext ctx(trace, options, rowOptions, diag);
    const std::vector<uint32_t> annotations = stepAnnotations(ctx);
    if (annotations.empty())
        diag.warning("cpa.no_steps", trace.path + ": the trace has no ProfilerStep#N annotations; no per-step table",
                     trace.path);
    for (size_t k = 0; k < annotations.size(); ++k) {
        const uint32_t ev = annotations[k];
        StepResult s;
        s.instance = static_cast<int>(k);
        s.event = ev;
        s.name = trace.str(trace.events[ev].name);
        s.startUs = trace.events[ev].ts;
        s.endUs = trace.events[ev].ts + trace.events[ev].dur;
        CriticalPathResult r;
        // A step of the table that has no path (a profiler's cut-off last step with a few ops
        // and no edge) is a row marked failed and a warning naming it, not a failed run.
        Diagnostics stepDiag;
        hta::analyzeWindow(ctx, ctx.clipStep(ctx.rows.ts(ev), ctx.rows.end(ev)), r, stepDiag);
        for (const Diagnostic &d : stepDiag.items())
            if (d.code != "cpa.failed")
                diag.add(d.severity, d.code, d.message, d.file, d.offset); // folded with the other steps'
        if (!r.success)
            diag.warning("cpa.step_failed",
                         trace.path + ": " + s.name + " has no critical path (" + r.reason + "); its row is marked failed",
                         trace.path);
        s.success = r.success;
        s.reason = r.reason;
        s.weightUs = r.weightUs;
        s.pathNodes = r.pathNodes.size();
        s.criticalEvents = r.criticalEvents.size();
        s.clippedRows = r.clippedRows;
        s.summary = std::move(r.summary);
        steps.push_back(std::move(s));
    }
    return steps;
}

} // namespace syncscope
