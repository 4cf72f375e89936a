// SPDX-License-Identifier: MIT
#include "realtraces.h"

#include "hang/hangfolder.h"
#include "job/discovery.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>

namespace fs = std::filesystem;

namespace realtraces {

std::string traceStem(const std::string &fileName)
{
    std::string s = fileName;
    for (const char *suffix : {".gz", ".json"})
        if (s.size() > std::strlen(suffix) && s.compare(s.size() - std::strlen(suffix), std::string::npos, suffix) == 0)
            s.resize(s.size() - std::strlen(suffix));
    // Tokens that say which half of a pair a file is, not which run.
    std::string out, token;
    auto flush = [&](char sep) {
        static const std::set<std::string> roles = {"kineto", "device", "et", "host", "trace", "pt"};
        if (!token.empty() && !roles.count(token))
            out += (out.empty() ? "" : std::string(1, sep)) + token;
        token.clear();
    };
    for (char c : s) {
        if (c == '.' || c == '_' || c == '-')
            flush(c);
        else
            token += c;
    }
    flush('.');
    return out;
}

Corpus discoverCorpus(const std::vector<std::string> &roots)
{
    Corpus corpus;
    for (const std::string &root : roots) {
        std::error_code ec;
        if (!fs::is_directory(root, ec))
            continue;
        std::vector<fs::path> dirs{fs::path(root)};
        for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
             it.increment(ec))
            if (it->is_directory(ec))
                dirs.push_back(it->path());
        std::sort(dirs.begin(), dirs.end());
        for (const fs::path &dir : dirs) {
            if (dir.filename() == "output" || dir.filename() == "LICENSES")
                continue;
            if (syncscope::folderHasFlightRecorderDumps(dir.string())) // (also true above the dumps' folder)
                corpus.hangFolders.push_back(dir.string());
            std::vector<std::string> devices;
            std::map<std::string, std::string> hostByStem;
            std::set<int64_t> ranks;
            std::vector<fs::path> files;
            for (const auto &entry : fs::directory_iterator(dir, ec))
                if (entry.is_regular_file(ec))
                    files.push_back(entry.path());
            std::sort(files.begin(), files.end());
            for (const fs::path &file : files) {
                const std::string name = file.filename().string();
                if (name == "cpa_hta_f4d0062.json") {
                    corpus.htaGoldens.push_back(file.string());
                    continue;
                }
                if (!syncscope::isJsonTraceName(name) || syncscope::isOwnOutputName(name))
                    continue;
                const syncscope::JobTraceFile header = syncscope::readJobTraceHeader(file.string());
                if (!header.readable || header.ownOutput)
                    continue;
                if (header.kind == syncscope::TraceKind::Device) {
                    devices.push_back(file.string());
                    if (header.rank && !header.rankFromName)
                        ranks.insert(*header.rank);
                } else if (header.kind == syncscope::TraceKind::Host && name.find("linked") == std::string::npos) {
                    // An ET+ a linker wrote ("linked") is an output, not a recorded trace.
                    hostByStem.emplace(traceStem(name), file.string());
                }
            }
            std::set<std::string> paired;
            for (const std::string &device : devices) {
                PairCase c;
                c.device = device;
                c.name = fs::relative(device, root, ec).string();
                const auto host = hostByStem.find(traceStem(fs::path(device).filename().string()));
                if (host != hostByStem.end()) {
                    c.host = host->second;
                    paired.insert(host->first);
                }
                corpus.pairs.push_back(c);
            }
            for (const auto &[stem, host] : hostByStem)
                if (!paired.count(stem))
                    corpus.hostOnly.push_back(host);
            if (ranks.size() >= 2 && ranks.size() == devices.size())
                corpus.jobs.push_back(dir.string());
        }
    }
    // A hang case is the innermost folder with dumps: drop the folders above another one.
    std::vector<std::string> leaves;
    for (const std::string &d : corpus.hangFolders) {
        bool above = false;
        for (const std::string &other : corpus.hangFolders)
            above |= other.size() > d.size() && other.compare(0, d.size(), d) == 0 && other[d.size()] == '/';
        if (!above)
            leaves.push_back(d);
    }
    corpus.hangFolders = std::move(leaves);
    return corpus;
}

} // namespace realtraces
