// SPDX-License-Identifier: MIT
#include "sqliteconn.h"

#include "json/utf8.h"

#include <sqlite3.h>

#include <algorithm>
#include <cmath>

namespace syncscope {

SqliteConnection::SqliteConnection(const std::string &path, const std::string &shownAs)
    : m_path(shownAs.empty() ? path : shownAs)
{
    const int rc = sqlite3_open_v2(path.c_str(), &m_db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
    // NOMUTEX: SqliteExport serialises every use of the connection itself.
    if (rc != SQLITE_OK) {
        const std::string why = m_db ? sqlite3_errmsg(m_db) : sqlite3_errstr(rc);
        sqlite3_close(m_db);
        m_db = nullptr;
        throw OutputError(m_path + ": cannot open the SQLite database: " + why);
    }
}

SqliteConnection::~SqliteConnection()
{
    sqlite3_close_v2(m_db);
}

void SqliteConnection::fail(const std::string &what) const
{
    throw OutputError(m_path + ": SQLite " + what + ": " + sqlite3_errmsg(m_db));
}

void SqliteConnection::exec(const std::string &sql)
{
    char *error = nullptr;
    if (sqlite3_exec(m_db, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
        const std::string why = error ? error : "unknown error";
        sqlite3_free(error);
        throw OutputError(m_path + ": SQLite statement failed: " + why);
    }
}

SqliteStatement::SqliteStatement(SqliteConnection &db, const std::string &sql) : m_db(db)
{
    if (sqlite3_prepare_v3(db.handle(), sql.c_str(), int(sql.size()), SQLITE_PREPARE_PERSISTENT, &m_stmt, nullptr) !=
        SQLITE_OK)
        db.fail("cannot prepare \"" + sql.substr(0, 60) + "\"");
}

SqliteStatement::~SqliteStatement()
{
    sqlite3_finalize(m_stmt);
}

SqliteStatement &SqliteStatement::null(int col)
{
    sqlite3_bind_null(m_stmt, col);
    return *this;
}

SqliteStatement &SqliteStatement::i64(int col, int64_t v)
{
    sqlite3_bind_int64(m_stmt, col, v);
    return *this;
}

SqliteStatement &SqliteStatement::f64(int col, double v)
{
    if (std::isfinite(v))
        sqlite3_bind_double(m_stmt, col, v);
    else
        sqlite3_bind_null(m_stmt, col);
    return *this;
}

SqliteStatement &SqliteStatement::text(int col, std::string_view v)
{
    // TEXT columns hold UTF-8: a file name is bytes, and raw ones made `meta` and `ranks`
    // unreadable to Python's sqlite3 and pandas (issue 40). Valid text is bound as it is.
    if (std::any_of(v.begin(), v.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80; })) {
        const std::string valid = validUtf8(v);
        if (valid != v) {
            sqlite3_bind_text(m_stmt, col, valid.data(), int(valid.size()), SQLITE_TRANSIENT);
            return *this;
        }
    }
    sqlite3_bind_text(m_stmt, col, v.data(), int(v.size()), SQLITE_STATIC);
    return *this;
}

void SqliteStatement::step()
{
    const int rc = sqlite3_step(m_stmt);
    sqlite3_reset(m_stmt);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        m_db.fail("insert failed");
}

bool SqliteStatement::next()
{
    const int rc = sqlite3_step(m_stmt);
    if (rc == SQLITE_ROW)
        return true;
    sqlite3_reset(m_stmt);
    if (rc != SQLITE_DONE)
        m_db.fail("query failed");
    return false;
}

int64_t SqliteStatement::columnInt(int col) const
{
    return sqlite3_column_int64(m_stmt, col);
}

} // namespace syncscope
