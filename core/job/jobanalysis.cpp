// SPDX-License-Identifier: MIT
// analyzeJob: matching -> clocks -> arrivals and waits -> stragglers -> job critical path.
#include "jobanalysis.h"

#include "jobinternal.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace syncscope {

using namespace job;

namespace {

// Drops repeated rank numbers (the first summary of a rank wins) and picks the reference.
std::vector<uint8_t> usableRanks(const std::vector<RankSummary> &ranks, Diagnostics &diag)
{
    std::vector<uint8_t> use(ranks.size(), 1);
    std::unordered_map<int64_t, size_t> seen;
    for (size_t i = 0; i < ranks.size(); ++i) {
        auto [it, fresh] = seen.emplace(ranks[i].rank, i);
        if (!fresh) {
            use[i] = 0;
            diag.error("job.duplicate_rank",
                       "rank " + std::to_string(ranks[i].rank) + " appears twice (" + ranks[it->second].devicePath +
                           " and " + ranks[i].devicePath + "); the second is left out of the cross-rank analysis",
                       ranks[i].devicePath);
        }
        if (use[i] && ranks[i].collectives.empty())
            diag.warning("job.no_collectives",
                         "rank " + std::to_string(ranks[i].rank) + " has no collective kernels (" +
                             ranks[i].devicePath + "); it is not clock-aligned and waits nowhere",
                         ranks[i].devicePath);
    }
    return use;
}

uint32_t referenceIndex(const std::vector<RankSummary> &ranks, const std::vector<uint8_t> &use,
                        const JobOptions &options, Diagnostics &diag)
{
    int64_t best = -1;
    for (uint32_t i = 0; i < ranks.size(); ++i) {
        if (!use[i])
            continue;
        if (ranks[i].rank == options.clockReferenceRank)
            return i;
        // Default: the lowest rank that has collectives (else the lowest rank).
        const auto better = [&](uint32_t a, uint32_t b) {
            const bool ca = !ranks[a].collectives.empty(), cb = !ranks[b].collectives.empty();
            return ca != cb ? ca : ranks[a].rank < ranks[b].rank;
        };
        if (best < 0 || better(i, static_cast<uint32_t>(best)))
            best = i;
    }
    if (options.clockReferenceRank >= 0)
        diag.warning("job.reference_missing", "the clock reference rank " + std::to_string(options.clockReferenceRank) +
                                                  " is not in the job; rank " +
                                                  std::to_string(ranks[static_cast<size_t>(best)].rank) + " is used");
    return static_cast<uint32_t>(best);
}

MatchedCollective describe(const Instance &in, const std::vector<RankSummary> &ranks,
                           const std::vector<double> &offsetNs)
{
    MatchedCollective m;
    m.name = in.name;
    m.processGroup = in.processGroup;
    m.matchedBy = in.matchedBy;
    m.complete = in.parts.size() >= in.expected;
    std::vector<Participation> parts = in.parts;
    std::sort(parts.begin(), parts.end(),
              [&](const Participation &a, const Participation &b) { return ranks[a.rank].rank < ranks[b.rank].rank; });
    // Aligned integer nanoseconds, so waits stay exact at epoch timestamps.
    auto aligned = [&](int64_t ns, uint32_t i) { return ns + static_cast<int64_t>(std::llround(offsetNs[i])); };
    int64_t last = 0, first = 0;
    std::vector<int64_t> arrivals;
    for (const Participation &p : parts) {
        const RankCollective &c = ranks[p.rank].collectives[p.collective];
        const int64_t r = ranks[p.rank].rank;
        const int64_t arrival = aligned(c.startNs, p.rank);
        m.ranks.push_back(r);
        m.index.push_back(p.collective);
        m.arrivalUs[r] = double(arrival) / 1000.0;
        m.endUs[r] = double(aligned(c.endNs, p.rank)) / 1000.0;
        if (m.lastArrivalRank < 0 || arrival > last) {
            last = arrival;
            m.lastArrivalRank = r;
        }
        first = arrivals.empty() ? arrival : std::min(first, arrival);
        arrivals.push_back(arrival);
    }
    for (size_t k = 0; k < m.ranks.size(); ++k)
        m.waitUs[m.ranks[k]] = double(last - arrivals[k]) / 1000.0;
    m.spreadUs = double(last - first) / 1000.0;
    return m;
}

} // namespace

double waitCausedUs(const MatchedCollective &c)
{
    double sum = 0;
    for (const auto &[r, w] : c.waitUs)
        sum += r == c.lastArrivalRank ? 0 : w;
    return sum;
}

std::vector<uint32_t> collectivesDelayedBy(const JobAnalysis &job, int64_t rank, size_t limit)
{
    std::vector<uint32_t> out;
    for (uint32_t k = 0; k < job.collectives.size(); ++k)
        if (job.collectives[k].lastArrivalRank == rank && waitCausedUs(job.collectives[k]) > 0)
            out.push_back(k);
    std::stable_sort(out.begin(), out.end(), [&](uint32_t a, uint32_t b) {
        return waitCausedUs(job.collectives[a]) > waitCausedUs(job.collectives[b]);
    });
    if (out.size() > limit)
        out.resize(limit);
    return out;
}

bool parseClockMode(std::string_view text, ClockMode &out)
{
    if (text == "auto")
        out = ClockMode::Auto;
    else if (text == "align")
        out = ClockMode::Align;
    else if (text == "trust")
        out = ClockMode::Trust;
    else
        return false;
    return true;
}

const char *clockModeName(ClockMode mode)
{
    switch (mode) {
    case ClockMode::Auto: return "auto";
    case ClockMode::Trust: return "trust";
    case ClockMode::Align: break;
    }
    return "align";
}

JobAnalysis analyzeJob(const std::vector<RankSummary> &ranks, const JobOptions &options)
{
    JobAnalysis job;
    job.ranks.resize(ranks.size());
    for (size_t i = 0; i < ranks.size(); ++i) {
        job.ranks[i].rank = ranks[i].rank;
        if (!job.worldSize && ranks[i].worldSize)
            job.worldSize = ranks[i].worldSize;
    }
    if (ranks.empty()) {
        job.criticalPath.reason = "the job has no ranks";
        return job;
    }
    const std::vector<uint8_t> use = usableRanks(ranks, job.diagnostics);
    const uint32_t reference = referenceIndex(ranks, use, options, job.diagnostics);
    job.clockReferenceRank = ranks[reference].rank;

    const std::vector<Instance> instances = matchCollectives(ranks, use, job.diagnostics);
    std::vector<double> offsetNs(ranks.size(), 0);
    job.clockMode = options.clocks;
    job.ranks[reference].clock = "reference";
    if (options.clocks != ClockMode::Trust) {
        ClockFit fit = alignClocks(ranks, instances, reference, job.diagnostics);
        const std::vector<double> ownFit = fit.offsetNs;
        const size_t hosts = alignHosts(ranks, use, reference, fit);
        if (hosts > 0)
            job.diagnostics.info("job.clocks_by_host",
                                 "ranks of one host share its clock: " + std::to_string(hosts) +
                                     " host(s) of several ranks were aligned as a whole (docs/job_analysis.md, \"Clocks\")");
        size_t kept = 0;
        for (size_t i = 0; i < ranks.size(); ++i) {
            RankJobStats &r = job.ranks[i];
            r.host = ranks[i].host;
            r.fittedOffsetUs = ownFit[i] / 1000.0;
            r.clockSpreadUs = fit.spreadNs[i] / 1000.0;
            r.offsetSamples = fit.samples[i];
            if (i == reference)
                continue;
            if (!fit.aligned[i]) {
                r.clock = "unaligned";
                continue;
            }
            // Auto: an offset within the noise of its own estimates is no skew (ranks of one
            // host share a clock; shifting them by noise moves every wait).
            const double offsetUs = fit.offsetNs[i] / 1000.0; // its host's, when it shares one
            const bool referenceHost = !r.host.empty() && r.host == ranks[reference].host;
            const double noiseUs = std::max(kAutoClockFloorUs, kAutoClockSpreads * r.clockSpreadUs);
            if (referenceHost || (options.clocks == ClockMode::Auto && std::abs(offsetUs) <= noiseUs &&
                                  std::abs(offsetUs) <= kAutoClockMaxKeptUs)) {
                fit.offsetNs[i] = 0;
                kept += referenceHost ? 0 : 1;
                continue;
            }
            r.clock = "aligned";
            r.clockOffsetUs = offsetUs;
        }
        if (kept > 0)
            job.diagnostics.info("job.clocks_kept",
                                 std::to_string(kept) + " ranks keep their own clocks (--clocks auto): their collective "
                                                        "ends agree with the reference's within noise");
        offsetNs = std::move(fit.offsetNs);
    }

    {
        double earliest = INFINITY;
        for (size_t i = 0; i < ranks.size(); ++i)
            if (use[i])
                earliest = std::min(earliest, (double(ranks[i].traceStartNs) + offsetNs[i]) / 1000.0);
        for (size_t i = 0; i < ranks.size(); ++i)
            if (use[i])
                job.ranks[i].startOffsetUs = (double(ranks[i].traceStartNs) + offsetNs[i]) / 1000.0 - earliest;
    }

    job.collectives.reserve(instances.size());
    for (const Instance &in : instances)
        job.collectives.push_back(describe(in, ranks, offsetNs));
    // Aligned time order: by first arrival, then name, for a stable report.
    std::vector<double> firstArrival(job.collectives.size());
    for (size_t k = 0; k < job.collectives.size(); ++k) {
        double t = 0;
        bool any = false;
        for (const auto &[r, a] : job.collectives[k].arrivalUs) {
            t = any ? std::min(t, a) : a;
            any = true;
        }
        firstArrival[k] = t;
    }
    std::vector<uint32_t> order(job.collectives.size());
    for (uint32_t k = 0; k < order.size(); ++k)
        order[k] = k;
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        return firstArrival[a] != firstArrival[b] ? firstArrival[a] < firstArrival[b]
                                                  : job.collectives[a].name < job.collectives[b].name;
    });
    std::vector<MatchedCollective> sorted;
    sorted.reserve(order.size());
    for (uint32_t k : order)
        sorted.push_back(std::move(job.collectives[k]));
    job.collectives = std::move(sorted);
    decomposeLateness(ranks, use, offsetNs, job.collectives);

    // Waits per rank.
    std::unordered_map<int64_t, size_t> statsOf;
    for (size_t i = 0; i < ranks.size(); ++i)
        if (use[i])
            statsOf.emplace(ranks[i].rank, i);
    for (const MatchedCollective &c : job.collectives) {
        for (const auto &[r, w] : c.waitUs) {
            RankJobStats &s = job.ranks[statsOf.at(r)];
            s.collectiveWaitUs += w;
            ++s.collectives;
        }
        if (c.spreadUs > 0) {
            RankJobStats &last = job.ranks[statsOf.at(c.lastArrivalRank)];
            const double caused = waitCausedUs(c);
            last.collectiveWaitCausedUs += caused;
            ++last.lastArrivals;
            // The waits it caused, split as its lateness splits.
            const auto it = c.lateness.find(c.lastArrivalRank);
            if (it != c.lateness.end() && it->second.lateUs > 0) {
                const RankLateness &l = it->second;
                last.workDelayCostUs += caused * l.workExcessUs / l.lateUs;
                last.startSkewCostUs += caused * l.startSkewUs / l.lateUs;
                last.unexplainedCostUs += caused * l.unexplainedUs / l.lateUs;
            } else {
                last.unexplainedCostUs += caused;
            }
        }
    }
    // A cause must weigh: at least 1 µs and 5 % of the waits the rank caused (a 3 µs
    // skew at a collective it was 0.9 ms late for is clock noise, not a cause).
    auto ranked = [&](double RankJobStats::*cost) {
        std::vector<int64_t> out;
        for (size_t i = 0; i < ranks.size(); ++i)
            if (use[i] && job.ranks[i].*cost >= std::max(1.0, 0.05 * job.ranks[i].collectiveWaitCausedUs))
                out.push_back(ranks[i].rank);
        std::stable_sort(out.begin(), out.end(), [&](int64_t a, int64_t b) {
            const double ca = job.ranks[statsOf.at(a)].*cost, cb = job.ranks[statsOf.at(b)].*cost;
            return ca != cb ? ca > cb : a < b;
        });
        return out;
    };
    job.stragglers = ranked(&RankJobStats::workDelayCostUs);
    job.startSkewed = ranked(&RankJobStats::startSkewCostUs);
    findRootCauses(ranks, use, offsetNs, job);

    job.criticalPath = jobCriticalPath(ranks, use, job.collectives, offsetNs, job.diagnostics);
    if (!options.whatIf.empty())
        job.whatIf = jobWhatIf(ranks, use, job.collectives, offsetNs, options.whatIf, job.criticalPath, job.diagnostics);
    if (options.stragglerWhatIf)
        job.straggler = stragglerWhatIf(ranks, use, job.collectives, offsetNs, options.straggler, job.diagnostics);
    return job;
}

} // namespace syncscope
