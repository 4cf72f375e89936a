// SPDX-License-Identifier: MIT
#include "batchhang.h"

#include "hang/flightrecorder.h"
#include "hang/hanganalysis.h"
#include "io/outputfile.h"
#include "session/exitcodes.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <thread>

namespace syncscope {

namespace fs = std::filesystem;

namespace {

struct HangDiag {
    std::string severity, code, message, file;
};

// The last run of digits in the file name: PyTorch names dumps <prefix><rank>.
std::optional<int64_t> rankFromName(const std::string &name)
{
    size_t end = name.size();
    while (end > 0 && !std::isdigit(static_cast<unsigned char>(name[end - 1])))
        --end;
    if (end == 0)
        return std::nullopt;
    size_t begin = end;
    while (begin > 0 && std::isdigit(static_cast<unsigned char>(name[begin - 1])))
        --begin;
    if (end - begin > 9)
        return std::nullopt;
    return std::stoll(name.substr(begin, end - begin));
}

// A pickle starts with PROTO (0x80), JSON with '{', gzip with 1f 8b; anything else is not a dump.
bool looksLikeDump(const std::string &path)
{
    std::ifstream f(path, std::ios::binary);
    char buf[64];
    f.read(buf, sizeof buf);
    const std::streamsize n = f.gcount();
    for (std::streamsize i = 0; i < n; ++i) {
        const auto c = static_cast<unsigned char>(buf[i]);
        if (std::isspace(c) && i + 1 < n)
            continue;
        if (c == '{' || c == 0x80)
            return true;
        return i == 0 && n >= 2 && c == 0x1f && static_cast<unsigned char>(buf[1]) == 0x8b;
    }
    return false;
}

void printDiag(const HangDiag &d)
{
    std::cerr << "syncscope: " << d.severity << ": " << d.message << "\n";
}

} // namespace

int runBatchHang(const CliArgs &args)
{
    const std::string dir = args.value("--flight-recorder");
    const std::string reportPath = args.value("--report");
    const bool quiet = args.has("--quiet");
    std::error_code ec;
    if (dir.empty()) {
        std::cerr << "syncscope: --flight-recorder needs a directory\nTry 'syncscope --help' for more information.\n";
        return ExitUsage;
    }
    if (!fs::is_directory(dir, ec)) {
        std::cerr << "syncscope: error: " << dir
                  << (fs::exists(dir, ec) ? ": not a directory (--flight-recorder takes the folder of the dumps)"
                                          : ": no such directory")
                  << "\n";
        return ExitBadInput;
    }

    std::vector<std::string> files;
    std::vector<HangDiag> diags;
    {
        fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
        if (ec) {
            std::cerr << "syncscope: error: " << dir << ": " << ec.message() << "\n";
            return ExitBadInput;
        }
        for (; it != end; it.increment(ec)) {
            if (ec) {
                diags.push_back({"warning", "hang.unreadable_dir", dir + ": " + ec.message(), dir});
                break;
            }
            std::error_code e2;
            if (it->is_regular_file(e2))
                files.push_back(it->path().string());
        }
    }
    std::sort(files.begin(), files.end());

    std::vector<FrDump> dumps;
    std::set<int64_t> haveRank, failedRanks;
    nlohmann::json read = nlohmann::json::array(), refused = nlohmann::json::array();
    auto refuse = [&](const std::string &file, const std::string &reason, const char *severity, const char *code) {
        refused.push_back({{"file", file}, {"reason", reason}});
        diags.push_back({severity, code, reason, file});
    };
    // Read on every core (the reading, not the analysis, dominates at scale), then taken in
    // path order so the result does not depend on the threads.
    const auto t0 = std::chrono::steady_clock::now();
    struct Loaded {
        bool dumpLike = false, ok = false;
        FrDump dump;
        std::string error;
    };
    std::vector<Loaded> loaded(files.size());
    {
        std::atomic<size_t> next{0};
        auto work = [&] {
            for (size_t i; (i = next.fetch_add(1)) < files.size();) {
                Loaded &l = loaded[i];
                l.dumpLike = looksLikeDump(files[i]);
                if (l.dumpLike)
                    l.ok = readFlightRecorderDump(files[i], l.dump, l.error);
            }
        };
        const unsigned n = std::max(1u, std::min<unsigned>(std::thread::hardware_concurrency(),
                                                           static_cast<unsigned>(std::min<size_t>(files.size(), 64))));
        std::vector<std::thread> threads;
        for (unsigned t = 1; t < n; ++t)
            threads.emplace_back(work);
        work();
        for (auto &t : threads)
            t.join();
    }
    for (size_t i = 0; i < files.size(); ++i) {
        const std::string &file = files[i];
        const std::string name = fs::path(file).filename().string();
        if (!loaded[i].dumpLike) {
            refuse(file, file + ": skipped, not a flight recorder dump (neither a pickle, JSON nor gzip)", "info",
                   "hang.not_a_dump");
            continue;
        }
        FrDump dump = std::move(loaded[i].dump);
        const std::string error = std::move(loaded[i].error);
        if (!loaded[i].ok) {
            const auto r = rankFromName(name);
            if (r)
                failedRanks.insert(*r);
            refuse(file, file + ": not read: " + error + (r ? " (rank " + std::to_string(*r) + " counts as having no dump)" : ""),
                   "warning", "hang.dump_unreadable");
            continue;
        }
        if (!dump.rank && dump.version.empty() && dump.pgConfig.empty() && dump.entries.empty() && dump.pgStatus.empty()) {
            refuse(file, file + ": skipped, JSON without any flight recorder field", "info", "hang.not_a_dump");
            continue;
        }
        if (!dump.rank)
            dump.rank = rankFromName(name);
        if (!dump.rank) {
            refuse(file, file + ": refused: no rank in the dump nor a number in its file name", "warning",
                   "hang.no_rank");
            continue;
        }
        if (!haveRank.insert(*dump.rank).second) {
            refuse(file, file + ": refused: a second dump of rank " + std::to_string(*dump.rank) + " (the first, in path order, is kept)",
                   "warning", "hang.duplicate_rank");
            continue;
        }
        read.push_back({{"file", file}, {"rank", *dump.rank}, {"format", dump.json ? "json" : "pickle"},
                        {"version", dump.version}, {"entries", dump.entries.size()}});
        dumps.push_back(std::move(dump));
    }

    int64_t worldSize = 0;
    std::set<int64_t> members;
    for (const auto &d : dumps) {
        worldSize = std::max(worldSize, *d.rank + 1);
        for (const auto &pg : d.pgConfig)
            for (int64_t r : pg.ranks)
                if (r >= 0)
                    members.insert(r);
    }
    if (!members.empty())
        worldSize = std::max(worldSize, *members.rbegin() + 1);
    std::vector<int64_t> missing;
    for (int64_t r : members)
        if (!haveRank.count(r))
            missing.push_back(r);
    for (int64_t r : failedRanks)
        if (!haveRank.count(r) && !members.count(r)) {
            missing.push_back(r);
            worldSize = std::max(worldSize, r + 1);
        }
    std::sort(missing.begin(), missing.end());

    loaded.clear();
    const double readSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const auto t1 = std::chrono::steady_clock::now();
    int code = ExitOk;
    HangAnalysis analysis;
    if (dumps.empty()) {
        diags.push_back({"error", "hang.no_dump",
                         dir + ": no readable flight recorder dump (" + std::to_string(files.size()) + " file" +
                             (files.size() == 1 ? "" : "s") + " looked at)",
                         dir});
        code = ExitBadInput;
    } else {
        analysis = analyzeHang(dumps, missing, worldSize);
    }

    const double analysisSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
    if (!reportPath.empty()) {
        nlohmann::json report;
        report["tool"] = "syncscope";
        report["version"] = SYNCSCOPE_VERSION;
        report["mode"] = "flight_recorder";
        report["hang"] = dumps.empty() ? nlohmann::json(nullptr) : hangAnalysisJson(analysis);
        nlohmann::json ranks = nlohmann::json::array();
        for (int64_t r : haveRank)
            ranks.push_back(r);
        report["inputs"] = {{"dir", dir}, {"files", read}, {"ranks", ranks}, {"missing_dumps", missing},
                            {"world_size", worldSize}, {"refused", refused}};
        nlohmann::json dj = nlohmann::json::array();
        for (const auto &d : diags) {
            nlohmann::json j = {{"severity", d.severity}, {"code", d.code}, {"message", d.message}};
            if (!d.file.empty())
                j["file"] = d.file;
            dj.push_back(j);
        }
        report["diagnostics"] = dj;
        report["timing"] = {{"read_s", readSeconds}, {"analysis_s", analysisSeconds}};
        report["exit_code"] = code;
        try {
            writeFileAtomically(reportPath, report.dump(1) + "\n", files);
        } catch (const OutputError &e) {
            std::cerr << "syncscope: error: " << e.what() << "\n";
            code = std::max<int>(code, ExitOutput);
        }
    }
    for (const auto &d : diags)
        if (!quiet || d.severity == "error")
            printDiag(d);
    if (!dumps.empty() && !quiet) {
        std::cout << hangSummaryText(analysis);
        for (const auto &w : analysis.warnings)
            std::cerr << "syncscope: warning: " << w << "\n";
        std::cerr << "syncscope: " << dumps.size() << " dump" << (dumps.size() == 1 ? "" : "s") << " read, "
                  << missing.size() << " rank" << (missing.size() == 1 ? "" : "s") << " without one, world size "
                  << worldSize << "\n";
    }
    return code;
}

} // namespace syncscope
