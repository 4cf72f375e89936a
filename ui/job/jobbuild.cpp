// SPDX-License-Identifier: MIT
#include "jobbuild.h"

#include "job/jobdocument.h"
#include "job/jobrunner.h"
#include "util/parallel.h"
#include "job/rankbreakdown.h"
#include "session/exitcodes.h"

#include <mutex>

namespace syncscope::ui {

namespace {

JobRankData failedRank(const JobRank &rank, int exitCode, const std::string &code, const std::string &message)
{
    JobRankData d;
    d.rank = rank.rank;
    d.summary.rank = rank.rank;
    d.summary.hostPath = rank.hostPath;
    d.summary.devicePath = rank.devicePath;
    d.summary.exitCode = exitCode;
    d.summary.diagnostics.error(code, message, rank.devicePath.empty() ? rank.hostPath : rank.devicePath);
    return d;
}

} // namespace

JobRankData buildJobRank(const JobRank &rank, const AnalysisRequest &request)
{
    // Mirrors runJobRank (core/job/jobrunner.cpp) so the GUI's rows equal the batch ones.
    if (rank.devicePath.empty())
        return failedRank(rank, ExitBadInput, "job.no_device",
                          "rank " + std::to_string(rank.rank) + " has a host execution trace (" + rank.hostPath +
                              ") but no Kineto device trace, which every analysis needs");
    try {
        AnalysisRequest req = request;
        req.hostPath = rank.hostPath;
        req.devicePath = rank.devicePath;
        req.rolesGiven = true;
        req.rank = rank.rank;
        RankRun run = runRankPipeline(req, jobRankOutputPaths(JobOutputOptions{}, rank));
        JobRankData d;
        d.rank = rank.rank;
        if (run.analysis->inputsOk) {
            d.summary = extractRankSummary(*run.analysis, run.exitCode);
            addRankBreakdown(*run.analysis, d.summary); // the Ranks dock's overlap / exposed comm
            addRankGpuTimeline(*run.analysis, d.summary); // the Stragglers dock (JobRunOptions::gpuTimelines)
            d.analysis = std::move(run.analysis);
        } else {
            d.summary.diagnostics = run.analysis->diagnostics;
            d.summary.hostPath = run.analysis->hostPath;
            d.summary.devicePath = run.analysis->devicePath;
        }
        d.summary.rank = rank.rank;
        d.summary.exitCode = run.exitCode;
        if (d.summary.hostPath.empty() && d.summary.devicePath.empty()) {
            d.summary.hostPath = rank.hostPath;
            d.summary.devicePath = rank.devicePath;
        }
        return d;
    } catch (const std::bad_alloc &) {
        return failedRank(rank, ExitInternal, "job.out_of_memory",
                          "rank " + std::to_string(rank.rank) + " ran out of memory");
    } catch (const std::exception &e) {
        return failedRank(rank, ExitInternal, "job.internal_error",
                          "rank " + std::to_string(rank.rank) + " failed with an internal error: " + e.what());
    }
}

std::shared_ptr<JobData> buildJobData(const std::vector<std::string> &inputs, const AnalysisRequest &request,
                                      const JobBuildOptions &options)
{
    auto job = std::make_shared<JobData>();
    DiscoveryOptions discovery;
    discovery.workers = options.workers;
    job->discovery = discoverJob(inputs, discovery);
    job->window = request.cpa;
    job->ranks.resize(job->discovery.ranks.size());
    std::mutex progress;
    size_t done = 0;
    parallelFor(job->ranks.size(), options.workers, [&](size_t i) {
        if (options.cancel && options.cancel->load())
            return;
        AnalysisRequest req = request;
        req.cancel = options.cancel;
        job->ranks[i] = buildJobRank(job->discovery.ranks[i], req);
        if (options.rankDone) {
            std::lock_guard lock(progress);
            options.rankDone(++done, job->ranks.size(), job->ranks[i]);
        }
    });
    if (options.cancel && options.cancel->load())
        return nullptr;
    job->analysis = analyzeJob(analysableRanks(jobRankSummaries(*job)), options.job);
    return job;
}

std::vector<RankSummary> jobRankSummaries(const JobData &job)
{
    std::vector<RankSummary> out;
    out.reserve(job.ranks.size());
    for (const auto &r : job.ranks)
        out.push_back(r.summary);
    return out;
}

std::vector<std::string> jobInputFiles(const JobData &job)
{
    std::vector<std::string> files;
    for (const auto &f : job.discovery.files)
        files.push_back(f.path);
    for (const auto &r : job.discovery.ranks)
        for (const std::string *p : {&r.hostPath, &r.devicePath})
            if (!p->empty())
                files.push_back(*p);
    return files;
}

} // namespace syncscope::ui
