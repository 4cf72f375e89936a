// SPDX-License-Identifier: MIT
#include "batchdiff.h"

#include "diff/diffreport.h"
#include "diff/jobdiff.h"
#include "job/discovery.h"
#include "io/outputfile.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>

namespace syncscope {

namespace {

int diffUsage(const std::string &message)
{
    std::cerr << "syncscope: " << message << "\nTry 'syncscope --help' for more information.\n";
    return ExitUsage;
}

double diffSecondsSince(std::chrono::steady_clock::time_point t0)
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

// A diff's window is the whole trace unless one step or HTA window is asked for.
bool diffWindowGiven(const CliArgs &args)
{
    return args.has("--annotation") || (args.has("--instance") && args.value("--instance") != "all") ||
           (args.has("--step") && args.value("--step") != "all");
}

AnalysisRequest diffRequest(const CliRequest &cli, const CliArgs &args, const DiffSideSpec &side)
{
    return diffRunRequest(cli.request, side.devicePath, side.hostPath, diffWindowGiven(args));
}

namespace {

// Both runs of a diff analysed (errors printed with `label`); nullopt when one did not load.
// `code` rises to 3 (inputs) or 6 (a requested window missing).
std::optional<std::unique_ptr<TraceDiff>> diffPair(const CliArgs &args, AnalysisRequest base, AnalysisRequest cand,
                                                   const std::string &label, int &code)
{
    std::shared_ptr<Analysis> runs[2] = {runAnalysis(base), runAnalysis(cand)};
    bool ok = true;
    for (int k = 0; k < 2; ++k) {
        for (const auto &d : runs[k]->diagnostics.items())
            if (d.severity == Severity::Error)
                std::cerr << "syncscope: error: " << label << (k ? "candidate: " : "baseline: ") << d.message << "\n";
        if (!runs[k]->inputsOk) {
            code = std::max<int>(code, ExitBadInput);
            ok = false;
        }
    }
    if (!ok)
        return std::nullopt;
    DiffOptions options;
    options.baselineWindow = windowOf(*runs[0]);
    options.candidateWindow = windowOf(*runs[1]);
    // The critical paths are part of what a diff compares: one that fails is an
    // analysis failure (exit 6), as in --batch without outputs, not a silent gap.
    for (int k = 0; k < 2; ++k)
        if (runs[k]->diagnostics.find("cpa.step_not_found")) {
            code = std::max<int>(code, ExitUsage); // a --step number a run lacks: a value out of range
        } else if (!runs[k]->criticalPath || !runs[k]->criticalPath->success) {
            const std::string reason = runs[k]->criticalPath && !runs[k]->criticalPath->reason.empty()
                                           ? runs[k]->criticalPath->reason
                                           : std::string("not computed");
            std::cerr << "syncscope: error: " << label << (k ? "candidate" : "baseline")
                      << (diffWindowGiven(args) ? ": the requested --step/--annotation/--instance window could not be analysed ("
                                            : ": the critical path could not be computed (")
                      << reason << "); the diff compares no critical paths\n";
            code = std::max<int>(code, ExitAnalysis);
        }
    return diffRuns(runs[0], runs[1], options);
}

} // namespace

int runJobDiff(const CliArgs &args, const CliRequest &cli, const std::string &baseDir, const std::string &candDir)
{
    const auto t0 = std::chrono::steady_clock::now();
    JobDiscovery jobs[2] = {discoverJob({baseDir}), discoverJob({candDir})};
    std::vector<std::string> inputs;
    std::map<int64_t, const JobRank *> ranks[2];
    for (int k = 0; k < 2; ++k) {
        for (const auto &d : jobs[k].diagnostics.items())
            if (d.severity == Severity::Error)
                std::cerr << "syncscope: error: " << (k ? "candidate: " : "baseline: ") << d.message << "\n";
        for (const auto &f : jobs[k].files)
            inputs.push_back(f.path);
        for (const JobRank &r : jobs[k].ranks)
            ranks[k].emplace(r.rank, &r);
    }
    std::vector<int64_t> only[2];
    for (int k = 0; k < 2; ++k)
        for (const auto &[rank, r] : ranks[k])
            if (!ranks[1 - k].count(rank))
                only[k].push_back(rank);
    // A file that did not load may hold a rank the other run has: a load failure (exit 3), not a difference.
    const std::vector<JobDiffLoadFailure> failures = jobDiffLoadFailures(jobs[0], jobs[1]);
    int code = failures.empty() ? ExitOk : ExitBadInput;
    std::vector<RankDiffReport> reports;
    for (const auto &[rank, a] : ranks[0]) {
        auto it = ranks[1].find(rank);
        if (it == ranks[1].end())
            continue;
        const JobRank *b = it->second;
        const std::string label = "rank " + std::to_string(rank) + " ";
        if (a->devicePath.empty() || b->devicePath.empty()) {
            std::cerr << "syncscope: error: " << label << "has no device trace in the "
                      << (a->devicePath.empty() ? "baseline" : "candidate") << "\n";
            code = std::max<int>(code, ExitBadInput);
            continue;
        }
        AnalysisRequest ra = diffRunRequest(cli.request, a->devicePath, a->hostPath, diffWindowGiven(args));
        AnalysisRequest rb = diffRunRequest(cli.request, b->devicePath, b->hostPath, diffWindowGiven(args));
        ra.rank = rb.rank = rank;
        if (auto diff = diffPair(args, ra, rb, label, code)) // one rank at a time: memory stays one rank's
            reports.push_back({rank, diffReportJson(**diff)});
    }
    if (reports.empty()) {
        std::cerr << "syncscope: error: no rank could be compared (ranks found: baseline " << ranks[0].size()
                  << ", candidate " << ranks[1].size() << ")\n";
        return std::max<int>(code, ExitBadInput);
    }
    const auto job = mergeRankDiffs(reports, only[0], only[1], failures);
    if (args.has("--diff-report")) {
        try {
            writeFileAtomically(args.value("--diff-report"), job.dump(1) + "\n", inputs);
        } catch (const OutputError &e) {
            std::cerr << "syncscope: error: " << e.what() << "\n";
            code = std::max<int>(code, ExitOutput);
        }
    }
    if (!args.has("--quiet")) {
        std::cout << formatJobDiffSummary(job);
        std::fprintf(stderr, "\ntiming: %.3f s for %zu ranks\n", diffSecondsSince(t0), reports.size());
    }
    return code;
}

int runBatchDiff(const CliArgs &args, const CliRequest &cli)
{
    for (const char *option : {"--job", "--host", "--device", "--sample", "--output", "--chakra-et",
                               "--critical-path", "--overlay", "--report", "--what-if", "--inspect"})
        if (args.has(option))
            return diffUsage(std::string(option) + " cannot be combined with --diff");
    DiffSideSpec base, cand;
    if (std::string error; !diffSides(args, base, cand, error))
        return diffUsage(error);
    if (base.jobFolder != cand.jobFolder)
        return diffUsage("--diff compares two job folders or two runs, not one of each ('" +
                     (base.jobFolder ? base.devicePath : cand.devicePath) + "' is a directory)");
    if (base.jobFolder)
        return runJobDiff(args, cli, base.devicePath, cand.devicePath);
    const bool quiet = args.has("--quiet");
    const auto t0 = std::chrono::steady_clock::now();
    int code = ExitOk;
    auto result = diffPair(args, diffRequest(cli, args, base), diffRequest(cli, args, cand), "", code);
    if (!result)
        return code;
    const auto &diff = *result;
    const Analysis *runs[2] = {diff->baseline.get(), diff->candidate.get()};
    const double analysisSeconds = diffSecondsSince(t0) - diff->matchSeconds - diff->aggregateSeconds;
    const double diffSeconds = diff->matchSeconds + diff->aggregateSeconds;
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
