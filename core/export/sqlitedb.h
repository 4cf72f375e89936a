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
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace syncscope {

struct Analysis;
struct RankSummary;
struct JobReportInput;

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

    // The cross-rank tables (collectives, collective_arrivals, root_causes, delays,
    // job_critical_path) and the job columns of `ranks`, from the job report's input;
    // ranks that failed before they were analysed get their row here. Throws OutputError.
    void addJob(const JobReportInput &job);

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
