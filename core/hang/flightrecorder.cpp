// SPDX-License-Identifier: MIT
// The dump's shape (torch/csrc/distributed/c10d/FlightRecorder*.{hpp,cpp}, version
// "2.x"): a dict {"version", "pg_config", "pg_status", "entries", "nccl_comm_state" /
// "comm_lib_version", ...}. Pickled by torch::jit::Pickler (tag_aggregates off, so
// builtin data only), or written as JSON by dump_json, where pg_status's numbers are
// strings and an absent time_discovered_* is 0 instead of None.
#include "hang/flightrecorder.h"

#include "hang/frpickle.h"
#include "json/utf8.h"

#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string_view>
#include <unordered_map>

namespace syncscope {

FrRanks FrRanksCache::get(std::string_view text, const std::function<std::vector<int64_t>()> &parse)
{
    {
        std::lock_guard<std::mutex> lock(m_lock);
        if (const auto it = m_lists.find(text); it != m_lists.end())
            return FrRanks(it->second);
    }
    auto list = std::make_shared<const std::vector<int64_t>>(parse());
    std::lock_guard<std::mutex> lock(m_lock);
    if (m_bytes + text.size() <= kMaxBytes) {
        const auto [it, added] = m_lists.emplace(std::string(text), list);
        if (added)
            m_bytes += text.size();
        return FrRanks(it->second);
    }
    return FrRanks(list);
}

namespace {

using K = FrValue::Kind;

// Work done converting the tree: the memo can make one value appear many times,
// so the output is bounded by the input's size, not by the tree's.
struct Converter {
    explicit Converter(size_t valueBudget) : budget(valueBudget) {}
    size_t budget;
    size_t used = 0;
    bool json = false;
    bool withFrames = true;
    FrRanksCache *cache = nullptr;
    std::unordered_map<const FrValue *, FrRanks> seenRanks; // long member texts read, by value
    bool over = false;

    // A dict lookup scans the dict: charged by its size, so a huge dict shared by
    // many entries through the memo cannot make the conversion quadratic.
    const FrValue *look(const FrValue *d, std::string_view key)
    {
        if (!d || !spend(1 + d->items.size() / 16))
            return nullptr;
        return d->get(key);
    }

    bool spend(size_t n = 1)
    {
        used += n;
        if (used > budget)
            over = true;
        return !over;
    }

    static bool asInt(const FrValue *v, int64_t &out)
    {
        if (!v)
            return false;
        switch (v->kind) {
        case K::Int: out = v->i; return true;
        case K::Bool: out = v->b ? 1 : 0; return true;
        case K::Float:
            if (!std::isfinite(v->f) || std::fabs(v->f) > 9.2e18)
                return false;
            out = int64_t(v->f);
            return true;
        case K::String: { // the JSON form writes pg_status's numbers as strings
            const std::string_view s = v->s;
            if (s.empty() || s.size() > 20)
                return false;
            size_t k = s[0] == '-' ? 1 : 0;
            if (k == s.size())
                return false;
            int64_t r = 0;
            for (; k < s.size(); ++k) {
                if (s[k] < '0' || s[k] > '9' || r > (INT64_MAX - 9) / 10)
                    return false;
                r = r * 10 + (s[k] - '0');
            }
            out = s[0] == '-' ? -r : r;
            return true;
        }
        default: return false;
        }
    }
    bool asString(const FrValue *v, std::string &out)
    {
        if (!v)
            return false;
        if (v->kind == K::String || v->kind == K::Bytes) {
            // Copies count against the budget: one long string shared by every entry
            // through the memo would otherwise be copied unbounded (issue 40).
            spend(1 + std::min(v->s.size(), kFrMaxTextBytes) / 64);
            out = frText(v->s);
            return true;
        }
        if (v->kind == K::Int) {
            out = std::to_string(v->i);
            return true;
        }
        return false;
    }
    void setInt(const FrValue *d, const char *key, int64_t &out)
    {
        int64_t v;
        if (spend() && asInt(look(d, key), v))
            out = v;
    }
    void setString(const FrValue *d, const char *key, std::string &out)
    {
        const FrValue *v = look(d, key);
        if (v && spend(1 + v->s.size() / 64))
            asString(v, out);
    }
    void setBool(const FrValue *d, const char *key, bool &out)
    {
        const FrValue *v = look(d, key);
        if (v && spend() && (v->kind == K::Bool || v->kind == K::Int))
            out = v->kind == K::Bool ? v->b : v->i != 0;
    }
    // time_discovered_*: None (pickle) or 0 (JSON) when it did not happen.
    void setTime(const FrValue *d, const char *key, std::optional<int64_t> &out)
    {
        int64_t v;
        if (spend() && asInt(look(d, key), v) && !(json && v == 0))
            out = v;
    }
    void strings(const FrValue *v, std::vector<std::string> &out)
    {
        if (!v || !v->isSequence())
            return;
        for (const FrValue *x : v->items) {
            std::string s;
            if (!spend(1 + x->s.size() / 64))
                return;
            if (asString(x, s))
                out.push_back(std::move(s));
        }
    }
    void sizes(const FrValue *v, std::vector<std::vector<int64_t>> &out)
    {
        if (!v || !v->isSequence())
            return;
        for (const FrValue *x : v->items) {
            if (!spend())
                return;
            std::vector<int64_t> dims;
            if (x->isSequence()) {
                for (const FrValue *d : x->items) {
                    int64_t n;
                    if (!spend())
                        return;
                    if (asInt(d, n))
                        dims.push_back(n);
                }
            }
            out.push_back(std::move(dims));
        }
    }
    // "[0, 1]" (ranks_str), "0,1", or a list of ints; long texts through the cache.
    void ranks(const FrValue *v, FrRanks &out)
    {
        if (v && v->kind == K::String && cache && v->s.size() >= 256) {
            // One text shared by many groups through the memo is hashed once (400,000
            // groups sharing one took a minute, issue 40); hashing is charged by its bytes.
            if (const auto seen = seenRanks.find(v); seen != seenRanks.end()) {
                if (spend())
                    out = seen->second;
                return;
            }
            if (!spend(1 + v->s.size() / 64))
                return;
            out = cache->get(v->s, [&] {
                std::vector<int64_t> r;
                parseRanks(v, r);
                return r;
            });
            seenRanks.emplace(v, out);
            return;
        }
        std::vector<int64_t> r;
        parseRanks(v, r);
        out = FrRanks(std::move(r));
    }
    void parseRanks(const FrValue *v, std::vector<int64_t> &out)
    {
        if (!v)
            return;
        if (v->isSequence() || v->kind == K::Set) {
            for (const FrValue *x : v->items) {
                int64_t r;
                if (!spend())
                    return;
                if (asInt(x, r))
                    out.push_back(r);
            }
            return;
        }
        if (v->kind != K::String)
            return;
        const std::string_view s = v->s;
        for (size_t k = 0; k < s.size();) {
            if (s[k] >= '0' && s[k] <= '9') {
                const bool negative = k > 0 && s[k - 1] == '-'; // kept negative: the folder leaves it out
                int64_t r = 0;
                bool overflow = false;
                while (k < s.size() && s[k] >= '0' && s[k] <= '9') {
                    overflow |= r > (INT64_MAX - 9) / 10;
                    if (!overflow)
                        r = r * 10 + (s[k] - '0');
                    ++k;
                }
                if (!spend())
                    return;
                if (!overflow)
                    out.push_back(negative ? -r : r);
            } else {
                ++k;
            }
        }
    }

    FrEntry entry(const FrValue *d)
    {
        FrEntry e;
        setInt(d, "record_id", e.recordId);
        setInt(d, "pg_id", e.pgId);
        if (const FrValue *pg = look(d, "process_group"); pg && pg->isSequence() && spend()) {
            if (pg->items.size() >= 1)
                asString(pg->items[0], e.pgName);
            if (pg->items.size() >= 2)
                asString(pg->items[1], e.pgDesc);
        }
        setInt(d, "collective_seq_id", e.collectiveSeqId);
        setInt(d, "p2p_seq_id", e.p2pSeqId);
        setInt(d, "op_id", e.opId);
        setString(d, "profiling_name", e.profilingName);
        setInt(d, "time_created_ns", e.timeCreatedNs);
        sizes(look(d, "input_sizes"), e.inputSizes);
        sizes(look(d, "output_sizes"), e.outputSizes);
        strings(look(d, "input_dtypes"), e.inputDtypes);
        strings(look(d, "output_dtypes"), e.outputDtypes);
        setString(d, "state", e.state);
        setTime(d, "time_discovered_started_ns", e.timeDiscoveredStartedNs);
        setTime(d, "time_discovered_completed_ns", e.timeDiscoveredCompletedNs);
        if (const FrValue *v = look(d, "duration_ms"); v && spend()) {
            if (v->kind == K::Float && std::isfinite(v->f))
                e.durationMs = v->f;
            else if (v->kind == K::Int)
                e.durationMs = double(v->i);
        }
        setInt(d, "timeout_ms", e.timeoutMs);
        setBool(d, "is_p2p", e.isP2p);
        setBool(d, "retired", e.retired);
        if (const FrValue *frames = withFrames ? look(d, "frames") : nullptr; frames && frames->isSequence()) {
            for (const FrValue *f : frames->items) {
                if (!spend() || f->kind != K::Dict)
                    continue;
                std::string name, file;
                int64_t line = -1;
                const FrValue *n = look(f, "name"), *fn = look(f, "filename");
                if (!spend(2 + (n ? n->s.size() / 64 : 0) + (fn ? fn->s.size() / 64 : 0)))
                    break;
                asString(n, name);
                asString(fn, file);
                asInt(look(f, "line"), line);
                std::string text = name.empty() ? "?" : name;
                if (!file.empty())
                    text += " (" + file + (line >= 0 ? ":" + std::to_string(line) : std::string()) + ")";
                e.frames.push_back(std::move(text));
            }
        }
        return e;
    }

    void dump(const FrValue *root, FrDump &out)
    {
        if (const FrValue *v = look(root, "version"); v && spend()) {
            if (v->kind == K::Float)
                out.version = std::to_string(v->f); // never written so; kept readable
            else
                asString(v, out.version);
        }
        int64_t rank;
        if (asInt(look(root, "rank"), rank))
            out.rank = rank;
        for (const char *key : {"nccl_version", "comm_lib_version"})
            if (const FrValue *v = look(root, key); v && out.commLib.empty() && spend()) {
                asString(v, out.commLib);
                if (!out.commLib.empty() && key[0] == 'n')
                    out.commLib = "NCCL " + out.commLib;
            }
        if (const FrValue *cfg = look(root, "pg_config"); cfg && cfg->kind == K::Dict) {
            for (size_t k = 0; k + 1 < cfg->items.size() && spend(); k += 2) {
                const FrValue *info = cfg->items[k + 1];
                FrProcessGroup g;
                asString(cfg->items[k], g.name);
                if (info->kind == K::Dict) {
                    setString(info, "name", g.name);
                    setString(info, "desc", g.desc);
                    ranks(look(info, "ranks"), g.ranks);
                } else {
                    ranks(info, g.ranks); // older dumps: name -> ranks
                }
                out.pgConfig.push_back(std::move(g));
            }
        }
        if (const FrValue *st = look(root, "pg_status"); st && st->kind == K::Dict) {
            for (size_t k = 0; k + 1 < st->items.size() && spend(); k += 2) {
                const FrValue *s = st->items[k + 1];
                if (s->kind != K::Dict)
                    continue;
                FrGroupStatus g;
                asString(st->items[k], g.name);
                setInt(s, "last_enqueued_collective", g.lastEnqueued);
                setInt(s, "last_started_collective", g.lastStarted);
                setInt(s, "last_completed_collective", g.lastCompleted);
                out.pgStatus.push_back(std::move(g));
            }
        }
        if (const FrValue *es = look(root, "entries"); es && es->isSequence()) {
            out.entries.reserve(std::min<size_t>(es->items.size(), budget / 64));
            for (const FrValue *d : es->items) {
                if (!spend(4))
                    break;
                if (d->kind == K::Dict)
                    out.entries.push_back(entry(d));
            }
        }
    }
};

// Inflates gzip data in memory (several members allowed), at most kFrMaxDumpBytes.
bool gunzip(std::string_view in, std::string &out, std::string &error, FrBudgetShare &share)
{
    z_stream z{};
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
        error = "byte 0: cannot start decompression";
        return false;
    }
    z.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(in.data()));
    z.avail_in = uInt(std::min<size_t>(in.size(), UINT32_MAX));
    size_t fed = z.avail_in;
    char buf[1 << 16];
    bool ok = true;
    while (true) {
        z.next_out = reinterpret_cast<Bytef *>(buf);
        z.avail_out = sizeof buf;
        const int rc = inflate(&z, Z_NO_FLUSH);
        const size_t produced = sizeof buf - z.avail_out;
        if (out.size() + produced > kFrMaxDumpBytes) {
            error = "byte " + std::to_string(fed - z.avail_in) + ": decompresses to more than " +
                    std::to_string(kFrMaxDumpBytes) + " bytes";
            ok = false;
            break;
        }
        const size_t had = out.capacity();
        out.append(buf, produced);
        if (out.capacity() > had)
            share.charge(out.capacity() - had);
        if (z.avail_in == 0 && fed < in.size()) {
            const size_t more = std::min<size_t>(in.size() - fed, UINT32_MAX);
            z.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(in.data() + fed));
            z.avail_in = uInt(more);
            fed += more;
        }
        if (rc == Z_STREAM_END) {
            if (z.avail_in == 0)
                break;
            inflateReset(&z); // another gzip member follows
            continue;
        }
        if (rc == Z_BUF_ERROR) { // no progress: the input ended inside the stream
            error = "byte " + std::to_string(in.size()) + ": truncated gzip data";
            ok = false;
            break;
        }
        if (rc != Z_OK && rc != Z_BUF_ERROR) {
            error = "byte " + std::to_string(fed - z.avail_in) + ": corrupt gzip data (" + (z.msg ? z.msg : "zlib error") + ")";
            ok = false;
            break;
        }
    }
    inflateEnd(&z);
    return ok;
}

} // namespace

namespace {

// torchcomms' recorder (FlightRecorderHook) writes "<backend>:<op>" with the group's desc
// being that backend ("ncclx", "nccl", "gloo"), and numbers collectives once per process:
// its numbers do not line up between the members of a group. Renumbered per group in record
// order, which matches across ranks when every dump starts at the process's first entry.
void renumberTorchcomms(FrDump &d)
{
    if (d.entries.empty())
        return;
    for (const FrEntry &e : d.entries) {
        const std::string_view name = e.profilingName;
        if (e.pgDesc.empty() || name.size() <= e.pgDesc.size() || name.compare(0, e.pgDesc.size(), e.pgDesc) != 0 ||
            name[e.pgDesc.size()] != ':')
            return;
    }
    d.writer = "torchcomms";
    d.seqRenumbered = true;
    d.seqFromStart = d.entries.front().recordId == 0;
    std::unordered_map<std::string, int64_t> next;
    for (FrEntry &e : d.entries)
        e.collectiveSeqId = ++next[e.pgName];
}

} // namespace

namespace {

// The value tree of this thread, counted against a dump's share while it is read.
struct TreeInUse {
    FrTree &tree;
    TreeInUse(FrTree &t, FrBudgetShare &share) : tree(t)
    {
        tree.reset();
        tree.share = &share;
        tree.maxValues = kFrMaxItems;
    }
    ~TreeInUse()
    {
        tree.share = nullptr;
        tree.keepAlive.reset(); // the values are not read after the dump is converted
    }
};

bool parseDump(std::string_view bytes, const std::string &name, FrDump &out, std::string &error,
               const FrReadOptions &options, FrBudgetShare &share);
bool parseDumpCounted(std::string_view bytes, const std::string &name, FrDump &out, std::string &error,
                      const FrReadOptions &options, FrBudgetShare &share);

} // namespace

bool parseFlightRecorderDump(std::string_view bytes, const std::string &name, FrDump &out, std::string &error,
                             const FrReadOptions &options)
{
    FrBudgetShare share(options.budget);
    return parseDump(bytes, name, out, error, options, share);
}

namespace {

// The budget's refusal, or that of too many values, as the reader's error.
bool refusedForMemory(const std::string &name, FrDump &out, std::string &error, const FrReadOptions &options,
                      bool overBudget)
{
    out = FrDump{};
    out.path = name;
    if (overBudget) {
        if (options.overBudget)
            *options.overBudget = true;
        error = name + ": byte 0: reading it needs more than the folder's memory budget of " +
                std::to_string(options.budget ? options.budget->limit() >> 20 : 0) + " MiB";
    } else {
        error = name + ": byte 0: more than " + std::to_string(kFrMaxItems) + " values";
    }
    return false;
}

bool parseDump(std::string_view bytes, const std::string &name, FrDump &out, std::string &error,
               const FrReadOptions &options, FrBudgetShare &share)
{
    try {
        return parseDumpCounted(bytes, name, out, error, options, share);
    } catch (const FrOverBudget &) {
        return refusedForMemory(name, out, error, options, true);
    } catch (const FrTooManyValues &) {
        return refusedForMemory(name, out, error, options, false);
    }
}

bool parseDumpCounted(std::string_view bytes, const std::string &name, FrDump &out, std::string &error,
                      const FrReadOptions &options, FrBudgetShare &share)
{
    out = FrDump{};
    out.path = name;
    std::string inflated;
    const bool gz = bytes.size() >= 2 && uint8_t(bytes[0]) == 0x1f && uint8_t(bytes[1]) == 0x8b;
    if (gz) {
        std::string why;
        if (!gunzip(bytes, inflated, why, share)) {
            error = name + ": " + why + " (gzip)";
            return false;
        }
        bytes = inflated;
    }
    const char *where = gz ? " of the decompressed data" : "";
    auto refuse = [&](const std::string &why) {
        // why = "byte N: ..." -> "<name>: byte N<where>: ..."
        const size_t colon = why.find(':');
        error = name + ": " + (colon == std::string::npos ? why : why.substr(0, colon) + where + why.substr(colon));
        return false;
    };
    if (bytes.empty())
        return refuse("byte 0: empty input, neither a pickle nor JSON");
    if (bytes.size() > kFrMaxDumpBytes)
        return refuse("byte 0: larger than " + std::to_string(kFrMaxDumpBytes) + " bytes");

    size_t first = 0;
    while (first < bytes.size() && (bytes[first] == ' ' || bytes[first] == '\t' || bytes[first] == '\n' || bytes[first] == '\r'))
        ++first;
    thread_local FrTree tree; // reused: its values keep their memory from dump to dump
    const TreeInUse inUse(tree, share);
    std::string why;
    if (uint8_t(bytes[0]) == 0x80) {
        if (!frUnpickle(bytes, tree, why))
            return refuse(why);
    } else if (first < bytes.size() && bytes[first] == '{') {
        out.json = true;
        if (!frParseJson(bytes, tree, why))
            return refuse(why);
    } else {
        return refuse("byte 0: neither a pickle (protocol 2-5, starting 0x80) nor a JSON object");
    }
    if (!tree.root || tree.root->kind != K::Dict)
        return refuse("byte 0: the dump is not a dict");
    Converter c(frItemBudget(bytes.size()));
    c.json = out.json;
    c.withFrames = options.frames;
    c.cache = options.ranksCache;
    out.frames = options.frames;
    c.dump(tree.root, out);
    if (c.over)
        return refuse("byte 0: expands to more than " + std::to_string(c.budget) + " values (shared memo entries)");
    renumberTorchcomms(out);
    return true;
}

} // namespace

std::string frText(std::string_view s)
{
    const bool fits = s.size() <= kFrMaxTextBytes;
    if (fits && std::all_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; }))
        return std::string(s);
    std::string out = validUtf8(s.substr(0, kFrMaxTextBytes));
    if (!fits)
        out += "... (" + std::to_string(s.size()) + " bytes)";
    return out;
}

std::string frFormatText(const FrDump &d)
{
    std::string out = d.json ? "JSON" : "pickle";
    if (!d.version.empty())
        out += " " + d.version;
    out += ", " + d.writer;
    if (!d.commLib.empty())
        out += ", " + d.commLib;
    return out;
}

bool readFlightRecorderDump(const std::string &path, FrDump &out, std::string &error, const FrReadOptions &options)
{
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    if (ec) {
        error = path + ": byte 0: cannot read (" + ec.message() + ")";
        return false;
    }
    if (size > kFrMaxDumpBytes) {
        error = path + ": byte 0: larger than " + std::to_string(kFrMaxDumpBytes) + " bytes";
        return false;
    }
    FrBudgetShare share(options.budget);
    try {
        share.charge(size_t(size));
    } catch (const FrOverBudget &) {
        return refusedForMemory(path, out, error, options, true);
    }
    std::ifstream in(path, std::ios::binary);
    // One buffer per thread, reused by the dumps of a folder (at most 8 MiB kept).
    thread_local std::string bytes;
    bytes.resize(size_t(size));
    const bool ok = in && in.read(bytes.data(), std::streamsize(size));
    const bool parsed = ok && parseDump(std::string_view(bytes.data(), size_t(size)), path, out, error, options, share);
    if (bytes.capacity() > (size_t(8) << 20))
        std::string().swap(bytes);
    if (!ok)
        error = path + ": byte 0: cannot read";
    return parsed;
}

bool rereadWithFrames(const FrDump &dump, FrDump &out)
{
    std::string error;
    return readFlightRecorderDump(dump.path, out, error) && out.entries.size() == dump.entries.size();
}

} // namespace syncscope
