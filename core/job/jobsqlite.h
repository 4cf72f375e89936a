// SPDX-License-Identifier: MIT
// The job tables of the SQLite export (collectives, collective_arrivals,
// root_causes, delays, job_critical_path, the job columns of ranks), written into
// an SqliteExport whose ranks were added with their summaries (docs/sqlite.md).
#pragma once

#include "export/sqlitedb.h"

namespace syncscope {

struct JobReportInput;

// Ranks that failed before they were analysed get their row here; the database's
// meta says "job", its inputs and window. Throws OutputError.
void addJobToSqlite(SqliteExport &db, const JobReportInput &job);

} // namespace syncscope
