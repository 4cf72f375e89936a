// SPDX-License-Identifier: MIT
// Kineto device trace loader, then everything batch mode does with a device
// trace: sync edges, critical path, link against a small host ET, ET+, and the SQLite
// database (issue 40): written atomically, it passes SQLite's integrity check and every
// TEXT value of `meta` is valid UTF-8.
#include "fuzzinput.h"

#include "export/etpluswriter.h"
#include "export/sqlitedb.h"
#include "json/utf8.h"
#include "session/analysis.h"

#include <sqlite3.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

using namespace syncscope;

namespace {

void check(bool ok)
{
    if (!ok)
        std::abort(); // a broken invariant is a finding
}

void checkSqlite(const Analysis &a)
{
    static const std::string path = "/tmp/syncscope-fuzz-" + std::to_string(::getpid()) + ".sqlite";
    try {
        writeSqliteDatabase(path, a, {a.devicePath});
    } catch (const std::exception &) {
        return; // a refused export is an error message, not a finding
    }
    sqlite3 *db = nullptr;
    check(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
    sqlite3_stmt *st = nullptr;
    check(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, nullptr) == SQLITE_OK);
    check(sqlite3_step(st) == SQLITE_ROW &&
          std::string(reinterpret_cast<const char *>(sqlite3_column_text(st, 0))) == "ok");
    sqlite3_finalize(st);
    check(sqlite3_prepare_v2(db, "SELECT value FROM meta", -1, &st, nullptr) == SQLITE_OK);
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *v = reinterpret_cast<const char *>(sqlite3_column_text(st, 0));
        const std::string text = v ? v : "";
        check(validUtf8(text) == text);
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    std::remove(path.c_str());
}

} // namespace

extern "C" int SYNCSCOPE_FUZZ_ENTRY(const uint8_t *data, size_t size)
{
    fuzz::MemFile device(data, size);
    AnalysisRequest req;
    req.hostPath = SYNCSCOPE_PAIR_DIR "/host.0.json";
    req.devicePath = device.path();
    req.keepRawEvents = true; // the GUI's path through the loader
    const auto a = runAnalysis(req);
    if (a->inputsOk && a->link)
        (void)etPlusToString(*a->host, *a->device, *a->link);
    if (a->inputsOk)
        checkSqlite(*a);
    return 0;
}
