// SPDX-License-Identifier: MIT
#include "conformance.h"

#include "analysis/syncinfer.h"
#include "hang/hanganalysis.h"
#include "hang/hangfolder.h"
#include "hangreference.h"
#include "job/discovery.h"
#include "job/jobanalysis.h"
#include "job/jobreport.h"
#include "job/jobrunner.h"
#include "parse/traceloader.h"
#include "report/batchreport.h"
#include "session/rankpipeline.h"
#include "analysis/stepwindow.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <regex>
#include <unordered_map>
#include <unordered_set>

using namespace syncscope;

namespace realtraces {

namespace {

std::string num(double v)
{
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

// Figures the report documents as null where they do not apply (HTA's NaN): the
// comm/compute overlap of a trace without communication, the idle ratio of a stream
// with no time in the window, the message of a collective whose size is unknown.
bool nullable(const std::string &k)
{
    return k == "comm_comp_overlap_pct" || k == "idle_time_ratio" || k == "message_bytes";
}

// Keys whose value is a figure: null there is a NaN or an infinity the writer hid.
bool figureKey(const std::string &k)
{
    if (nullable(k))
        return false;
    static const char *suffixes[] = {"_us", "_ms", "_s", "_pct", "_percent", "_share", "_ratio", "_bytes"};
    for (const char *s : suffixes) {
        const size_t n = std::strlen(s);
        if (k.size() > n && k.compare(k.size() - n, n, s) == 0)
            return true;
    }
    return false;
}

void walkFinite(const nlohmann::json &j, const std::string &where, const std::string &what,
                std::vector<Violation> &out)
{
    if (out.size() > 20)
        return;
    if (j.is_object()) {
        for (auto it = j.begin(); it != j.end(); ++it) {
            if (it.value().is_null() && figureKey(it.key()))
                out.push_back({"finite", what + ": " + where + "/" + it.key() + " is null (NaN or infinite)"});
            walkFinite(it.value(), where + "/" + it.key(), what, out);
        }
    } else if (j.is_array()) {
        for (size_t k = 0; k < j.size(); ++k)
            walkFinite(j[k], where + "[" + std::to_string(k) + "]", what, out);
    } else if (j.is_number_float() && !std::isfinite(j.get<double>())) {
        out.push_back({"finite", what + ": " + where + " is not finite"});
    }
}

// The kinds of events a critical path can hold (annotations are no nodes).
bool pathKind(EventKind k)
{
    return k == EventKind::CpuOp || k == EventKind::Runtime || k == EventKind::Driver || isGpuActivity(k);
}

struct Extent {
    double start = std::numeric_limits<double>::infinity();
    double end = -std::numeric_limits<double>::infinity();
    bool empty() const { return !(end >= start); }
    void add(double ts, double e)
    {
        start = std::min(start, ts);
        end = std::max(end, e);
    }
    double length() const { return empty() ? 0 : end - start; }
};

Extent eventsExtent(const KinetoTrace &trace, const std::vector<uint32_t> &events)
{
    Extent x;
    for (uint32_t i : events)
        if (i < trace.events.size() && trace.events[i].ph == 'X')
            x.add(trace.events[i].ts, trace.events[i].ts + std::max(0.0, trace.events[i].dur));
    return x;
}

// Invariant: every GPU row is read as one (no GPU-looking category left over).
void checkGpuRows(const Analysis &a, std::vector<Violation> &out)
{
    for (const Diagnostic &d : a.diagnostics.items())
        if (d.code == "kineto.unknown_gpu_category")
            out.push_back({"gpu_rows", d.message});
    size_t unread = 0;
    for (const KinetoEvent &e : a.device->events)
        unread += (e.kind == EventKind::Other && e.ph == 'X' && e.streamForm == StreamForm::Integer) ? 1 : 0;
    if (unread > 0)
        out.push_back({"gpu_rows", std::to_string(unread) + " events with a stream argument are read as no kind"});
}

// Invariant: the whole-trace path runs from the first event to the last.
void checkWholePath(const Analysis &a, std::vector<Violation> &out)
{
    const KinetoTrace &t = *a.device;
    Extent trace;
    for (const KinetoEvent &e : t.events)
        if (e.ph == 'X' && pathKind(e.kind))
            trace.add(e.ts, e.ts + std::max(0.0, e.dur));
    if (trace.empty())
        return;
    CriticalPathOptions o = a.request.cpa;
    o.annotation = "";
    o.syncEdges = std::make_shared<const std::vector<SyncEdge>>(a.syncEdges);
    Diagnostics diag;
    const CriticalPathResult r = analyzeCriticalPath(t, o, diag);
    if (!r.success) {
        out.push_back({"whole_path", "the whole-trace critical path failed: " + r.reason});
        return;
    }
    // The start within 1 % of the span; the end within 5 %: HTA's graph weighs no idle
    // CPU time, so a CPU tail after the last GPU op adds nothing to the longest path.
    const Extent path = eventsExtent(t, r.criticalEvents);
    const double startTol = std::max(0.01 * trace.length(), 1.0), endTol = std::max(0.05 * trace.length(), 1.0);
    if (path.empty() || path.start - trace.start > startTol || trace.end - path.end > endTol)
        out.push_back({"whole_path", "the whole-trace path spans " + num(path.start - trace.start) + " .. " +
                                         num(path.end - trace.start) + " us of the trace's 0 .. " +
                                         num(trace.length()) + " us"});
}

// Invariant: a step's path covers its own GPU work (the GPU ops its CPU side launched)
// from its first op, >= 90 % of that extent. The first steps only: enough to see a
// shape, bounded in time.
void checkStepPaths(const Analysis &a, std::vector<Violation> &out)
{
    const KinetoTrace &t = *a.device;
    std::unordered_map<int64_t, double> launchTs; // correlation -> launching call's ts
    for (const KinetoEvent &e : t.events)
        if ((e.kind == EventKind::Runtime || e.kind == EventKind::Driver) && e.has(KinetoEvent::HasCorrelation))
            launchTs.emplace(e.correlation, e.ts);
    const std::vector<StepSpan> steps = profilerStepSpans(t);
    const size_t limit = std::min<size_t>(steps.size(), 6);
    for (size_t s = 0; s < limit; ++s) {
        Extent gpu;
        for (const KinetoEvent &e : t.events) {
            if (!isGpuActivity(e.kind) || !e.has(KinetoEvent::HasCorrelation))
                continue;
            const auto it = launchTs.find(e.correlation);
            if (it != launchTs.end() && it->second >= steps[s].startUs && it->second <= steps[s].endUs)
                gpu.add(e.ts, e.ts + std::max(0.0, e.dur));
        }
        if (gpu.length() <= 0)
            continue;
        AnalysisRequest req = a.request;
        req.window = WindowKind::Step;
        req.stepFirst = req.stepLast = profilerStepNumber(steps[s].name);
        if (req.stepFirst < 0)
            continue;
        CriticalPathOptions o = a.request.cpa;
        o.syncEdges = std::make_shared<const std::vector<SyncEdge>>(a.syncEdges);
        Diagnostics diag;
        WindowKind used;
        const CriticalPathResult r = analyzeRequestedWindow(t, req, o, diag, used);
        if (!r.success) {
            out.push_back({"step_path", steps[s].name + ": the critical path failed: " + r.reason});
            continue;
        }
        const Extent path = eventsExtent(t, r.criticalEvents);
        const double covered = std::max(0.0, std::min(path.end, gpu.end) - std::max(path.start, gpu.start));
        const double share = covered / gpu.length();
        if (share < 0.9)
            out.push_back({"step_path", steps[s].name + ": the path covers " + num(100 * share) +
                                            " % of the step's GPU work (" + num(gpu.length()) + " us from its first op)"});
    }
}

// Invariant: every runtime call that blocked on the GPU ends a sync edge. Blocked: a
// synchronize of at least 20 us that returned within 20 us of the end of a GPU op
// that ended inside it, or a copy call that returned within 20 us of the end of its
// own copy (which ended inside it: a staged copy returns before its copy ends).
void checkBlockingCalls(const Analysis &a, std::vector<Violation> &out)
{
    const KinetoTrace &t = *a.device;
    std::vector<double> gpuEnds;
    std::unordered_map<int64_t, uint32_t> copyByCorr;
    for (uint32_t i = 0; i < t.events.size(); ++i) {
        const KinetoEvent &e = t.events[i];
        if (!isGpuActivity(e.kind))
            continue;
        gpuEnds.push_back(e.ts + std::max(0.0, e.dur));
        if (e.kind == EventKind::Memcpy && e.has(KinetoEvent::HasCorrelation))
            copyByCorr.emplace(e.correlation, i);
    }
    std::sort(gpuEnds.begin(), gpuEnds.end());
    std::unordered_set<uint32_t> ended;
    for (const SyncEdge &e : a.syncEdges)
        if (!e.gpuToGpu)
            ended.insert(e.dst);
    constexpr double kMinUs = 20, kReturnUs = 20;
    size_t missing = 0;
    std::string first;
    RuntimeApiTable apis(t);
    for (uint32_t i = 0; i < t.events.size(); ++i) {
        const KinetoEvent &e = t.events[i];
        if ((e.kind != EventKind::Runtime && e.kind != EventKind::Driver) || e.dur < kMinUs)
            continue;
        const RuntimeApi api = apis.of(e.name);
        const double end = e.ts + e.dur;
        double gpuEnd = -1;
        if (api == RuntimeApi::StreamSync || api == RuntimeApi::DeviceSync || api == RuntimeApi::EventSync) {
            auto it = std::upper_bound(gpuEnds.begin(), gpuEnds.end(), end);
            if (it != gpuEnds.begin())
                gpuEnd = *(it - 1);
        } else if ((api == RuntimeApi::Copy || api == RuntimeApi::CopyAsync) && e.has(KinetoEvent::HasCorrelation)) {
            const auto copy = copyByCorr.find(e.correlation);
            if (copy != copyByCorr.end() && (api == RuntimeApi::Copy || copyBlocksHost(t.str(t.events[copy->second].name))))
                gpuEnd = t.events[copy->second].ts + std::max(0.0, t.events[copy->second].dur);
        }
        if (gpuEnd < e.ts + 1 || gpuEnd > end || end - gpuEnd > kReturnUs)
            continue;
        if (!ended.count(i) && missing++ == 0)
            first = std::string(t.str(e.name)) + " at " + num(e.ts - t.events.front().ts) + " us (event " +
                    std::to_string(i) + ", " + num(e.dur) + " us)";
    }
    if (missing > 0)
        out.push_back({"blocking_calls", std::to_string(missing) +
                                             " runtime calls that blocked on the GPU end no sync edge; the first: " +
                                             first});
}

// Invariant: the default .et replays each step within 5 % where the ET covers it.
void checkReplay(const RankRun &run, std::vector<Violation> &out)
{
    for (const OutputRecord &o : run.outputs) {
        if (o.kind != "chakra_et")
            continue;
        if (o.status != "written") {
            out.push_back({"et_replay", "the .et was not written: " + o.reason});
            continue;
        }
        for (const ReplayWindow &w : o.replay) {
            if (w.window.rfind("ProfilerStep#", 0) != 0 || w.measuredUs <= 0 || w.etCoveragePct < 90)
                continue;
            if (std::fabs(w.errorPct()) > 5.0)
                out.push_back({"et_replay", w.window + " replays " + num(w.errorPct()) + " % (measured " +
                                                num(w.measuredUs) + " us, replayed " + num(w.replayedUs) + " us)"});
        }
    }
}

void checkErrors(const Diagnostics &d, const std::string &what, std::vector<Violation> &out)
{
    for (const Diagnostic &x : d.items())
        if (x.severity == Severity::Error)
            out.push_back({"errors", what + ": " + x.code + ": " + x.message});
}

} // namespace

void checkFiniteJson(const std::string &json, const std::string &what, std::vector<Violation> &out)
{
    try {
        walkFinite(nlohmann::json::parse(json), "", what, out);
    } catch (const std::exception &e) {
        out.push_back({"finite", what + " is not JSON: " + e.what()});
    }
}

void checkFiniteText(const std::string &text, const std::string &what, std::vector<Violation> &out)
{
    static const std::regex bad("(^|[^A-Za-z_])-?(nan|inf)([^A-Za-z_]|$)", std::regex::icase);
    std::smatch m;
    if (std::regex_search(text, m, bad))
        out.push_back({"finite", what + " prints a non-finite figure near \"" +
                                     text.substr(static_cast<size_t>(std::max<long>(0, m.position(0) - 40)), 80) +
                                     "\""});
}

std::vector<Violation> checkPair(const PairCase &c, const std::string &scratch)
{
    std::vector<Violation> out;
    AnalysisRequest req;
    req.devicePath = c.device;
    req.hostPath = c.host;
    req.allSteps = true;
    req.breakdowns = true;
    RankOutputPaths paths;
    if (!c.host.empty())
        paths.chakraEt = scratch + "/conformance.et";
    paths.criticalPathAsked = false;
    const RankRun run = runRankPipeline(req, paths);
    if (!run.analysis || !run.analysis->device) {
        out.push_back({"errors", "the pipeline did not load the trace (exit " + std::to_string(run.exitCode) + ")"});
        if (run.analysis)
            checkErrors(run.analysis->diagnostics, "pipeline", out);
        return out;
    }
    const Analysis &a = *run.analysis;
    if (run.exitCode != 0)
        out.push_back({"errors", "exit code " + std::to_string(run.exitCode)});
    checkErrors(a.diagnostics, "pipeline", out);
    ReportContext ctx;
    ctx.analysis = &a;
    ctx.outputs = run.outputs;
    ctx.exitCode = run.exitCode;
    checkFiniteJson(buildReportJson(ctx), "the report", out);
    checkFiniteText(formatSummary(ctx), "the summary", out);
    checkGpuRows(a, out);
    checkWholePath(a, out);
    checkStepPaths(a, out);
    checkBlockingCalls(a, out);
    checkReplay(run, out);
    return out;
}

std::vector<Violation> checkJob(const std::string &dir)
{
    std::vector<Violation> out;
    const JobDiscovery discovery = discoverJob({dir});
    checkErrors(discovery.diagnostics, "discovery", out);
    JobRunOptions options;
    options.breakdowns = true;
    const std::vector<RankSummary> ranks = runJobRanks(discovery.ranks, options);
    for (const RankSummary &r : ranks) {
        if (r.exitCode != 0)
            out.push_back({"errors", "rank " + std::to_string(r.rank) + " exit code " + std::to_string(r.exitCode)});
        checkErrors(r.diagnostics, "rank " + std::to_string(r.rank), out);
    }
    const JobAnalysis job = analyzeJob(ranks, {});
    checkFiniteJson(jobAnalysisJson(job).dump(), "the job report", out);
    return out;
}

std::vector<Violation> checkHangFolder(const std::string &dir)
{
    std::vector<Violation> out;
    HangFolder folder;
    std::string error;
    if (!readHangFolder(dir, folder, error)) {
        out.push_back({"errors", "the folder was not read: " + error});
        return out;
    }
    for (const HangFolderDiag &d : folder.diags)
        if (d.severity == "error")
            out.push_back({"errors", d.code + ": " + d.message});
    if (folder.dumps.empty()) {
        out.push_back({"errors", "no dump was read"});
        return out;
    }
    const HangAnalysis hang = analyzeHang(folder.dumps, folder.missing, folder.worldSize);
    checkFiniteJson(hangAnalysisJson(hang).dump(), "the hang report", out);
    checkFiniteText(hangSummaryText(hang), "the hang summary", out);
    // Where a reference analyzer's answer lies beside the dumps: the same first suspect.
    for (const std::string &d : testutil::compareHangReference(hang, testutil::readHangReference(dir)))
        out.push_back({"hang_reference", d});
    return out;
}

std::vector<Violation> checkHostOnly(const std::string &path)
{
    std::vector<Violation> out;
    Diagnostics diag;
    const LoadedTrace t = loadTrace(path, diag);
    if (!t.complete || t.kind != TraceKind::Host || !t.host)
        out.push_back({"errors", "the ET did not load completely"});
    checkErrors(diag, "load", out);
    return out;
}

std::vector<Violation> checkHtaGolden(const std::string &goldenPath)
{
    std::vector<Violation> out;
    nlohmann::json golden;
    try {
        std::ifstream in(goldenPath);
        golden = nlohmann::json::parse(in);
    } catch (const std::exception &e) {
        out.push_back({"errors", std::string("the golden is not JSON: ") + e.what()});
        return out;
    }
    const std::string dir = goldenPath.substr(0, goldenPath.find_last_of('/'));
    std::string device;
    for (const char *name : {"device.json.gz", "device.json"})
        if (std::ifstream(dir + "/" + name).good()) {
            device = dir + "/" + name;
            break;
        }
    if (device.empty() || !golden.value("success", false))
        return out; // nothing to compare with
    Diagnostics diag;
    const LoadedTrace t = loadTrace(device, diag);
    if (!t.device) {
        out.push_back({"errors", "the device trace did not load"});
        return out;
    }
    CriticalPathOptions o;
    o.htaExact = true;
    const nlohmann::json &call = golden["call"];
    o.annotation = call.value("annotation", std::string("ProfilerStep"));
    o.instanceFirst = o.instanceLast = call.value("instance_id", 0);
    o.zeroWeightLaunchEdges = call.contains("CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE") &&
                              !call["CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE"].is_null() &&
                              call["CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE"].dump() != "\"0\"" &&
                              call["CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE"].dump() != "0";
    const CriticalPathResult r = analyzeCriticalPath(*t.device, o, diag);
    if (!r.success) {
        out.push_back({"hta_exact", "the critical path failed: " + r.reason});
        return out;
    }
    const nlohmann::json &cp = golden["critical_path"];
    const double weight = cp.value("weight_us", -1.0);
    if (std::fabs(r.weightUs - weight) > std::max(1.0, 1e-3 * weight))
        out.push_back({"hta_exact", "path length " + num(r.weightUs) + " us, HTA " + num(weight) + " us"});
    if (static_cast<int64_t>(r.pathNodes.size()) != cp.value("nodes", int64_t(-1)))
        out.push_back({"hta_exact", "path nodes " + std::to_string(r.pathNodes.size()) + ", HTA " +
                                        std::to_string(cp.value("nodes", int64_t(-1)))});
    if (static_cast<int64_t>(static_cast<size_t>(r.graph.edgeCount())) != golden.value("graph_edges", int64_t(-1)))
        out.push_back({"hta_exact", "graph edges " + std::to_string(static_cast<size_t>(r.graph.edgeCount())) + ", HTA " +
                                        std::to_string(golden.value("graph_edges", int64_t(-1)))});
    return out;
}

} // namespace realtraces
