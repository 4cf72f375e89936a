// SPDX-License-Identifier: MIT
#include "batch.h"

#include "export/chakrasummary.h"
#include "export/chakrawriter.h"
#include "export/criticalpathjson.h"
#include "export/etpluswriter.h"
#include "export/overlaywriter.h"
#include "io/bytesource.h"
#include "io/outputfile.h"
#include "report/batchreport.h"
#include "session/analysis.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <algorithm>
#include <iostream>

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

bool parseInt(const std::string &text, int64_t &out)
{
    try {
        size_t used = 0;
        out = std::stoll(text, &used);
        return used == text.size();
    } catch (...) {
        return false;
    }
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
        if (writeOverlay(overlayPath, *a.device, *a.criticalPath, opts, a.diagnostics))
            outputs.push_back({"overlay", overlayPath, fileSize(overlayPath)});
        else
            code = ExitOutput;
    }
    return code;
}

// --inspect FILE.et: the summary on stdout.
int inspectChakraEt(const std::string &path)
{
    try {
        std::cout << formatChakraEtSummary(summarizeChakraEt(path));
        return ExitOk;
    } catch (const InputError &e) {
        std::cerr << "syncscope: error: " << e.what() << "\n";
        return ExitBadInput;
    }
}

} // namespace

int runBatch(const CliArgs &args)
{
    if (args.has("--inspect"))
        return inspectChakraEt(args.value("--inspect"));
    const auto t0 = std::chrono::steady_clock::now();
    AnalysisRequest req;
    req.hostPath = args.value("--host");
    req.devicePath = args.value("--device");
    if (args.has("--sample")) {
        const SamplePair sample = findSamplePair(nullptr);
        if (sample.host.empty())
            return usage("the bundled sample pair was not found (set SYNCSCOPE_SAMPLE_DIR)");
        if (req.hostPath.empty())
            req.hostPath = sample.host;
        if (req.devicePath.empty())
            req.devicePath = sample.device;
    }
    req.rolesGiven = args.has("--host") || args.has("--device");
    // Plain file arguments fill the slots that are still free (either order works).
    for (const auto &p : args.positional) {
        if (req.hostPath.empty())
            req.hostPath = p;
        else if (req.devicePath.empty())
            req.devicePath = p;
        else
            return usage("too many input files");
    }
    if (req.devicePath.empty() && !req.hostPath.empty() && args.positional.size() == 1 && !args.has("--host")) {
        req.devicePath = req.hostPath; // a single file: a device trace on its own
        req.hostPath.clear();
    }
    if (req.devicePath.empty())
        return usage(req.hostPath.empty() ? "no input: give --host HOST_ET --device DEVICE_TRACE"
                                          : "--device DEVICE_TRACE is required");
    if (args.has("--compat")) {
        if (args.value("--compat") != "chakra")
            return usage("--compat takes 'chakra' (got '" + args.value("--compat") + "')");
        req.mode = LinkMode::Chakra;
    }
    if (args.has("--rank")) {
        int64_t rank = 0;
        if (!parseInt(args.value("--rank"), rank) || rank < 0)
            return usage("--rank needs a non-negative integer");
        req.rank = rank;
    }
    if (args.has("--annotation"))
        req.cpa.annotation = args.value("--annotation");
    if (args.has("--instance")) {
        const std::string inst = args.value("--instance");
        int64_t a = 0, b = 0;
        const auto comma = inst.find(',');
        if (inst == "all") {
            req.allSteps = true;
        } else if (comma != std::string::npos && parseInt(inst.substr(0, comma), a) &&
                   parseInt(inst.substr(comma + 1), b) && a >= 0 && b >= a) {
            req.cpa.instanceFirst = static_cast<int>(a);
            req.cpa.instanceLast = static_cast<int>(b);
        } else if (parseInt(inst, a) && a >= 0) {
            req.cpa.instanceFirst = req.cpa.instanceLast = static_cast<int>(a);
        } else {
            return usage("--instance takes N, A,B or all (got '" + inst + "')");
        }
    }
    req.cpa.zeroWeightLaunchEdges = args.has("--zero-weight-launch-edges");
    const std::string outputPath = args.value("--output");
    const std::string cpPath = args.value("--critical-path");
    const std::string overlayPath = args.value("--overlay");
    if (!outputPath.empty() && req.hostPath.empty())
        return usage("--output needs a host execution trace (--host)");
    const std::string chakraEtPath = args.value("--chakra-et");
    if (!chakraEtPath.empty() && req.hostPath.empty())
        return usage("--chakra-et needs a host execution trace (--host)");
    const bool quiet = args.has("--quiet");

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
                if (exportChakraEt(chakraEtPath, *a.host, *a.device, *a.link, inputs, analysis->diagnostics))
                    ctx.outputs.push_back({"chakra_et", chakraEtPath, fileSize(chakraEtPath)});
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
