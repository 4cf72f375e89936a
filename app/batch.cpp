// SPDX-License-Identifier: MIT
#include "batch.h"

#include "batchjob.h"
#include "batchwhatif.h"
#include "clirequest.h"

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

namespace syncscope {

namespace {

int usage(const std::string &message)
{
    std::cerr << "syncscope: " << message << "\nTry 'syncscope --help' for more information.\n";
    return ExitUsage;
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

    RankOutputPaths paths;
    paths.etPlus = outputPath;
    paths.chakraEt = chakraEtPath;
    paths.criticalPath = cpPath;
    paths.overlay = overlayPath;
    paths.overlayAllEvents = args.has("--overlay-all-events");
    RankRun run = runRankPipeline(req, paths);
    const Analysis &a = *run.analysis;
    ReportContext ctx;
    ctx.analysis = &a;
    ctx.outputs = std::move(run.outputs);
    const std::vector<std::string> inputs = {a.hostPath, a.devicePath};
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
    if (!whatIfRules.empty() && a.inputsOk) {
        whatIf = evaluateWhatIf(*run.analysis, whatIfRules);
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
