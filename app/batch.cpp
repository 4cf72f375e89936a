// SPDX-License-Identifier: MIT
#include "batch.h"

#include "clirequest.h"

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
#include <sys/stat.h>
#include <utility>

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


// One output the command line asked for, in the order they are written.
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
int writeOutput(Analysis &a, const CliArgs &args, const RequestedOutput &o, const std::vector<std::string> &inputs,
                std::vector<OutputRecord> &records)
{
    const std::string kind = o.kind;
    try {
        if (kind == "et_plus") {
            writeEtPlusFile(o.path, *a.host, *a.device, *a.link, inputs);
        } else if (kind == "chakra_et") {
            if (!exportChakraEt(o.path, *a.host, *a.device, *a.link, inputs, a.diagnostics)) {
                // --compat chakra: the reference converter fails here; the diagnostics say why
                records.push_back(notWritten(o, "skipped", "the Chakra graph could not be built"));
                return ExitAnalysis;
            }
        } else if (kind == "critical_path" || kind == "overlay") {
            if (!a.criticalPath || !a.criticalPath->success) {
                const std::string why = "the critical path could not be computed (" +
                                        (a.criticalPath ? a.criticalPath->reason : std::string("not run")) + ")";
                a.diagnostics.error("critical_path.unavailable", why + ", so " + o.option + " was not written",
                                    o.path);
                records.push_back(notWritten(o, "skipped", why));
                return ExitAnalysis;
            }
            bool ok = false;
            if (kind == "critical_path") {
                CriticalPathJsonInput in;
                in.trace = a.device.get();
                in.options = &a.request.cpa;
                in.result = &*a.criticalPath;
                in.steps = a.request.allSteps ? &a.steps : nullptr;
                in.syncEdges = &a.syncEdges;
                ok = writeCriticalPathJson(o.path, in, a.diagnostics, inputs);
            } else {
                OverlayOptions opts;
                opts.allEvents = args.has("--overlay-all-events");
                opts.otherInputs = inputs;
                ok = writeOverlay(o.path, *a.device, *a.criticalPath, opts, a.diagnostics);
            }
            if (!ok) {
                const auto &items = a.diagnostics.items();
                records.push_back(notWritten(o, "failed", items.empty() ? std::string() : items.back().message));
                return ExitOutput;
            }
        }
    } catch (const OutputError &e) {
        a.diagnostics.error("output.failed", e.what(), o.path);
        records.push_back(notWritten(o, "failed", e.what()));
        return ExitOutput;
    }
    records.push_back(written(o));
    return ExitOk;
}

// Why an output cannot be written at all for this analysis, or "" when it can be tried.
std::string skipReason(const Analysis &a, const RequestedOutput &o, int code)
{
    if (!a.inputsOk)
        return "the inputs could not be loaded";
    if (code == ExitAnalysis && a.diagnostics.find("link.compat_no_profilerstep"))
        return "--compat chakra needs a ProfilerStep";
    const std::string kind = o.kind;
    if ((kind == "et_plus" || kind == "chakra_et") && !a.link)
        return "there is no link result";
    return {};
}

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

// The critical path was computed for the summary only: its failure is a warning
// then; when the user asked for it (an output, a window option, or a run whose
// only product is the analysis) it fails the run with exit 6.
int criticalPathOutcome(Analysis &a, const CliArgs &args)
{
    if (!a.inputsOk || !a.criticalPath || a.criticalPath->success)
        return ExitOk;
    const bool asked = args.has("--critical-path") || args.has("--overlay") || args.has("--instance") ||
                       args.has("--annotation") || (!args.has("--output") && !args.has("--chakra-et"));
    if (asked)
        return ExitAnalysis;
    a.diagnostics.demoteErrors("cpa.");
    return ExitOk;
}

} // namespace

int runBatch(const CliArgs &args, const CliRequest &cli)
{
    if (args.has("--inspect"))
        return inspectChakraEt(args.value("--inspect"));
    const auto t0 = std::chrono::steady_clock::now();
    AnalysisRequest req = cli.request;
    if (req.devicePath.empty())
        return usage(req.hostPath.empty() ? "no input: give --host HOST_ET --device DEVICE_TRACE"
                                          : "--device DEVICE_TRACE is required");
    std::vector<RequestedOutput> outputs;
    for (const auto &[option, kind] : {std::pair{"--output", "et_plus"}, std::pair{"--chakra-et", "chakra_et"},
                                       std::pair{"--critical-path", "critical_path"}, std::pair{"--overlay", "overlay"}})
        if (args.has(option))
            outputs.push_back({option, kind, args.value(option)});
    const std::string reportPath = args.value("--report");
    for (const auto &o : outputs)
        if ((std::string(o.kind) == "et_plus" || std::string(o.kind) == "chakra_et") && req.hostPath.empty())
            return usage(std::string(o.option) + " needs a host execution trace (--host)");
    if (const std::string dup = duplicateOutputs(outputs, reportPath); !dup.empty())
        return usage(dup);
    const bool quiet = args.has("--quiet");

    const auto analysis = runAnalysis(req);
    Analysis &a = *analysis;
    ReportContext ctx;
    ctx.analysis = &a;
    // Every file the run reads is protected, under either role (a swapped pair included).
    const std::vector<std::string> inputs = {req.hostPath, req.devicePath, a.hostPath, a.devicePath};

    int code = ExitOk;
    if (!a.inputsOk) {
        code = ExitBadInput;
    } else if (a.diagnostics.find("link.compat_no_profilerstep")) {
        code = ExitAnalysis; // the reference crashes here; there is nothing faithful to write
    } else {
        if (a.link && a.link->counts.hostOpsLinked == 0)
            code = ExitLinkedNothing;
        code = std::max(code, criticalPathOutcome(a, args));
    }
    // Each output on its own: one that fails does not stop the others.
    for (const auto &o : outputs) {
        if (const std::string why = skipReason(a, o, code); !why.empty())
            ctx.outputs.push_back(notWritten(o, "skipped", why));
        else
            code = std::max(code, writeOutput(a, args, o, inputs, ctx.outputs));
    }
    ctx.exitCode = code;
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
