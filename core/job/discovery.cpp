// SPDX-License-Identifier: MIT
#include "discovery.h"

#include "parallel.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>

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

// Expands the inputs into the candidate files (sorted, without duplicates).
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
            m_diag.error("job.missing_input", path + ": no such file or directory", path);
        } else if (fs::is_directory(st)) {
            directory(path);
        } else if (isJsonTraceName(fs::path(path).filename().string())) {
            m_files.insert(path);
        } else if (depth == 0) {
            listFile(path);
        } else {
            m_diag.error("job.bad_list_entry", path + ": is neither a directory nor a .json/.json.gz trace", path);
        }
    }

    std::vector<std::string> files() const { return {m_files.begin(), m_files.end()}; }

private:
    void directory(const std::string &dir)
    {
        const size_t before = m_files.size();
        std::error_code ec;
        fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
        if (ec) {
            m_diag.error("job.unreadable", dir + ": cannot be read (" + ec.message() + ")", dir);
            return;
        }
        for (; it != end; it.increment(ec)) {
            if (ec) {
                m_diag.error("job.unreadable", dir + ": cannot be searched completely (" + ec.message() + ")", dir);
                break;
            }
            const fs::path p = it->path();
            std::error_code ec2;
            if (it->is_directory(ec2)) {
                if (!m_exclude.empty() && isUnder(normalized(p.string()), m_exclude))
                    it.disable_recursion_pending(); // our own outputs are not inputs
                continue;
            }
            if (isJsonTraceName(p.filename().string()) && !isUnder(normalized(p.parent_path().string()), m_exclude))
                m_files.insert(p.string());
        }
        if (m_files.size() == before)
            m_diag.error("job.no_traces", dir + ": no .json or .json.gz files were found in this directory", dir);
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
    std::set<std::string> m_files;
};

JobTraceFile readHeader(const std::string &path)
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
    if (t.device) {
        const KinetoTrace &k = *t.device;
        f.rank = k.distributed.rank;
        f.worldSize = k.distributed.worldSize;
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
    if (!f.rank) {
        f.rank = rankFromFileName(fs::path(path).filename().string());
        f.rankFromName = f.rank.has_value();
    }
    return f;
}

// Pairs hosts with devices and fills ranks; the heart of discovery.
class Pairer
{
public:
    Pairer(JobDiscovery &job) : m_job(job), m_diag(job.diagnostics) {}

    void run()
    {
        for (const auto &f : m_job.files)
            if (f.kind == TraceKind::Device && f.readable && f.error.empty())
                addDevice(f);
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
        for (int64_t r = 0; r < world && r < (1 << 24); ++r)
            if (!m_ranks.count(r))
                m_job.missingRanks.push_back(r);
        if (!m_job.missingRanks.empty())
            m_diag.warning("job.missing_ranks",
                           "world_size is " + std::to_string(world) + " but " +
                               std::to_string(world - static_cast<int64_t>(m_job.missingRanks.size())) +
                               " of its ranks were found; missing: " + rankList(m_job.missingRanks));
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

std::optional<int64_t> rankFromFileName(std::string_view fileName)
{
    std::string name = lower(fileName);
    if (endsWith(name, ".gz"))
        name.resize(name.size() - 3);
    static const std::regex patterns[] = {
        std::regex(R"((?:^|[^a-z])rank[-_]?(\d+))"), // rank-3, rank3, _rank_3
        std::regex(R"(_(\d+)\.pt\.trace\.json$)"),   // worker_3.pt.trace.json
        std::regex(R"(\.(\d+)\.json$)"),             // trace.3.json
    };
    std::smatch m;
    for (const auto &re : patterns)
        if (std::regex_search(name, m, re) && m[1].length() < 10)
            return std::stoll(m[1].str());
    return std::nullopt;
}

JobDiscovery discoverJob(const std::vector<std::string> &inputs, const DiscoveryOptions &options)
{
    JobDiscovery job;
    Collector collector(job.diagnostics, options.exclude);
    for (const auto &in : inputs)
        collector.input(in);
    const std::vector<std::string> paths = collector.files();
    job.files.resize(paths.size());
    parallelFor(paths.size(), options.workers, [&](size_t i) { job.files[i] = readHeader(paths[i]); });

    size_t notTraces = 0;
    for (const auto &f : job.files)
        if (f.readable && f.kind == TraceKind::Unknown) {
            ++notTraces;
            job.diagnostics.warning("job.not_a_trace",
                                    f.path + ": is neither a host execution trace nor a Kineto trace; skipped", f.path);
        }
    if (!job.files.empty() && notTraces == job.files.size())
        job.diagnostics.error("job.no_traces", "none of the " + std::to_string(notTraces) +
                                                   " .json/.json.gz files found is a trace");
    Pairer(job).run();
    return job;
}

} // namespace syncscope
