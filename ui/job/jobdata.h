// SPDX-License-Identifier: MIT
// What the inspector holds for an opened job: the discovery, each rank's full
// analysis (for its timeline lanes, details and exports) and small summary, and
// the cross-rank analysis. Shared by the job timeline and the job panels
// (rank table, collectives table, cross-rank search).
#pragma once

#include "job/discovery.h"
#include "job/jobanalysis.h"
#include "analysis/ranksummary.h"
#include "session/analysis.h"

#include <memory>
#include <vector>

namespace syncscope::ui {

struct JobRankData {
    int64_t rank = -1;
    std::shared_ptr<const Analysis> analysis; // null while loading or when the rank failed to load
    RankSummary summary;                      // exitCode != 0: the rank failed (see summary.diagnostics)
};

struct JobData {
    JobDiscovery discovery;
    CriticalPathOptions window;     // the step (window) analysed on every rank
    std::vector<JobRankData> ranks; // one per discovery rank, ascending rank
    JobAnalysis analysis;           // over the ranks that loaded (analysableRanks)

    // Index into `ranks` of a rank number, -1 when absent.
    int indexOfRank(int64_t rank) const
    {
        for (size_t i = 0; i < ranks.size(); ++i)
            if (ranks[i].rank == rank)
                return int(i);
        return -1;
    }
};

} // namespace syncscope::ui
