// SPDX-License-Identifier: MIT
#include "batchdiff.h"

#include "diff/diffreport.h"
#include "io/outputfile.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>

namespace syncscope {

namespace {

int usage(const std::string &message)
{
    std::cerr << "syncscope: " << message << "\nTry 'syncscope --help' for more information.\n";
    return ExitUsage;
}

double secondsSince(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

bool parseDiffSide(const std::string &text, DiffSideSpec &out, std::string &error)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    out = {};
    if (text.empty()) {
        error = "--diff: an empty run was given (want DEVICE_TRACE[,HOST_ET])";
        return false;
    }
    if (fs::is_directory(text, ec)) {
        out.jobFolder = true;
        out.devicePath = text;
        return true;
    }
    const auto comma = text.find(',');
    if (fs::exists(text, ec) || comma == std::string::npos) {
        out.devicePath = text;
        return true;
    }
    out.devicePath = text.substr(0, comma);
    out.hostPath = text.substr(comma + 1);
    if (out.devicePath.empty() || out.hostPath.empty() || out.hostPath.find(',') != std::string::npos) {
        error = "--diff: '" + text + "' is not DEVICE_TRACE[,HOST_ET] (two file names separated by one comma)";
        return false;
    }
    return true;
}

bool diffSides(const CliArgs &args, DiffSideSpec &baseline, DiffSideSpec &candidate, std::string &error)
{
    if (args.positional.size() != 1) {
        error = "--diff BASELINE CANDIDATE needs exactly one candidate after the baseline (got " +
                std::to_string(args.positional.size()) + ")";
        return false;
    }
    return parseDiffSide(args.value("--diff"), baseline, error) &&
           parseDiffSide(args.positional[0], candidate, error);
}

AnalysisRequest diffRequest(const CliRequest &cli, const CliArgs &args, const DiffSideSpec &side)
{
    const bool windowGiven =
        args.has("--annotation") || (args.has("--instance") && args.value("--instance") != "all");
    return diffRunRequest(cli.request, side.devicePath, side.hostPath, windowGiven);
}

int runBatchDiff(const CliArgs &args, const CliRequest &cli)
{
    for (const char *option : {"--job", "--host", "--device", "--sample", "--output", "--chakra-et",
                               "--critical-path", "--overlay", "--report", "--what-if", "--inspect"})
        if (args.has(option))
            return usage(std::string(option) + " cannot be combined with --diff");
    DiffSideSpec base, cand;
    if (std::string error; !diffSides(args, base, cand, error))
        return usage(error);
    if (base.jobFolder || cand.jobFolder)
        return usage("--diff of job folders is not supported yet ('" +
                     (base.jobFolder ? base.devicePath : cand.devicePath) +
                     "' is a directory); give DEVICE_TRACE[,HOST_ET] for each run");
    const bool quiet = args.has("--quiet");
    const auto t0 = std::chrono::steady_clock::now();
    std::shared_ptr<Analysis> runs[2];
    int code = ExitOk;
    const DiffSideSpec *specs[2] = {&base, &cand};
    for (int k = 0; k < 2; ++k) {
        runs[k] = runAnalysis(diffRequest(cli, args, *specs[k]));
        for (const auto &d : runs[k]->diagnostics.items())
            if (d.severity == Severity::Error)
                std::cerr << "syncscope: error: " << (k ? "candidate: " : "baseline: ") << d.message << "\n";
        if (!runs[k]->inputsOk)
            code = ExitBadInput;
    }
    if (code != ExitOk)
        return code;
    const double analysisSeconds = secondsSince(t0);
    const auto t1 = std::chrono::steady_clock::now();
    DiffOptions options;
    options.baselineWindow = windowOf(*runs[0]);
    options.candidateWindow = windowOf(*runs[1]);
    const auto diff = diffRuns(runs[0], runs[1], options);
    // A window the user asked for must exist on both sides (as --critical-path asks, exit 6).
    const bool windowGiven =
        args.has("--annotation") || (args.has("--instance") && args.value("--instance") != "all");
    for (int k = 0; k < 2 && windowGiven; ++k)
        if (!runs[k]->criticalPath || !runs[k]->criticalPath->success) {
            std::cerr << "syncscope: error: " << (k ? "candidate" : "baseline")
                      << ": the requested --annotation/--instance window could not be analysed\n";
            code = ExitAnalysis;
        }
    const double diffSeconds = secondsSince(t1);
    if (args.has("--diff-report")) {
        const std::vector<std::string> inputs = {base.devicePath, base.hostPath, cand.devicePath, cand.hostPath,
                                                 runs[0]->devicePath, runs[0]->hostPath, runs[1]->devicePath,
                                                 runs[1]->hostPath};
        try {
            writeFileAtomically(args.value("--diff-report"), diffReportJson(*diff).dump(1) + "\n", inputs);
        } catch (const OutputError &e) {
            std::cerr << "syncscope: error: " << e.what() << "\n";
            code = std::max<int>(code, ExitOutput);
        }
    }
    if (!quiet) {
        std::cout << formatDiffSummary(*diff);
        char line[256];
        const double load = runs[0]->times.loadSeconds + runs[1]->times.loadSeconds;
        std::snprintf(line, sizeof line,
                      "\ntiming: load %.3f s, analysis (load included) %.3f s, diff %.3f s (match %.3f s), "
                      "diff/load %.2f\n",
                      load, analysisSeconds, diffSeconds, diff->matchSeconds, load > 0 ? diffSeconds / load : 0.0);
        std::cerr << line;
        for (int k = 0; k < 2; ++k) {
            const StageTimes &t = runs[k]->times;
            std::snprintf(line, sizeof line, "  %s: load %.3f s, sync %.3f s, link %.3f s, critical path %.3f s\n",
                          k ? "candidate" : "baseline ", t.loadSeconds, t.syncSeconds, t.linkSeconds,
                          t.criticalPathSeconds);
            std::cerr << line;
        }
    }
    return code;
}

} // namespace syncscope
