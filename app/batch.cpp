// SPDX-License-Identifier: MIT
#include "batch.h"

#include "export/etpluswriter.h"
#include "io/outputfile.h"
#include "report/batchreport.h"
#include "session/analysis.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
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

} // namespace

int runBatch(const CliArgs &args)
{
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
    const std::string outputPath = args.value("--output");
    if (!outputPath.empty() && req.hostPath.empty())
        return usage("--output needs a host execution trace (--host)");
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
        } catch (const OutputError &e) {
            analysis->diagnostics.error("output.failed", e.what());
            code = ExitOutput;
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
