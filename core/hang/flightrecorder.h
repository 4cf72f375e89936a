// SPDX-License-Identifier: MIT
// PyTorch's NCCL flight recorder dumps (TORCH_NCCL_TRACE_BUFFER_SIZE, dumped on timeout or
// on demand), one per rank: what each rank last enqueued, started and completed, per
// process group (issue 29, docs/hang_diagnosis.md). Display-free.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace syncscope {

// One collective or point-to-point operation a rank recorded.
struct FrEntry {
    int64_t recordId = -1;
    std::string pgName;              // process_group[0]: the group's name as in pg_config ("0", "74", ...)
    std::string pgDesc;              // process_group[1]: its description ("default_pg", "EXPERT_MODEL_PARALLEL_GROUP")
    int64_t pgId = -1;               // pg_id
    int64_t collectiveSeqId = -1;    // collective_seq_id (collectives), -1 absent
    int64_t p2pSeqId = -1;           // p2p_seq_id (send/recv), -1 absent
    int64_t opId = -1;               // op_id
    std::string profilingName;       // "nccl:all_reduce", "nccl:send 0->1", ...
    std::vector<std::vector<int64_t>> inputSizes, outputSizes;
    std::vector<std::string> inputDtypes, outputDtypes;
    std::string state;               // "scheduled", "started", "completed" (as written)
    int64_t timeCreatedNs = -1;
    std::optional<int64_t> timeDiscoveredStartedNs, timeDiscoveredCompletedNs;
    std::optional<double> durationMs;
    int64_t timeoutMs = -1;
    bool isP2p = false;
    bool retired = false;
    std::vector<std::string> frames; // "name (file:line)", innermost first, where stacks were recorded
};

// A group's member ranks, immutable and shared: every dump of a job repeats the world
// group's list (10,000 ranks at 10,000 ranks), so dumps read through one FrRanksCache
// hold one vector for equal lists, and comparing them is a pointer compare.
class FrRanks
{
public:
    FrRanks() = default;
    FrRanks(std::vector<int64_t> ranks) : m_v(std::make_shared<const std::vector<int64_t>>(std::move(ranks))) {}
    FrRanks(std::initializer_list<int64_t> ranks) : FrRanks(std::vector<int64_t>(ranks)) {}
    explicit FrRanks(std::shared_ptr<const std::vector<int64_t>> ranks) : m_v(std::move(ranks)) {}
    const std::vector<int64_t> &get() const { return m_v ? *m_v : none(); }
    std::vector<int64_t>::const_iterator begin() const { return get().begin(); }
    std::vector<int64_t>::const_iterator end() const { return get().end(); }
    size_t size() const { return get().size(); }
    bool empty() const { return get().empty(); }
    int64_t operator[](size_t i) const { return get()[i]; }
    bool operator==(const FrRanks &o) const { return m_v == o.m_v || get() == o.get(); }
    bool operator==(const std::vector<int64_t> &o) const { return get() == o; }

private:
    static const std::vector<int64_t> &none()
    {
        static const std::vector<int64_t> none;
        return none;
    }
    std::shared_ptr<const std::vector<int64_t>> m_v;
};

struct FrProcessGroup {
    std::string name, desc;          // pg_config key and its "desc"
    FrRanks ranks;                   // global ranks, as written
};

// Member lists already read, by their text ("[0, 1, ...]"), shared by the readers of a
// folder (thread-safe). Bounded: past kMaxBytes of text, lists are read, not shared.
class FrRanksCache
{
public:
    static constexpr size_t kMaxBytes = size_t(64) << 20;
    // The list for `text` if seen, else parses it with `parse` and keeps it.
    FrRanks get(std::string_view text, const std::function<std::vector<int64_t>()> &parse);

private:
    std::mutex m_lock;
    struct TextHash {
        using is_transparent = void;
        size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
    };
    // Looked up by the text in the dump, not a copy of it (the world's list is 50 KB).
    std::unordered_map<std::string, std::shared_ptr<const std::vector<int64_t>>, TextHash, std::equal_to<>> m_lists;
    size_t m_bytes = 0;
};

struct FrGroupStatus {
    std::string name;
    int64_t lastEnqueued = -1, lastStarted = -1, lastCompleted = -1; // collective seq ids, -1 none
};

struct FrDump {
    std::string path;
    std::string version;             // "2.2", "2.4", ... ("" absent)
    std::optional<int64_t> rank;     // from the dump (else the caller takes it from the file name)
    std::vector<FrProcessGroup> pgConfig;
    std::vector<FrGroupStatus> pgStatus;
    std::vector<FrEntry> entries;    // in record order
    bool json = false;               // read from the JSON form (else a pickle)
    bool frames = true;              // frames were read (FrReadOptions::frames)
    std::string commLib;             // "NCCL 2.27.3" (nccl_version), else comm_lib_version as written
    // Who wrote it: "pytorch" (ProcessGroupNCCL's recorder) or "torchcomms" (its FlightRecorderHook:
    // profiling names "<backend>:<op>" with the group's desc as backend, one collective_seq_id
    // counter for the whole process, renumbered here per group: see seqRenumbered).
    std::string writer = "pytorch";
    // torchcomms: collective_seq_id renumbered 1, 2, ... per group in record order; exact only
    // when the dump holds the process's history from its first entry (record_id 0).
    bool seqRenumbered = false;
    bool seqFromStart = false;
};

// "pickle 2.9, pytorch, NCCL 2.27.3": what a dump is, for reports.
std::string frFormatText(const FrDump &d);

// The highest rank a dump, a file name or a pg_config may name: job mode's bound
// (kMaxJobWorldSize - 1). Larger and negative ranks are refused or left out, with a message.
constexpr int64_t kFrMaxRank = (int64_t(1) << 20) - 1;
// The members of all process groups together that the analysis takes from pg_config (about
// 200 bytes each, 110 in the report): a 100,000-rank job with every rank in 10 groups. Groups
// past it are left out with a warning (400,000 groups of 12,000 ranks took 24 GB, issue 40).
constexpr size_t kFrMaxMemberships = size_t(1) << 20;

// Text read from a dump (names, descs, dtypes, frames, states) is made valid UTF-8 (invalid
// bytes become U+FFFD) and capped at this many bytes, "... (N bytes)" marking a cut.
constexpr size_t kFrMaxTextBytes = 4096;
// The same for any text that reaches a message or a report (file names, reader errors).
std::string frText(std::string_view s);

// Bounds (hostile dumps): nesting, total items, one string's or container's length.
constexpr size_t kFrMaxDepth = 64;
// One dump's values (about 64 bytes each: 1 GiB) and bytes, read or inflated (a real dump of
// 2,000 entries with stacks is a few MB; a 4 MB gzip bomb inflated to 10.5 GB before, per
// reading thread: issue 40).
constexpr size_t kFrMaxItems = size_t(1) << 24;
constexpr size_t kFrMaxDumpBytes = size_t(1) << 28;

// Reads one dump, pickle (protocols 2-5, builtin types only: never a global, REDUCE, BUILD,
// INST, OBJ or an extension code) or JSON, decompressed when gzipped. False with `error`
// naming the file and the byte offset of the problem.
class FrMemoryBudget; // hang/frbudget.h: shared by the threads reading one folder

// The memory a folder's dumps being read at once may hold (HangFolderOptions::memoryBudgetBytes):
// a dump that would pass it alongside others is read again alone; alone, it is refused. A
// pickle of the largest size (kFrMaxDumpBytes) fits; JSON is charged 15 bytes per byte
// (simdjson's document), so a JSON dump of more than about 140 MB does not.
constexpr size_t kFrFolderMemoryBytes = size_t(2) << 30;

struct FrReadOptions {
    // The entries' stack frames: only a view of one rank shows them, and at 10,000 ranks
    // they are most of the memory; readers of whole folders leave them out and read one
    // rank again when its frames are wanted.
    bool frames = true;
    FrRanksCache *ranksCache = nullptr; // share equal member lists across dumps
    FrMemoryBudget *budget = nullptr;   // charged while the dump is read (none: not counted)
    bool *overBudget = nullptr;         // set when the dump was refused for passing `budget`
};
bool readFlightRecorderDump(const std::string &path, FrDump &out, std::string &error, const FrReadOptions &options = {});
// `dump`, read from a folder without its stack frames (FrReadOptions::frames false), read
// again from its file with them; false when the file cannot be read or no longer holds the
// same number of entries (it changed since).
bool rereadWithFrames(const FrDump &dump, FrDump &out);
// The same on bytes already read; `name` is what errors call the input.
bool parseFlightRecorderDump(std::string_view bytes, const std::string &name, FrDump &out, std::string &error,
                             const FrReadOptions &options = {});

} // namespace syncscope
