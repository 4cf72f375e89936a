// SPDX-License-Identifier: MIT
// --sqlite in job mode: one database for every rank. The ranks' workers hand
// their rows over while each rank's traces are still loaded (SqliteExport
// serialises the writes), so no rank's full analysis is kept for later; the
// cross-rank tables follow once the job analysis is done.
#pragma once

#include "batchjob.h"
#include "export/sqlitedb.h"

#include <memory>
#include <mutex>
#include <string>

namespace syncscope {

struct JobSqlite {
    std::string path;
    std::unique_ptr<SqliteExport> db; // null when it could not be created or a write failed
    std::mutex mutex;
    std::string error;                // why it was not written
    double seconds = 0;               // time spent writing, over every worker
};

// Creates the database next to job.sqlitePath (when given) and hooks it into the
// rank runner. A failure is kept for finishJobSqlite; the ranks still run.
void openJobSqlite(JobCli &job, const JobDiscovery &discovery);

// The job tables, indexes and the rename onto the target; the output record.
OutputRecord finishJobSqlite(JobSqlite &sqlite, const JobReportInput &in);

} // namespace syncscope
