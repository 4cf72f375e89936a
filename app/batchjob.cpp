// SPDX-License-Identifier: MIT
#include "batchjob.h"

#include "batchjobsqlite.h"
#include "batchwhatif.h"
#include "io/outputfile.h"
#include "export/chakrapatch.h"
#include "job/jobanalysis.h"
#include "util/parallel.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iostream>

namespace syncscope {

namespace fs = std::filesystem;

namespace {

double secondsSince(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

bool parseWorkers(const std::string &text, unsigned &out)
{
    try {
        size_t used = 0;
        const long long n = std::stoll(text, &used);
        if (used != text.size() || n < 1 || n > 4096)
            return false;
        out = static_cast<unsigned>(n);
        return true;
    } catch (...) {
        return false;
    }
}

bool isInside(const fs::path &path, const fs::path &dir)
{
    std::error_code ec;
    const fs::path p = fs::weakly_canonical(fs::absolute(path), ec);
    const fs::path d = fs::weakly_canonical(fs::absolute(dir), ec);
    auto rel = p.lexically_relative(d);
    return !rel.empty() && *rel.begin() != "..";
}

std::vector<std::string> allInputFiles(const JobDiscovery &d)
{
    std::vector<std::string> files;
    for (const auto &f : d.files)
        files.push_back(f.path);
    return files;
}

} // namespace

bool buildJobCli(const CliArgs &args, const CliRequest &request, unsigned defaultWorkers, JobCli &out,
                 std::string &error)
{
    out.inputs = args.all("--job");
    for (const char *single : {"--host", "--device", "--sample", "--rank", "--inspect", "--screenshot", "--size",
                               "--select", "--open-pair", "--rank-order"})
        if (args.has(single)) {
            error = std::string(single) + " cannot be combined with --job (the job's files are found in its directory)";
            return false;
        }
    if (!args.positional.empty()) {
        error = "--job takes its inputs from its directory; unexpected argument '" + args.positional.front() + "'";
        return false;
    }
    if (args.has("--output")) {
        error = "--output names one file; in job mode use --output-dir OUT (each rank's ET+ is OUT/PREFIX.RANK.json)";
        return false;
    }
    for (const char *perRank : {"--chakra-et", "--critical-path", "--overlay"}) {
        if (!args.has(perRank))
            continue;
        if (!args.value(perRank).empty()) {
            error = std::string(perRank) + " takes no FILE in job mode: each rank's file goes to --output-dir";
            return false;
        }
        if (!args.has("--output-dir")) {
            error = std::string(perRank) + " in job mode needs --output-dir OUT";
            return false;
        }
    }
    out.run.workers = defaultWorkers;
    if (args.has("--jobs") && !parseWorkers(args.value("--jobs"), out.run.workers)) {
        error = "--jobs takes a number of workers from 1 to 4096 (got '" + args.value("--jobs") + "')";
        return false;
    }
    JobOutputOptions &o = out.run.outputs;
    o.dir = args.value("--output-dir");
    if (args.has("--output-dir") && o.dir.empty()) {
        error = "--output-dir needs a directory";
        return false;
    }
    if (args.has("--prefix")) {
        o.prefix = args.value("--prefix");
        if (o.prefix.empty() || o.prefix.find('/') != std::string::npos) {
            error = "--prefix takes a file name prefix without '/' (got '" + o.prefix + "')";
            return false;
        }
    }
    o.chakraEt = args.has("--chakra-et");
    o.criticalPath = args.has("--critical-path");
    o.overlay = args.has("--overlay");
    o.overlayAllEvents = args.has("--overlay-all-events");
    out.run.request = request.request;
    // The job's critical path walks one step on every rank.
    if (out.run.request.stepLast != out.run.request.stepFirst) {
        error = "--step A,B takes one step in job mode (--step N: ProfilerStep#N on every rank)";
        return false;
    }
    out.reportPath = args.value("--report");
    if (args.has("--report") && out.reportPath.empty()) {
        error = "--report needs a file name";
        return false;
    }
    out.sqlitePath = args.value("--sqlite");
    out.quiet = args.has("--quiet");
    // Each rank's breakdowns (ranks[i].breakdown, the summary's GPU lines): as for one rank,
    // only for a report or with --step all, so a plain job run keeps its speed.
    out.run.breakdowns =
        !args.has("--no-breakdowns") && (args.has("--report") || (out.run.request.allSteps && !out.quiet));
    if (!parseWhatIfRules(args, out.whatIf, error))
        return false;
    if (args.has("--clocks") && !parseClockMode(args.value("--clocks"), out.clocks)) {
        error = "--clocks takes auto, align or trust (got '" + args.value("--clocks") + "')";
        return false;
    }
    out.stragglerWhatIf = args.has("--straggler-whatif");
    out.run.gpuTimelines = out.stragglerWhatIf;
    if (args.has("--parallelism")) {
        if (!out.stragglerWhatIf) {
            error = "--parallelism places the ranks for --straggler-whatif; give both";
            return false;
        }
        if (!parseParallelism(args.value("--parallelism"), out.parallelism, error))
            return false;
    }
    return true;
}

JobDiscovery discoverJobInputs(const JobCli &job)
{
    DiscoveryOptions opts;
    opts.workers = job.run.workers;
    const std::string &out = job.run.outputs.dir;
    if (!out.empty()) {
        bool inputInsideOut = false;
        for (const auto &in : job.inputs)
            inputInsideOut |= isInside(in, out) || fs::path(in).lexically_normal() == fs::path(out).lexically_normal();
        if (!inputInsideOut) // our own outputs (ET+ are host traces, overlays Kineto traces) are no inputs
            opts.exclude.push_back(out);
    }
    return discoverJob(job.inputs, opts);
}

bool prepareOutputDir(const JobCli &job, std::string &error)
{
    const std::string &dir = job.run.outputs.dir;
    if (dir.empty())
        return true;
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec || !fs::is_directory(dir)) {
        error = dir + ": the output directory cannot be created (" +
                (ec ? ec.message() : std::string("it exists and is not a directory")) + ")";
        return false;
    }
    return true;
}

int prepareJobOutputs(const JobCli &job, const JobDiscovery &discovery, std::string &error)
{
    std::vector<JobOutputFile> outputs = jobOutputFiles(discovery.ranks, job.run.outputs, job.reportPath);
    if (!job.sqlitePath.empty())
        outputs.push_back({job.sqlitePath, "the SQLite database"});
    error = jobOutputConflict(discovery, job.inputs, outputs);
    if (!error.empty())
        return ExitUsage;
    if (!prepareOutputDir(job, error))
        return ExitOutput;
    const std::string &dir = job.run.outputs.dir;
    if (dir.empty())
        return ExitOk;
    // The output list goes first: files of a run cut short are still known as ours.
    std::vector<std::string> names;
    std::error_code dirEc;
    const fs::path target = fs::weakly_canonical(fs::absolute(dir, dirEc), dirEc);
    for (const JobOutputFile &o : outputs) {
        std::error_code ec;
        const fs::path p = fs::weakly_canonical(fs::absolute(o.path), ec);
        if (!ec && p.parent_path() == target && p.filename() != kOutputManifestName)
            names.push_back(p.filename().string());
    }
    error = recordOwnOutputs(dir, names);
    return error.empty() ? ExitOk : ExitOutput;
}

// Each rank's .et gets its start offset in the job on its first node (issue 21):
// ASTRA-sim starts every rank at 0, the measured ranks did not.
void markRankStartOffsets(const std::vector<RankSummary> &ranks, JobAnalysis &analysis)
{
    for (const RankSummary &s : ranks)
        for (const auto &[kind, path] : s.outputs) {
            if (kind != "chakra_et")
                continue;
            const auto stats = std::find_if(analysis.ranks.begin(), analysis.ranks.end(),
                                            [&](const RankJobStats &r) { return r.rank == s.rank; });
            if (stats == analysis.ranks.end())
                continue;
            try {
                setRankStartOffset(path, std::llround(stats->startOffsetUs));
            } catch (const std::exception &e) {
                analysis.diagnostics.warning("chakra_et.start_offset_not_written",
                                             "rank " + std::to_string(s.rank) + ": its start offset could not be "
                                             "written into " + path + ": " + e.what(), path);
            }
        }
}

int finishJob(const JobCli &job, const JobDiscovery &discovery, const std::vector<RankSummary> &ranks,
              JobTiming timing)
{
    const auto t0 = std::chrono::steady_clock::now();
    JobOptions options;
    options.whatIf = job.whatIf;
    options.clocks = job.clocks;
    options.stragglerWhatIf = job.stragglerWhatIf;
    options.straggler.parallelism = job.parallelism;
    JobAnalysis analysis = analyzeJob(analysableRanks(ranks), options);
    markRankStartOffsets(ranks, analysis);
    timing.analysisSeconds = secondsSince(t0);
    timing.totalSeconds += timing.analysisSeconds;

    JobReportInput in;
    in.discovery = &discovery;
    in.ranks = &ranks;
    in.analysis = &analysis;
    in.window = &job.run.request.cpa;
    in.request = &job.run.request;
    in.exitCode = jobExitCode(discovery, ranks);
    in.timing = timing;
    if (analysis.whatIf && !analysis.whatIf->ok) // a rule matching nothing, or no job critical path
        in.exitCode = std::max<int>(in.exitCode, ExitAnalysis);
    if (analysis.straggler && !analysis.straggler->ok) // no steps or GPU ops, a cycle, a bad --parallelism
        in.exitCode = std::max<int>(in.exitCode, ExitAnalysis);
    int code = in.exitCode;
    if (job.sqlite) { // before the report, which lists it
        in.outputs.push_back(finishJobSqlite(*job.sqlite, in));
        if (in.outputs.back().status != "written") {
            std::cerr << "syncscope: error: " << in.outputs.back().reason << "\n";
            code = std::max<int>(code, ExitOutput);
        }
    }
    if (!job.reportPath.empty()) {
        try {
            writeFileAtomically(job.reportPath, buildJobReportJson(in), allInputFiles(discovery));
        } catch (const OutputError &e) {
            std::cerr << "syncscope: " << e.what() << "\n";
            code = std::max<int>(code, ExitOutput);
        }
    }
    if (!job.quiet) {
        std::cerr << formatJobSummary(in);
    } else {
        for (const auto &d : discovery.diagnostics.items())
            if (d.severity == Severity::Error)
                std::cerr << "syncscope: error: " << d.message << "\n";
        if (analysis.whatIf && !analysis.whatIf->ok)
            std::cerr << "syncscope: error: " << analysis.whatIf->error << "\n";
        for (const auto &r : ranks)
            for (const auto &d : r.diagnostics.items())
                if (d.severity == Severity::Error)
                    std::cerr << "syncscope: error: rank " << r.rank << ": " << d.message << "\n";
    }
    return code;
}

int runBatchJob(const CliArgs &args, const CliRequest &request)
{
    const auto t0 = std::chrono::steady_clock::now();
    JobCli job;
    std::string error;
    if (!buildJobCli(args, request, defaultWorkers(), job, error)) {
        std::cerr << "syncscope: " << error << "\nTry 'syncscope --help' for more information.\n";
        return ExitUsage;
    }
    JobTiming timing;
    timing.workers = job.run.workers;
    const JobDiscovery discovery = discoverJobInputs(job);
    if (const int code = prepareJobOutputs(job, discovery, error); code != ExitOk) {
        std::cerr << "syncscope: " << (code == ExitUsage ? "" : "error: ") << error << "\n";
        return code;
    }
    timing.discoverySeconds = secondsSince(t0);
    openJobSqlite(job, discovery); // a failure is reported with the outputs, exit 5
    const auto t1 = std::chrono::steady_clock::now();
    const std::vector<RankSummary> ranks = runJobRanks(discovery.ranks, job.run);
    timing.ranksSeconds = secondsSince(t1);
    timing.totalSeconds = secondsSince(t0);
    return finishJob(job, discovery, ranks, timing);
}

} // namespace syncscope
