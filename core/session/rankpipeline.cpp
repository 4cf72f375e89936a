// SPDX-License-Identifier: MIT
#include "rankpipeline.h"

#include "export/chakrareplay.h"
#include "export/chakrawriter.h"
#include "export/criticalpathjson.h"
#include "export/etpluswriter.h"
#include "export/overlaywriter.h"
#include "export/sqlitedb.h"
#include "io/bytesource.h"
#include "io/outputfile.h"
#include "session/exitcodes.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <tuple>
#include <utility>

namespace syncscope {

namespace {

// Replays a written .et (the fidelity check of issue 15: docs/chakra_et.md).
std::vector<ReplayWindow> replayExport(const std::string &path, const KinetoTrace &trace,
                                       const std::vector<int32_t> &eventHost, Diagnostics &diag)
{
    try {
        std::vector<ReplayWindow> windows = replayChakraEt(path, measuredReplayWindows(trace)).windows;
        annotateEtCoverage(windows, trace, eventHost);
        return windows;
    } catch (const InputError &e) {
        diag.warning("chakra_et.replay_failed", std::string("the written .et could not be replayed: ") + e.what(), path);
        return {};
    }
}

uint64_t fileSize(const std::string &path)
{
    std::error_code ec;
    const auto n = std::filesystem::file_size(path, ec);
    return ec ? 0 : static_cast<uint64_t>(n);
}

// One output of the run, in the order they are written.
struct RequestedOutput {
    const char *option;
    const char *kind;
    std::string path;
};

OutputRecord written(const RequestedOutput &o)
{
    OutputRecord r;
    r.kind = o.kind;
    r.path = o.path;
    r.bytes = fileSize(o.path);
    return r;
}

OutputRecord notWritten(const RequestedOutput &o, const char *status, std::string reason)
{
    OutputRecord r;
    r.kind = o.kind;
    r.path = o.path;
    r.status = status;
    r.reason = std::move(reason);
    return r;
}

// Writes one output; an OutputError only fails this one. Returns the exit code it calls for.
int writeOutput(const Analysis &a, const RankOutputPaths &paths, const RequestedOutput &o,
                const std::vector<std::string> &inputs, Diagnostics &diagnostics, std::vector<OutputRecord> &records)
{
    const std::string kind = o.kind;
    const auto t0 = std::chrono::steady_clock::now();
    try {
        if (kind == "sqlite") {
            writeSqliteDatabase(o.path, a, inputs);
        } else if (kind == "et_plus") {
            writeEtPlusFile(o.path, *a.host, *a.device, *a.link, inputs);
        } else if (kind == "chakra_et") {
            if (!exportChakraEt(o.path, *a.host, *a.device, *a.link, inputs, diagnostics, nullptr,
                                a.request.chakraMetadataNodes)) {
                // --compat chakra: the reference converter fails here; the diagnostics say why
                records.push_back(notWritten(o, "skipped", "the Chakra graph could not be built"));
                return ExitAnalysis;
            }
        } else if (kind == "critical_path" || kind == "overlay") {
            if (!a.criticalPath || !a.criticalPath->success) {
                const std::string why = "the critical path could not be computed (" +
                                        (a.criticalPath ? a.criticalPath->reason : std::string("not run")) + ")";
                diagnostics.error("critical_path.unavailable", why + ", so " + o.option + " was not written",
                                    o.path);
                records.push_back(notWritten(o, "skipped", why));
                // A --step number the trace lacks is a usage error, not a failed analysis.
                return a.diagnostics.find("cpa.step_not_found") ? ExitUsage : ExitAnalysis;
            }
            bool ok = false;
            if (kind == "critical_path") {
                CriticalPathJsonInput in;
                in.trace = a.device.get();
                in.options = &a.request.cpa;
                in.result = &*a.criticalPath;
                in.steps = a.request.allSteps ? &a.steps : nullptr;
                in.syncEdges = &a.syncEdges;
                ok = writeCriticalPathJson(o.path, in, diagnostics, inputs);
            } else {
                OverlayOptions opts;
                opts.allEvents = paths.overlayAllEvents;
                opts.htaVersion = a.request.cpa.htaVersion;
                opts.otherInputs = inputs;
                ok = writeOverlay(o.path, *a.device, *a.criticalPath, opts, diagnostics);
            }
            if (!ok) {
                const auto &items = diagnostics.items();
                records.push_back(notWritten(o, "failed", items.empty() ? std::string() : items.back().message));
                return ExitOutput;
            }
        }
    } catch (const OutputError &e) {
        diagnostics.error("output.failed", e.what(), o.path);
        records.push_back(notWritten(o, "failed", e.what()));
        return ExitOutput;
    }
    records.push_back(written(o));
    if (kind == "sqlite")
        records.back().writeSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (kind == "chakra_et")
        records.back().replay = replayExport(o.path, *a.device, a.link->eventHost, diagnostics);
    return ExitOk;
}

// Why an output cannot be written at all for this analysis, or "" when it can be tried.
std::string skipReason(const Analysis &a, const RequestedOutput &o)
{
    if (!a.inputsOk)
        return "the inputs could not be loaded";
    if (a.diagnostics.find("link.compat_no_profilerstep"))
        return "--compat chakra needs a ProfilerStep";
    const std::string kind = o.kind;
    if ((kind == "et_plus" || kind == "chakra_et") && !a.link)
        return "there is no link result";
    return {};
}

// The critical path was computed for the summary only: its failure is a warning
// then; when it was asked for it fails the run with exit 6.
int criticalPathOutcome(Analysis &a, bool asked)
{
    if (!a.inputsOk || !a.criticalPath || a.criticalPath->success)
        return ExitOk;
    if (a.diagnostics.find("cpa.step_not_found")) // a value out of range (README "Exit codes")
        return ExitUsage;
    if (asked)
        return ExitAnalysis;
    a.diagnostics.demoteErrors("cpa.");
    return ExitOk;
}

} // namespace

int writeRankOutputs(const Analysis &a, const RankOutputPaths &paths, const std::vector<std::string> &inputs,
                     Diagnostics &diagnostics, std::vector<OutputRecord> &records)
{
    // Each output on its own: one that fails does not stop the others.
    std::vector<RequestedOutput> outputs;
    for (const auto &[option, kind, path] :
         {std::tuple{"--output", "et_plus", &paths.etPlus}, std::tuple{"--chakra-et", "chakra_et", &paths.chakraEt},
          std::tuple{"--critical-path", "critical_path", &paths.criticalPath},
          std::tuple{"--overlay", "overlay", &paths.overlay}, std::tuple{"--sqlite", "sqlite", &paths.sqlite}})
        if (!path->empty())
            outputs.push_back({option, kind, *path});
    int code = ExitOk;
    for (const auto &o : outputs) {
        if (const std::string why = skipReason(a, o); !why.empty())
            records.push_back(notWritten(o, "skipped", why));
        else
            code = std::max(code, writeOutput(a, paths, o, inputs, diagnostics, records));
    }
    return code;
}

RankRun runRankPipeline(const AnalysisRequest &request, const RankOutputPaths &paths)
{
    RankRun run;
    run.analysis = runAnalysis(request);
    Analysis &a = *run.analysis;
    // Every file the run reads is protected, under either role (a swapped pair included).
    const std::vector<std::string> inputs = {request.hostPath, request.devicePath, a.hostPath, a.devicePath};
    int code = ExitOk;
    if (!a.inputsOk) {
        code = ExitBadInput;
    } else if (a.diagnostics.find("link.compat_no_profilerstep")) {
        code = ExitAnalysis; // the reference crashes here; there is nothing faithful to write
    } else {
        if (a.link && a.link->counts.hostOpsLinked == 0)
            code = ExitLinkedNothing;
        code = std::max(code, criticalPathOutcome(a, paths.criticalPathAsked));
    }
    code = std::max(code, writeRankOutputs(a, paths, inputs, a.diagnostics, run.outputs));
    run.exitCode = code;
    return run;
}

} // namespace syncscope
