// SPDX-License-Identifier: MIT
#include "whatifreport.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace syncscope {

using ojson = nlohmann::ordered_json;

ojson whatIfJson(const KinetoTrace &trace, const CriticalPathResult &cp, const WhatIfResult &r)
{
    ojson j;
    j["baseline_us"] = r.baselineUs;
    j["projected_us"] = r.projectedUs;
    j["speedup"] = std::isfinite(r.speedup) ? ojson(r.speedup) : ojson(nullptr);
    ojson rules = ojson::array();
    for (const auto &rc : r.rules)
        rules.push_back({{"rule", rc.rule}, {"matched", rc.matched}});
    j["rules"] = rules;
    ojson path;
    std::vector<int32_t> events;
    for (int32_t n : r.pathNodes)
        events.push_back(cp.graph.nodeEvent[n]);
    std::sort(events.begin(), events.end());
    events.erase(std::unique(events.begin(), events.end()), events.end());
    path["nodes"] = r.pathNodes.size();
    path["events"] = events.size();
    ojson summary = ojson::object();
    for (const auto &row : r.summary)
        summary[row.boundBy.empty() ? "dependency" : row.boundBy] = row.percent;
    path["summary"] = summary;
    j["critical_path"] = path;
    ojson moved = ojson::array();
    for (const auto &m : r.topMoved)
        moved.push_back({{"name", std::string(trace.str(trace.events[m.event].name))},
                         {"event", m.event},
                         {"baseline_start_us", m.baselineStartUs},
                         {"projected_start_us", m.projectedStartUs},
                         {"shift_us", m.shiftUs}});
    j["top_moved"] = moved;
    return j;
}

namespace {

std::string us(double v)
{
    char buf[48];
    if (std::fabs(v) >= 1e6)
        std::snprintf(buf, sizeof buf, "%.3f s", v / 1e6);
    else if (std::fabs(v) >= 1e3)
        std::snprintf(buf, sizeof buf, "%.3f ms", v / 1e3);
    else
        std::snprintf(buf, sizeof buf, "%.1f us", v);
    return buf;
}

} // namespace

std::string formatWhatIf(const KinetoTrace &trace, const WhatIfResult &r)
{
    std::string out = "  what-if  " + us(r.baselineUs) + " -> " + us(r.projectedUs);
    char buf[64];
    if (std::isfinite(r.speedup)) {
        std::snprintf(buf, sizeof buf, " (%.2fx)", r.speedup);
        out += buf;
    }
    out += "\n";
    for (const auto &rc : r.rules)
        out += "           " + rc.rule + ": " + std::to_string(rc.matched) + " matched\n";
    if (!r.summary.empty()) {
        out += "           bound by:";
        for (size_t i = 0; i < r.summary.size(); ++i) {
            std::snprintf(buf, sizeof buf, " %s %.1f %%", r.summary[i].boundBy.empty() ? "dependency"
                                                                                        : r.summary[i].boundBy.c_str(),
                          r.summary[i].percent);
            out += buf;
            out += i + 1 < r.summary.size() ? "," : "";
        }
        out += "\n";
    }
    const size_t show = std::min<size_t>(5, r.topMoved.size());
    for (size_t i = 0; i < show; ++i) {
        const auto &m = r.topMoved[i];
        out += "           moved " + us(m.shiftUs) + "  " + cpShortenName(trace.str(trace.events[m.event].name)) + "\n";
    }
    return out;
}

} // namespace syncscope
