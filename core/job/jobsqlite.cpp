// SPDX-License-Identifier: MIT
// The cross-rank tables of the SQLite export (docs/sqlite.md, "Jobs"): the
// job report's collectives, arrivals, lateness, root causes, delay costs and job
// critical path, from the same JobAnalysis, plus each collective rank's message
// size and bandwidths as the Collectives dock computes them (core/analysis/busbw.h).
// A writer of job results, so it sits with the job over export/'s connection.
#include "jobsqlite.h"

#include "jobdocument.h"

#include "analysis/busbw.h"
#include "export/sqliteinternal.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

namespace syncscope {

namespace {

void writeCollectives(SqliteConnection &db, const JobReportInput &in, const SqliteCollectiveExtras &extras)
{
    const JobAnalysis &job = *in.analysis;
    std::unordered_map<int64_t, const RankSummary *> summaries;
    for (const RankSummary &r : *in.ranks)
        summaries.try_emplace(r.rank, &r); // the first summary of a rank is the one analysed
    SqliteStatement cs(db, "INSERT INTO collectives VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15)");
    SqliteStatement as(db, "INSERT INTO collective_arrivals VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,"
                           "?15,?16,?17)");
    SqliteStatement rs(db, "INSERT INTO root_causes VALUES (?1,?2,?3,?4,?5,?6,?7,?8)");
    for (size_t ci = 0; ci < job.collectives.size(); ++ci) {
        const MatchedCollective &c = job.collectives[ci];
        // Each participant's kernel and what the trace said about it.
        std::vector<const RankCollective *> kernel(c.ranks.size(), nullptr);
        std::vector<const SqliteCollectiveExtra *> extra(c.ranks.size(), nullptr);
        for (size_t k = 0; k < c.ranks.size() && k < c.index.size(); ++k) {
            const auto s = summaries.find(c.ranks[k]);
            if (s != summaries.end() && c.index[k] < s->second->collectives.size())
                kernel[k] = &s->second->collectives[c.index[k]];
            const auto e = extras.find(c.ranks[k]);
            if (e != extras.end() && c.index[k] < e->second.size())
                extra[k] = &e->second[c.index[k]];
        }
        // As the Collectives dock: the first participant's .et type names the type, the
        // group size is the kernels' "Process Group Ranks" count, else the participants.
        std::string etType;
        CollectiveType type = CollectiveType::Unknown;
        int64_t groupSize = int64_t(c.ranks.size());
        for (size_t k = 0; k < c.ranks.size(); ++k) {
            if (extra[k] && etType.empty()) {
                etType = extra[k]->etType;
                type = CollectiveType(extra[k]->busBwType);
            }
            if (kernel[k] && kernel[k]->groupSize > 0)
                groupSize = kernel[k]->groupSize;
        }
        double first = std::numeric_limits<double>::infinity(), last = -first;
        for (const auto &[rank, t] : c.arrivalUs) {
            first = std::min(first, t);
            last = std::max(last, t);
        }
        const std::string_view typeName = collectiveTypeName(type);
        cs.i64(1, int64_t(ci)).text(2, c.name).text(3, c.processGroup).text(4, c.matchedBy).boolean(5, c.complete);
        cs.i64(6, int64_t(c.ranks.size()));
        if (etType.empty())
            cs.null(7);
        else
            cs.text(7, etType);
        if (typeName.empty())
            cs.null(8);
        else
            cs.text(8, typeName);
        cs.id(9, c.lastArrivalRank).f64(10, first).f64(11, last).f64(12, c.spreadUs).f64(13, waitCausedUs(c));
        cs.boolean(14, c.windowEdge).id(15, c.skewFrom).step();

        for (size_t k = 0; k < c.ranks.size(); ++k) {
            const int64_t rank = c.ranks[k];
            const auto arrival = c.arrivalUs.find(rank), end = c.endUs.find(rank), wait = c.waitUs.find(rank);
            const bool timed = arrival != c.arrivalUs.end() && end != c.endUs.end();
            const double transferUs = timed ? end->second - last : -1;
            as.i64(1, int64_t(ci)).i64(2, rank);
            if (kernel[k])
                as.i64(3, kernel[k]->event);
            else
                as.null(3);
            if (timed)
                as.f64(4, arrival->second).f64(5, end->second).f64(7, transferUs).f64(8, end->second - arrival->second);
            else
                as.null(4).null(5).null(7).null(8);
            if (wait != c.waitUs.end())
                as.f64(6, wait->second);
            else
                as.null(6);
            as.boolean(9, rank == c.lastArrivalRank);
            if (const auto l = c.lateness.find(rank); l != c.lateness.end())
                as.f64(10, l->second.lateUs).f64(11, l->second.startSkewUs).f64(12, l->second.workExcessUs)
                    .f64(13, l->second.unexplainedUs).boolean(14, l->second.fromWindowStart);
            else
                as.null(10).null(11).null(12).null(13).null(14);
            // Over the transfer, not the kernel: waiting for a late rank is no bandwidth.
            const std::optional<int64_t> bytes = extra[k] ? extra[k]->bytes : std::nullopt;
            as.opt(15, bytes);
            if (bytes && transferUs > 0) {
                as.f64(16, algBwGBps(*bytes, transferUs * 1e-6));
                if (busBwFactor(type, groupSize) > 0)
                    as.f64(17, busBwGBps(type, groupSize, *bytes, transferUs * 1e-6));
                else
                    as.null(17);
            } else {
                as.null(16).null(17);
            }
            as.step();
        }
        for (size_t k = 0; k < c.rootCauses.size(); ++k) {
            const RootCauseOp &r = c.rootCauses[k];
            rs.i64(1, int64_t(ci)).i64(2, int64_t(k)).i64(3, r.rank).text(4, r.op).boolean(5, r.gpu);
            rs.f64(6, r.startUs).f64(7, r.durUs).f64(8, r.excessUs).step();
        }
    }
}

void writeDelaysAndPath(SqliteConnection &db, const JobAnalysis &job)
{
    SqliteStatement ds(db, "INSERT INTO delays VALUES (?1,?2,?3,?4,?5,?6,?7,?8)");
    for (size_t k = 0; k < job.delayCosts.size(); ++k) {
        const DelayCost &d = job.delayCosts[k];
        ds.i64(1, int64_t(k)).i64(2, d.rank).text(3, d.op).boolean(4, d.gpu).f64(5, d.directUs);
        ds.f64(6, d.propagatedUs).f64(7, d.directUs + d.propagatedUs).f64(8, d.firstStartUs).step();
    }
    SqliteStatement ps(db, "INSERT INTO job_critical_path VALUES (?1,?2,?3,?4,?5,?6)");
    for (size_t k = 0; k < job.criticalPath.path.size(); ++k) {
        const JobCriticalPathRow &r = job.criticalPath.path[k];
        ps.i64(1, int64_t(k)).i64(2, r.rank).text(3, r.op).f64(4, r.startUs).f64(5, r.durUs).text(6, r.boundBy).step();
    }
}

void writeRankJobColumns(SqliteConnection &db, const JobReportInput &in)
{
    const CriticalPathOptions defaults;
    const CriticalPathOptions &window = in.window ? *in.window : defaults;
    // Ranks that failed before their trace was analysed get their row here.
    SqliteStatement add(db, "INSERT OR IGNORE INTO ranks (rank, host, device, exit_code) VALUES (?1,?2,?3,?4)");
    SqliteStatement step(db, "UPDATE ranks SET step_time_us = ?2, exit_code = ?3 WHERE rank = ?1");
    for (const RankSummary &r : *in.ranks) {
        add.i64(1, r.rank);
        if (r.hostPath.empty())
            add.null(2);
        else
            add.text(2, r.hostPath);
        if (r.devicePath.empty())
            add.null(3);
        else
            add.text(3, r.devicePath);
        add.i64(4, r.exitCode).step();
        const double us = rankStepTimeUs(r, window); // the job report's step_time_us
        step.i64(1, r.rank);
        if (us >= 0)
            step.f64(2, us);
        else
            step.null(2);
        step.i64(3, r.exitCode).step();
    }
    if (!in.analysis)
        return;
    SqliteStatement st(db, "UPDATE ranks SET clock_offset_us = ?2, start_offset_us = ?3, collective_wait_us = ?4, "
                           "collective_wait_caused_us = ?5, last_arrivals = ?6, work_delay_cost_us = ?7, "
                           "start_skew_cost_us = ?8 WHERE rank = ?1");
    for (const RankJobStats &s : in.analysis->ranks) {
        st.i64(1, s.rank).f64(2, s.clockOffsetUs).f64(3, s.startOffsetUs).f64(4, s.collectiveWaitUs);
        st.f64(5, s.collectiveWaitCausedUs).i64(6, s.lastArrivals).f64(7, s.workDelayCostUs).f64(8, s.startSkewCostUs);
        st.step();
    }
}

} // namespace

static void writeSqliteJobTables(SqliteConnection &db, const JobReportInput &in, const SqliteCollectiveExtras &extras)
{
    if (in.ranks)
        writeRankJobColumns(db, in);
    if (!in.analysis || !in.ranks)
        return;
    writeCollectives(db, in, extras);
    writeDelaysAndPath(db, *in.analysis);
}


void addJobToSqlite(SqliteExport &db, const JobReportInput &job)
{
    std::vector<std::pair<std::string, std::string>> meta;
    meta.emplace_back("mode", "job");
    if (job.ranks) {
        std::vector<std::string> paths;
        for (const RankSummary &r : *job.ranks) {
            paths.push_back(r.hostPath);
            paths.push_back(r.devicePath);
        }
        meta.emplace_back("inputs", sqliteJoinInputs(paths));
        meta.emplace_back("window", jobWindowJson(job).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    }
    if (job.request)
        for (auto &kv : sqliteRequestMeta(*job.request))
            meta.push_back(std::move(kv));
    if (job.analysis)
        meta.emplace_back("clock_reference_rank", std::to_string(job.analysis->clockReferenceRank));
    db.addJobTables([&](SqliteConnection &conn, const SqliteCollectiveExtras &extras) {
        writeSqliteJobTables(conn, job, extras);
    }, std::move(meta));
}

} // namespace syncscope
