// SPDX-License-Identifier: MIT
#include "discovery.h"

#include "util/parallel.h"

#include "io/outputfile.h"
#include "parse/traceloader.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sys/stat.h>

namespace syncscope {

namespace fs = std::filesystem;

namespace {

bool endsWith(std::string_view s, std::string_view tail)
{
    return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

std::string lower(std::string_view s)
{
    std::string out(s);
    for (char &c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

std::string rankList(const std::vector<int64_t> &ranks, size_t limit = 20)
{
    std::string s;
    for (size_t i = 0; i < ranks.size() && i < limit; ++i)
        s += (i ? ", " : "") + std::to_string(ranks[i]);
    if (ranks.size() > limit)
        s += ", ... (" + std::to_string(ranks.size()) + " in all)";
    return s;
}

bool isUnder(const fs::path &path, const std::vector<fs::path> &dirs)
{
    for (const auto &d : dirs) {
        auto p = path.begin();
        auto q = d.begin();
        for (; q != d.end() && p != path.end() && *p == *q; ++p, ++q) {
        }
        if (q == d.end())
            return true;
    }
    return false;
}

fs::path normalized(const std::string &p)
{
    std::error_code ec;
    fs::path abs = fs::weakly_canonical(fs::absolute(p, ec), ec);
    return ec ? fs::path(p).lexically_normal() : abs;
}

// A file's identity: device and inode when it can be stat'ed, else its canonical path.
struct FileId {
    dev_t dev = 0;
    ino_t ino = 0;
    std::string path;
    auto operator<=>(const FileId &) const = default;
};

FileId fileId(const std::string &path)
{
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0)
        return {st.st_dev, st.st_ino, {}};
    return {0, 0, normalized(path).string()};
}

// The digits ending at `end` (exclusive) in `s`: their start, or npos when none.
size_t digitsBefore(std::string_view s, size_t end)
{
    size_t b = end;
    while (b > 0 && std::isdigit(static_cast<unsigned char>(s[b - 1])))
        --b;
    return b == end ? std::string_view::npos : b;
}

std::optional<int64_t> smallNumber(std::string_view digits)
{
    if (digits.empty() || digits.size() >= 10)
        return std::nullopt;
    int64_t v = 0;
    for (char c : digits)
        v = v * 10 + (c - '0');
    return v;
}

// The own-output list of a folder (kOutputManifestName), empty when there is none.
std::set<std::string> readManifest(const fs::path &dir)
{
    std::set<std::string> names;
    const fs::path file = dir / kOutputManifestName;
    std::error_code ec;
    if (!fs::is_regular_file(file, ec) || fs::file_size(file, ec) > (16u << 20)) // 16 MiB: ~500k names
        return names;
    std::ifstream in(file, std::ios::binary);
    std::string line;
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        if (!line.empty() && line[0] != '#' && line.find('/') == std::string::npos)
            names.insert(line);
    }
    return names;
}

// Expands the inputs into the candidate files: sorted by path, each file once
// (however it was reached: D and D/., a symlink, a hard link), each folder once.
class Collector
{
public:
    Collector(Diagnostics &diag, const std::vector<std::string> &exclude) : m_diag(diag)
    {
        for (const auto &e : exclude)
            m_exclude.push_back(normalized(e));
    }

    void input(const std::string &path, int depth = 0)
    {
        std::error_code ec;
        const auto st = fs::status(path, ec);
        if (ec || !fs::exists(st)) {
            std::error_code lec;
            const bool dangling = fs::is_symlink(fs::symlink_status(path, lec));
            const std::string why = dangling ? "a symbolic link to a file that does not exist"
                                    : ec && ec != std::errc::no_such_file_or_directory
                                        ? "cannot be reached (" + ec.message() + ")"
                                        : "no such file or directory";
            m_diag.error("job.missing_input", path + ": " + why, path);
        } else if (fs::is_directory(st)) {
            directory(path);
        } else if (isJsonTraceName(fs::path(path).filename().string())) {
            addFile(fs::path(path).lexically_normal().string(), true);
        } else if (depth == 0) {
            listFile(path);
        } else {
            m_diag.error("job.bad_list_entry", path + ": is neither a directory nor a .json/.json.gz trace", path);
        }
    }

    std::vector<std::string> files() const
    {
        std::vector<std::string> out;
        for (const auto &[path, id] : m_files)
            out.push_back(path);
        return out;
    }
    const std::vector<std::string> &ownOutputs() const { return m_own; }

private:
    // Adds a file unless it was seen already (under any name). `given`: named by an input.
    void addFile(const std::string &path, bool given)
    {
        const std::string name = fs::path(path).filename().string();
        if (!given && isOwnOutputName(name)) {
            m_own.push_back(path);
            return;
        }
        if (m_seen.insert(fileId(path)).second)
            m_files.emplace(path, 0);
    }

    void directory(const std::string &root)
    {
        const FileId rootId = fileId(root);
        if (m_visited.count(rootId))
            return; // the same folder given twice (D and D/.), or inside one already searched
        const size_t before = m_files.size(), ownBefore = m_own.size();
        std::vector<fs::path> pending{fs::path(root).lexically_normal()};
        m_visited.insert(rootId);
        while (!pending.empty()) {
            const fs::path dir = pending.back();
            pending.pop_back();
            scan(dir, root, pending);
        }
        if (m_files.size() == before) {
            const size_t own = m_own.size() - ownBefore;
            if (own == 0)
                m_diag.error("job.no_traces", root + ": no .json or .json.gz files were found in this directory", root);
            else
                m_diag.error("job.no_traces",
                             root + ": no traces were found in this directory, only " + std::to_string(own) +
                                 " file(s) Syncscope wrote (skipped)",
                             root);
        }
    }

    void scan(const fs::path &dir, const std::string &root, std::vector<fs::path> &pending)
    {
        std::error_code ec;
        fs::directory_iterator it(dir, ec), end;
        if (ec) {
            const std::string d = dir.string();
            m_diag.error("job.unreadable",
                         d + ": cannot be searched (" + ec.message() + ")" +
                             (d == fs::path(root).lexically_normal().string()
                                  ? std::string()
                                  : "; the traces in it, if any, were not analysed"),
                         d);
            return;
        }
        std::vector<fs::directory_entry> entries;
        for (; it != end; it.increment(ec))
            entries.push_back(*it);
        if (ec)
            m_diag.error("job.unreadable",
                         dir.string() + ": cannot be searched completely (" + ec.message() + ")", dir.string());
        // In name order, sub-folders depth first: which spelling of a file reached
        // twice (through a symlink) is kept does not depend on the file system's order.
        std::sort(entries.begin(), entries.end(),
                  [](const fs::directory_entry &a, const fs::directory_entry &b) { return a.path() < b.path(); });
        const std::set<std::string> manifest = readManifest(dir);
        const bool excluded = !m_exclude.empty() && isUnder(normalized(dir.string()), m_exclude);
        std::vector<fs::path> subdirs;
        for (const fs::directory_entry &entry : entries) {
            const fs::path &p = entry.path();
            const std::string name = p.filename().string();
            std::error_code ec2;
            const bool isLink = entry.is_symlink(ec2);
            if (entry.is_directory(ec2)) { // a symlink to a folder is followed, each folder searched once
                if (!m_exclude.empty() && isUnder(normalized(p.string()), m_exclude))
                    continue; // our own outputs are not inputs
                if (!m_visited.insert(fileId(p.string())).second) {
                    if (isLink)
                        m_diag.info("job.symlink_seen",
                                    p.string() + ": a symbolic link to a folder already searched; not searched twice",
                                    p.string());
                    continue;
                }
                subdirs.push_back(p);
                continue;
            }
            if (!isJsonTraceName(name) || excluded)
                continue;
            if (manifest.count(name)) {
                m_own.push_back(p.string());
                continue;
            }
            addFile(p.string(), false); // a dangling link is added: reading it says what is wrong
        }
        pending.insert(pending.end(), subdirs.rbegin(), subdirs.rend());
    }

    void listFile(const std::string &path)
    {
        std::ifstream in(path);
        if (!in) {
            m_diag.error("job.unreadable", path + ": the list file cannot be read", path);
            return;
        }
        const fs::path base = fs::path(path).parent_path();
        std::string line;
        int entries = 0;
        while (std::getline(in, line)) {
            const auto b = line.find_first_not_of(" \t\r");
            if (b == std::string::npos || line[b] == '#')
                continue;
            const auto e = line.find_last_not_of(" \t\r");
            fs::path entry = line.substr(b, e - b + 1);
            if (entry.is_relative())
                entry = base / entry;
            input(entry.string(), 1);
            ++entries;
        }
        if (entries == 0)
            m_diag.error("job.no_traces", path + ": the list file names no directory or trace", path);
    }

    Diagnostics &m_diag;
    std::vector<fs::path> m_exclude;
    std::map<std::string, int> m_files; // path -> unused: sorted, unique
    std::set<FileId> m_seen;            // files added, by identity
    std::set<FileId> m_visited;         // folders searched, by identity
    std::vector<std::string> m_own;     // files Syncscope wrote (skipped)
};

} // namespace

JobTraceFile readJobTraceHeader(const std::string &path)
{
    JobTraceFile f;
    f.path = path;
    Diagnostics diag;
    LoadOptions opts;
    opts.headOnly = true;
    const LoadedTrace t = loadTrace(path, diag, opts);
    f.kind = t.kind;
    for (const auto &d : diag.items())
        if (d.severity == Severity::Error) {
            f.error = d.message;
            f.readable = d.code == "input.not_a_trace"; // read fine, but not a trace
            break;
        }
    const std::string fileName = fs::path(path).filename().string();
    const std::optional<int64_t> named = rankFromFileName(fileName);
    if (t.device) {
        // distributedInfo after traceEvents is read too (LoadOptions::headOnly).
        const KinetoTrace &k = *t.device;
        if (k.distributed.worldSize) {
            const int64_t w = *k.distributed.worldSize;
            if (w >= 1 && w <= kMaxJobWorldSize)
                f.worldSize = w;
            else
                f.notes.warning("job.bad_world_size",
                                path + ": distributedInfo.world_size " + std::to_string(w) +
                                    " is not a plausible number of ranks (1 to " + std::to_string(kMaxJobWorldSize) +
                                    "); it was ignored",
                                path);
        }
        if (k.distributed.rank) {
            const int64_t r = *k.distributed.rank;
            if (r < 0 || r >= kMaxJobWorldSize) {
                f.rankRefused = true;
                f.notes.error("job.bad_rank",
                              path + ": distributedInfo.rank " + std::to_string(r) + " is not a rank (0 to " +
                                  std::to_string(kMaxJobWorldSize - 1) + "); the trace was not analysed",
                              path);
            } else {
                f.rank = r;
                if (named && *named != r)
                    f.notes.warning("job.rank_name_mismatch",
                                    path + ": its name says rank " + std::to_string(*named) +
                                        " but its distributedInfo.rank is " + std::to_string(r) +
                                        "; the trace's own rank " + std::to_string(r) + " was used",
                                    path);
            }
        }
        for (const auto &e : k.events) {
            if (f.pid < 0 && (e.kind == EventKind::CpuOp || e.kind == EventKind::UserAnnotation ||
                              e.kind == EventKind::Runtime) && !e.has(KinetoEvent::PidIsString))
                f.pid = e.pid;
            if (e.kind != EventKind::Metadata && e.kind != EventKind::Other && std::isfinite(e.ts) && e.ts > 0)
                f.startUs = f.startUs ? std::min(*f.startUs, e.ts) : e.ts;
        }
        if (f.startUs && k.baseTimeNanoseconds && *f.startUs < 1e14) // relative ts: put it on the epoch
            *f.startUs += static_cast<double>(*k.baseTimeNanoseconds) / 1e3;
    }
    if (t.host)
        f.pid = t.host->pid;
    if (!f.rank && !f.rankRefused) {
        f.rank = named;
        f.rankFromName = f.rank.has_value();
    }
    if (f.readable && f.kind == TraceKind::Unknown)
        f.ownOutput = t.writtenBySyncscope;
    return f;
}

namespace {

// Pairs hosts with devices and fills ranks; the heart of discovery.
class Pairer
{
public:
    Pairer(JobDiscovery &job) : m_job(job), m_diag(job.diagnostics) {}

    void run()
    {
        for (const auto &f : m_job.files)
            if (f.kind == TraceKind::Device && f.readable && f.error.empty() && !f.rankRefused)
                addDevice(f); // a refused rank was reported when its header was read
        for (const auto &f : m_job.files)
            if (f.kind == TraceKind::Host && f.readable && f.error.empty())
                addHost(f);
        for (const auto &f : m_job.files)
            if (!f.readable)
                addUnreadable(f);
        for (const auto &[rank, r] : m_ranks)
            m_job.ranks.push_back(r);
        checkWorld();
        checkStarts();
        reportDeviceOnly();
    }

private:
    void addDevice(const JobTraceFile &f)
    {
        if (!f.rank) {
            m_diag.error("job.no_rank",
                         f.path + ": the Kineto trace has no distributedInfo.rank and its name states none "
                                  "(rank-N, rankN, _rank_N, NAME.N.json, NAME_N.pt.trace.json); it was not analysed",
                         f.path);
            return;
        }
        auto [it, fresh] = m_ranks.try_emplace(*f.rank);
        if (!fresh) {
            duplicate(*f.rank, it->second.devicePath, f.path);
            return;
        }
        it->second.rank = *f.rank;
        it->second.devicePath = f.path;
        m_devices[*f.rank] = &f;
    }

    void addHost(const JobTraceFile &f)
    {
        const std::optional<int64_t> named = f.rank; // hosts carry no rank: only their name
        std::vector<int64_t> samePid;
        if (f.pid >= 0)
            for (const auto &[rank, d] : m_devices)
                if (d->pid == f.pid)
                    samePid.push_back(rank);
        std::optional<int64_t> rank;
        if (samePid.size() == 1) {
            rank = samePid.front();
            if (named && *named != *rank)
                m_diag.warning("job.rank_name_mismatch",
                               f.path + ": its name says rank " + std::to_string(*named) + " but its pid " +
                                   std::to_string(f.pid) + " is the one of rank " + std::to_string(*rank) + " (" +
                                   m_devices[*rank]->path + "); it was paired by pid",
                               f.path);
        } else if (named && m_devices.count(*named)) {
            rank = named;
            const JobTraceFile *d = m_devices[*named];
            if (samePid.size() > 1 && std::find(samePid.begin(), samePid.end(), *named) == samePid.end())
                rank.reset();
            else if (f.pid >= 0 && d->pid >= 0 && d->pid != f.pid)
                m_diag.warning("job.pid_mismatch",
                               f.path + ": paired with rank " + std::to_string(*named) + " by its name, but its pid " +
                                   std::to_string(f.pid) + " differs from the device trace's (" +
                                   std::to_string(d->pid) + ", " + d->path + ")",
                               f.path);
        }
        if (!rank && samePid.size() > 1) {
            m_diag.error("job.ambiguous_host",
                         f.path + ": pid " + std::to_string(f.pid) + " matches the device traces of ranks " +
                             rankList(samePid) + " and its name states no rank among them; it was not analysed",
                         f.path);
            return;
        }
        if (!rank) {
            if (named) {
                JobRank &r = m_ranks[*named];
                if (!r.hostPath.empty()) {
                    duplicateHost(*named, r.hostPath, f.path);
                    return;
                }
                r.rank = *named;
                r.hostPath = f.path;
            }
            m_diag.error("job.host_without_device",
                         f.path + ": host execution trace" +
                             (named ? " of rank " + std::to_string(*named) : std::string()) +
                             " without a Kineto device trace (none has its pid " + std::to_string(f.pid) +
                             (named ? " or its rank" : "") + ")" + (named ? "" : "; it was not analysed"),
                         f.path);
            return;
        }
        JobRank &r = m_ranks[*rank];
        if (!r.hostPath.empty()) {
            duplicateHost(*rank, r.hostPath, f.path);
            return;
        }
        r.hostPath = f.path;
    }

    // A file whose header could not be read still makes a row when its name
    // states a rank: that rank's run then fails with the reader's message.
    void addUnreadable(const JobTraceFile &f)
    {
        if (!f.rank) {
            m_diag.error("job.unreadable", f.path + ": cannot be read as a trace (" + f.error + ")", f.path);
            return;
        }
        m_diag.error("job.unreadable",
                     f.path + ": cannot be read as a trace (" + f.error + "); rank " + std::to_string(*f.rank) +
                         " (from the file name) fails",
                     f.path);
        JobRank &r = m_ranks[*f.rank];
        r.rank = *f.rank;
        if (r.devicePath.empty())
            r.devicePath = f.path;
        else if (r.hostPath.empty())
            r.hostPath = f.path;
        else
            duplicate(*f.rank, r.devicePath, f.path);
    }

    void duplicate(int64_t rank, const std::string &kept, const std::string &other)
    {
        m_diag.error("job.duplicate_rank",
                     other + ": claims rank " + std::to_string(rank) + ", as " + kept + " does; only " + kept +
                         " was analysed",
                     other);
    }

    void duplicateHost(int64_t rank, const std::string &kept, const std::string &other)
    {
        m_diag.error("job.duplicate_rank",
                     other + ": a second host execution trace for rank " + std::to_string(rank) + " (after " + kept +
                         "); only " + kept + " was analysed",
                     other);
    }

    void checkWorld()
    {
        std::map<int64_t, std::vector<const JobTraceFile *>> bySize;
        for (const auto &[rank, d] : m_devices)
            if (d->worldSize)
                bySize[*d->worldSize].push_back(d);
        if (bySize.empty())
            return;
        auto most = bySize.begin();
        for (auto it = bySize.begin(); it != bySize.end(); ++it)
            if (it->second.size() > most->second.size())
                most = it;
        m_job.worldSize = most->first;
        for (const auto &[size, files] : bySize)
            if (size != most->first)
                m_diag.error("job.mixed_jobs",
                             files.front()->path + ": world_size " + std::to_string(size) + " (" +
                                 std::to_string(files.size()) + " file(s)) differs from the " +
                                 std::to_string(most->first) + " of " + most->second.front()->path +
                                 " and others; the inputs look like more than one job",
                             files.front()->path);
        const int64_t world = most->first;
        std::vector<int64_t> outside;
        for (const auto &r : m_job.ranks)
            if (r.rank < 0 || r.rank >= world)
                outside.push_back(r.rank);
        if (!outside.empty())
            m_diag.warning("job.rank_out_of_range",
                           "ranks " + rankList(outside) + " are outside the world_size " + std::to_string(world));
        // Ranges between the ranks found: as many as ranks found, whatever world_size says.
        int64_t next = 0;
        for (const auto &[rank, r] : m_ranks) {
            if (rank >= world)
                break;
            if (rank > next)
                m_job.missingRankRanges.push_back({next, rank - 1});
            next = std::max(next, rank + 1);
        }
        if (next < world)
            m_job.missingRankRanges.push_back({next, world - 1});
        for (const RankRange &g : m_job.missingRankRanges)
            m_job.missingRankCount += g.last - g.first + 1;
        if (m_job.missingRankCount > 0)
            m_diag.warning("job.missing_ranks",
                           "world_size is " + std::to_string(world) + " but " +
                               std::to_string(world - m_job.missingRankCount) + " of its ranks were found; missing: " +
                               formatRankRanges(m_job.missingRankRanges) + " (" +
                               std::to_string(m_job.missingRankCount) + " rank(s))");
    }

    // Traces of one job start within minutes of each other; hours apart means two runs.
    void checkStarts()
    {
        std::vector<std::pair<double, const JobTraceFile *>> starts;
        for (const auto &[rank, d] : m_devices)
            if (d->startUs && *d->startUs > 1e14) // epoch-based timestamps only
                starts.emplace_back(*d->startUs, d);
        if (starts.size() < 2)
            return;
        std::sort(starts.begin(), starts.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
        const double median = starts[starts.size() / 2].first;
        constexpr double kHourUs = 3600e6;
        for (const auto &[start, d] : starts)
            if (std::abs(start - median) > kHourUs) {
                char hours[32];
                std::snprintf(hours, sizeof hours, "%.1f", std::abs(start - median) / kHourUs);
                m_diag.error("job.mixed_jobs",
                             d->path + ": rank " + std::to_string(*d->rank) + " starts " + hours + " hours " +
                                 (start < median ? "before" : "after") +
                                 " most ranks; the inputs look like more than one job",
                             d->path);
            }
    }

    void reportDeviceOnly()
    {
        std::vector<int64_t> deviceOnly;
        for (const auto &r : m_job.ranks)
            if (r.hostPath.empty() && !r.devicePath.empty())
                deviceOnly.push_back(r.rank);
        if (!deviceOnly.empty() && deviceOnly.size() < m_job.ranks.size())
            m_diag.warning("job.device_only_ranks",
                           "ranks " + rankList(deviceOnly) +
                               " have no host execution trace: they are analysed device-only (no link)");
        else if (!deviceOnly.empty())
            m_diag.info("job.device_only", "no host execution traces: every rank is analysed device-only");
    }

    JobDiscovery &m_job;
    Diagnostics &m_diag;
    std::map<int64_t, JobRank> m_ranks;
    std::map<int64_t, const JobTraceFile *> m_devices;
};

} // namespace

bool isJsonTraceName(std::string_view name)
{
    const std::string n = lower(name);
    return endsWith(n, ".json") || endsWith(n, ".json.gz");
}

bool isOwnOutputName(std::string_view fileName)
{
    const std::string n = lower(fileName);
    return endsWith(n, ".overlay.json") || endsWith(n, ".overlay.json.gz") || endsWith(n, ".critical_path.json");
}

std::optional<int64_t> rankFromFileName(std::string_view fileName)
{
    std::string name = lower(fileName);
    if (endsWith(name, ".gz"))
        name.resize(name.size() - 3);
    const std::string_view n = name;
    std::optional<int64_t> rank;
    // rank-3, rank3, _rank_3: "rank" not preceded by a letter, then '-' or '_' at most once, then digits.
    for (size_t at = n.find("rank"); at != std::string_view::npos && !rank; at = n.find("rank", at + 1)) {
        if (at > 0 && n[at - 1] >= 'a' && n[at - 1] <= 'z')
            continue;
        size_t b = at + 4;
        if (b < n.size() && (n[b] == '-' || n[b] == '_'))
            ++b;
        size_t e = b;
        while (e < n.size() && std::isdigit(static_cast<unsigned char>(n[e])))
            ++e;
        if (e == b)
            continue;
        rank = smallNumber(n.substr(b, e - b));
        if (!rank)
            break; // the first "rank" with digits decides, as before
    }
    // worker_3.pt.trace.json
    if (!rank && endsWith(n, ".pt.trace.json")) {
        const size_t end = n.size() - std::string_view(".pt.trace.json").size();
        const size_t b = digitsBefore(n, end);
        if (b != std::string_view::npos && b > 0 && n[b - 1] == '_')
            rank = smallNumber(n.substr(b, end - b));
    }
    // trace.3.json
    if (!rank && endsWith(n, ".json")) {
        const size_t end = n.size() - 5;
        const size_t b = digitsBefore(n, end);
        if (b != std::string_view::npos && b > 0 && n[b - 1] == '.')
            rank = smallNumber(n.substr(b, end - b));
    }
    if (rank && *rank >= kMaxJobWorldSize)
        return std::nullopt;
    return rank;
}

std::string formatRankRanges(const std::vector<RankRange> &ranges, size_t limit)
{
    std::string s;
    for (size_t i = 0; i < ranges.size() && i < limit; ++i) {
        s += i ? ", " : "";
        s += std::to_string(ranges[i].first);
        if (ranges[i].last != ranges[i].first) {
            s += '-';
            s += std::to_string(ranges[i].last);
        }
    }
    if (ranges.size() > limit)
        s += ", ... (" + std::to_string(ranges.size()) + " ranges in all)";
    return s;
}

std::string recordOwnOutputs(const std::string &dir, const std::vector<std::string> &fileNames)
{
    const fs::path file = fs::path(dir) / kOutputManifestName;
    std::set<std::string> names = readManifest(dir);
    const size_t before = names.size();
    for (const auto &n : fileNames)
        if (!n.empty() && n.find('/') == std::string::npos && n.find('\n') == std::string::npos)
            names.insert(n);
    std::error_code ec;
    if (names.size() == before && fs::exists(file, ec))
        return {};
    std::string text = "# Files syncscope wrote into this folder (one name per line). `syncscope --job` does not\n"
                       "# take them as traces; delete this file to have them read again.\n";
    for (const auto &n : names)
        text += n + "\n";
    try {
        writeFileAtomically(file.string(), text);
    } catch (const std::exception &e) {
        return e.what();
    }
    return {};
}

JobDiscovery pairJobTraceFiles(std::vector<JobTraceFile> files)
{
    JobDiscovery job;
    job.files = std::move(files);
    size_t notTraces = 0, own = 0;
    for (const auto &f : job.files) {
        job.diagnostics.append(f.notes);
        if (f.readable && f.kind == TraceKind::Unknown) {
            if (f.ownOutput) {
                ++own;
                job.ownOutputs.push_back(f.path);
                job.diagnostics.info("job.own_output",
                                     f.path + ": a report Syncscope wrote, not a trace; skipped", f.path);
                continue;
            }
            ++notTraces;
            job.diagnostics.warning("job.not_a_trace",
                                    f.path + ": is neither a host execution trace nor a Kineto trace; skipped", f.path);
        }
    }
    if (!job.files.empty() && notTraces + own == job.files.size())
        job.diagnostics.error("job.no_traces", "none of the " + std::to_string(notTraces + own) +
                                                   " .json/.json.gz files found is a trace");
    Pairer(job).run();
    return job;
}

JobDiscovery discoverJob(const std::vector<std::string> &inputs, const DiscoveryOptions &options)
{
    Diagnostics collected;
    Collector collector(collected, options.exclude);
    for (const auto &in : inputs)
        collector.input(in);
    const std::vector<std::string> paths = collector.files();
    std::vector<JobTraceFile> files(paths.size());
    parallelFor(paths.size(), options.workers, [&](size_t i) { files[i] = readJobTraceHeader(paths[i]); });
    JobDiscovery job = pairJobTraceFiles(std::move(files));
    // What the search found goes first, then what the headers said.
    Diagnostics all = std::move(collected);
    const std::vector<std::string> &skipped = collector.ownOutputs();
    if (!skipped.empty()) {
        std::map<std::string, size_t> byDir;
        for (const auto &p : skipped)
            ++byDir[fs::path(p).parent_path().string()];
        for (const auto &[dir, n] : byDir)
            all.warning("job.own_output",
                        dir + ": " + std::to_string(n) +
                            " file(s) Syncscope wrote (listed in its " + kOutputManifestName +
                            ", or named *.overlay.json / *.critical_path.json) were skipped, not taken as traces",
                        dir);
        job.ownOutputs.insert(job.ownOutputs.begin(), skipped.begin(), skipped.end());
    }
    all.append(job.diagnostics);
    job.diagnostics = std::move(all);
    return job;
}

} // namespace syncscope
