// SPDX-License-Identifier: MIT
// TEMPORARY STUBS (branch issue12b only): stand-ins for the cross-rank layer that
// branch issue12 implements (extractRankSummary, (de)serialisation, analyzeJob and
// the JSON of the analysis), so the job plumbing (discovery, runner, CLI, MPI)
// builds and is tested before the merge. On merge: delete this file (core/CMakeLists.txt
// only compiles it while it exists) and take issue12's core/job/jobreport.h.
#include "jobreport.h"
#include "ranksummary.h"

#include "session/analysis.h"

#include <algorithm>

namespace syncscope {

RankSummary extractRankSummary(const Analysis &a, int exitCode)
{
    RankSummary s;
    s.exitCode = exitCode;
    s.hostPath = a.hostPath;
    s.devicePath = a.devicePath;
    s.diagnostics = a.diagnostics;
    if (a.device) {
        s.rank = a.device->distributed.rank.value_or(-1);
        s.worldSize = a.device->distributed.worldSize;
        s.baseTimeNanoseconds = a.device->baseTimeNanoseconds;
    }
    s.pid = a.devicePid;
    if (a.link) {
        const LinkCounts &c = a.link->counts;
        s.link = {true, c.hostOps, c.hostOpsLinked, c.hostOpsWithTwin, c.kinetoCpuOps, c.kinetoCpuOpsLinked,
                  c.gpuOps, c.gpuOpsLinked,
                  c.hostOpsWithTwin > 0 ? double(c.hostOpsLinked) / double(c.hostOpsWithTwin) : 0.0};
    }
    if (a.criticalPath && a.criticalPath->success) {
        s.criticalPath.valid = true;
        s.criticalPath.weightUs = a.criticalPath->weightUs;
        for (const auto &r : a.criticalPath->summary)
            s.criticalPath.summaryPct.emplace_back(r.boundBy, r.percent);
    }
    return s;
}

namespace {
nlohmann::json diagJson(const Diagnostics &d)
{
    nlohmann::json a = nlohmann::json::array();
    for (const auto &x : d.items())
        a.push_back({int(x.severity), x.code, x.message, x.file, x.offset, x.count});
    return a;
}
} // namespace

std::string serializeRankSummary(const RankSummary &s)
{
    nlohmann::json j;
    j["rank"] = s.rank;
    j["world"] = s.worldSize ? nlohmann::json(*s.worldSize) : nlohmann::json(nullptr);
    j["host"] = s.hostPath;
    j["device"] = s.devicePath;
    j["exit"] = s.exitCode;
    j["pid"] = s.pid;
    const auto &l = s.link;
    j["link"] = {l.present, l.hostOps, l.hostOpsLinked, l.hostOpsWithTwin, l.kinetoCpuOps, l.kinetoCpuOpsLinked,
                 l.gpuOps, l.gpuOpsLinked, l.coverage};
    j["cp"] = {s.criticalPath.valid, s.criticalPath.weightUs, s.criticalPath.summaryPct};
    j["diag"] = diagJson(s.diagnostics);
    j["outputs"] = s.outputs;
    return j.dump();
}

bool deserializeRankSummary(std::string_view bytes, RankSummary &s, std::string &error)
{
    try {
        const auto j = nlohmann::json::parse(bytes);
        s.rank = j["rank"];
        if (!j["world"].is_null())
            s.worldSize = j["world"].get<int64_t>();
        s.hostPath = j["host"];
        s.devicePath = j["device"];
        s.exitCode = j["exit"];
        s.pid = j["pid"];
        const auto &l = j["link"];
        s.link = {l[0], l[1], l[2], l[3], l[4], l[5], l[6], l[7], l[8]};
        s.criticalPath.valid = j["cp"][0];
        s.criticalPath.weightUs = j["cp"][1];
        s.criticalPath.summaryPct = j["cp"][2].get<std::vector<std::pair<std::string, double>>>();
        for (const auto &d : j["diag"]) {
            s.diagnostics.add(Severity(d[0].get<int>()), d[1], d[2], d[3], d[4]);
        }
        s.outputs = j["outputs"].get<std::vector<std::pair<std::string, std::string>>>();
        return true;
    } catch (const std::exception &e) {
        error = e.what();
        return false;
    }
}

JobAnalysis analyzeJob(const std::vector<RankSummary> &ranks, const JobOptions &options)
{
    JobAnalysis j;
    j.clockReferenceRank = options.clockReferenceRank;
    for (const auto &r : ranks) {
        if (r.worldSize && !j.worldSize)
            j.worldSize = r.worldSize;
        if (r.rank >= 0 && (j.clockReferenceRank < 0 || r.rank < j.clockReferenceRank) && options.clockReferenceRank < 0)
            j.clockReferenceRank = r.rank;
        RankJobStats st;
        st.rank = r.rank;
        j.ranks.push_back(st);
    }
    j.criticalPath.reason = "stub: the cross-rank analysis is on branch issue12";
    return j;
}

nlohmann::json jobAnalysisJson(const JobAnalysis &a)
{
    nlohmann::json j;
    j["collectives"] = nlohmann::json::array();
    j["stragglers"] = a.stragglers;
    j["job_critical_path"] = {{"weight_us", a.criticalPath.weightUs},
                              {"summary", nlohmann::json::object()},
                              {"ranks_on_path", nlohmann::json::array()},
                              {"collectives_crossed", nlohmann::json::array()},
                              {"path", nlohmann::json::array()}};
    return j;
}

nlohmann::json rankJobJson(const RankJobStats &s)
{
    return {{"clock_offset_us", s.clockOffsetUs},
            {"collective_wait_us", s.collectiveWaitUs},
            {"collective_wait_caused_us", s.collectiveWaitCausedUs},
            {"last_arrivals", s.lastArrivals}};
}

} // namespace syncscope
