// SPDX-License-Identifier: MIT
// Job mode of the trace generator: the collectives' end times are found by dry
// runs (each rank runs until its next collective; the collective then ends after
// the last arrival), then every rank is written with those ends.
#include "tracegen.h"
#include "tracegenformat.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <stdexcept>

namespace tracegen {

namespace {

std::string allRanks(int n)
{
    std::vector<int> ranks(static_cast<size_t>(n));
    for (int r = 0; r < n; ++r)
        ranks[static_cast<size_t>(r)] = r;
    return format::rankListText(ranks);
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
    timing.startUs = rank == job.startSkewRank ? job.startSkewUs : 0.0;
    if (rank == job.slowRank) {
        o.slowKernel = job.slowKernel;
        o.slowKernelScale = job.slowKernelScale;
    }
    return o;
}

} // namespace

int jobPartner(const JobOptions &options, int rank, size_t k)
{
    const int n = options.ranks;
    if (k % 2 == 0)
        return rank % 2 == 0 ? rank + 1 : rank - 1;
    return rank % 2 == 1 ? (rank + 1) % n : (rank + n - 1) % n;
}

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
    if (options.pairs && (options.ranks < 2 || options.ranks % 2 != 0))
        throw std::runtime_error("pairs mode needs an even number of ranks");
    std::filesystem::create_directories(options.dir);
    const std::string groupRanks = allRanks(options.ranks);
    JobResult result;
    std::vector<JobTiming> timing(static_cast<size_t>(options.ranks));
    for (JobTiming &t : timing)
        t.groupRanks = groupRanks;
    // One collective per round: every rank runs (dry) to its next collective.
    std::vector<std::vector<double>> ends(static_cast<size_t>(options.ranks));
    for (;;) {
        std::vector<double> arrival(static_cast<size_t>(options.ranks), -1);
        int arrived = 0;
        for (int r = 0; r < options.ranks; ++r) {
            JobTiming &t = timing[static_cast<size_t>(r)];
            t.dryRun = true;
            t.collectiveEndsUs = ends[static_cast<size_t>(r)];
            t.arrivalUs = -1;
            if (generate(rankOptions(options, r, t)).stoppedAtCollective) {
                arrival[static_cast<size_t>(r)] = t.arrivalUs;
                ++arrived;
            }
        }
        if (arrived == 0)
            break;
        if (arrived != options.ranks)
            throw std::runtime_error("job mode: the ranks launch different numbers of collectives");
        const size_t k = result.collectiveEndsUs.size();
        const double length = options.collectiveUs * (1.0 + 0.05 * double(k % 5));
        const double lastArrival = *std::max_element(arrival.begin(), arrival.end());
        result.collectiveEndsUs.push_back(lastArrival + length);
        for (int r = 0; r < options.ranks; ++r) {
            const auto me = static_cast<size_t>(r);
            if (!options.pairs) {
                ends[me].push_back(lastArrival + length);
                continue;
            }
            const int partner = jobPartner(options, r, k);
            ends[me].push_back(std::max(arrival[me], arrival[static_cast<size_t>(partner)]) + length);
            const int a = std::min(r, partner), b = std::max(r, partner);
            timing[me].groupNames.push_back("pair" + std::to_string(k % 2) + "_" + std::to_string(a));
            timing[me].groupRanksOf.push_back("[" + std::to_string(a) + ", " + std::to_string(b) + "]");
        }
    }
    for (int r = 0; r < options.ranks; ++r) {
        JobTiming &t = timing[static_cast<size_t>(r)];
        t.dryRun = false;
        t.collectiveEndsUs = ends[static_cast<size_t>(r)];
        result.ranks.push_back(generate(rankOptions(options, r, t)));
    }
    return result;
}

} // namespace tracegen
