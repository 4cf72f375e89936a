// SPDX-License-Identifier: MIT
// The SQLite export (issue 24, docs/sqlite.md): one database with the trace and
// every analysis of a pair, or of every rank of a job plus the cross-rank tables.
// Every number comes from the structures the JSON reports are built from
// (Analysis, JobAnalysis, the job report's helpers), so database and report agree.
//
// Written as every output: into a temporary file in the target folder, renamed
// onto the target by commit() (a FIFO or device target gets the finished file's
// bytes); never over an input; an unfinished database leaves nothing behind.
// Rows go in with prepared statements inside one transaction, journal off; the
// indexes are built at the end.
#pragma once

#include "io/outputfile.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace syncscope {

struct Analysis;
struct RankSummary;
class SqliteConnection;
struct SqliteCollectiveExtra;
using SqliteCollectiveExtras = std::map<int64_t, std::vector<SqliteCollectiveExtra>>; // by rank

class SqliteExport
{
public:
    // Creates the temporary database next to `path` with the schema. Throws
    // OutputError: `path` is one of `inputs` (same file by device and inode), a
    // directory, in a folder that does not exist or cannot be written, ...
    SqliteExport(const std::string &path, const std::vector<std::string> &inputs = {});
    ~SqliteExport(); // without commit(): the temporary file is removed, the target untouched
    SqliteExport(const SqliteExport &) = delete;
    SqliteExport &operator=(const SqliteExport &) = delete;

    // One rank's trace and analyses: ranks, threads, streams, events, host_nodes,
    // links, link_deps, sync_edges, critical_path, steps, breakdown_bound_by.
    // `rank`: the rank number of every row (a pair: its distributedInfo.rank, else 0);
    // `exitCode` its ranks.exit_code (-1: NULL, not known yet).
    // `summary` (job mode): the rank's summary, whose collectives' message sizes and
    // .et types are taken now, while the trace is loaded. Thread-safe: the job's
    // workers call it concurrently and the writes are serialised. Throws OutputError.
    void addRank(const Analysis &analysis, int64_t rank, int exitCode, const RankSummary *summary = nullptr);

    // A writer of job tables (job/jobsqlite.h) over the ranks added so far: `write`
    // gets the connection and the ranks' collective extras; `meta` replaces the
    // database's meta rows (a job's, not its first rank's).
    void addJobTables(const std::function<void(SqliteConnection &, const SqliteCollectiveExtras &)> &write,
                      std::vector<std::pair<std::string, std::string>> meta);

    // Meta rows (schema_version, syncscope_version, mode, window, ...), indexes, the
    // transaction's commit, then the rename onto the target. Throws OutputError.
    void commit();

    const std::string &path() const;

private:
    struct State;
    std::unique_ptr<State> m;
    std::mutex m_mutex;
};

// A pair (or one rank): the whole database in one call, rank = the trace's
// distributedInfo.rank (else 0). Throws OutputError (the target is then untouched).
void writeSqliteDatabase(const std::string &path, const Analysis &analysis, const std::vector<std::string> &inputs,
                         int exitCode = -1);

// The rank number writeSqliteDatabase uses for a pair.
int64_t sqliteRankOf(const Analysis &analysis);

} // namespace syncscope
