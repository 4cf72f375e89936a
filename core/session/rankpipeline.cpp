// SPDX-License-Identifier: MIT
#include "rankpipeline.h"

#include "export/chakrareplay.h"
#include "export/chakrawriter.h"
#include "export/criticalpathjson.h"
#include "export/etpluswriter.h"
#include "export/overlaywriter.h"
#include "io/bytesource.h"
#include "io/outputfile.h"
#include "session/exitcodes.h"

#include <algorithm>
#include <filesystem>
#include <map>

namespace syncscope {

namespace {

// The measured time of each ProfilerStep#N (its CPU-side annotation) and of the
// whole trace, to compare an exported .et's replay with.
std::map<std::string, double> measuredWindows(const KinetoTrace &trace)
{
    std::map<std::string, double> out;
    for (const auto &e : trace.events)
        if (e.kind == EventKind::UserAnnotation && trace.str(e.name).rfind("ProfilerStep#", 0) == 0)
            out.try_emplace(std::string(trace.str(e.name)), e.dur);
    out["overall"] = static_cast<double>(trace.maxEndNs - trace.minTsNs) / 1000.0;
    return out;
}

// Replays a written .et (the fidelity check of issue 15: docs/chakra_et.md).
std::vector<ReplayWindow> replayExport(const std::string &path, const KinetoTrace &trace, Diagnostics &diag)
{
    try {
        return replayChakraEt(path, measuredWindows(trace)).windows;
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

// CP.json and the overlay. Returns the exit code these outputs call for.
int writeCriticalPathOutputs(Analysis &a, const RankOutputPaths &paths, std::vector<OutputRecord> &outputs)
{
    if (paths.criticalPath.empty() && paths.overlay.empty())
        return ExitOk;
    if (!a.criticalPath || !a.criticalPath->success) {
        a.diagnostics.error("critical_path.unavailable",
                            "the critical path could not be computed (" +
                                (a.criticalPath ? a.criticalPath->reason : std::string("not run")) +
                                "), so --critical-path/--overlay were not written");
        return ExitAnalysis;
    }
    int code = ExitOk;
    if (!paths.criticalPath.empty()) {
        CriticalPathJsonInput in;
        in.trace = a.device.get();
        in.options = &a.request.cpa;
        in.result = &*a.criticalPath;
        in.steps = a.request.allSteps ? &a.steps : nullptr;
        in.syncEdges = &a.syncEdges;
        if (writeCriticalPathJson(paths.criticalPath, in, a.diagnostics))
            outputs.push_back({"critical_path", paths.criticalPath, fileSize(paths.criticalPath)});
        else
            code = ExitOutput;
    }
    if (!paths.overlay.empty()) {
        OverlayOptions opts;
        opts.allEvents = paths.overlayAllEvents;
        if (writeOverlay(paths.overlay, *a.device, *a.criticalPath, opts, a.diagnostics))
            outputs.push_back({"overlay", paths.overlay, fileSize(paths.overlay)});
        else
            code = ExitOutput;
    }
    return code;
}

} // namespace

RankRun runRankPipeline(const AnalysisRequest &request, const RankOutputPaths &paths)
{
    RankRun run;
    run.analysis = runAnalysis(request);
    Analysis &a = *run.analysis;
    const std::vector<std::string> inputs = {a.hostPath, a.devicePath};
    int code = ExitOk;
    if (!a.inputsOk) {
        code = ExitBadInput;
    } else if (a.diagnostics.find("link.compat_no_profilerstep")) {
        code = ExitAnalysis; // the reference crashes here; there is nothing faithful to write
    } else {
        if (a.link && a.link->counts.hostOpsLinked == 0)
            code = ExitLinkedNothing;
        try {
            if (!paths.etPlus.empty() && a.link) {
                writeEtPlusFile(paths.etPlus, *a.host, *a.device, *a.link, inputs);
                run.outputs.push_back({"et_plus", paths.etPlus, fileSize(paths.etPlus)});
            }
            if (!paths.chakraEt.empty() && a.link) {
                if (exportChakraEt(paths.chakraEt, *a.host, *a.device, *a.link, inputs, a.diagnostics)) {
                    run.outputs.push_back({"chakra_et", paths.chakraEt, fileSize(paths.chakraEt), {}});
                    run.outputs.back().replay = replayExport(paths.chakraEt, *a.device, a.diagnostics);
                } else
                    code = std::max<int>(code, ExitAnalysis); // --compat chakra: the reference fails here
            }
        } catch (const OutputError &e) {
            a.diagnostics.error("output.failed", e.what());
            code = ExitOutput;
        }
        code = std::max(code, writeCriticalPathOutputs(a, paths, run.outputs));
    }
    run.exitCode = code;
    return run;
}

} // namespace syncscope
