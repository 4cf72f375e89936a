// SPDX-License-Identifier: MIT
// PyTorch's NCCL flight recorder dumps (TORCH_NCCL_TRACE_BUFFER_SIZE, dumped on timeout or
// on demand), one per rank: what each rank last enqueued, started and completed, per
// process group (issue 29, docs/hang_diagnosis.md). Display-free.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
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

struct FrProcessGroup {
    std::string name, desc;          // pg_config key and its "desc"
    std::vector<int64_t> ranks;      // global ranks, as written
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
};

// Bounds (hostile dumps): nesting, total items, one string's or container's length.
constexpr size_t kFrMaxDepth = 64;
constexpr size_t kFrMaxItems = size_t(1) << 26;
constexpr size_t kFrMaxDumpBytes = size_t(1) << 32;

// Reads one dump, pickle (protocols 2-5, builtin types only: never a global, REDUCE, BUILD,
// INST, OBJ or an extension code) or JSON, decompressed when gzipped. False with `error`
// naming the file and the byte offset of the problem.
bool readFlightRecorderDump(const std::string &path, FrDump &out, std::string &error);
// The same on bytes already read; `name` is what errors call the input.
bool parseFlightRecorderDump(std::string_view bytes, const std::string &name, FrDump &out, std::string &error);

} // namespace syncscope
