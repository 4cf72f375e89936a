// SPDX-License-Identifier: MIT
#include "batchjobsqlite.h"

#include "job/jobsqlite.h"

#include <chrono>
#include <filesystem>

namespace syncscope {

namespace {

double since(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

void openJobSqlite(JobCli &job, const JobDiscovery &discovery)
{
    if (job.sqlitePath.empty())
        return;
    auto s = std::make_shared<JobSqlite>();
    s->path = job.sqlitePath;
    std::vector<std::string> inputs;
    for (const auto &f : discovery.files)
        inputs.push_back(f.path);
    try {
        const auto t0 = std::chrono::steady_clock::now();
        s->db = std::make_unique<SqliteExport>(job.sqlitePath, inputs);
        s->seconds += since(t0);
    } catch (const OutputError &e) {
        s->error = e.what();
    }
    job.sqlite = s;
    if (!s->db)
        return;
    JobSqlite *raw = s.get();
    job.run.rankAnalysed = [raw](const Analysis &analysis, const RankSummary &summary) {
        // SqliteExport serialises the rows; this lock guards the failure state only.
        {
            std::lock_guard lock(raw->mutex);
            if (!raw->db || !raw->error.empty())
                return;
        }
        const auto t0 = std::chrono::steady_clock::now();
        try {
            raw->db->addRank(analysis, summary.rank, summary.exitCode, &summary);
        } catch (const std::exception &e) {
            std::lock_guard lock(raw->mutex);
            if (raw->error.empty())
                raw->error = e.what();
        }
        std::lock_guard lock(raw->mutex);
        raw->seconds += since(t0);
    };
}

OutputRecord finishJobSqlite(JobSqlite &s, const JobReportInput &in)
{
    OutputRecord r;
    r.kind = "sqlite";
    r.path = s.path;
    if (s.db && s.error.empty()) {
        const auto t0 = std::chrono::steady_clock::now();
        try {
            addJobToSqlite(*s.db, in);
            s.db->commit();
            s.seconds += since(t0);
            r.writeSeconds = s.seconds;
            std::error_code ec;
            const auto bytes = std::filesystem::file_size(s.path, ec);
            r.bytes = ec ? 0 : uint64_t(bytes);
        } catch (const std::exception &e) {
            s.error = e.what();
        }
    }
    s.db.reset(); // an unfinished database goes with it, the target untouched
    if (!s.error.empty()) {
        r.status = "failed";
        r.reason = s.error;
    }
    return r;
}

} // namespace syncscope
