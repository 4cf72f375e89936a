// SPDX-License-Identifier: MIT
// The SQLite export's schema (docs/sqlite.md documents every table and column):
// the tables, created before the rows go in, and the indexes, created after
// (one sort per index is faster than keeping them up to date row by row).
#pragma once

namespace syncscope {

// Bumped whenever a table or column changes meaning; meta.schema_version.
constexpr int kSqliteSchemaVersion = 1;

const char *sqliteTablesSql();
const char *sqliteIndexesSql();

} // namespace syncscope
