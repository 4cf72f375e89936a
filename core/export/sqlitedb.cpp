// SPDX-License-Identifier: MIT
// The SQLite export's file: a temporary database next to the target (OutputFile's
// rules: never over an input, a symlink's target replaced, mode kept, removed on a
// signal), filled in one transaction and renamed onto the target at commit().
#include "sqlitedb.h"

#include "sqliteinternal.h"
#include "sqliteschema.h"

#include "analysis/rankanalysis.h"
#include "analysis/stepwindow.h"

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace syncscope {

struct SqliteExport::State {
    OutputFile out;
    // A FIFO or device target: the database is built in a scratch file (never
    // committed, so removed) whose bytes are then written through `out`.
    std::unique_ptr<OutputFile> scratch;
    std::string dbPath;
    std::unique_ptr<SqliteConnection> db;
    std::unique_ptr<SqliteNames> names;
    SqliteCollectiveExtras extras;
    std::vector<std::pair<std::string, std::string>> meta;
    std::vector<std::string> inputs;
    bool job = false;
    bool committed = false;

    State(const std::string &path, const std::vector<std::string> &in) : out(path, in), inputs(in) {}
};

std::string sqliteJoinInputs(const std::vector<std::string> &inputs)
{
    std::string s;
    for (const auto &i : inputs)
        if (!i.empty() && s.find(i) == std::string::npos)
            s += (s.empty() ? "" : "\n") + i;
    return s;
}

std::vector<std::pair<std::string, std::string>> sqliteRequestMeta(const AnalysisRequest &request)
{
    return {{"link_mode", request.mode == LinkMode::Chakra ? "chakra" : "default"},
            {"hta_version", htaVersionName(request.cpa.htaVersion)},
            {"hta_exact", isHtaExact(request.cpa) ? "1" : "0"}};
}

SqliteExport::SqliteExport(const std::string &path, const std::vector<std::string> &inputs)
    : m(std::make_unique<State>(path, inputs))
{
    m->dbPath = m->out.detachTemporaryPath();
    if (m->dbPath.empty()) {
        const std::string tmp = (std::filesystem::temp_directory_path() / "syncscope-export.db").string();
        m->scratch = std::make_unique<OutputFile>(tmp);
        m->dbPath = m->scratch->detachTemporaryPath();
        if (m->dbPath.empty())
            throw OutputError(path + ": cannot create a scratch database in " + tmp);
    }
    m->db = std::make_unique<SqliteConnection>(m->dbPath, path); // messages name the target
    // The file is a temporary one, renamed only when complete: no journal or fsync
    // is needed for safety, and the writes are several times faster without them.
    m->db->exec("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA locking_mode=EXCLUSIVE; "
                "PRAGMA cache_size=-262144; PRAGMA temp_store=MEMORY; PRAGMA threads=2; PRAGMA page_size=8192;");
    m->db->exec("BEGIN");
    m->db->exec(sqliteTablesSql());
    m->names = std::make_unique<SqliteNames>(*m->db);
}

SqliteExport::~SqliteExport()
{
    if (m) {
        m->names.reset();
        m->db.reset(); // closed before OutputFile removes the temporary file
    }
}

const std::string &SqliteExport::path() const
{
    return m->out.path();
}

void SqliteExport::addRank(const Analysis &analysis, int64_t rank, int exitCode, const RankSummary *summary)
{
    if (!analysis.inputsOk || !analysis.device)
        return; // a rank whose traces did not load gets its row from addJob
    std::vector<SqliteCollectiveExtra> extras;
    if (summary)
        extras = sqliteCollectiveExtras(analysis, *summary);
    std::lock_guard lock(m_mutex);
    writeSqliteRank(*m->db, *m->names, analysis, rank, exitCode);
    if (summary)
        m->extras[rank] = std::move(extras);
    if (!summary && m->meta.empty()) { // a pair: its inputs and window as the report says them
        m->meta.emplace_back("mode", "pair");
        m->meta.emplace_back("host", analysis.hostPath);
        m->meta.emplace_back("device", analysis.devicePath);
        m->meta.emplace_back("window", windowJson(analysis).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
        for (auto &kv : sqliteRequestMeta(analysis.request))
            m->meta.push_back(std::move(kv));
    }
}

void SqliteExport::addJobTables(const std::function<void(SqliteConnection &, const SqliteCollectiveExtras &)> &write,
                                std::vector<std::pair<std::string, std::string>> meta)
{
    std::lock_guard lock(m_mutex);
    write(*m->db, m->extras);
    m->extras.clear();
    m->job = true;
    m->meta = std::move(meta);
}

void SqliteExport::commit()
{
    std::lock_guard lock(m_mutex);
    SqliteConnection &db = *m->db;
    {
        SqliteStatement st(db, "INSERT OR REPLACE INTO meta VALUES (?1, ?2)");
        const std::string version = std::to_string(kSqliteSchemaVersion);
        const std::string inputs = sqliteJoinInputs(m->inputs);
        st.text(1, "schema_version").text(2, version).step();
        st.text(1, "syncscope_version").text(2, SYNCSCOPE_VERSION).step();
        if (!m->job)
            st.text(1, "inputs").text(2, inputs).step();
        for (const auto &[key, value] : m->meta)
            st.text(1, key).text(2, value).step();
    }
    db.exec(sqliteIndexesSql());
    db.exec("COMMIT");
    m->names.reset();
    m->db.reset(); // closes the file before it is moved
    if (m->scratch) { // write the finished bytes through the FIFO or device
        std::ifstream in(m->dbPath, std::ios::binary);
        std::string chunk(1 << 20, '\0');
        while (in.read(chunk.data(), std::streamsize(chunk.size())) || in.gcount() > 0)
            m->out.write(std::string_view(chunk.data(), size_t(in.gcount())));
    }
    m->out.commit();
    m->committed = true;
}

int64_t sqliteRankOf(const Analysis &analysis)
{
    if (analysis.request.rank)
        return *analysis.request.rank;
    if (analysis.device && analysis.device->distributed.rank)
        return *analysis.device->distributed.rank;
    return 0;
}

void writeSqliteDatabase(const std::string &path, const Analysis &analysis, const std::vector<std::string> &inputs,
                         int exitCode)
{ // exitCode -1: not known yet (a pair's is the report's exit_code)
    std::vector<std::string> all = inputs;
    all.push_back(analysis.hostPath);
    all.push_back(analysis.devicePath);
    SqliteExport out(path, all);
    out.addRank(analysis, sqliteRankOf(analysis), exitCode);
    out.commit();
}

} // namespace syncscope
