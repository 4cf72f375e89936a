// SPDX-License-Identifier: MIT
// HTA's single-rank semantics inside one stretch of a rank: the longest path of
// the rank's critical-path graph over the nodes between two sync points (not
// installed API; used by the job critical path and the job what-if).
#pragma once

#include "analysis/ranksummary.h"

#include <cstdint>
#include <vector>

namespace syncscope::job {

// A rank graph's adjacency (CSR) and its nodes in time order, built once.
class RankPathIndex
{
public:
    explicit RankPathIndex(const RankCpGraph &graph);

    struct Path {
        double weightUs = 0;
        std::vector<int32_t> edges; // in path order (filled when asked for)
    };
    // The longest path over the nodes with fromNs <= time <= toNs (own clock) and
    // the edges between them, under `weight` (one per graph edge; NaN: left out).
    Path longest(int64_t fromNs, int64_t toNs, const std::vector<double> &weight, bool wantEdges) const;

private:
    const RankCpGraph &m_graph;
    std::vector<int32_t> m_outStart, m_outEdges, m_byTime;
};

// The measured weights of a rank graph (HTA's clamp: weights <= -1 count as 0).
std::vector<double> measuredWeights(const RankCpGraph &graph);

} // namespace syncscope::job
