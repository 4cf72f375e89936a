// SPDX-License-Identifier: MIT
#include "hang/hangfolder.h"

#include "hang/frbudget.h"

#include "io/bytesource.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <thread>

namespace syncscope {

namespace fs = std::filesystem;

namespace {

enum class Sniff { Dump, Trace, Other };

// What a file's first bytes say it is. A pickle starts with PROTO (0x80), gzip with 1f 8b
// (inflated for the look); a JSON object is a Kineto trace or an execution trace when its
// first keys are theirs, and a dump otherwise (the reader then decides).
Sniff sniff(const std::string &path, std::string *headOut = nullptr)
{
    std::string localHead;
    std::string &head = headOut ? *headOut : localHead;
    try {
        auto src = openByteSource(path);
        head.resize(4096);
        size_t got = 0;
        while (got < head.size()) {
            const size_t n = src->read(head.data() + got, head.size() - got);
            if (n == 0)
                break;
            got += n;
        }
        head.resize(got);
    } catch (const InputError &) {
        // Unreadable or corrupt gzip: let the reader say why, if it starts like a dump.
        std::ifstream f(path, std::ios::binary);
        char b[2] = {0, 0};
        f.read(b, 2);
        return f.gcount() == 2 && uint8_t(b[0]) == 0x1f && uint8_t(b[1]) == 0x8b ? Sniff::Dump : Sniff::Other;
    }
    size_t i = 0;
    while (i < head.size() && std::isspace(static_cast<unsigned char>(head[i])))
        ++i;
    if (i == 0 && !head.empty() && uint8_t(head[0]) == 0x80)
        return Sniff::Dump;
    if (i >= head.size() || head[i] != '{')
        return Sniff::Other;
    for (const char *key : {"\"traceEvents\"", "\"schemaVersion\"", "\"deviceProperties\"", "\"schema\"", "\"nodes\""})
        if (head.find(key) != std::string::npos)
            return Sniff::Trace;
    return Sniff::Dump;
}

} // namespace

std::optional<int64_t> hangRankFromFileName(const std::string &name)
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
    const int64_t r = std::stoll(name.substr(begin, end - begin));
    return r <= kFrMaxRank ? std::optional<int64_t>(r) : std::nullopt;
}

bool folderHasFlightRecorderDumps(const std::string &dir)
{
    // Decided from each file's first 4 KB (inflated): the GUI asks on its own thread, and
    // reading a whole hostile dump there froze it for minutes (issue 40). A dump's top-level
    // keys come first (pickle: "version"; JSON, keys sorted: "comm_lib_version"/"entries").
    std::error_code ec;
    fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
    for (size_t looked = 0; !ec && it != end && looked < 100000; it.increment(ec), ++looked) {
        std::error_code e2;
        std::string head;
        if (!it->is_regular_file(e2) || sniff(it->path().string(), &head) != Sniff::Dump)
            continue;
        const size_t first = head.find_first_not_of(" \t\r\n");
        const bool json = first != std::string::npos && head[first] == '{'; // else a pickle
        // JSON: a flight recorder key, quoted ("version" alone is in many JSON files).
        static const char *const kJsonKeys[] = {"\"entries\"", "\"pg_config\"", "\"pg_status\"",
                                                "\"comm_lib_version\"", "\"nccl_version\""};
        static const char *const kPickleKeys[] = {"version", "pg_config", "entries", "pg_status"};
        auto found = [&](const char *k) { return head.find(k) != std::string::npos; };
        if (json ? std::any_of(std::begin(kJsonKeys), std::end(kJsonKeys), found)
                 : std::any_of(std::begin(kPickleKeys), std::end(kPickleKeys), found))
            return true;
    }
    return false;
}

bool readHangFolder(const std::string &dir, HangFolder &folder, std::string &error, const HangFolderOptions &options)
{
    folder = HangFolder{};
    folder.dir = dir;
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
        error = dir + (fs::exists(dir, ec) ? ": not a directory (the dumps' folder is expected)" : ": no such directory");
        return false;
    }
    std::vector<std::string> files;
    {
        fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
        if (ec) {
            error = dir + ": " + ec.message();
            return false;
        }
        for (; it != end; it.increment(ec)) {
            if (ec) {
                folder.diags.push_back({"warning", "hang.unreadable_dir", dir + ": " + ec.message(), dir});
                break;
            }
            std::error_code e2;
            if (it->is_regular_file(e2))
                files.push_back(it->path().string());
        }
    }
    std::sort(files.begin(), files.end());

    // Read on every core (the reading, not the analysis, dominates at scale), then taken
    // in path order so the result does not depend on the threads.
    const auto t0 = std::chrono::steady_clock::now();
    struct Loaded {
        Sniff kind = Sniff::Other;
        bool ok = false;
        bool overBudget = false;
        FrDump dump;
        std::string error;
    };
    std::vector<Loaded> loaded(files.size());
    FrRanksCache ranksCache;
    FrMemoryBudget budget(options.memoryBudgetBytes);
    auto read = [&](size_t i) {
        Loaded &l = loaded[i];
        l.overBudget = false;
        // Out of memory in one dump refuses that dump, not the process (issue 40): an
        // exception leaving a thread would abort the CLI and the Python interpreter.
        try {
            l.ok = readFlightRecorderDump(files[i], l.dump, l.error,
                                          FrReadOptions{options.frames, &ranksCache, &budget, &l.overBudget});
        } catch (const std::bad_alloc &) {
            l.dump = FrDump();
            l.ok = false;
            l.error = files[i] + ": byte 0: out of memory while reading it";
        } catch (const std::exception &e) {
            l.dump = FrDump();
            l.ok = false;
            l.error = files[i] + ": byte 0: " + e.what();
        }
    };
    {
        std::atomic<size_t> next{0}, done{0};
        std::mutex progressLock;
        auto cancelled = [&] { return options.cancel && options.cancel->load(std::memory_order_relaxed); };
        auto work = [&] {
            for (size_t i; !cancelled() && (i = next.fetch_add(1)) < files.size();) {
                Loaded &l = loaded[i];
                l.kind = sniff(files[i]);
                if (l.kind == Sniff::Dump)
                    read(i);
                const size_t d = done.fetch_add(1) + 1;
                if (options.progress) {
                    std::lock_guard<std::mutex> lock(progressLock);
                    options.progress(d, files.size());
                }
            }
        };
        const unsigned cores = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
        const unsigned n = std::max(1u, std::min<unsigned>(cores, unsigned(std::min<size_t>(files.size(), 64))));
        std::vector<std::thread> threads;
        for (unsigned t = 1; t < n; ++t)
            threads.emplace_back(work);
        work();
        for (auto &t : threads)
            t.join();
        // A dump that passed the budget while others were read is read again alone: the
        // folder never holds more than the budget, and only a dump that needs more by
        // itself is refused.
        for (size_t i = 0; i < files.size() && !cancelled(); ++i)
            if (loaded[i].overBudget) {
                ++folder.readAlone;
                read(i);
            }
        folder.readPeakBytes = budget.peak();
        if (folder.readAlone > 0)
            folder.diags.push_back({"info", "hang.read_alone",
                                    dir + ": " + std::to_string(folder.readAlone) +
                                        " dumps were read one at a time: alongside the others they would have "
                                        "passed the folder's memory budget of " +
                                        std::to_string(budget.limit() >> 20) + " MiB",
                                    dir});
        if (cancelled()) {
            folder.cancelled = true;
            error = dir + ": reading cancelled";
            return false;
        }
    }

    auto refuse = [&](const std::string &file, const std::string &reason, const char *severity, const char *code) {
        folder.refused.push_back({severity, code, reason, file});
        folder.diags.push_back({severity, code, reason, file});
    };
    std::set<int64_t> haveRank, failedRanks;
    for (size_t i = 0; i < files.size(); ++i) {
        const std::string &file = files[i];
        const std::string name = fs::path(file).filename().string();
        if (loaded[i].kind == Sniff::Trace) {
            refuse(file, file + ": skipped, a Kineto or execution trace, not a flight recorder dump", "info",
                   "hang.trace_file");
            continue;
        }
        if (loaded[i].kind == Sniff::Other) {
            refuse(file, file + ": skipped, not a flight recorder dump (neither a pickle, JSON nor gzip)", "info",
                   "hang.not_a_dump");
            continue;
        }
        FrDump dump = std::move(loaded[i].dump);
        if (!loaded[i].ok) {
            const auto r = hangRankFromFileName(name);
            if (r)
                failedRanks.insert(*r);
            refuse(file,
                   file + ": not read: " + loaded[i].error +
                       (r ? " (rank " + std::to_string(*r) + " counts as having no dump)" : ""),
                   "warning", "hang.dump_unreadable");
            continue;
        }
        if (!dump.rank && dump.version.empty() && dump.pgConfig.empty() && dump.entries.empty() && dump.pgStatus.empty()) {
            refuse(file, file + ": skipped, JSON without any flight recorder field", "info", "hang.not_a_dump");
            continue;
        }
        if (!dump.rank)
            dump.rank = hangRankFromFileName(name);
        if (!dump.rank) {
            refuse(file, file + ": refused: no rank in the dump nor a number in its file name", "warning", "hang.no_rank");
            continue;
        }
        if (*dump.rank < 0 || *dump.rank > kFrMaxRank) {
            refuse(file,
                   file + ": refused: its rank " + std::to_string(*dump.rank) + " is outside 0.." +
                       std::to_string(kFrMaxRank),
                   "warning", "hang.rank_out_of_range");
            continue;
        }
        if (!haveRank.insert(*dump.rank).second) {
            refuse(file,
                   file + ": refused: a second dump of rank " + std::to_string(*dump.rank) +
                       " (the first, in path order, is kept)",
                   "warning", "hang.duplicate_rank");
            continue;
        }
        folder.read.push_back({file, *dump.rank, dump.json, dump.version, dump.entries.size(), dump.writer, dump.commLib});
        folder.dumps.push_back(std::move(dump));
    }
    loaded.clear();

    // Every dump repeats its groups' member lists (the world group's is every rank): a
    // bitmap (at most kFrMaxRank + 1 bytes) keeps this linear.
    std::vector<uint8_t> isMember;
    std::set<int64_t> members;
    std::set<const std::vector<int64_t> *> seenLists;
    size_t outOfRange = 0;
    int64_t firstOutOfRange = 0;
    for (const auto &d : folder.dumps) {
        folder.worldSize = std::max(folder.worldSize, *d.rank + 1);
        for (const auto &pg : d.pgConfig) {
            if (!seenLists.insert(&pg.ranks.get()).second)
                continue; // a list shared through the cache: marked already
            for (int64_t r : pg.ranks) {
                if (r < 0 || r > kFrMaxRank) {
                    if (outOfRange++ == 0)
                        firstOutOfRange = r;
                    continue;
                }
                if (size_t(r) >= isMember.size())
                    isMember.resize(size_t(r) + 1, 0);
                isMember[size_t(r)] = 1;
            }
        }
    }
    if (outOfRange)
        folder.diags.push_back({"warning", "hang.member_out_of_range",
                                dir + ": " + std::to_string(outOfRange) + " pg_config member(s) outside 0.." +
                                    std::to_string(kFrMaxRank) + " left out (first: " +
                                    std::to_string(firstOutOfRange) + ")",
                                dir});
    for (size_t r = 0; r < isMember.size(); ++r)
        if (isMember[r])
            members.insert(members.end(), int64_t(r));
    if (!members.empty())
        folder.worldSize = std::max(folder.worldSize, *members.rbegin() + 1);
    for (int64_t r : members)
        if (!haveRank.count(r))
            folder.missing.push_back(r);
    for (int64_t r : failedRanks)
        if (!haveRank.count(r) && !members.count(r)) {
            folder.missing.push_back(r);
            folder.worldSize = std::max(folder.worldSize, r + 1);
        }
    std::sort(folder.missing.begin(), folder.missing.end());
    folder.ranks.assign(haveRank.begin(), haveRank.end());
    if (folder.dumps.empty())
        folder.diags.push_back({"error", "hang.no_dump",
                                dir + ": no readable flight recorder dump (" + std::to_string(files.size()) + " file" +
                                    (files.size() == 1 ? "" : "s") + " looked at)",
                                dir});
    // What reaches messages and reports is text: file names are bytes, reader errors may quote
    // a dump (issue 40). FrDump::path keeps the bytes (to read a rank again).
    for (auto *list : {&folder.diags, &folder.refused})
        for (HangFolderDiag &d : *list) {
            d.message = frText(d.message);
            d.file = frText(d.file);
        }
    for (HangFolderFile &f : folder.read)
        f.file = frText(f.file);
    folder.files = std::move(files);
    folder.readSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return true;
}

std::string hangFormatsText(const HangFolder &folder)
{
    std::map<std::string, size_t> count;
    for (const FrDump &d : folder.dumps)
        ++count[frFormatText(d)];
    std::vector<std::pair<size_t, std::string>> order;
    for (const auto &[text, n] : count)
        order.emplace_back(n, text);
    std::sort(order.begin(), order.end(), [](const auto &a, const auto &b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
    std::string out;
    for (const auto &[n, text] : order)
        out += (out.empty() ? "" : "; ") + std::to_string(n) + " x " + text;
    return out;
}

} // namespace syncscope
