// SPDX-License-Identifier: MIT
// Job mode of the trace generator: the collectives' end times are found by dry
// runs (each rank runs until its next collective; the collective then ends after
// the last arrival), then every rank is written with those ends.
#include "tracegen.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <stdexcept>

namespace tracegen {

namespace {

std::string allRanks(int n)
{
    std::string s = "[";
    for (int r = 0; r < n; ++r)
        s += (r ? ", " : "") + std::to_string(r);
    return s + "]";
}

Options rankOptions(const JobOptions &job, int rank, JobTiming &timing)
{
    Options o;
    o.prefix = (std::filesystem::path(job.dir) / ("rank" + std::to_string(rank))).string();
    o.gzip = job.gzip;
    o.steps = std::max(1, job.steps);
    o.layers = std::max(1, job.layers);
    o.rank = rank;
    o.worldSize = job.ranks;
    o.seed = job.seed * 1000003 + static_cast<uint64_t>(rank);
    o.job = &timing;
    o.clockOffsetUs = jobClockOffsetUs(job, rank);
    timing.computeScale = rank == job.straggler ? job.stragglerScale : 1.0;
    return o;
}

} // namespace

double jobClockOffsetUs(const JobOptions &options, int rank)
{
    if (rank == 0)
        return 0;
    // A fixed pseudo-random value in [-max, max], whole nanoseconds.
    const uint64_t h = (static_cast<uint64_t>(rank) * 2654435761u + options.seed * 40503u) % 2000001u;
    return std::round((double(h) / 1000000.0 - 1.0) * options.maxClockOffsetUs * 1000.0) / 1000.0;
}

JobResult generateJob(const JobOptions &options)
{
    if (options.ranks < 1)
        throw std::runtime_error("a job needs at least one rank");
    std::filesystem::create_directories(options.dir);
    const std::string groupRanks = allRanks(options.ranks);
    JobResult result;
    std::vector<JobTiming> timing(static_cast<size_t>(options.ranks));
    for (JobTiming &t : timing)
        t.groupRanks = groupRanks;
    // One collective per round: every rank runs (dry) to its next collective.
    for (;;) {
        double lastArrival = -1;
        int arrived = 0;
        for (int r = 0; r < options.ranks; ++r) {
            JobTiming &t = timing[static_cast<size_t>(r)];
            t.dryRun = true;
            t.collectiveEndsUs = result.collectiveEndsUs;
            t.arrivalUs = -1;
            if (generate(rankOptions(options, r, t)).stoppedAtCollective) {
                lastArrival = std::max(lastArrival, t.arrivalUs);
                ++arrived;
            }
        }
        if (arrived == 0)
            break;
        if (arrived != options.ranks)
            throw std::runtime_error("job mode: the ranks launch different numbers of collectives");
        const size_t k = result.collectiveEndsUs.size();
        result.collectiveEndsUs.push_back(lastArrival + options.collectiveUs * (1.0 + 0.05 * double(k % 5)));
    }
    for (int r = 0; r < options.ranks; ++r) {
        JobTiming &t = timing[static_cast<size_t>(r)];
        t.dryRun = false;
        t.collectiveEndsUs = result.collectiveEndsUs;
        result.ranks.push_back(generate(rankOptions(options, r, t)));
    }
    return result;
}

} // namespace tracegen
