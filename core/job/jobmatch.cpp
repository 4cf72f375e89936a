// SPDX-License-Identifier: MIT
// Collective matching across ranks (docs/job_analysis.md, "Matching").
#include "analysis/collectivekernel.h"
#include "jobinternal.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace syncscope::job {

namespace {

constexpr char kSep = '\x1f';

std::string collectiveLabel(const RankCollective &c)
{
    return c.collectiveName.empty() ? c.kernelName : c.collectiveName;
}

// The instance key of one kernel and how it is matched. `ordinal` counts per rank.
struct KeyMaker {
    std::unordered_map<std::string, int64_t> ordinal; // per rank, cleared between ranks

    std::string next(const std::string &group)
    {
        return group + kSep + std::to_string(ordinal[group]++);
    }

    // Returns {key, group (for count checks), matchedBy}.
    std::tuple<std::string, std::string, const char *> operator()(int64_t self, const RankCollective &c)
    {
        const std::string label = collectiveLabel(c);
        if (int64_t src = -1, dst = -1; p2pEnds(c, self, src, dst)) {
            const std::string pair = "p2p" + std::string(1, kSep) + c.processGroup + kSep + std::to_string(src) +
                                     kSep + std::to_string(dst);
            // Sends are counted on the source, receives on the destination: the k-th of each pair up.
            return {next(pair), {}, "p2p_order"};
        }
        if (c.seq >= 0 && !c.processGroup.empty() && !isPointToPoint(c.collectiveName))
            return {"seq" + std::string(1, kSep) + c.processGroup + kSep + std::to_string(c.seq), {}, "seq"};
        if (!c.processGroup.empty()) {
            const std::string group = "pg" + std::string(1, kSep) + c.processGroup + kSep + label;
            return {next(group), group, "process_group_order"};
        }
        const std::string group = "kernel" + std::string(1, kSep) + c.kernelName;
        return {next(group), group, "kernel_order"};
    }
};

std::string printable(std::string s)
{
    std::replace(s.begin(), s.end(), kSep, ' ');
    return s;
}

} // namespace

std::vector<Instance> matchCollectives(const std::vector<RankSummary> &ranks, const std::vector<uint8_t> &use,
                                       Diagnostics &diag)
{
    std::vector<Instance> instances;
    std::unordered_map<std::string, uint32_t> byKey;
    // Ranks per process group and per kernel name, for the expected participant count.
    std::unordered_map<std::string, size_t> ranksPerGroup;
    struct Counts {
        int64_t min = INT64_MAX, max = 0;
        int64_t minRank = -1, maxRank = -1;
    };
    std::unordered_map<std::string, Counts> countsPerGroup;
    size_t duplicates = 0, inconsistent = 0;
    for (uint32_t i = 0; i < ranks.size(); ++i) {
        if (!use[i])
            continue;
        const RankSummary &r = ranks[i];
        KeyMaker keys;
        std::unordered_set<std::string> groupsSeen;
        std::unordered_map<std::string, int64_t> groupCounts;
        for (uint32_t k = 0; k < r.collectives.size(); ++k) {
            const RankCollective &c = r.collectives[k];
            auto [key, group, matchedBy] = keys(r.rank, c);
            const std::string population = c.processGroup.empty() ? "kernel" + std::string(1, kSep) + c.kernelName
                                                                   : "pg" + std::string(1, kSep) + c.processGroup;
            if (groupsSeen.insert(population).second)
                ++ranksPerGroup[population];
            if (!group.empty())
                ++groupCounts[group];
            auto [it, fresh] = byKey.emplace(key, static_cast<uint32_t>(instances.size()));
            if (fresh) {
                Instance in;
                in.name = collectiveLabel(c);
                in.processGroup = c.processGroup;
                in.matchedBy = matchedBy;
                // Expected participants: the group's ranks when written; else every rank using the group.
                in.population = population;
                in.expected = in.matchedBy == std::string("p2p_order") ? 2 : size_t(std::max<int64_t>(0, c.groupSize));
                instances.push_back(std::move(in));
            }
            Instance &in = instances[it->second];
            if (!in.parts.empty() && in.parts.back().rank == i) {
                ++duplicates; // the same rank twice in one instance (a repeated seq)
                continue;
            }
            // The two sides of a send/recv are named "send" and "recv" (or "sendrecv" after the
            // kernel): p2pEnds already checked that one sends and the other receives.
            if (!in.parts.empty() && in.name != collectiveLabel(c) && in.matchedBy != std::string("p2p_order"))
                ++inconsistent;
            in.parts.push_back({i, k});
        }
        for (const auto &[group, n] : groupCounts) {
            Counts &cnt = countsPerGroup[group];
            if (n < cnt.min) {
                cnt.min = n;
                cnt.minRank = r.rank;
            }
            if (n > cnt.max) {
                cnt.max = n;
                cnt.maxRank = r.rank;
            }
        }
    }

    const size_t usable = static_cast<size_t>(std::count(use.begin(), use.end(), uint8_t(1)));
    std::vector<Instance> matched;
    matched.reserve(instances.size());
    size_t unmatched = 0, incomplete = 0;
    for (Instance &in : instances) {
        // Without process-group args, order matching assumes the whole job takes part.
        if (in.expected == 0)
            in.expected = in.matchedBy == std::string("kernel_order") ? usable : ranksPerGroup[in.population];
        if (in.parts.size() < 2) {
            ++unmatched;
            continue;
        }
        incomplete += in.parts.size() < in.expected ? 1 : 0;
        matched.push_back(std::move(in));
    }
    if (unmatched > 0)
        diag.warning("job.unmatched_collectives",
                     std::to_string(unmatched) +
                         " collective kernels were found on one rank only (no counterpart on any other rank); they "
                         "are left out of the clock alignment and the waits");
    if (incomplete > 0)
        diag.warning("job.incomplete_collectives",
                     std::to_string(incomplete) + " of " + std::to_string(matched.size()) +
                         " matched collectives lack some of their group's ranks (a rank's trace ends early, or "
                         "the ranks recorded different collectives)");
    if (duplicates > 0)
        diag.warning("job.duplicate_seq",
                     std::to_string(duplicates) + " collective kernels repeat a (process group, seq) already seen "
                                                  "on the same rank; only the first is matched");
    if (inconsistent > 0)
        diag.warning("job.inconsistent_collectives",
                     std::to_string(inconsistent) + " matched collective kernels have another collective name than "
                                                    "the first rank's kernel of the same instance");
    size_t mismatchedGroups = 0;
    std::string example;
    for (const auto &[group, cnt] : countsPerGroup) {
        if (cnt.min != cnt.max) { // (ranks without the group at all show up as incomplete instances)
            ++mismatchedGroups;
            if (example.empty() || group < example)
                example = printable(group) + ": rank " + std::to_string(cnt.minRank) + " has " +
                          std::to_string(cnt.min) + ", rank " + std::to_string(cnt.maxRank) + " has " +
                          std::to_string(cnt.max);
        }
    }
    if (mismatchedGroups > 0)
        diag.warning("job.mismatched_collective_counts",
                     std::to_string(mismatchedGroups) +
                         " collective kinds were recorded a different number of times on different ranks, so "
                         "matching by order may pair the wrong kernels (e.g. " +
                         example + ")");
    return matched;
}

} // namespace syncscope::job
