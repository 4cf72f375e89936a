// SPDX-License-Identifier: MIT
// Where the job's step time went (docs/job_analysis.md): a wait-state walk back
// from the rank that ended the step last. On that rank, the time since its last
// collective is its own work; in the collective, the time from the last arrival to
// the end is the collective's; the walk then continues on the last arriver from its
// arrival (where the others waited, the cause is what that rank did). The first
// rank's step start closes the walk; before it lies start skew.
#include "jobinternal.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace syncscope::job {

JobStepTime jobStepTime(const std::vector<RankSummary> &ranks, const std::vector<uint8_t> &use,
                        const std::vector<MatchedCollective> &collectives, const std::vector<double> &offsetNs)
{
    JobStepTime out;
    // The analysed step on each rank (the critical-path window), aligned µs.
    std::unordered_map<int64_t, uint32_t> summaryOf;
    std::vector<double> stepStart(ranks.size(), NAN), stepEnd(ranks.size(), NAN);
    std::vector<int32_t> stepIndex(ranks.size(), -1);
    for (uint32_t i = 0; i < ranks.size(); ++i) {
        if (!use[i])
            continue;
        summaryOf.emplace(ranks[i].rank, i);
        const int64_t n = ranks[i].criticalPath.windowStep;
        for (size_t k = 0; k < ranks[i].steps.size() && n >= 0; ++k)
            if (ranks[i].steps[k].number == n) {
                stepIndex[i] = static_cast<int32_t>(k);
                stepStart[i] = (double(ranks[i].steps[k].startNs) + offsetNs[i]) / 1000.0;
                stepEnd[i] = (double(ranks[i].steps[k].endNs) + offsetNs[i]) / 1000.0;
            }
    }
    double first = INFINITY, last = -INFINITY;
    int32_t r = -1;
    for (uint32_t i = 0; i < ranks.size(); ++i) {
        if (std::isnan(stepStart[i]))
            continue;
        first = std::min(first, stepStart[i]);
        if (stepEnd[i] > last) {
            last = stepEnd[i];
            r = static_cast<int32_t>(i);
        }
    }
    if (r < 0)
        return out;
    // Per rank: its collectives of the step, by aligned end.
    struct Mine {
        double arrival, end, lastArrival, launch; // launch: aligned CPU launch (arrival when unknown)
        uint32_t job;
        int64_t lastRank;
    };
    std::vector<std::vector<Mine>> mine(ranks.size());
    for (uint32_t j = 0; j < collectives.size(); ++j) {
        const MatchedCollective &c = collectives[j];
        if (c.lastArrivalRank < 0)
            continue;
        const double lastArrival = c.arrivalUs.at(c.lastArrivalRank);
        for (size_t p = 0; p < c.ranks.size(); ++p) {
            const uint32_t i = summaryOf.at(c.ranks[p]);
            if (stepIndex[i] < 0 || ranks[i].collectives[c.index[p]].step != stepIndex[i])
                continue;
            const int64_t launchNs = ranks[i].collectives[c.index[p]].launchNs;
            const double launch =
                launchNs >= 0 ? (double(launchNs) + offsetNs[i]) / 1000.0 : c.arrivalUs.at(c.ranks[p]);
            mine[i].push_back({c.arrivalUs.at(c.ranks[p]), c.endUs.at(c.ranks[p]), lastArrival, launch, j,
                               c.lastArrivalRank});
        }
    }
    for (auto &m : mine)
        std::sort(m.begin(), m.end(), [](const Mine &a, const Mine &b) { return a.end < b.end; });

    out.valid = true;
    out.stepTimeUs = last - first;
    double t = last;
    double cpuT = last; // the CPU side of the current stretch ends here
    std::vector<JobPathSegment> back;
    // Each turn consumes a collective of the current rank that ends at or before t, and
    // t only decreases: at most one turn per (rank, collective).
    for (size_t guard = 0; guard <= collectives.size() * 2 + ranks.size(); ++guard) {
        const auto &list = mine[static_cast<size_t>(r)];
        auto it = std::upper_bound(list.begin(), list.end(), t, [](double x, const Mine &m) { return x < m.end; });
        const double from = std::isnan(stepStart[r]) ? first : stepStart[r];
        if (it == list.begin() || std::prev(it)->end <= from) {
            back.push_back({ranks[r].rank, std::min(from, t), t, false, -1, std::min(from, cpuT), cpuT});
            out.outsideWindowUs = std::max(0.0, std::min(from, t) - first);
            break;
        }
        const Mine &c = *std::prev(it);
        back.push_back({ranks[r].rank, c.end, t, false, -1, std::min(c.launch, cpuT), cpuT});
        const double arrival = std::min(c.lastArrival, c.end);
        back.push_back({ranks[r].rank, arrival, c.end, true, static_cast<int32_t>(c.job), 0, 0});
        t = arrival;
        const auto next = summaryOf.find(c.lastRank);
        if (next != summaryOf.end() && !std::isnan(stepStart[next->second]))
            r = static_cast<int32_t>(next->second);
        // The CPU stretch before this collective on the rank the walk goes on with ends
        // at its launch there.
        cpuT = c.launch;
        for (const Mine &m : mine[static_cast<size_t>(r)])
            if (m.job == c.job)
                cpuT = m.launch;
    }
    for (auto it = back.rbegin(); it != back.rend(); ++it) {
        if (it->endUs - it->startUs <= 0 && it->cpuEndUs - it->cpuStartUs <= 0)
            continue;
        (it->collective ? out.waitUs : out.workUs) += it->endUs - it->startUs;
        out.segments.push_back(*it);
    }
    return out;
}

} // namespace syncscope::job
