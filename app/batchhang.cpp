// SPDX-License-Identifier: MIT
#include "batchhang.h"

#include "hang/hangfolder.h"
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

void printDiag(const HangFolderDiag &d)
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

    HangFolder folder;
    std::string error;
    HangFolderOptions options;
    options.frames = false; // the report names no frame
    if (!readHangFolder(dir, folder, error, options)) {
        std::cerr << "syncscope: error: " << error << "\n";
        return ExitBadInput;
    }
    const std::vector<FrDump> &dumps = folder.dumps;
    const std::vector<int64_t> &missing = folder.missing;
    const int64_t worldSize = folder.worldSize;
    const double readSeconds = folder.readSeconds;
    const auto t1 = std::chrono::steady_clock::now();
    int code = ExitOk;
    HangAnalysis analysis;
    if (dumps.empty())
        code = ExitBadInput;
    else
        analysis = analyzeHang(dumps, missing, worldSize);

    const double analysisSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
    if (!reportPath.empty()) {
        nlohmann::json report;
        report["tool"] = "syncscope";
        report["version"] = SYNCSCOPE_VERSION;
        report["mode"] = "flight_recorder";
        report["hang"] = dumps.empty() ? nlohmann::json(nullptr) : hangAnalysisJson(analysis);
        nlohmann::json read = nlohmann::json::array(), refused = nlohmann::json::array();
        for (const auto &f : folder.read)
            read.push_back({{"file", f.file}, {"rank", f.rank}, {"format", f.json ? "json" : "pickle"},
                            {"version", f.version}, {"entries", f.entries}, {"writer", f.writer},
                            {"comm_lib", f.commLib}});
        for (const auto &r : folder.refused)
            refused.push_back({{"file", r.file}, {"reason", r.message}});
        report["inputs"] = {{"dir", frText(dir)}, {"files", read}, {"ranks", folder.ranks}, {"missing_dumps", missing},
                            {"world_size", worldSize}, {"refused", refused}, {"formats", hangFormatsText(folder)}};
        nlohmann::json dj = nlohmann::json::array();
        for (const auto &d : folder.diags) {
            nlohmann::json j = {{"severity", d.severity}, {"code", d.code}, {"message", d.message}};
            if (!d.file.empty())
                j["file"] = d.file;
            dj.push_back(j);
        }
        report["diagnostics"] = dj;
        report["timing"] = {{"read_s", readSeconds}, {"analysis_s", analysisSeconds}};
        report["exit_code"] = code;
        try {
            writeFileAtomically(reportPath, report.dump(1) + "\n", folder.files);
        } catch (const OutputError &e) {
            std::cerr << "syncscope: error: " << e.what() << "\n";
            code = std::max<int>(code, ExitOutput);
        }
    }
    for (const auto &d : folder.diags)
        if (!quiet || d.severity == "error")
            printDiag(d);
    if (!dumps.empty() && !quiet) {
        std::cout << hangSummaryText(analysis);
        for (const auto &w : analysis.warnings)
            std::cerr << "syncscope: warning: " << w << "\n";
        std::cerr << "syncscope: " << dumps.size() << " dump" << (dumps.size() == 1 ? "" : "s") << " read, "
                  << missing.size() << " rank" << (missing.size() == 1 ? "" : "s") << " without one, world size "
                  << worldSize << " (" << hangFormatsText(folder) << ")\n";
    }
    return code;
}

} // namespace syncscope
