// SPDX-License-Identifier: MIT
#include "batch.h"

#include "batchdiff.h"
#include "batchhang.h"
#include "batchjob.h"
#include "batchwhatif.h"
#include "clirequest.h"

#include "export/chakrajobreplay.h"
#include "export/chakrareplay.h"
#include "export/chakrasummary.h"
#include "io/bytesource.h"
#include "io/outputfile.h"
#include "report/batchreport.h"
#include "report/whatifreport.h"
#include "session/rankpipeline.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <algorithm>
#include <iostream>
#include <map>
#include <sys/stat.h>
#include <utility>

namespace syncscope {

namespace {

int usage(const std::string &message)
{
    std::cerr << "syncscope: " << message << "\nTry 'syncscope --help' for more information.\n";
    return ExitUsage;
}


// One output the command line asked for, in the order they are written.
struct RequestedOutput {
    const char *option;
    const char *kind;
    std::string path;
};

// Usage checks on the outputs before anything is loaded: no output named twice
// (however it is spelt: symlinks, hard links, "./x" and "x" are the same file).
std::string duplicateOutputs(const std::vector<RequestedOutput> &outputs, const std::string &reportPath)
{
    std::vector<std::pair<std::string, std::string>> all; // option, path
    for (const auto &o : outputs)
        all.emplace_back(o.option, o.path);
    if (!reportPath.empty())
        all.emplace_back("--report", reportPath);
    for (size_t i = 0; i < all.size(); ++i)
        for (size_t j = i + 1; j < all.size(); ++j) {
            if (!sameOutputTarget(all[i].second, all[j].second))
                continue;
            struct stat st {};
            if (::stat(all[i].second.c_str(), &st) == 0 && S_ISCHR(st.st_mode))
                continue; // e.g. /dev/null for several outputs: nothing is lost
            return all[i].first + " and " + all[j].first + " name the same file (" + all[j].second +
                   "); give each output its own path";
        }
    return {};
}

// --inspect FILE.et: the summary on stdout (and the replay with --replay).
int inspectChakraEt(const std::string &path, bool replay)
{
    try {
        std::error_code ec;
        if (std::filesystem::is_directory(path, ec)) { // a job's PREFIX.RANK.et set
            if (!replay) {
                std::cerr << "syncscope: error: " << path << " is a folder: --inspect takes one .et, or a folder "
                          << "of PREFIX.RANK.et files with --replay\n";
                return ExitUsage;
            }
            std::cout << formatJobReplay(replayChakraEtJob(path));
            return ExitOk;
        }
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
    if (args.has("--flight-recorder")) { // hang mode: nothing else selects inputs or a mode
        for (const char *other : {"--job", "--diff", "--diff-report", "--inspect", "--replay", "--host", "--device",
                                  "--sample", "--output", "--chakra-et", "--critical-path", "--overlay", "--sqlite",
                                  "--output-dir", "--what-if"})
            if (args.has(other))
                return usage(std::string("--flight-recorder cannot be combined with ") + other);
        if (!args.positional.empty())
            return usage("--flight-recorder takes no other input (" + args.positional.front() + ")");
        return runBatchHang(args);
    }
    if (args.has("--diff"))
        return runBatchDiff(args, cli);
    if (args.has("--diff-report"))
        return usage("--diff-report needs --diff BASELINE CANDIDATE");
    if (args.has("--job"))
        return runBatchJob(args, cli);
    if (args.has("--inspect"))
        return inspectChakraEt(args.value("--inspect"), args.has("--replay"));
    if (args.has("--replay"))
        return usage("--replay needs --inspect FILE.et");
    const auto t0 = std::chrono::steady_clock::now();
    AnalysisRequest req = cli.request;
    if (req.devicePath.empty())
        return usage(req.hostPath.empty() ? "no input: give --host HOST_ET --device DEVICE_TRACE"
                                          : "--device DEVICE_TRACE is required");
    std::vector<RequestedOutput> outputs;
    for (const auto &[option, kind] : {std::pair{"--output", "et_plus"}, std::pair{"--chakra-et", "chakra_et"},
                                       std::pair{"--critical-path", "critical_path"}, std::pair{"--overlay", "overlay"},
                                       std::pair{"--sqlite", "sqlite"}})
        if (args.has(option))
            outputs.push_back({option, kind, args.value(option)});
    const std::string reportPath = args.value("--report");
    for (const auto &o : outputs)
        if ((std::string(o.kind) == "et_plus" || std::string(o.kind) == "chakra_et") && req.hostPath.empty())
            return usage(std::string(o.option) + " needs a host execution trace (--host)");
    if (const std::string dup = duplicateOutputs(outputs, reportPath); !dup.empty())
        return usage(dup);
    const bool quiet = args.has("--quiet");
    std::vector<WhatIfRule> whatIfRules;
    if (std::string error; !parseWhatIfRules(args, whatIfRules, error))
        return usage(error);

    RankOutputPaths paths;
    for (const auto &o : outputs) {
        const std::string kind = o.kind;
        (kind == "et_plus"         ? paths.etPlus
         : kind == "chakra_et"     ? paths.chakraEt
         : kind == "critical_path" ? paths.criticalPath
         : kind == "sqlite"        ? paths.sqlite
                                   : paths.overlay) = o.path;
    }
    paths.overlayAllEvents = args.has("--overlay-all-events");
    paths.criticalPathAsked = args.has("--critical-path") || args.has("--overlay") || args.has("--instance") ||
                              args.has("--step") || args.has("--annotation") || (!args.has("--output") && !args.has("--chakra-et"));
    RankRun run = runRankPipeline(req, paths);
    const Analysis &a = *run.analysis;
    ReportContext ctx;
    ctx.analysis = &a;
    ctx.outputs = std::move(run.outputs);
    const std::vector<std::string> inputs = {req.hostPath, req.devicePath, a.hostPath, a.devicePath};
    int code = run.exitCode;
    for (const auto &o : ctx.outputs)
        if (o.kind == "chakra_et" && !o.replay.empty()) {
            ReplayResult r;
            r.windows = o.replay;
            std::string lines = formatReplay(r);
            lines.erase(0, lines.find('\n') + 1); // the node count is the .et summary's business
            ctx.extraLines.push_back("  replay    " + o.path + " (replayed vs measured)\n" + lines);
        }
    std::optional<WhatIfResult> whatIf;
    // (A --step the trace lacks is exit 2 already: no what-if on a window that is not there.)
    if (!whatIfRules.empty() && a.inputsOk && !a.diagnostics.find("cpa.step_not_found")) {
        whatIf = evaluateWhatIf(*run.analysis, whatIfRules);
        if (!whatIf || !whatIf->ok)
            code = std::max<int>(code, ExitAnalysis);
        else {
            ctx.whatIf = &*whatIf;
            ctx.extraLines.push_back(formatWhatIf(*a.device, *whatIf));
        }
    }
    ctx.exitCode = code;
    // One computation for the report and the summary; the summary shows it with the
    // per-step table (--step all) only, so a plain run keeps its speed.
    // (The pipeline computed them: AnalysisRequest::breakdowns, set by buildCliRequest.)
    if (a.breakdown && (args.has("--report") || (!quiet && !a.steps.empty())))
        ctx.breakdown = a.breakdown;
    ctx.skipBreakdowns = args.has("--no-breakdowns");
    ctx.totalSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (args.has("--report")) {
        try {
            writeFileAtomically(reportPath, buildReportJson(ctx), inputs);
        } catch (const OutputError &e) {
            std::cerr << "syncscope: error: " << e.what() << "\n";
            code = std::max<int>(code, ExitOutput);
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
