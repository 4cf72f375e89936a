// SPDX-License-Identifier: MIT
// Clock alignment from matched collective ends (docs/job_analysis.md, "Clocks").
#include "jobinternal.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

namespace syncscope::job {

double median(std::vector<double> v)
{
    if (v.empty())
        return 0;
    const size_t mid = v.size() / 2;
    std::nth_element(v.begin(), v.begin() + mid, v.end());
    const double hi = v[mid];
    if (v.size() % 2)
        return hi;
    return (*std::max_element(v.begin(), v.begin() + mid) + hi) / 2;
}

ClockFit alignClocks(const std::vector<RankSummary> &ranks, const std::vector<Instance> &instances, uint32_t reference,
                     Diagnostics &diag)
{
    const size_t n = ranks.size();
    ClockFit fit;
    fit.offsetNs.assign(n, 0);
    fit.spreadNs.assign(n, 0);
    fit.samples.assign(n, 0);
    fit.aligned.assign(n, 0);
    std::vector<std::vector<uint32_t>> instancesOf(n);
    for (uint32_t k = 0; k < instances.size(); ++k)
        for (const Participation &p : instances[k].parts)
            instancesOf[p.rank].push_back(k);
    // Epoch nanoseconds do not fit a double exactly: differences are taken in integers first.
    auto endNs = [&](const Participation &p) { return ranks[p.rank].collectives[p.collective].endNs; };

    // Breadth-first over the participation graph: each round uses the instances
    // touching the ranks aligned in the previous round, once each.
    std::vector<uint8_t> used(instances.size(), 0);
    std::vector<uint32_t> frontier{reference};
    fit.aligned[reference] = 1;
    while (!frontier.empty()) {
        std::unordered_map<uint32_t, std::vector<double>> estimates;
        for (uint32_t a : frontier) {
            for (uint32_t k : instancesOf[a]) {
                if (used[k])
                    continue;
                used[k] = 1;
                // The instance's end on the reference clock, from its aligned participants,
                // relative to a pivot end so the arithmetic stays exact.
                const int64_t pivot = endNs(instances[k].parts.front());
                std::vector<double> refEnds;
                for (const Participation &p : instances[k].parts)
                    if (fit.aligned[p.rank])
                        refEnds.push_back(double(endNs(p) - pivot) + fit.offsetNs[p.rank]);
                const double refEnd = median(std::move(refEnds));
                for (const Participation &p : instances[k].parts)
                    if (!fit.aligned[p.rank])
                        estimates[p.rank].push_back(refEnd + double(pivot - endNs(p)));
            }
        }
        std::vector<uint32_t> next;
        for (auto &[r, est] : estimates) {
            const double off = median(est);
            std::vector<double> dev;
            dev.reserve(est.size());
            for (double e : est)
                dev.push_back(std::abs(e - off));
            fit.offsetNs[r] = off;
            fit.spreadNs[r] = median(std::move(dev));
            fit.samples[r] = static_cast<int64_t>(est.size());
            fit.aligned[r] = 1;
            next.push_back(r);
        }
        std::sort(next.begin(), next.end()); // deterministic rounds
        frontier = std::move(next);
    }
    // The reference's own spread: how well the others' ends agree with its ends.
    fit.samples[reference] = static_cast<int64_t>(instancesOf[reference].size());

    std::string notAligned;
    size_t notAlignedCount = 0, wide = 0;
    for (uint32_t r = 0; r < n; ++r) {
        if (!fit.aligned[r] && !ranks[r].collectives.empty()) {
            ++notAlignedCount;
            if (notAligned.size() < 200)
                notAligned += (notAligned.empty() ? "" : ", ") + std::to_string(ranks[r].rank);
        }
        wide += fit.spreadNs[r] > 100e3 ? 1 : 0;
    }
    if (notAlignedCount > 0)
        diag.warning("job.rank_not_aligned",
                     std::to_string(notAlignedCount) + " ranks share no matched collective with the clock reference "
                                                       "(directly or through other ranks); their clocks are left "
                                                       "as they are: " +
                         notAligned);
    if (wide > 0)
        diag.warning("job.clock_spread",
                     std::to_string(wide) + " ranks have clock-offset estimates spread by more than 100 us (MAD); "
                                            "collective ends disagree, so their waits are uncertain");
    return fit;
}

} // namespace syncscope::job

namespace syncscope::job {

size_t alignHosts(const std::vector<RankSummary> &ranks, const std::vector<uint8_t> &use, uint32_t reference,
                  ClockFit &fit)
{
    std::map<std::string, std::vector<size_t>> byHost;
    for (size_t i = 0; i < ranks.size(); ++i)
        if (use[i] && !ranks[i].host.empty())
            byHost[ranks[i].host].push_back(i);
    size_t groups = 0;
    for (const auto &[host, members] : byHost) {
        if (members.size() < 2)
            continue;
        const bool referenceHost = std::find(members.begin(), members.end(), reference) != members.end();
        std::vector<double> fits;
        for (size_t m : members)
            if (fit.aligned[m])
                fits.push_back(fit.offsetNs[m]);
        if (!referenceHost && fits.empty())
            continue; // no member reached the reference: the host stays unaligned
        ++groups;
        const double offset = referenceHost ? 0.0 : median(fits);
        // The host's spread: how far its members' own fits lie from its offset (robust).
        std::vector<double> deviation;
        for (double f : fits)
            deviation.push_back(std::abs(f - offset));
        const double spread = median(deviation);
        for (size_t m : members) { // samples stay each rank's own
            fit.offsetNs[m] = offset;
            fit.spreadNs[m] = spread;
            fit.aligned[m] = 1;
        }
    }
    return groups;
}

} // namespace syncscope::job
