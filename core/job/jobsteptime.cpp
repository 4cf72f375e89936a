// SPDX-License-Identifier: MIT
// Where the job's step time went (docs/job_analysis.md): a replay of the step as
// the ranks' work between collectives, then a wait-state walk back from the rank
// that ended the step last. On that rank, the time since its last collective is
// its own work; in the collective, the time from the last arrival to the end is
// the collective's; the walk then continues on the last arriver from its arrival
// (where the others waited, the cause is what that rank did). The first rank's
// step start closes the walk; before it lies start skew.
//
// Under a what-if the walk runs over the replayed times (jobreplay.cpp).
#include "jobinternal.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <unordered_map>

namespace syncscope::job {

namespace {

// One rank's collective of the step, aligned µs; measured and replayed.
struct Item {
    double arrival, end, launch; // measured (launch: CPU launch, arrival when unknown)
    double lastArrival;          // measured last arrival of the instance
    uint32_t job;                // index into the job's collectives
    uint32_t own;                // index into the rank's RankSummary::collectives
    double simArrival = 0, simEnd = 0, simLastArrival = 0;
    uint32_t simLast = 0;        // summary index of the replayed last arriver
};

// A kernel of a rank's collective that matched no other rank's, aligned µs (replayed)
// and own-clock ns (measured, for the rank's graph nodes).
struct Unmatched {
    double start, end, launch;
    int64_t startNs, endNs, cpuEdgeNs; // cpuEdgeNs: the earlier of its launch and end
};

} // namespace

JobStepTime jobStepTime(const std::vector<RankSummary> &ranks, const std::vector<uint8_t> &use,
                        const std::vector<MatchedCollective> &collectives, const std::vector<double> &offsetNs,
                        const JobReplay *replay)
{
    JobStepTime out;
    const size_t n = ranks.size();
    // The step: the ProfilerStep#N most ranks analysed (their critical-path window);
    // a rank that analysed another one but has step N takes part with step N.
    std::unordered_map<int64_t, size_t> votes;
    for (uint32_t i = 0; i < n; ++i)
        if (use[i])
            ++votes[ranks[i].criticalPath.windowStep];
    int64_t stepNumber = -1;
    size_t best = 0;
    for (const auto &[s, v] : votes)
        if (v > best || (v == best && s < stepNumber)) {
            stepNumber = s;
            best = v;
        }
    std::unordered_map<int64_t, uint32_t> summaryOf;
    std::vector<double> stepStart(n, NAN), stepEnd(n, NAN);
    std::vector<int32_t> stepIndex(n, -1);
    for (uint32_t i = 0; i < n; ++i) {
        if (!use[i])
            continue;
        summaryOf.emplace(ranks[i].rank, i);
        const double off = offsetNs[i];
        if (stepNumber < 0) { // no ProfilerStep: the whole trace
            stepStart[i] = (double(ranks[i].traceStartNs) + off) / 1000.0;
            stepEnd[i] = (double(ranks[i].traceEndNs) + off) / 1000.0;
            continue;
        }
        for (size_t k = 0; k < ranks[i].steps.size(); ++k)
            if (ranks[i].steps[k].number == stepNumber) {
                stepIndex[i] = static_cast<int32_t>(k);
                stepStart[i] = (double(ranks[i].steps[k].startNs) + off) / 1000.0;
                stepEnd[i] = (double(ranks[i].steps[k].endNs) + off) / 1000.0;
            }
    }
    out.stepNumber = stepNumber;
    double first = INFINITY, last = -INFINITY;
    for (uint32_t i = 0; i < n; ++i) {
        if (!std::isnan(stepStart[i]))
            first = std::min(first, stepStart[i]);
        else if (use[i])
            ++out.ranksLeftOut;
        if (use[i] && ranks[i].criticalPath.valid && ranks[i].criticalPath.windowStep != stepNumber)
            ++out.ranksOtherWindow;
    }
    if (!std::isfinite(first))
        return out;

    // Per rank: its collectives of the step, in its own order (by arrival).
    std::vector<std::vector<Item>> items(n);
    std::vector<std::vector<std::pair<uint32_t, uint32_t>>> inJob(collectives.size()); // (summary, item)
    for (uint32_t j = 0; j < collectives.size(); ++j) {
        const MatchedCollective &c = collectives[j];
        if (c.lastArrivalRank < 0)
            continue;
        const double lastArrival = c.arrivalUs.at(c.lastArrivalRank);
        for (size_t p = 0; p < c.ranks.size(); ++p) {
            const uint32_t i = summaryOf.at(c.ranks[p]);
            if (std::isnan(stepStart[i]) || (stepIndex[i] >= 0 && ranks[i].collectives[c.index[p]].step != stepIndex[i]))
                continue;
            const int64_t launchNs = ranks[i].collectives[c.index[p]].launchNs;
            const double arrival = c.arrivalUs.at(c.ranks[p]);
            items[i].push_back({arrival, c.endUs.at(c.ranks[p]),
                                launchNs >= 0 ? (double(launchNs) + offsetNs[i]) / 1000.0 : arrival, lastArrival, j,
                                c.index[p]});
        }
    }
    for (uint32_t i = 0; i < n; ++i) {
        auto &list = items[i];
        std::stable_sort(list.begin(), list.end(), [](const Item &a, const Item &b) { return a.arrival < b.arrival; });
        for (uint32_t k = 0; k < list.size(); ++k)
            inJob[list[k].job].emplace_back(i, k);
    }
    // Per rank: its step's collective kernels that matched nothing (a partner not traced,
    // a count mismatch). Time in them is collective time, not the rank's work.
    std::vector<std::vector<uint8_t>> matchedOwn(n);
    for (uint32_t i = 0; i < n; ++i)
        matchedOwn[i].assign(ranks[i].collectives.size(), 0);
    for (const MatchedCollective &c : collectives)
        for (size_t p = 0; p < c.ranks.size(); ++p)
            matchedOwn[summaryOf.at(c.ranks[p])][c.index[p]] = 1;
    std::vector<std::vector<Unmatched>> unmatched(n);
    for (uint32_t i = 0; i < n; ++i) {
        if (!use[i] || std::isnan(stepStart[i]))
            continue;
        for (uint32_t k = 0; k < ranks[i].collectives.size(); ++k) {
            const RankCollective &c = ranks[i].collectives[k];
            if (matchedOwn[i][k] || (stepIndex[i] >= 0 && c.step != stepIndex[i]) || c.endNs <= c.startNs)
                continue;
            Unmatched u{(double(c.startNs) + offsetNs[i]) / 1000.0, (double(c.endNs) + offsetNs[i]) / 1000.0, 0,
                        c.startNs, c.endNs, c.launchNs >= 0 ? std::min(c.launchNs, c.endNs) : c.endNs};
            u.launch = c.launchNs >= 0 ? (double(c.launchNs) + offsetNs[i]) / 1000.0 : u.start;
            if (replay) {
                const auto sh = replay->kernels[i].find(k);
                if (sh != replay->kernels[i].end()) {
                    u.launch += sh->second.first / 1000.0;
                    u.start += sh->second.first / 1000.0;
                    u.end += sh->second.second / 1000.0;
                }
            }
            auto &list = unmatched[i];
            if (!list.empty() && u.start <= list.back().end) { // overlapping kernels: one stretch
                list.back().end = std::max(list.back().end, u.end);
                list.back().endNs = std::max(list.back().endNs, u.endNs);
                list.back().cpuEdgeNs = std::max(list.back().cpuEdgeNs, u.cpuEdgeNs);
            } else {
                list.push_back(u);
            }
        }
    }
    // The node window (own clock) of stretch k of rank i: from the previous collective's
    // launch or end (the CPU runs ahead of the GPU) to the arrival; k == size: the tail.
    auto window = [&](uint32_t i, size_t k, int64_t &fromNs, int64_t &toNs) {
        const auto &list = items[i];
        const double fromUs = k == 0 ? stepStart[i] : std::min(list[k - 1].launch, list[k - 1].end);
        const double toUs = k < list.size() ? list[k].arrival : stepEnd[i];
        fromNs = std::llround(fromUs * 1000.0 - offsetNs[i]);
        toNs = std::llround(toUs * 1000.0 - offsetNs[i]);
    };
    // The replayed times: every kernel moved as its graph nodes did (as measured
    // without a replay); the last arrival follows.
    for (uint32_t i = 0; i < n; ++i)
        for (Item &it : items[i]) {
            it.simArrival = it.arrival;
            it.simEnd = it.end;
            if (!replay)
                continue;
            const auto k = replay->kernels[i].find(it.own);
            if (k != replay->kernels[i].end()) {
                it.simArrival += k->second.first / 1000.0;
                it.simEnd += k->second.second / 1000.0;
            }
        }
    for (uint32_t j = 0; j < collectives.size(); ++j) {
        double lastArrival = -INFINITY;
        uint32_t lastRank = 0;
        for (const auto &[i, k] : inJob[j])
            if (items[i][k].simArrival > lastArrival) {
                lastArrival = items[i][k].simArrival;
                lastRank = i;
            }
        for (const auto &[i, k] : inJob[j]) {
            items[i][k].simLastArrival = lastArrival;
            items[i][k].simLast = lastRank;
        }
    }
    std::vector<double> simEnd(n, NAN);
    for (uint32_t i = 0; i < n; ++i)
        if (!std::isnan(stepStart[i]))
            simEnd[i] = stepEnd[i] + (replay ? replay->endShiftNs[i] / 1000.0 : 0.0);

    int32_t r = -1;
    for (uint32_t i = 0; i < n; ++i)
        if (!std::isnan(simEnd[i]) && simEnd[i] > last) {
            last = simEnd[i];
            r = static_cast<int32_t>(i);
        }
    if (r < 0)
        return out;
    out.valid = true;
    out.stepTimeUs = last - first;

    // The walk back. Per rank a cursor only moves back, as the walk's time does.
    std::vector<size_t> cursor(n);
    for (uint32_t i = 0; i < n; ++i)
        cursor[i] = items[i].size();
    double now = last;
    double cpuNow = last; // the CPU side of the current stretch ends here
    std::vector<JobPathSegment> back;
    // Stretch k of rank i from `from` to `to`, its CPU side from cpuFrom to cpuTo: work,
    // but where an unmatched kernel of the rank ran, a collective stretch without an
    // instance (index -1; its window holds the kernels' own-clock span). Pushed latest first.
    auto work = [&](uint32_t i, size_t k, double from, double to, double cpuFrom, double cpuTo) {
        int64_t fromNs = 0, toNs = 0;
        window(i, k, fromNs, toNs);
        const auto &list = unmatched[i];
        auto u = std::lower_bound(list.begin(), list.end(), to,
                                  [](const Unmatched &x, double t) { return x.start < t; });
        double end = to, cpuEnd = cpuTo;
        int64_t endNs = toNs;
        while (u != list.begin() && std::prev(u)->end > from) {
            const Unmatched &x = *--u;
            const double a = std::max(x.start, from), b = std::min(x.end, end);
            const double cpuA = std::clamp(x.launch, std::min(cpuFrom, cpuEnd), cpuEnd);
            JobPathSegment after{ranks[i].rank, b, end, false, -1, cpuA, cpuEnd};
            after.windowFromNs = std::clamp(x.cpuEdgeNs, fromNs, endNs);
            after.windowToNs = endNs;
            back.push_back(after);
            JobPathSegment in{ranks[i].rank, a, b, true, -1, 0, 0};
            in.windowFromNs = x.startNs;
            in.windowToNs = x.endNs;
            back.push_back(in);
            end = a;
            cpuEnd = cpuA;
            endNs = std::clamp(x.startNs, fromNs, endNs);
        }
        JobPathSegment g{ranks[i].rank, from, end, false, -1, std::min(cpuFrom, cpuEnd), cpuEnd};
        g.windowFromNs = fromNs;
        g.windowToNs = endNs;
        back.push_back(g);
    };
    for (size_t guard = 0; guard <= collectives.size() * 2 + n; ++guard) {
        const uint32_t i = static_cast<uint32_t>(r);
        const auto &list = items[i];
        size_t q = cursor[i];
        while (q > 0 && list[q - 1].simEnd > now)
            --q;
        cursor[i] = q;
        if (q == 0 || list[q - 1].simEnd <= stepStart[i]) {
            work(i, 0, std::min(stepStart[i], now), now, stepStart[i], cpuNow);
            out.outsideWindowUs = std::max(0.0, std::min(stepStart[i], now) - first);
            break;
        }
        const Item &c = list[q - 1];
        const double shift = c.simArrival - c.arrival;
        work(i, q, c.simEnd, now, c.launch + shift, cpuNow);
        const double arrival = std::min(c.simLastArrival, c.simEnd);
        back.push_back({ranks[i].rank, arrival, c.simEnd, true, static_cast<int32_t>(c.job), 0, 0});
        now = arrival;
        r = static_cast<int32_t>(c.simLast);
        cursor[c.simLast] = std::min(cursor[c.simLast], items[c.simLast].size());
        // On the rank the walk goes on with, the stretch before this collective ends at
        // its launch there, and its search starts before this collective.
        cpuNow = c.launch + shift;
        for (const auto &[p, k] : inJob[c.job])
            if (p == c.simLast) {
                const Item &mine = items[p][k];
                cpuNow = mine.launch + (mine.simArrival - mine.arrival);
                cursor[p] = std::min(cursor[p], size_t(k));
            }
    }
    for (auto it = back.rbegin(); it != back.rend(); ++it) {
        if (it->endUs - it->startUs <= 0 && it->cpuEndUs - it->cpuStartUs <= 0)
            continue;
        (it->collective ? out.waitUs : out.workUs) += it->endUs - it->startUs;
        if (it->collective && it->collectiveIndex < 0)
            out.unmatchedUs += it->endUs - it->startUs;
        out.segments.push_back(*it);
    }
    return out;
}

} // namespace syncscope::job
