// SPDX-License-Identifier: MIT
// The device trace (Kineto / Chrome trace JSON) as compact records.
// Events stay in file order: events[i] is traceEvents[i] of the input, so the
// raw index that HTA and the overlay use is simply the vector position.
#pragma once

#include "stringtable.h"
#include "textarena.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace syncscope {

// What an event is, derived once from `cat` (and `ph`).
enum class EventKind : uint8_t {
    Other,
    CpuOp,             // cat cpu_op
    UserAnnotation,    // cat user_annotation (ProfilerStep#N, record_function ranges)
    GpuUserAnnotation, // cat gpu_user_annotation
    PythonFunction,    // cat python_function
    Runtime,           // cat cuda_runtime (also HIP runtime)
    Driver,            // cat cuda_driver
    Kernel,            // cat kernel
    Memcpy,            // cat gpu_memcpy
    Memset,            // cat gpu_memset
    CudaSync,          // cat cuda_sync
    Flow,              // ph s/t/f
    Metadata,          // ph M
    Instant,           // ph i/I
    TraceSpan,         // cat Trace
};

const char *eventKindName(EventKind k);
inline bool isGpuActivity(EventKind k)
{
    return k == EventKind::Kernel || k == EventKind::Memcpy || k == EventKind::Memset;
}
// The flows from a launch to its GPU op: "ac2g", "async_cpu_to_gpu" before late 2022.
inline bool isLaunchFlowCategory(std::string_view cat) { return cat == "ac2g" || cat == "async_cpu_to_gpu"; }
inline bool isCpuSideOp(EventKind k)
{
    return k == EventKind::CpuOp || k == EventKind::UserAnnotation;
}

// How args.stream was written: HTA turns absent and non-numeric values into -1,
// Chakra copies the raw value (null when absent) into ET+ GPU nodes.
enum class StreamForm : uint8_t { Absent, Integer, String };

struct KinetoEvent {
    enum Flag : uint16_t {
        HasTs = 1 << 0,
        HasDur = 1 << 1,
        TsIsInteger = 1 << 2,  // the JSON number had no fraction/exponent
        DurIsInteger = 1 << 3,
        PidIsString = 1 << 4,  // pid holds a StrId
        TidIsString = 1 << 5,  // tid holds a StrId
        HasArgs = 1 << 6,
        HasRfId = 1 << 7,      // args["Record function id"] present
        HasExternalId = 1 << 8,
        HasCorrelation = 1 << 9,
        HasFlowId = 1 << 10,
        FlowBindEnclosing = 1 << 11, // "bp": "e"
        HasTid = 1 << 12,
        HasDevice = 1 << 13,
    };

    StrId name = kNoString;
    StrId cat = kNoString;
    StrId pgName = kNoString;   // args["Process Group Name"]
    StrId label = kNoString;    // args["name"] of ph:M metadata events (lane names)
    EventKind kind = EventKind::Other;
    char ph = 0;
    StreamForm streamForm = StreamForm::Absent;
    uint16_t flags = 0;
    int64_t pid = 0;
    int64_t tid = 0;
    double ts = 0;              // µs exactly as written (IEEE double of the JSON number)
    double dur = 0;             // µs, 0 when absent
    int64_t tsNs = 0;           // exact nanoseconds from the decimal text
    int64_t durNs = 0;
    int64_t correlation = -1;   // args.correlation, -1 when absent
    int64_t externalId = -1;    // args["External id"], -1 when absent
    int64_t rfId = 0;           // args["Record function id"] (see HasRfId)
    int64_t stream = -1;        // args.stream as an integer (-1 absent/non-numeric); StrId for StreamForm::String
    int64_t waitOnStream = -1;  // args.wait_on_stream
    int64_t waitOnRecordCorr = -1; // args.wait_on_cuda_event_record_corr_id
    int64_t device = -1;        // args.device
    int64_t flowId = 0;         // top-level "id" (flows)

    bool has(Flag f) const { return (flags & f) != 0; }
    // A negative duration (warned about at load) ends where it starts: the analyses
    // built on nanoseconds never see an event end before it began. `end()` keeps the
    // value as written, for the outputs that copy the reference tools.
    int64_t endNs() const { return tsNs + (durNs > 0 ? durNs : 0); }
    double end() const { return ts + dur; }
    // HTA's normalised stream: -1 for absent or non-numeric values.
    int64_t htaStream() const { return streamForm == StreamForm::Integer ? stream : -1; }
};

// Collective metadata of a communication event (args "Collective name", "Process
// Group Ranks", "Seq"/"seq", "Src Rank"/"Dst Rank"). Few events carry it, so it is
// kept aside in KinetoTrace::commArgs instead of widening every KinetoEvent.
struct KinetoCommArgs {
    uint32_t event = 0;               // index into KinetoTrace::events
    StrId collectiveName = kNoString; // "allreduce", "send", ...
    StrId groupRanks = kNoString;     // as written, e.g. "[0, 1, 2, 3]"
    int64_t seq = -1;
    int64_t srcRank = -1, dstRank = -1; // "Src Rank" / "Dst Rank" (global ranks): a p2p kernel may carry both
    // The message: "In msg nelems", "Out msg nelems", "Group size", "dtype" (-1 / none absent).
    int64_t inNelems = -1, outNelems = -1, groupSize = -1;
    StrId dtype = kNoString;
};

// One entry of distributedInfo.pg_config (a process group the process created).
struct ProcessGroupConfig {
    std::string name, desc;       // pg_name, pg_desc
    std::vector<int64_t> ranks;   // global ranks, in the order written
};
// At most this many pg_config entries and ranks per entry are kept (bounded input).
constexpr size_t kMaxPgConfigGroups = 4096;
constexpr size_t kMaxPgConfigRanks = size_t(1) << 20;

struct DistributedInfo {
    bool present = false;
    std::optional<int64_t> rank;
    std::optional<int64_t> worldSize;
    std::string backend;
    std::vector<ProcessGroupConfig> groups; // pg_config
};

struct KinetoTrace {
    std::string path;
    uint64_t inputBytes = 0;       // decompressed size
    bool compressed = false;
    bool bareArray = false;
    std::optional<int64_t> schemaVersion;
    std::optional<int64_t> baseTimeNanoseconds;
    DistributedInfo distributed;
    int deviceCount = 0;           // entries of deviceProperties
    StringTable strings;
    std::vector<KinetoEvent> events;
    std::vector<KinetoCommArgs> commArgs; // ascending event index
    // The collective args of event `index`, null when it has none.
    const KinetoCommArgs *commArgsOf(uint32_t index) const;
    // Top-level keys other than traceEvents, in file order, as raw JSON (small).
    std::vector<std::pair<std::string, std::string>> topLevel;
    size_t traceEventsPosition = 0; // index in topLevel before which traceEvents stood
    // Raw minified text of each event (only when loaded with keepRawEvents).
    TextArena rawText;
    std::vector<std::pair<TextArena::Handle, uint32_t>> rawSpans;

    bool anyFloatTs = false;       // some ts had a fraction (HTA's ns-rounding trigger)
    bool anyMissingTs = false;     // some row lacked ts (also triggers rounding in HTA)
    int64_t minTsNs = 0;           // earliest ts over events that have one
    int64_t maxEndNs = 0;

    std::string_view str(StrId id) const { return strings.view(id); }
    std::string_view rawEvent(size_t i) const
    {
        if (i >= rawSpans.size())
            return {};
        return rawText.view(rawSpans[i].first, rawSpans[i].second);
    }
};

} // namespace syncscope
