// SPDX-License-Identifier: MIT
#include "analysis.h"

#include "analysis/graphcapture.h"
#include "analysis/traceshape.h"

#include "link/hostgraph.h"
#include "util/parallel.h"
#include "report/breakdownreport.h"
#include "analysis/stepwindow.h"
#include "parse/traceloader.h"

#include <algorithm>
#include <chrono>
#include <future>
#include <map>

namespace syncscope {

namespace {

double secondsSince(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

LoadedTrace loadOne(const std::string &path, Diagnostics &diag, const AnalysisRequest &req, const char *stage)
{
    LoadOptions opts;
    opts.keepRawEvents = req.keepRawEvents;
    opts.cancel = req.cancel;
    if (req.progress)
        opts.progress = [&req, stage](double f) { req.progress(stage, f); };
    return loadTrace(path, diag, opts);
}

void checkPair(Analysis &a)
{
    auto &diag = a.diagnostics;
    const KinetoTrace &device = *a.device;
    a.devicePid = kinetoProcessId(device);
    checkTraceShape(device, diag);
    if (a.request.rank && device.distributed.rank && *a.request.rank != *device.distributed.rank)
        diag.warning("pair.rank_mismatch",
                     device.path + ": --rank " + std::to_string(*a.request.rank) +
                         " was given but the trace says rank " + std::to_string(*device.distributed.rank),
                     device.path);
    if (!a.host)
        return;
    if (a.host->pid >= 0 && a.devicePid >= 0 && a.host->pid != a.devicePid)
        diag.warning("pair.pid_mismatch",
                     "the traces look like different runs: " + a.host->path + " has pid " +
                         std::to_string(a.host->pid) + " but " + device.path + " has pid " +
                         std::to_string(a.devicePid),
                     a.host->path);
}

// The capture of the graphs the device trace replays (given, or found beside it).
void linkCapturedGraphs(Analysis &a)
{
    const KinetoTrace &device = *a.device;
    std::string path = a.request.graphCapturePath;
    if (path.empty() && a.request.findGraphCapture && replaysGraphs(device))
        path = findGraphCaptureBeside(a.devicePath);
    if (path.empty())
        return;
    Diagnostics loadDiag;
    LoadOptions opts;
    opts.keepRawEvents = true; // the launch rows' kernel names, the ops' input shapes
    opts.cancel = a.request.cancel;
    const LoadedTrace capture = loadTrace(path, loadDiag, opts);
    if (!capture.complete || capture.kind != TraceKind::Device || !capture.device) {
        for (Diagnostic d : loadDiag.items()) { // the replay analysis goes on without it
            if (d.severity == Severity::Error)
                d.severity = Severity::Warning;
            a.diagnostics.addItem(d);
        }
        a.diagnostics.warning("graph_capture.unreadable",
                              path + ": the graph capture trace could not be read as a Kineto trace; the replayed "
                                     "graph ops keep no CPU op",
                              path);
        return;
    }
    a.graphCapture = std::make_shared<GraphCaptureLink>(linkGraphCapture(*capture.device, device, a.diagnostics));
}

// A host ET whose parent ids loop has no tree to link or export: the .et
// converter would drop every node on and under the loop. Rejected, never
// repaired silently (issue 11, item 14).
bool hostIsTree(const HostTrace &host, Diagnostics &diag)
{
    const ParentCycles cycles = findParentCycles(host);
    if (cycles.nodesOnCycles == 0)
        return true;
    std::string ids;
    for (size_t k = 0; k < cycles.firstCycle.size() && k < 6; ++k)
        ids += std::to_string(cycles.firstCycle[k]) + " -> ";
    ids += cycles.firstCycle.size() > 6 ? "..." : std::to_string(cycles.firstCycle.front());
    diag.error("host.parent_cycle",
               host.path + ": the parent ids of " + std::to_string(cycles.nodesOnCycles) +
                   " nodes form a cycle (node " + ids +
                   "); the nodes of an execution trace must form a tree under the root",
               host.path);
    return false;
}

// Coverage is reported loudly: nothing linked, or little of what could be.
void reportCoverage(const Analysis &a, Diagnostics &diag)
{
    const LinkCounts &c = a.link->counts;
    if (c.hostOpsLinked == 0) {
        diag.warning("link.nothing_linked",
                     "no host op could be linked to the Kineto trace: " +
                         std::string(a.request.mode == LinkMode::Chakra
                                         ? "chakra_trace_link matches only by Record function id, which this trace "
                                           "lacks or does not share with the ET (try the default mode)"
                                         : "the traces share neither ids nor op sequences; are they from the same run?"),
                     a.hostPath);
    } else if (c.hostOpsWithTwin > 0 && c.hostOpsLinked * 2 < c.hostOpsWithTwin) {
        diag.warning("link.low_coverage",
                     "only " + std::to_string(c.hostOpsLinked) + " of " + std::to_string(c.hostOpsWithTwin) +
                         " host ops with a same-named Kineto op were linked; the pair may come from different runs",
                     a.hostPath);
    }
}

} // namespace

int64_t kinetoProcessId(const KinetoTrace &trace)
{
    std::map<int64_t, int64_t> counts;
    for (const auto &e : trace.events)
        if ((e.kind == EventKind::CpuOp || e.kind == EventKind::Runtime) && !e.has(KinetoEvent::PidIsString))
            ++counts[e.pid];
    int64_t best = -1, bestCount = 0;
    for (auto [pid, n] : counts)
        if (n > bestCount) {
            best = pid;
            bestCount = n;
        }
    return best;
}

std::shared_ptr<Analysis> runAnalysis(const AnalysisRequest &request)
{
    auto a = std::make_shared<Analysis>();
    a->request = request;
    auto &diag = a->diagnostics;
    const auto t0 = std::chrono::steady_clock::now();

    // Load both files at once: two cores, two files.
    Diagnostics hostDiag, deviceDiag;
    LoadedTrace first, second;
    if (!request.hostPath.empty()) {
        auto other = std::async(std::launch::async,
                                [&] { return loadOne(request.hostPath, hostDiag, request, "load host"); });
        second = loadOne(request.devicePath, deviceDiag, request, "load device");
        first = other.get();
    } else {
        second = loadOne(request.devicePath, deviceDiag, request, "load device");
    }
    diag.append(hostDiag);
    diag.append(deviceDiag);
    a->times.loadSeconds = secondsSince(t0);

    // Put the pair right whichever way round it was given.
    LoadedTrace *hostSide = request.hostPath.empty() ? nullptr : &first;
    LoadedTrace *deviceSide = &second;
    a->hostPath = request.hostPath;
    a->devicePath = request.devicePath;
    if (hostSide && hostSide->kind == TraceKind::Device && deviceSide->kind == TraceKind::Host) {
        std::swap(hostSide, deviceSide);
        std::swap(a->hostPath, a->devicePath);
        a->swapped = true;
        const std::string text = a->hostPath + " is the host execution trace and " + a->devicePath +
                                 " the Kineto device trace";
        if (request.rolesGiven)
            diag.warning("pair.swapped", "the inputs were given the other way round: " + text + "; they were swapped");
        else
            diag.info("pair.detected", text);
    }
    bool kindsOk = true;
    if (deviceSide->kind == TraceKind::Host) {
        kindsOk = false;
        diag.error("input.wrong_kind",
                   a->devicePath + ": is a host execution trace, not a Kineto device trace" +
                       (hostSide ? std::string(" (both inputs are execution traces)") : std::string()),
                   a->devicePath);
    }
    if (hostSide && hostSide->kind == TraceKind::Device) {
        kindsOk = false;
        diag.error("input.wrong_kind",
                   a->hostPath + ": is a Kineto device trace, not a host execution trace" +
                       std::string(deviceSide->kind == TraceKind::Device ? " (both inputs are device traces)" : ""),
                   a->hostPath);
    }
    if (deviceSide->device)
        a->device = deviceSide->device;
    if (hostSide && hostSide->host)
        a->host = hostSide->host;
    a->inputsOk = kindsOk && deviceSide->complete && a->device && (!hostSide || (hostSide->complete && a->host));
    if (a->inputsOk && a->host)
        a->inputsOk = hostIsTree(*a->host, diag);
    if (!a->inputsOk)
        return a;
    auto cancelled = [&] {
        if (!request.cancel || !*request.cancel)
            return false;
        diag.error("load.cancelled", "the analysis was cancelled");
        a->inputsOk = false;
        return true;
    };
    if (cancelled())
        return a;

    // The critical path, which needs only the device trace, starts on the second core
    // at once (issue 40, class 11): it builds what does not depend on the sync edges
    // while this thread checks the pair and finds them (it reads the same inferred
    // edges), then goes on while this thread links the pair.
    Diagnostics cpaDiag, syncDiag, linkDiag;
    CriticalPathOptions cpa = request.cpa;
    std::promise<std::shared_ptr<const std::vector<SyncEdge>>> edgesFound;
    if (!cpa.syncEdges)
        cpa.syncEdgesLater = edgesFound.get_future().share();
    // HTA's breakdowns need only the device trace; their items (the whole trace, chunks of
    // steps: windows from the annotations, not the critical path) go to whichever thread
    // is free first: this one after the link, the critical path's after the critical path.
    std::shared_ptr<BreakdownWork> breakdownWork;
    if (request.breakdowns && a->device)
        breakdownWork = std::make_shared<BreakdownWork>(
            *a->device, request.allSteps && request.stepBreakdowns ? profilerStepSpans(*a->device)
                                                                   : std::vector<StepSpan>{});
    std::future<void> cpaTask;
    std::promise<void> cpaDone; // the critical path itself is done (its thread may go on helping)
    std::future<void> cpaReady = cpaDone.get_future();
    if (request.criticalPath) {
        cpaTask = std::async(std::launch::async, [&a, &request, &cpaDiag, &cpaDone, cpa, breakdownWork] {
            struct Done { // set even when the analysis throws, so a waiter never hangs
                std::promise<void> &p;
                ~Done() { p.set_value(); }
            };
            {
                Done done{cpaDone};
                const auto tc = std::chrono::steady_clock::now();
                if (request.progress)
                    request.progress("critical path", 0);
                // --step's window by default, HTA's where asked for (analysis/stepwindow.h).
                a->criticalPath = analyzeRequestedWindow(*a->device, request, cpa, cpaDiag, a->window);
                a->windowByDefault = request.window == WindowKind::Default;
                if (request.allSteps)
                    a->steps = analyzeAllSteps(*a->device, cpa, cpaDiag);
                a->times.criticalPathSeconds = secondsSince(tc);
            }
            if (breakdownWork)
                breakdownWork->help();
        });
    }

    // Until the edges are found the critical path's thread may be waiting for them:
    // whatever this thread throws first reaches it too (else it would never end).
    auto t1 = std::chrono::steady_clock::now();
    try {
        checkPair(*a);
        linkCapturedGraphs(*a);
        if (request.loaded)
            request.loaded(a->device, a->host);
        if (request.progress)
            request.progress("sync", 0);
        SyncOptions syncOptions;
        syncOptions.htaExact = isHtaExact(request.cpa);
        t1 = std::chrono::steady_clock::now();
        a->syncEdges = findAllSyncEdges(*a->device, syncDiag, syncOptions);
    } catch (...) {
        edgesFound.set_exception(std::current_exception());
        throw;
    }
    edgesFound.set_value(std::make_shared<const std::vector<SyncEdge>>(a->syncEdges));
    a->times.syncSeconds = secondsSince(t1);

    if (a->host && !(request.cancel && *request.cancel)) {
        const auto t2 = std::chrono::steady_clock::now();
        if (request.progress)
            request.progress("link", 0);
        if (request.mode == LinkMode::Chakra) {
            // The session's critical path is Chakra's when the options match: wait for it
            // instead of computing it a second time.
            // (Not for a --step window: Chakra's is HTA's first instance.)
            const bool reuse = cpaTask.valid() && isChakraCriticalPathRequest(request.cpa) &&
                               requestedWindowKind(request) == WindowKind::HtaInstance;
            if (reuse)
                cpaReady.wait();
            a->linkSyncEdges =
                chakraSyncEdges(*a->device, linkDiag, reuse && a->criticalPath ? &*a->criticalPath : nullptr);
        } else {
            a->linkSyncEdges.reserve(a->syncEdges.size());
            for (const SyncEdge &e : a->syncEdges)
                a->linkSyncEdges.push_back({e.src, e.dst});
        }
        LinkOptions opts;
        opts.mode = request.mode;
        opts.cancel = request.cancel;
        a->link = linkTraces(*a->host, *a->device, opts, a->linkSyncEdges, linkDiag);
        a->times.linkSeconds = secondsSince(t2);
        reportCoverage(*a, linkDiag);
    }
    if (breakdownWork)
        breakdownWork->help();
    if (cpaTask.valid())
        cpaTask.get();
    if (breakdownWork)
        a->breakdown = breakdownWork->result();
    // Merged in a fixed order so the report does not depend on thread timing.
    diag.append(syncDiag);
    diag.appendNew(cpaDiag);
    diag.appendNew(linkDiag);
    cancelled();
    return a;
}

} // namespace syncscope
