// SPDX-License-Identifier: MIT
// Collective bandwidth of a job's matched instances (issue 25, docs/breakdowns.md
// "Job mode"), from the per-rank summaries only: nccl-tests' message size S, the
// transfer time (last arrival -> kernel end: what is left of a kernel once the wait
// for a late rank is taken out), algbw and busbw over it, and instances whose busbw
// is far below the job's median for the same collective type and size. One
// definition for the job report, its text summary and the job docks.
#pragma once

#include "analysis/busbw.h"
#include "jobanalysis.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace syncscope {

struct Analysis;


// An instance is slow when its busbw is below this share of the job's median busbw
// over the instances of the same collective type and message size.
constexpr double kSlowBusBwRatio = 0.5;

struct CollectiveRankBandwidth {
    int64_t rank = -1;
    const RankCollective *kernel = nullptr; // its kernel in the rank's summary, null when absent
    double waitUs = 0;         // arrival -> last arrival
    double transferUs = -1;    // last arrival -> own kernel end; -1 unknown
    double kernelUs = -1;      // own kernel (wait + transfer); -1 unknown
    std::optional<int64_t> bytes;
    double algBwGBps = -1, busBwGBps = -1; // over transferUs; -1 unknown
};

struct CollectiveBandwidth {
    CollectiveType type = CollectiveType::Unknown; // as busbw measures it
    int64_t groupSize = -1;    // the kernels' "Process Group Ranks" count, else the participants
    std::optional<int64_t> messageBytes; // S: the first participant (ascending rank) that knows it
    double transferUs = -1;    // mean over the participants' transfers (nccl-tests averages ranks)
    double algBwGBps = -1, busBwGBps = -1; // S / transferUs, x busBwFactor; -1 unknown
    double medianBusBwGBps = -1; // the job's median over the same type and S; -1 unknown
    bool slow = false;         // busBwGBps < kSlowBusBwRatio x medianBusBwGBps
    std::vector<CollectiveRankBandwidth> ranks; // MatchedCollective::ranks order
};

// One instance; `kernels[k]` is participant k's kernel (null when unknown). A known
// `type` (the GUI's .et kind) overrides the kernels' busType.
CollectiveBandwidth collectiveBandwidth(const MatchedCollective &c, const std::vector<const RankCollective *> &kernels,
                                        CollectiveType type = CollectiveType::Unknown);

// Every instance of job.collectives (same order), with the job's medians and slow flags.
// A rank's first summary is the one analysed; null entries are skipped.
std::vector<CollectiveBandwidth> jobCollectiveBandwidths(const std::vector<const RankSummary *> &ranks,
                                                         const JobAnalysis &job);
std::vector<CollectiveBandwidth> jobCollectiveBandwidths(const std::vector<RankSummary> &ranks, const JobAnalysis &job);

// Per collective type with a busbw: instances, the median busbw over all of them, the
// slow ones and the one furthest below its median (index into job.collectives, -1 none).
struct BusBwTypeSummary {
    CollectiveType type = CollectiveType::Unknown;
    size_t instances = 0;
    double medianBusBwGBps = -1;
    size_t slow = 0;
    int64_t worst = -1;
};
std::vector<BusBwTypeSummary> busBwByType(const std::vector<CollectiveBandwidth> &bandwidths);

} // namespace syncscope
