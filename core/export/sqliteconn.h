// SPDX-License-Identifier: MIT
// A thin RAII layer over the SQLite C API for the database export: a connection
// and prepared statements whose errors become OutputError (the exporters' error),
// naming the file. Binding takes the types the export uses; NULL stands for
// "unknown" (a negative id, an absent field).
#pragma once

#include "io/outputfile.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace syncscope {

class SqliteStatement;

class SqliteConnection
{
public:
    // Opens (creates) the database file at `path`. Throws OutputError.
    // `shownAs`: the name messages give (the target, when `path` is its temporary file).
    explicit SqliteConnection(const std::string &path, const std::string &shownAs = {});
    ~SqliteConnection();
    SqliteConnection(const SqliteConnection &) = delete;
    SqliteConnection &operator=(const SqliteConnection &) = delete;

    // Runs one or more statements without results. Throws OutputError.
    void exec(const std::string &sql);
    sqlite3 *handle() const { return m_db; }
    const std::string &path() const { return m_path; }
    [[noreturn]] void fail(const std::string &what) const;

private:
    sqlite3 *m_db = nullptr;
    std::string m_path;
};

class SqliteStatement
{
public:
    SqliteStatement(SqliteConnection &db, const std::string &sql);
    ~SqliteStatement();
    SqliteStatement(const SqliteStatement &) = delete;
    SqliteStatement &operator=(const SqliteStatement &) = delete;

    // Bind by 1-based column position; each returns *this for chaining.
    SqliteStatement &null(int col);
    SqliteStatement &i64(int col, int64_t v);
    // NULL when v < 0 (ids: -1 means none).
    SqliteStatement &id(int col, int64_t v) { return v < 0 ? null(col) : i64(col, v); }
    SqliteStatement &f64(int col, double v); // NULL when not finite
    SqliteStatement &opt(int col, const std::optional<int64_t> &v) { return v ? i64(col, *v) : null(col); }
    // The text must stay alive until step() (SQLITE_STATIC: no copy).
    SqliteStatement &text(int col, std::string_view v);
    SqliteStatement &boolean(int col, bool v) { return i64(col, v ? 1 : 0); }
    // Executes the insert and resets the statement for the next row.
    void step();
    // For queries: true while a row is available.
    bool next();
    int64_t columnInt(int col) const;

private:
    SqliteConnection &m_db;
    sqlite3_stmt *m_stmt = nullptr;
};

} // namespace syncscope
