// SPDX-License-Identifier: MIT
#include "batch.h"

#include "batchwhatif.h"
#include "clirequest.h"

#include "export/chakrareplay.h"
#include "export/chakrasummary.h"
#include "export/chakrawriter.h"
#include "export/criticalpathjson.h"
#include "export/etpluswriter.h"
#include "export/overlaywriter.h"
#include "io/bytesource.h"
#include "io/outputfile.h"
#include "report/batchreport.h"
#include "report/whatifreport.h"
#include "session/analysis.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <algorithm>
#include <iostream>
#include <map>

namespace syncscope {

namespace {

uint64_t fileSize(const std::string &path)
{
    std::error_code ec;
    const auto n = std::filesystem::file_size(path, ec);
    return ec ? 0 : static_cast<uint64_t>(n);
}

int usage(const std::string &message)
{
    std::cerr << "syncscope: " << message << "\nTry 'syncscope --help' for more information.\n";
    return ExitUsage;
}


// CP.json and the overlay. Returns the exit code these outputs call for.
int writeCriticalPathOutputs(Analysis &a, const std::string &cpPath, const std::string &overlayPath, bool allEvents,
                             std::vector<OutputRecord> &outputs)
{
    if (cpPath.empty() && overlayPath.empty())
        return ExitOk;
    if (!a.criticalPath || !a.criticalPath->success) {
        a.diagnostics.error("critical_path.unavailable",
                            "the critical path could not be computed (" +
                                (a.criticalPath ? a.criticalPath->reason : std::string("not run")) +
                                "), so --critical-path/--overlay were not written");
        return ExitAnalysis;
    }
    int code = ExitOk;
    if (!cpPath.empty()) {
        CriticalPathJsonInput in;
        in.trace = a.device.get();
        in.options = &a.request.cpa;
        in.result = &*a.criticalPath;
        in.steps = a.request.allSteps ? &a.steps : nullptr;
        in.syncEdges = &a.syncEdges;
        if (writeCriticalPathJson(cpPath, in, a.diagnostics))
            outputs.push_back({"critical_path", cpPath, fileSize(cpPath)});
        else
            code = ExitOutput;
    }
    if (!overlayPath.empty()) {
        OverlayOptions opts;
        opts.allEvents = allEvents;
        opts.htaVersion = a.request.cpa.htaVersion;
        if (writeOverlay(overlayPath, *a.device, *a.criticalPath, opts, a.diagnostics))
            outputs.push_back({"overlay", overlayPath, fileSize(overlayPath)});
        else
            code = ExitOutput;
    }
    return code;
}

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

// Replays a written .et (the fidelity check of issue 15); the summary gets its lines.
std::vector<ReplayWindow> replayExport(const std::string &path, const KinetoTrace &trace, std::vector<std::string> &lines)
{
    try {
        const ReplayResult r = replayChakraEt(path, measuredWindows(trace));
        lines.push_back("  " + formatReplay(r));
        return r.windows;
    } catch (const InputError &e) {
        lines.push_back(std::string("  replay    failed: ") + e.what() + "\n");
        return {};
    }
}

// --inspect FILE.et: the summary on stdout (and the replay with --replay).
int inspectChakraEt(const std::string &path, bool replay)
{
    try {
        std::cout << formatChakraEtSummary(summarizeChakraEt(path));
        if (replay)
            std::cout << formatReplay(replayChakraEt(path));
        return ExitOk;
    } catch (const InputError &e) {
        std::cerr << "syncscope: error: " << e.what() << "\n";
        return ExitBadInput;
    }
}

} // namespace

int runBatch(const CliArgs &args, const CliRequest &cli)
{
    if (args.has("--inspect"))
        return inspectChakraEt(args.value("--inspect"), args.has("--replay"));
    if (args.has("--replay"))
        return usage("--replay needs --inspect FILE.et");
    const auto t0 = std::chrono::steady_clock::now();
    AnalysisRequest req = cli.request;
    if (req.devicePath.empty())
        return usage(req.hostPath.empty() ? "no input: give --host HOST_ET --device DEVICE_TRACE"
                                          : "--device DEVICE_TRACE is required");
    const std::string outputPath = args.value("--output");
    const std::string cpPath = args.value("--critical-path");
    const std::string overlayPath = args.value("--overlay");
    if (!outputPath.empty() && req.hostPath.empty())
        return usage("--output needs a host execution trace (--host)");
    const std::string chakraEtPath = args.value("--chakra-et");
    if (!chakraEtPath.empty() && req.hostPath.empty())
        return usage("--chakra-et needs a host execution trace (--host)");
    const bool quiet = args.has("--quiet");
    std::vector<WhatIfRule> whatIfRules;
    if (std::string error; !parseWhatIfRules(args, whatIfRules, error))
        return usage(error);

    const auto analysis = runAnalysis(req);
    const Analysis &a = *analysis;
    ReportContext ctx;
    ctx.analysis = &a;
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
            if (!outputPath.empty() && a.link) {
                writeEtPlusFile(outputPath, *a.host, *a.device, *a.link, inputs);
                ctx.outputs.push_back({"et_plus", outputPath, fileSize(outputPath)});
            }
            if (!chakraEtPath.empty() && a.link) {
                if (exportChakraEt(chakraEtPath, *a.host, *a.device, *a.link, inputs, analysis->diagnostics)) {
                    ctx.outputs.push_back({"chakra_et", chakraEtPath, fileSize(chakraEtPath), {}});
                    ctx.outputs.back().replay = replayExport(chakraEtPath, *a.device, ctx.extraLines);
                }
                else
                    code = std::max<int>(code, ExitAnalysis); // --compat chakra: the reference fails here
            }
        } catch (const OutputError &e) {
            analysis->diagnostics.error("output.failed", e.what());
            code = ExitOutput;
        }
        code = std::max(code, writeCriticalPathOutputs(*analysis, cpPath, overlayPath, args.has("--overlay-all-events"),
                                                       ctx.outputs));
    }
    std::optional<WhatIfResult> whatIf;
    if (!whatIfRules.empty() && a.inputsOk) {
        whatIf = evaluateWhatIf(*analysis, whatIfRules);
        if (!whatIf || !whatIf->ok)
            code = std::max<int>(code, ExitAnalysis);
        else {
            ctx.whatIf = &*whatIf;
            ctx.extraLines.push_back(formatWhatIf(*a.device, *whatIf));
        }
    }
    ctx.exitCode = code;
    ctx.totalSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (args.has("--report")) {
        const std::string reportPath = args.value("--report");
        try {
            writeFileAtomically(reportPath, buildReportJson(ctx), inputs);
        } catch (const OutputError &e) {
            std::cerr << "syncscope: " << e.what() << "\n";
            if (code == ExitOk)
                code = ExitOutput;
        }
    }
    if (!quiet) {
        std::cerr << formatSummary(ctx);
    } else {
        for (const auto &d : a.diagnostics.items())
            if (d.severity == Severity::Error)
                std::cerr << "syncscope: error: " << d.message << "\n";
    }
    return code;
}

} // namespace syncscope
