// SPDX-License-Identifier: MIT
#include "jobdiff.h"

#include "json/utf8.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace syncscope {

using ojson = nlohmann::ordered_json;

namespace {

// Adds every number of `from` into `into` (one side: count, total_us, self_us, wait_us).
void addNumbers(ojson &into, const ojson &from)
{
    for (auto it = from.begin(); it != from.end(); ++it) {
        if (!it.value().is_number() || it.key() == "mean_us")
            continue;
        if (!into.contains(it.key()))
            into[it.key()] = it.value();
        else if (it.value().is_number_integer() && into[it.key()].is_number_integer())
            into[it.key()] = into[it.key()].get<int64_t>() + it.value().get<int64_t>();
        else
            into[it.key()] = into[it.key()].get<double>() + it.value().get<double>();
    }
}

double timeOf(const ojson &side)
{
    return side.contains("total_us") ? side["total_us"].get<double>() : side.value("wait_us", 0.0);
}

// Sums a list of {keys..., baseline, candidate, delta_us, [integer fields]} entries over the ranks by `keys`.
ojson sumByKey(const std::vector<RankDiffReport> &ranks, const std::vector<std::string> &path,
               const std::vector<std::string> &keys)
{
    std::map<std::vector<std::string>, ojson> rows;
    for (const RankDiffReport &r : ranks) {
        const ojson *list = &r.report;
        for (const std::string &p : path)
            list = &(*list)[p];
        for (const ojson &e : *list) {
            std::vector<std::string> key;
            for (const std::string &k : keys)
                key.push_back(e.at(k).get<std::string>());
            ojson &row = rows[key];
            if (row.is_null()) {
                for (const std::string &k : keys)
                    row[k] = e.at(k);
                row["baseline"] = ojson::object();
                row["candidate"] = ojson::object();
            }
            for (auto it = e.begin(); it != e.end(); ++it) {
                if (it.key() == "baseline" || it.key() == "candidate")
                    addNumbers(row[it.key()], it.value());
                else if (it.value().is_number_integer() && it.key() != "delta_us")
                    row[it.key()] = row.value(it.key(), int64_t(0)) + it.value().get<int64_t>();
            }
        }
    }
    ojson out = ojson::array();
    for (auto &[key, row] : rows) {
        for (const char *side : {"baseline", "candidate"})
            if (row[side].contains("total_us") && row.contains("path")) // ops carry their mean
                row[side]["mean_us"] = row[side].value("count", int64_t(0))
                                           ? row[side]["total_us"].get<double>() / row[side]["count"].get<double>()
                                           : 0.0;
        if (!row["baseline"].empty() || !row["candidate"].empty())
            row["delta_us"] = timeOf(row["candidate"]) - timeOf(row["baseline"]);
        else {
            row.erase("baseline");
            row.erase("candidate");
        }
        out.push_back(std::move(row));
    }
    return out;
}

} // namespace

std::vector<JobDiffLoadFailure> jobDiffLoadFailures(const JobDiscovery &baseline, const JobDiscovery &candidate)
{
    std::vector<JobDiffLoadFailure> out;
    for (const auto &[side, job] : {std::pair{"baseline", &baseline}, std::pair{"candidate", &candidate}})
        for (const Diagnostic &d : job->diagnostics.items())
            if (d.severity == Severity::Error)
                out.push_back({side, d.file, d.code, d.message});
    return out;
}

ojson mergeRankDiffs(const std::vector<RankDiffReport> &ranks, const std::vector<int64_t> &onlyInBaseline,
                     const std::vector<int64_t> &onlyInCandidate, const std::vector<JobDiffLoadFailure> &loadFailures,
                     size_t topChanges)
{
    ojson j;
    j["tool"] = "syncscope";
    j["version"] = SYNCSCOPE_VERSION;
    j["job"] = true;
    // Every rank is diffed with the same window rule: its kind as the ranks' reports say.
    j["window"] = {{"kind", !ranks.empty() && ranks.front().report.contains("window")
                                ? ranks.front().report["window"]["kind"]
                                : ojson(nullptr)}};
    ojson rankList = ojson::array();
    for (const RankDiffReport &r : ranks) {
        const ojson &cp = r.report.at("critical_path");
        ojson row = {{"rank", r.rank}, {"baseline", r.report.at("baseline")}, {"candidate", r.report.at("candidate")}};
        row["critical_path"] = cp.value("available", false)
                                   ? ojson{{"baseline_us", cp["baseline_us"]},
                                           {"candidate_us", cp["candidate_us"]},
                                           {"delta_us", cp["delta_us"]}}
                                   : ojson(nullptr);
        rankList.push_back(std::move(row));
    }
    j["ranks"] = rankList;
    j["ranks_only_in_baseline"] = onlyInBaseline;
    j["ranks_only_in_candidate"] = onlyInCandidate;
    // Steps: the job's step time is its slowest rank's.
    std::map<int64_t, ojson> steps;
    for (const RankDiffReport &r : ranks)
        for (const ojson &s : r.report.at("steps")) {
            ojson &row = steps[s.at("index").get<int64_t>()];
            row["index"] = s.at("index");
            for (const char *side : {"baseline", "candidate"}) {
                if (s.at(side).is_null())
                    continue;
                const double us = s.at(side).at("step_us").get<double>();
                ojson &out = row[side];
                if (out.is_null() || us > out["step_us"].get<double>())
                    out = {{"step_us", us}, {"slowest_rank", r.rank}};
            }
        }
    ojson stepList = ojson::array();
    for (auto &[index, row] : steps) {
        for (const char *side : {"baseline", "candidate"})
            if (!row.contains(side))
                row[side] = nullptr;
        row["delta_us"] = row["baseline"].is_null() || row["candidate"].is_null()
                              ? ojson(nullptr)
                              : ojson(row["candidate"]["step_us"].get<double>() - row["baseline"]["step_us"].get<double>());
        stepList.push_back(std::move(row));
    }
    j["steps"] = stepList;
    j["ops"] = sumByKey(ranks, {"ops"}, {"path", "name"});
    j["ops_added"] = sumByKey(ranks, {"ops_added"}, {"path"});
    j["ops_removed"] = sumByKey(ranks, {"ops_removed"}, {"path"});
    j["kernels"] = sumByKey(ranks, {"kernels"}, {"name"});
    j["kernels_by_op"] = sumByKey(ranks, {"kernels_by_op"}, {"name", "launch_path"});
    j["memcpys"] = sumByKey(ranks, {"memcpys"}, {"category", "name"});
    j["memcpys_by_op"] = sumByKey(ranks, {"memcpys_by_op"}, {"category", "name", "launch_path"});
    j["sync_waits"] = {{"by_kind", sumByKey(ranks, {"sync_waits", "by_kind"}, {"kind"})},
                       {"by_waiter", sumByKey(ranks, {"sync_waits", "by_waiter"}, {"kind", "call", "waiter"})}};
    // Critical path: bound-by time summed over the ranks, shares of that sum; keys entering
    // or leaving the path with their rank.
    std::map<std::string, std::pair<double, double>> bound;
    double totals[2] = {0, 0};
    ojson entered = ojson::array(), left = ojson::array();
    for (const RankDiffReport &r : ranks) {
        const ojson &cp = r.report.at("critical_path");
        if (!cp.value("available", false))
            continue;
        for (const ojson &b : cp.at("bound_by")) {
            auto &[x, y] = bound[b.at("bound_by").get<std::string>()];
            x += b.at("baseline_us").get<double>();
            y += b.at("candidate_us").get<double>();
            totals[0] += b.at("baseline_us").get<double>();
            totals[1] += b.at("candidate_us").get<double>();
        }
        for (const auto &[name, list] : {std::pair{"entered", &entered}, std::pair{"left", &left}})
            for (ojson e : cp.at(name)) {
                e["rank"] = r.rank;
                list->push_back(std::move(e));
            }
    }
    ojson boundList = ojson::array();
    for (const auto &[name, us] : bound) {
        const double a = totals[0] > 0 ? 100.0 * us.first / totals[0] : 0;
        const double b = totals[1] > 0 ? 100.0 * us.second / totals[1] : 0;
        boundList.push_back({{"bound_by", name},
                             {"baseline_percent", a},
                             {"candidate_percent", b},
                             {"delta_percent", b - a},
                             {"baseline_us", us.first},
                             {"candidate_us", us.second}});
    }
    j["critical_path"] = {{"bound_by", boundList}, {"entered", entered}, {"left", left}};
    // The largest changes of any rank.
    std::vector<ojson> top;
    for (const RankDiffReport &r : ranks)
        for (ojson t : r.report.at("top_changes")) {
            t.erase("position");
            t["rank"] = r.rank;
            top.push_back(std::move(t));
        }
    std::stable_sort(top.begin(), top.end(), [](const ojson &x, const ojson &y) {
        return std::fabs(x.at("delta_us").get<double>()) > std::fabs(y.at("delta_us").get<double>());
    });
    if (top.size() > topChanges)
        top.resize(topChanges);
    ojson topList = ojson::array();
    for (size_t i = 0; i < top.size(); ++i) {
        ojson t = {{"position", i + 1}};
        t.update(top[i]);
        topList.push_back(std::move(t));
    }
    j["top_changes"] = topList;
    ojson failures = ojson::array();
    for (const JobDiffLoadFailure &f : loadFailures)
        failures.push_back({{"side", f.side},
                            {"file", f.file.empty() ? ojson(nullptr) : ojson(validUtf8(f.file))},
                            {"code", f.code},
                            {"message", validUtf8(f.message)}});
    j["load_failures"] = failures;
    return j;
}

namespace {

std::string num(double v, bool sign = false)
{
    char buf[48];
    std::snprintf(buf, sizeof buf, sign ? "%+.1f" : "%.1f", v);
    return buf;
}

std::string shorten(const std::string &s, size_t max)
{
    return s.size() <= max ? s : s.substr(0, max - 3) + "...";
}

} // namespace

std::string formatJobDiffSummary(const ojson &j)
{
    std::string s = "syncscope job diff (times in us), " + std::to_string(j.at("ranks").size()) + " ranks in both\n";
    for (const char *side : {"ranks_only_in_baseline", "ranks_only_in_candidate"})
        if (!j.at(side).empty())
            s += std::string("  ") + side + ": " + j.at(side).dump() + "\n";
    if (j.contains("load_failures") && !j.at("load_failures").empty()) {
        s += "  load failures (a rank in them may be one listed above as in one run only):\n";
        for (const ojson &f : j.at("load_failures"))
            s += "    " + f.at("side").get<std::string>() + ": " + f.at("message").get<std::string>() + "\n";
    }
    s += "\nper rank: critical path baseline -> candidate (delta)\n";
    for (const ojson &r : j.at("ranks")) {
        s += "  rank " + std::to_string(r.at("rank").get<int64_t>()) + "  ";
        const ojson &cp = r.at("critical_path");
        s += cp.is_null() ? std::string("no critical path on both sides\n")
                          : num(cp.at("baseline_us").get<double>()) + " -> " + num(cp.at("candidate_us").get<double>()) +
                                " (" + num(cp.at("delta_us").get<double>(), true) + ")\n";
    }
    if (!j.at("steps").empty()) {
        s += "\nsteps (slowest rank): baseline -> candidate (delta)\n";
        for (const ojson &st : j.at("steps")) {
            s += "  " + std::to_string(st.at("index").get<int64_t>()) + "  ";
            if (st.at("delta_us").is_null()) {
                s += "in one run only\n";
                continue;
            }
            s += num(st["baseline"]["step_us"].get<double>()) + " (rank " +
                 std::to_string(st["baseline"]["slowest_rank"].get<int64_t>()) + ") -> " +
                 num(st["candidate"]["step_us"].get<double>()) + " (rank " +
                 std::to_string(st["candidate"]["slowest_rank"].get<int64_t>()) + ")  (" +
                 num(st["delta_us"].get<double>(), true) + ")\n";
        }
    }
    s += "\ntop changes across ranks (ops: self time):\n";
    if (j.at("top_changes").empty())
        s += "  none\n";
    for (const ojson &t : j.at("top_changes"))
        s += "  " + std::to_string(t.at("position").get<size_t>()) + ". rank " +
             std::to_string(t.at("rank").get<int64_t>()) + "  " + num(t.at("delta_us").get<double>(), true) + "  " +
             t.at("category").get<std::string>() + "  " + shorten(t.at("name").get<std::string>(), 80) + "  [" +
             shorten(t.at("where").get<std::string>(), 70) + "]\n";
    return s;
}

} // namespace syncscope
