// SPDX-License-Identifier: MIT
#include "report/collectivesreport.h"

#include "analysis/busbw.h"
#include "analysis/ranksummary.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace syncscope {

std::vector<CollectiveGroupStats> singleRankCollectives(const Analysis &a)
{
    const RankSummary s = extractRankCollectives(a);
    std::map<std::tuple<uint8_t, int64_t, int64_t>, std::vector<double>> kernelsUs;
    for (const RankCollective &c : s.collectives)
        kernelsUs[{c.busType, c.messageBytes, c.groupSize}].push_back(double(c.endNs - c.startNs) / 1000.0);
    std::vector<CollectiveGroupStats> out;
    for (auto &[key, us] : kernelsUs) {
        const auto [busType, bytes, group] = key;
        std::sort(us.begin(), us.end());
        CollectiveGroupStats g;
        const CollectiveType type = CollectiveType(busType);
        g.type = std::string(collectiveTypeName(type));
        g.messageBytes = bytes;
        g.groupSize = group;
        g.count = us.size();
        for (double u : us)
            g.totalUs += u;
        g.meanUs = g.totalUs / double(us.size());
        const size_t n = us.size();
        g.medianUs = n % 2 ? us[n / 2] : (us[n / 2 - 1] + us[n / 2]) / 2;
        g.minUs = us.front();
        g.maxUs = us.back();
        if (bytes >= 0 && g.medianUs > 0) {
            g.algBwGBps = algBwGBps(bytes, g.medianUs / 1e6);
            if (group >= 1 && busBwFactor(type, group) > 0)
                g.busBwGBps = busBwGBps(type, group, bytes, g.medianUs / 1e6);
        }
        out.push_back(std::move(g));
    }
    std::sort(out.begin(), out.end(), [](const CollectiveGroupStats &x, const CollectiveGroupStats &y) {
        return std::tie(y.totalUs, x.type, x.messageBytes, x.groupSize) <
               std::tie(x.totalUs, y.type, y.messageBytes, y.groupSize);
    });
    return out;
}

nlohmann::ordered_json singleRankCollectivesJson(const std::vector<CollectiveGroupStats> &groups)
{
    using ojson = nlohmann::ordered_json;
    auto known = [](double v) { return v >= 0 ? ojson(v) : ojson(nullptr); };
    auto knownInt = [](int64_t v) { return v >= 0 ? ojson(v) : ojson(nullptr); };
    ojson rows = ojson::array();
    for (const CollectiveGroupStats &g : groups)
        rows.push_back({{"type", g.type.empty() ? ojson(nullptr) : ojson(g.type)},
                        {"message_bytes", knownInt(g.messageBytes)},
                        {"group_size", knownInt(g.groupSize)},
                        {"count", g.count},
                        {"kernel_us", {{"total", g.totalUs}, {"mean", g.meanUs}, {"median", g.medianUs},
                                       {"min", g.minUs}, {"max", g.maxUs}}},
                        {"algbw_gbps", known(g.algBwGBps)},
                        {"busbw_gbps", known(g.busBwGBps)}});
    return rows;
}

} // namespace syncscope
