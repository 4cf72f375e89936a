// SPDX-License-Identifier: MIT
// The report's straggler_whatif object (docs/what_if.md, "Straggler what-if").
#include "jobreport.h"

#include <cmath>
#include <cstdio>
#include <vector>

namespace syncscope {

namespace {

// Ratios to 6 decimals, times to the nanosecond: the same document on every platform.
nlohmann::json ratio(double v)
{
    return std::isfinite(v) ? nlohmann::json(std::round(v * 1e6) / 1e6) : nlohmann::json(nullptr);
}
double us(double v)
{
    return std::round(v * 1000.0) / 1000.0;
}

} // namespace

nlohmann::json stragglerWhatIfJson(const StragglerWhatIf &w)
{
    nlohmann::json out = {{"ok", w.ok}};
    if (!w.ok) {
        out["error"] = w.error;
        return out;
    }
    nlohmann::json steps = nlohmann::json::object(), stepTimes = nlohmann::json::array();
    for (const StragglerStep &s : w.steps) {
        steps[std::to_string(s.number)] = ratio(s.slowdown);
        stepTimes.push_back({{"step", s.number},
                             {"measured_us", us(s.measuredUs)},
                             {"no_delay_us", us(s.noDelayUs)},
                             {"ideal_us", us(s.idealUs)},
                             {"slowdown", ratio(s.slowdown)}});
    }
    nlohmann::json types = nlohmann::json::object(), typeRows = nlohmann::json::array();
    for (const StragglerOpType &t : w.byOpType) {
        types[t.type] = ratio(t.slowdown);
        typeRows.push_back({{"type", t.type},
                            {"comm", t.comm},
                            {"count", t.count},
                            {"ideal_us", us(t.idealUs)},
                            {"slowdown", ratio(t.slowdown)}});
    }
    nlohmann::json dp = nlohmann::json::object(), stages = nlohmann::json::object(), launch = nlohmann::json::object();
    for (const auto &[rank, s] : w.launchByDpRank)
        launch[std::to_string(rank)] = ratio(s);
    for (const auto &[rank, s] : w.byDpRank)
        dp[std::to_string(rank)] = ratio(s);
    for (const auto &[stage, s] : w.byStage)
        stages[std::to_string(stage)] = ratio(s);
    const ParallelLayout &l = w.layout;
    out.update({{"slowdown", ratio(w.slowdown)},
                {"step_slowdown", steps},
                {"by_op_type", types},
                {"by_dp_rank", dp},
                {"by_stage", stages},
                {"M_W", w.mW ? ratio(*w.mW) : nlohmann::json(nullptr)},
                {"M_S", w.mS ? ratio(*w.mS) : nlohmann::json(nullptr)},
                {"worst_ranks", w.worstRanks},
                {"ideal_step_us", us(w.idealStepUs)},
                {"measured_step_us", us(w.measuredStepUs)},
                {"no_delay_step_us", us(w.noDelayStepUs)},
                {"launch_slowdown", ratio(w.launchSlowdown)},
                {"launch_by_dp_rank", launch},
                {"replay_error_pct", ratio(w.replayErrorPct)},
                {"steps", stepTimes},
                {"op_types", typeRows},
                {"layout", {{"source", l.source}, {"dp", l.dpSize}, {"pp", l.ppSize}, {"tp", l.tpSize}}},
                {"ops", w.ops},
                {"comm_ops", w.commOps},
                {"simulations", w.simulations}});
    return out;
}

} // namespace syncscope

namespace syncscope {

std::string stragglerWhatIfText(const StragglerWhatIf &w)
{
    auto f = [](double v, int decimals = 2) {
        char buf[48];
        std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
        return std::string(buf);
    };
    std::string s = "Straggler what-if: S = " + f(w.slowdown, 3) + " (mean step " + f(w.measuredStepUs / 1e3, 3) +
                    " ms measured, " + f(w.noDelayStepUs / 1e3, 3) + " ms without launch delays (x" +
                    f(w.launchSlowdown, 3) + "), " + f(w.idealStepUs / 1e3, 3) + " ms ideal, " + std::to_string(w.steps.size()) +
                    " step(s); layout " + w.layout.source + ": dp " + std::to_string(w.layout.dpSize) + ", pp " +
                    std::to_string(w.layout.ppSize) + ", tp " + std::to_string(w.layout.tpSize) + ")\n";
    auto top = [&](const char *label, const auto &rows, auto key) {
        std::string line = std::string("  ") + label + ":";
        for (size_t k = 0; k < rows.size() && k < 3; ++k)
            line += (k ? ", " : " ") + key(rows[k]);
        return line + "\n";
    };
    if (!w.byOpType.empty())
        s += top("S_t (op type)", w.byOpType, [&](const StragglerOpType &t) { return t.type + " " + f(t.slowdown, 3); });
    if (!w.byDpRank.empty())
        s += top("S_w (dp rank)", w.byDpRank,
                 [&](const std::pair<int64_t, double> &r) { return std::to_string(r.first) + " " + f(r.second, 3); });
    if (!w.byStage.empty())
        s += top("S (stage)", w.byStage,
                 [&](const std::pair<int64_t, double> &r) { return std::to_string(r.first) + " " + f(r.second, 3); });
    if (w.launchSlowdown > 1.01 && !w.launchByDpRank.empty())
        s += top("launch delays (dp rank)", w.launchByDpRank,
                 [&](const std::pair<int64_t, double> &r) { return std::to_string(r.first) + " " + f(r.second, 3); });
    std::vector<std::string> parts;
    if (w.mW) {
        std::string ranks;
        for (size_t k = 0; k < w.worstRanks.size() && k < 8; ++k)
            ranks.append(" ").append(std::to_string(w.worstRanks[k]));
        parts.push_back("M_W " + f(*w.mW * 100, 1) + " % (worst 3 % of ranks:" + ranks +
                        (w.worstRanks.size() > 8 ? " ...)" : ")"));
    }
    if (w.mS)
        parts.push_back("M_S " + f(*w.mS * 100, 1) + " % (last stage)");
    for (size_t k = 0; k < parts.size(); ++k)
        s.append(k ? "; " : "  ").append(parts[k]).append(k + 1 == parts.size() ? "\n" : "");
    return s;
}

} // namespace syncscope
