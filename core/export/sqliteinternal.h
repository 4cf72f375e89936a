// SPDX-License-Identifier: MIT
// Shared by the SQLite export's parts (sqlitedb.cpp: the file; sqliterank.cpp: one
// rank's tables; sqlitejob.cpp: the cross-rank tables): the prepared statements and
// the interned names, which live as long as the database being written.
#pragma once

#include "sqliteconn.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace syncscope {

struct Analysis;
struct AnalysisRequest;
struct RankSummary;
class StringTable;

// One name for every distinct text of all ranks (events and host nodes share it).
class SqliteNames
{
public:
    explicit SqliteNames(SqliteConnection &db);
    int64_t id(std::string_view name);

private:
    SqliteStatement m_insert;
    std::unordered_map<std::string, int64_t> m_ids;
};

// What a rank's collective kernel needs from the loaded trace (job mode): kept per
// rank until the cross-rank tables are written, a few bytes per collective.
struct SqliteCollectiveExtra {
    std::string etType;             // what the .et calls it ("ALL_TO_ALL", "COMP_NODE")
    uint8_t busBwType = 0;          // CollectiveType the message size was computed as
    std::optional<int64_t> bytes;   // nccl-tests' S, from the kernel's (or its op's) args
};
using SqliteCollectiveExtras = std::map<int64_t, std::vector<SqliteCollectiveExtra>>; // by rank

// Writes one rank's rows (see SqliteExport::addRank).
void writeSqliteRank(SqliteConnection &db, SqliteNames &names, const Analysis &analysis, int64_t rank,
                     int exitCode);
// The message sizes and .et types of a rank's collectives, while its trace is loaded.
std::vector<SqliteCollectiveExtra> sqliteCollectiveExtras(const Analysis &analysis, const RankSummary &summary);

// meta's "inputs": the paths, one per line, each once.
std::string sqliteJoinInputs(const std::vector<std::string> &inputs);
// meta's rows for the request's link mode and HTA switches.
std::vector<std::pair<std::string, std::string>> sqliteRequestMeta(const AnalysisRequest &request);
// Writes the cross-rank rows (see SqliteExport::addJob).

} // namespace syncscope
