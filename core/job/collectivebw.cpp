// SPDX-License-Identifier: MIT
#include "collectivebw.h"

#include "session/analysis.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>

namespace syncscope {

CollectiveBandwidth collectiveBandwidth(const MatchedCollective &c, const std::vector<const RankCollective *> &kernels,
                                        CollectiveType type)
{
    CollectiveBandwidth out;
    // The first participant's type, as the Collectives dock and the SQLite export name it.
    for (size_t k = 0; k < kernels.size() && type == CollectiveType::Unknown; ++k)
        if (kernels[k])
            type = CollectiveType(kernels[k]->busType);
    if (type == CollectiveType::Unknown)
        type = collectiveTypeOf(c.name);
    out.type = type;
    out.groupSize = int64_t(c.ranks.size());
    for (const RankCollective *kc : kernels)
        if (kc && kc->groupSize > 0)
            out.groupSize = kc->groupSize;
    double lastUs = -std::numeric_limits<double>::infinity();
    for (const auto &[rank, t] : c.arrivalUs)
        lastUs = std::max(lastUs, t);
    const double factor = busBwFactor(type, out.groupSize);
    double transferSum = 0;
    size_t timed = 0;
    for (size_t k = 0; k < c.ranks.size(); ++k) {
        CollectiveRankBandwidth r;
        r.rank = c.ranks[k];
        r.kernel = k < kernels.size() ? kernels[k] : nullptr;
        const auto arrival = c.arrivalUs.find(r.rank), end = c.endUs.find(r.rank), wait = c.waitUs.find(r.rank);
        if (wait != c.waitUs.end())
            r.waitUs = wait->second;
        if (arrival != c.arrivalUs.end() && end != c.endUs.end()) {
            r.kernelUs = end->second - arrival->second;
            r.transferUs = end->second - lastUs;
            transferSum += r.transferUs;
            ++timed;
        }
        if (r.kernel && r.kernel->messageBytes >= 0)
            r.bytes = r.kernel->messageBytes;
        // Over the transfer, not the kernel: waiting for a late rank is no bandwidth.
        if (r.bytes && r.transferUs > 0) {
            r.algBwGBps = algBwGBps(*r.bytes, r.transferUs * 1e-6);
            if (factor > 0)
                r.busBwGBps = r.algBwGBps * factor;
        }
        if (!out.messageBytes && r.bytes)
            out.messageBytes = r.bytes;
        out.ranks.push_back(r);
    }
    if (timed > 0)
        out.transferUs = transferSum / double(timed);
    if (out.messageBytes && out.transferUs > 0) {
        out.algBwGBps = algBwGBps(*out.messageBytes, out.transferUs * 1e-6);
        if (factor > 0)
            out.busBwGBps = out.algBwGBps * factor;
    }
    return out;
}

namespace {

double median(std::vector<double> v)
{
    if (v.empty())
        return -1;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

} // namespace

std::vector<CollectiveBandwidth> jobCollectiveBandwidths(const std::vector<RankSummary> &ranks, const JobAnalysis &job)
{
    std::vector<const RankSummary *> list;
    list.reserve(ranks.size());
    for (const RankSummary &s : ranks)
        list.push_back(&s);
    return jobCollectiveBandwidths(list, job);
}

std::vector<CollectiveBandwidth> jobCollectiveBandwidths(const std::vector<const RankSummary *> &ranks,
                                                         const JobAnalysis &job)
{
    std::unordered_map<int64_t, const RankSummary *> byRank;
    for (const RankSummary *s : ranks)
        if (s)
            byRank.try_emplace(s->rank, s);
    std::vector<CollectiveBandwidth> out;
    out.reserve(job.collectives.size());
    for (const MatchedCollective &c : job.collectives) {
        std::vector<const RankCollective *> kernels(c.ranks.size(), nullptr);
        for (size_t k = 0; k < c.ranks.size() && k < c.index.size(); ++k)
            if (const auto it = byRank.find(c.ranks[k]);
                it != byRank.end() && c.index[k] < it->second->collectives.size())
                kernels[k] = &it->second->collectives[c.index[k]];
        out.push_back(collectiveBandwidth(c, kernels));
    }
    // The job's median per (type, S), then the instances far below it.
    std::map<std::pair<CollectiveType, int64_t>, std::vector<double>> groups;
    for (const CollectiveBandwidth &b : out)
        if (b.busBwGBps > 0 && b.messageBytes)
            groups[{b.type, *b.messageBytes}].push_back(b.busBwGBps);
    std::map<std::pair<CollectiveType, int64_t>, double> medians;
    for (auto &[key, values] : groups)
        medians[key] = median(std::move(values));
    for (CollectiveBandwidth &b : out) {
        if (!(b.busBwGBps > 0) || !b.messageBytes)
            continue;
        b.medianBusBwGBps = medians.at({b.type, *b.messageBytes});
        b.slow = b.busBwGBps < kSlowBusBwRatio * b.medianBusBwGBps;
    }
    return out;
}

std::vector<BusBwTypeSummary> busBwByType(const std::vector<CollectiveBandwidth> &bandwidths)
{
    std::map<CollectiveType, std::vector<double>> values;
    std::map<CollectiveType, BusBwTypeSummary> byType;
    for (size_t i = 0; i < bandwidths.size(); ++i) {
        const CollectiveBandwidth &b = bandwidths[i];
        if (!(b.busBwGBps > 0))
            continue;
        BusBwTypeSummary &t = byType[b.type];
        t.type = b.type;
        ++t.instances;
        values[b.type].push_back(b.busBwGBps);
        if (b.slow) {
            ++t.slow;
            const CollectiveBandwidth *w = t.worst >= 0 ? &bandwidths[size_t(t.worst)] : nullptr;
            if (!w || b.busBwGBps / b.medianBusBwGBps < w->busBwGBps / w->medianBusBwGBps)
                t.worst = int64_t(i);
        }
    }
    std::vector<BusBwTypeSummary> out;
    for (auto &[type, t] : byType) {
        t.medianBusBwGBps = median(std::move(values[type]));
        out.push_back(t);
    }
    return out;
}

} // namespace syncscope
