// SPDX-License-Identifier: MIT
#include "jobrunner.h"

#include "parallel.h"
#include "session/exitcodes.h"

#include <filesystem>
#include <mutex>

#ifdef __GLIBC__
#include <malloc.h>
#endif

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
        RankRun run = runRankPipeline(req, jobRankOutputPaths(options.outputs, rank));
        RankSummary s;
        if (run.analysis->inputsOk) {
            s = extractRankSummary(*run.analysis, run.exitCode);
        } else { // the inputs did not load: no summary to extract, only the reason
            s.diagnostics = run.analysis->diagnostics;
            s.hostPath = run.analysis->hostPath;
            s.devicePath = run.analysis->devicePath;
        }
        run.analysis.reset(); // the traces go now, not when the job ends
#ifdef __GLIBC__
        // ...and back to the system: glibc keeps freed memory in the per-thread arenas
        // of the worker and loader threads, which would add up over the ranks.
        malloc_trim(0);
#endif
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
