// SPDX-License-Identifier: MIT
#include "jobbandwidthreport.h"

#include <cmath>
#include <cstdio>

namespace syncscope {

using ojson = nlohmann::ordered_json;

namespace {

// As jobreport.cpp: µs to the nanosecond, GB/s to 1e-6, so every platform writes the same.
ojson us(double v)
{
    if (v < 0)
        return nullptr;
    const double r = std::round(v * 1000.0) / 1000.0;
    return r == 0 ? 0.0 : r;
}

ojson gbps(double v) { return v < 0 ? ojson(nullptr) : ojson(std::round(v * 1e6) / 1e6); }

std::string typeName(CollectiveType t)
{
    const std::string_view n = collectiveTypeName(t);
    return n.empty() ? std::string("unknown") : std::string(n);
}

} // namespace

ojson collectiveBandwidthJson(const CollectiveBandwidth &b)
{
    ojson byRank = ojson::object();
    for (const CollectiveRankBandwidth &r : b.ranks)
        byRank[std::to_string(r.rank)] = us(r.transferUs);
    const std::string_view type = collectiveTypeName(b.type);
    return {{"bus_type", type.empty() ? ojson(nullptr) : ojson(std::string(type))},
            {"group_size", b.groupSize},
            {"message_bytes", b.messageBytes ? ojson(*b.messageBytes) : ojson(nullptr)},
            {"transfer_us", us(b.transferUs)},
            {"transfer_us_by_rank", byRank},
            {"algbw_gbps", gbps(b.algBwGBps)},
            {"busbw_gbps", gbps(b.busBwGBps)},
            {"median_busbw_gbps", gbps(b.medianBusBwGBps)},
            {"slow_busbw", b.slow}};
}

ojson jobBandwidthJson(const std::vector<CollectiveBandwidth> &bandwidths)
{
    ojson slow = ojson::array();
    for (size_t k = 0; k < bandwidths.size(); ++k)
        if (bandwidths[k].slow)
            slow.push_back(k);
    ojson types = ojson::array();
    for (const BusBwTypeSummary &t : busBwByType(bandwidths))
        types.push_back({{"type", typeName(t.type)},
                         {"instances", t.instances},
                         {"median_busbw_gbps", gbps(t.medianBusBwGBps)},
                         {"slow", t.slow},
                         {"worst", t.worst >= 0 ? ojson(t.worst) : ojson(nullptr)}});
    return {{"slow_busbw_ratio", kSlowBusBwRatio},
            {"slow_busbw_count", slow.size()},
            {"slow_busbw", slow},
            {"by_type", types}};
}

std::string formatJobBandwidth(const std::vector<CollectiveBandwidth> &bandwidths)
{
    const std::vector<BusBwTypeSummary> types = busBwByType(bandwidths);
    if (types.empty())
        return {};
    std::string s = "Collective busbw (nccl-tests, over the transfer: last arrival -> end):\n";
    char line[512];
    for (const BusBwTypeSummary &t : types) {
        std::snprintf(line, sizeof line, "  %-15s median %10.2f GB/s over %zu instance(s)", typeName(t.type).c_str(),
                      t.medianBusBwGBps, t.instances);
        s += line;
        if (t.slow > 0 && t.worst >= 0) {
            const CollectiveBandwidth &w = bandwidths[size_t(t.worst)];
            std::snprintf(line, sizeof line,
                          "; %zu slow (busbw < %.1f x the median of their size), worst #%lld: %.2f GB/s vs %.2f",
                          t.slow, kSlowBusBwRatio, static_cast<long long>(t.worst), w.busBwGBps, w.medianBusBwGBps);
            s += line;
        }
        s += "\n";
    }
    return s;
}

} // namespace syncscope
