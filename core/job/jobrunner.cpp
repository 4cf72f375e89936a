// SPDX-License-Identifier: MIT
#include "jobrunner.h"

#include "util/parallel.h"
#include "rankbreakdown.h"
#include "io/outputfile.h"
#include "io/releasememory.h"
#include "session/exitcodes.h"

#include <filesystem>
#include <map>
#include <mutex>
#include <sys/stat.h>

namespace syncscope {

namespace {

std::string rankFile(const JobOutputOptions &o, const JobRank &r, const char *suffix)
{
    return (std::filesystem::path(o.dir) / (o.prefix + "." + std::to_string(r.rank) + suffix)).string();
}

// The row of a rank the pipeline could not even start, or that failed inside.
RankSummary failedRank(const JobRank &rank, int exitCode, const std::string &code, const std::string &message)
{
    RankSummary s;
    s.rank = rank.rank;
    s.hostPath = rank.hostPath;
    s.devicePath = rank.devicePath;
    s.exitCode = exitCode;
    s.diagnostics.error(code, message, rank.devicePath.empty() ? rank.hostPath : rank.devicePath);
    return s;
}

} // namespace

RankOutputPaths jobRankOutputPaths(const JobOutputOptions &o, const JobRank &r)
{
    RankOutputPaths p;
    if (o.dir.empty())
        return p;
    if (!r.hostPath.empty()) {
        p.etPlus = rankFile(o, r, ".json");
        if (o.chakraEt)
            p.chakraEt = rankFile(o, r, ".et");
    }
    if (o.criticalPath)
        p.criticalPath = rankFile(o, r, ".critical_path.json");
    if (o.overlay)
        p.overlay = rankFile(o, r, ".overlay.json");
    p.overlayAllEvents = o.overlayAllEvents;
    return p;
}

std::vector<JobOutputFile> jobOutputFiles(const std::vector<JobRank> &ranks, const JobOutputOptions &outputs,
                                          const std::string &reportPath)
{
    std::vector<JobOutputFile> out;
    if (!outputs.dir.empty()) {
        out.push_back({(std::filesystem::path(outputs.dir) / kOutputManifestName).string(),
                       "the list of the files written there"});
        for (const JobRank &r : ranks) {
            const RankOutputPaths p = jobRankOutputPaths(outputs, r);
            const std::string who = "rank " + std::to_string(r.rank) + "'s ";
            for (const auto &[path, what] : {std::pair{&p.etPlus, "ET+"}, std::pair{&p.chakraEt, "Chakra .et"},
                                             std::pair{&p.criticalPath, "critical path"},
                                             std::pair{&p.overlay, "overlay"}})
                if (!path->empty())
                    out.push_back({*path, who + what + " output"});
        }
    }
    if (!reportPath.empty())
        out.push_back({reportPath, "the --report"});
    return out;
}

std::string jobOutputConflict(const JobDiscovery &discovery, const std::vector<std::string> &jobInputs,
                              const std::vector<JobOutputFile> &outputs)
{
    struct Entry {
        const std::string *path;
        std::string role;
        bool output;
    };
    std::vector<Entry> entries;
    std::map<std::string, std::string> rankRole;
    for (const JobRank &r : discovery.ranks) {
        if (!r.devicePath.empty())
            rankRole[r.devicePath] = "rank " + std::to_string(r.rank) + "'s device trace";
        if (!r.hostPath.empty())
            rankRole[r.hostPath] = "rank " + std::to_string(r.rank) + "'s host execution trace";
    }
    for (const std::string &in : jobInputs)
        entries.push_back({&in, "the --job input", false});
    for (const JobTraceFile &f : discovery.files) {
        if (f.ownOutput)
            continue; // a report of an earlier run: replacing it is what a rerun does
        const auto it = rankRole.find(f.path);
        entries.push_back({&f.path, it != rankRole.end() ? it->second : "an input file of the job", false});
    }
    for (const JobOutputFile &o : outputs)
        entries.push_back({&o.path, o.role, true});

    // Each entry under the file it writes to (or reads), and its inode when it exists.
    std::map<std::string, size_t> byTarget;
    std::map<std::pair<dev_t, ino_t>, size_t> byInode;
    auto clash = [&](const Entry &a, const Entry &b) -> std::string {
        const std::string an = a.role + " (" + *a.path + ")", bn = b.role + " (" + *b.path + ")";
        if (!a.output) // inputs come first: b is the output
            return bn + " would replace " + an + "; nothing was written. Choose another --output-dir, --prefix "
                                                 "or --report";
        return an + " and " + bn + " name the same file; nothing was written. Give each output its own path";
    };
    for (size_t i = 0; i < entries.size(); ++i) {
        const Entry &e = entries[i];
        struct stat st {};
        const bool exists = ::stat(e.path->c_str(), &st) == 0;
        if (exists && S_ISCHR(st.st_mode))
            continue; // /dev/null and the like: written through, nothing is lost
        const auto [t, freshTarget] = byTarget.emplace(outputTargetPath(*e.path), i);
        size_t other = freshTarget ? i : t->second;
        if (exists) {
            const auto [n, freshInode] = byInode.emplace(std::pair{st.st_dev, st.st_ino}, i);
            if (other == i && !freshInode)
                other = n->second;
        }
        if (other != i && (e.output || entries[other].output))
            return clash(entries[other], e);
    }
    return {};
}

RankSummary runJobRank(const JobRank &rank, const JobRunOptions &options)
{
    if (rank.devicePath.empty())
        return failedRank(rank, ExitBadInput, "job.no_device",
                          "rank " + std::to_string(rank.rank) + " has a host execution trace (" + rank.hostPath +
                              ") but no Kineto device trace, which every analysis needs");
    try {
        AnalysisRequest req = options.request;
        req.hostPath = rank.hostPath;
        req.devicePath = rank.devicePath;
        req.rolesGiven = true;
        req.rank = rank.rank;
        // The whole-trace breakdowns while the critical path runs (addRankBreakdown takes
        // them); the job report has no per-rank steps to break down.
        req.breakdowns = options.breakdowns;
        req.stepBreakdowns = false;
        RankRun run = runRankPipeline(req, jobRankOutputPaths(options.outputs, rank));
        RankSummary s;
        if (run.analysis->inputsOk) {
            s = extractRankSummary(*run.analysis, run.exitCode);
            if (options.breakdowns)
                addRankBreakdown(*run.analysis, s);
            if (options.gpuTimelines)
                addRankGpuTimeline(*run.analysis, s);
            if (options.rankAnalysed) {
                s.rank = rank.rank;
                s.exitCode = run.exitCode;
                options.rankAnalysed(*run.analysis, s);
            }
        } else { // the inputs did not load: no summary to extract, only the reason
            s.diagnostics = run.analysis->diagnostics;
            s.hostPath = run.analysis->hostPath;
            s.devicePath = run.analysis->devicePath;
        }
        run.analysis.reset(); // the traces go now, not when the job ends
        releaseFreedMemory(); // ...and back to the system (io/releasememory.h)
        s.rank = rank.rank;   // discovery decided it (distributedInfo, else the file name)
        s.exitCode = run.exitCode;
        if (s.hostPath.empty() && s.devicePath.empty()) {
            s.hostPath = rank.hostPath;
            s.devicePath = rank.devicePath;
        }
        s.outputs.clear();
        for (const auto &o : run.outputs)
            s.outputs.emplace_back(o.kind, o.path);
        return s;
    } catch (const std::bad_alloc &) {
        return failedRank(rank, ExitInternal, "job.out_of_memory",
                          "rank " + std::to_string(rank.rank) + " ran out of memory; try fewer --jobs");
    } catch (const std::exception &e) {
        return failedRank(rank, ExitInternal, "job.internal_error",
                          "rank " + std::to_string(rank.rank) + " failed with an internal error: " + e.what());
    }
}

std::vector<RankSummary> runJobRanks(const std::vector<JobRank> &ranks, const JobRunOptions &options)
{
    std::vector<RankSummary> out(ranks.size());
    std::mutex progress;
    size_t done = 0;
    parallelFor(ranks.size(), options.workers, [&](size_t i) {
        out[i] = runJobRank(ranks[i], options);
        if (options.rankDone) {
            std::lock_guard lock(progress);
            options.rankDone(++done, ranks.size(), out[i]);
        }
    });
    return out;
}

} // namespace syncscope
