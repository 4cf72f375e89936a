// SPDX-License-Identifier: MIT
// A job's .et set replayed (issue 21): every PREFIX.RANK.et of a folder, each rank
// started at its rank_start_offset_micros (as a job export writes it), against the
// measured time of the job. The ranks are replayed one by one: nothing couples them
// through their collectives (a network simulator such as ASTRA-sim does that).
#pragma once

#include "chakrareplay.h"

#include <cstdint>
#include <string>
#include <vector>

namespace syncscope {

struct JobReplayRank {
    int64_t rank = -1;
    std::string path;
    int64_t startOffsetUs = 0; // 0 when the file has no rank_start_offset_micros
    ReplayWindow overall;      // the rank's own replay
};

struct JobReplayResult {
    std::vector<JobReplayRank> ranks; // by rank
    double measuredUs = -1;           // the job: latest offset + measured end, from the earliest start
    double replayedUs = 0;            // the same with the replayed ends
    double errorPct() const { return measuredUs > 0 ? 100.0 * (replayedUs - measuredUs) / measuredUs : 0.0; }
};

// The .et files of `dir` named PREFIX.RANK.et[.gz]; throws InputError when there are none
// or one cannot be read.
JobReplayResult replayChakraEtJob(const std::string &dir);
std::string formatJobReplay(const JobReplayResult &result);

} // namespace syncscope
