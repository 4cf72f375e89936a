// SPDX-License-Identifier: MIT
// Helpers for the job-analysis suites: run the per-rank pipeline, shift a rank's clock.
#pragma once

#include "job/jobanalysis.h"
#include "job/ranksummary.h"
#include "session/analysis.h"
#include "testutil.h"

#include <string>
#include <vector>

namespace jobtest {

inline syncscope::RankSummary summarize(const std::string &device, const std::string &host = {},
                                        bool allSteps = false)
{
    syncscope::AnalysisRequest request;
    request.devicePath = device;
    request.hostPath = host;
    request.allSteps = allSteps;
    const auto analysis = syncscope::runAnalysis(request);
    return syncscope::extractRankSummary(*analysis, 0);
}

// The real 8-rank DLRM job (device traces only; old ncclKernel_* names, no process-group args).
inline std::vector<syncscope::RankSummary> dlrmJob()
{
    std::vector<syncscope::RankSummary> ranks;
    for (int r = 0; r < 8; ++r)
        ranks.push_back(
            summarize(testutil::fixture("jobs/param_dlrm_8rank/rank" + std::to_string(r) + ".kineto.json.gz")));
    return ranks;
}

// Moves every time of a summary by `deltaNs`, as if the rank's clock read that much later.
inline void shiftClock(syncscope::RankSummary &s, int64_t deltaNs)
{
    s.traceStartNs += deltaNs;
    s.traceEndNs += deltaNs;
    for (auto &st : s.steps) {
        st.startNs += deltaNs;
        st.endNs += deltaNs;
    }
    for (auto &c : s.collectives) {
        c.startNs += deltaNs;
        c.endNs += deltaNs;
    }
    for (auto &op : s.criticalPath.ops)
        op.startNs += deltaNs;
    for (auto &n : s.criticalPath.nodes)
        n.timeNs += deltaNs;
}

inline const syncscope::RankJobStats &stats(const syncscope::JobAnalysis &job, int64_t rank)
{
    for (const auto &s : job.ranks)
        if (s.rank == rank)
            return s;
    static syncscope::RankJobStats none;
    return none;
}

} // namespace jobtest
