// SPDX-License-Identifier: MIT
// Lateness decomposition per collective and rank (docs/job_analysis.md, "Lateness"):
// start skew against work excess, relative to the earliest arriver, since each
// rank's previous common synchronisation point.
#include "jobinternal.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace syncscope::job {

namespace {

// A start skew that explains at least this share of the last arriver's lateness at
// its first collective of the window makes the collective a window edge.
constexpr double kWindowEdgeShare = 0.5;

} // namespace

int64_t previousSyncNs(const RankSummary &r, uint32_t k, bool &fromWindowStart)
{
    const RankCollective &c = r.collectives[k];
    const int64_t stepStart = c.step >= 0 && static_cast<size_t>(c.step) < r.steps.size()
                                  ? r.steps[static_cast<size_t>(c.step)].startNs
                                  : r.traceStartNs;
    // The previous kernel counts only inside the same step window (collectives are
    // sorted by start; an earlier step's kernel is outside the interval).
    if (k > 0) {
        const RankCollective &p = r.collectives[k - 1];
        if (p.endNs <= c.startNs && p.endNs >= stepStart) {
            fromWindowStart = false;
            return p.endNs;
        }
    }
    fromWindowStart = true;
    return std::min(stepStart, c.startNs);
}

void decomposeLateness(const std::vector<RankSummary> &ranks, const std::vector<uint8_t> &use,
                       const std::vector<double> &offsetNs, std::vector<MatchedCollective> &collectives)
{
    std::unordered_map<int64_t, uint32_t> summaryOf;
    for (uint32_t i = 0; i < ranks.size(); ++i)
        if (use[i])
            summaryOf.emplace(ranks[i].rank, i);
    for (MatchedCollective &c : collectives) {
        const size_t n = c.ranks.size();
        if (n == 0)
            continue;
        // Aligned µs of each participant's previous sync point and arrival.
        std::vector<double> sync(n), arrival(n);
        std::vector<uint8_t> edge(n);
        size_t earliest = 0;
        for (size_t p = 0; p < n; ++p) {
            const uint32_t i = summaryOf.at(c.ranks[p]);
            bool fromStart = false;
            const int64_t s = previousSyncNs(ranks[i], c.index[p], fromStart);
            sync[p] = (double(s) + offsetNs[i]) / 1000.0;
            arrival[p] = c.arrivalUs.at(c.ranks[p]);
            edge[p] = fromStart ? 1 : 0;
            if (arrival[p] < arrival[earliest])
                earliest = p;
        }
        for (size_t p = 0; p < n; ++p) {
            RankLateness l;
            l.lateUs = std::max(0.0, arrival[p] - arrival[earliest]);
            l.startSkewUs = std::clamp(sync[p] - sync[earliest], 0.0, l.lateUs);
            const double work = (arrival[p] - sync[p]) - (arrival[earliest] - sync[earliest]);
            l.workExcessUs = std::clamp(work, 0.0, l.lateUs - l.startSkewUs);
            l.unexplainedUs = std::max(0.0, l.lateUs - l.startSkewUs - l.workExcessUs);
            l.fromWindowStart = edge[p] != 0;
            c.lateness[c.ranks[p]] = l;
        }
        if (c.lastArrivalRank >= 0) {
            const RankLateness &last = c.lateness.at(c.lastArrivalRank);
            c.windowEdge = last.fromWindowStart && last.lateUs > 0 &&
                           last.startSkewUs >= kWindowEdgeShare * last.lateUs;
        }
    }
}

} // namespace syncscope::job
