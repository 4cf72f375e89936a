// SPDX-License-Identifier: MIT
#include "kinetoparser.h"

#include "io/bytesource.h"
#include "json/batchparse.h"
#include "json/minify.h"
#include "json/numbers.h"

#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <new>

namespace syncscope {

namespace dom = simdjson::dom;

EventKind classifyCategory(std::string_view cat, char ph)
{
    switch (ph) {
    case 's':
    case 't':
    case 'f':
        return EventKind::Flow;
    case 'M':
        return EventKind::Metadata;
    case 'i':
    case 'I':
        return EventKind::Instant;
    default:
        break;
    }
    // Today's spellings first, then those Kineto wrote before late 2022 (PyTorch
    // 1.8-1.13: Operator, Runtime, Kernel, Memcpy, Memset; "Python" with the early
    // stack tracer): a GPU row is a GPU row whichever release wrote it.
    if (cat == "cpu_op" || cat == "Operator")
        return EventKind::CpuOp;
    if (cat == "user_annotation")
        return EventKind::UserAnnotation;
    if (cat == "cuda_runtime" || cat == "Runtime")
        return EventKind::Runtime;
    if (cat == "kernel" || cat == "Kernel")
        return EventKind::Kernel;
    if (cat == "gpu_memcpy" || cat == "Memcpy")
        return EventKind::Memcpy;
    if (cat == "gpu_memset" || cat == "Memset")
        return EventKind::Memset;
    if (cat == "cuda_sync")
        return EventKind::CudaSync;
    if (cat == "cuda_driver" || cat == "Driver")
        return EventKind::Driver;
    if (cat == "gpu_user_annotation")
        return EventKind::GpuUserAnnotation;
    if (cat == "python_function" || cat == "Python")
        return EventKind::PythonFunction;
    if (cat == "Trace")
        return EventKind::TraceSpan;
    return EventKind::Other;
}

namespace {

// Integer from a JSON number or numeric string (Chakra applies int() to External id).
// Values outside int64 (1e300, 2^64-1) are rejected, never wrapped.
bool toInt(dom::element v, int64_t &out)
{
    switch (v.type()) {
    case dom::element_type::INT64:
        out = v.get_int64().value_unsafe();
        return true;
    case dom::element_type::UINT64:
        return false; // above INT64_MAX (simdjson uses UINT64 only for those)
    case dom::element_type::DOUBLE: {
        const double d = v.get_double().value_unsafe();
        if (!doubleFitsInt64(d))
            return false;
        out = static_cast<int64_t>(d);
        return true;
    }
    case dom::element_type::STRING: {
        std::string_view s = trimJson(v.get_string().value_unsafe());
        auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
        return ec == std::errc() && p == s.data() + s.size();
    }
    default:
        return false;
    }
}

struct TimeValue {
    bool ok = false;
    bool outOfRange = false;
    bool isInteger = false;
    double us = 0;
    int64_t ns = 0;
};

// A time or duration in µs. `outOfRange` is set for numbers whose nanoseconds
// would not fit the range in numbers.h (they are rejected, never wrapped).
TimeValue toTime(dom::element v, bool isDuration)
{
    TimeValue t;
    const double maxUs = static_cast<double>(isDuration ? kMaxDurationNs : kMaxTimeNs) / 1000.0;
    const double minUs = static_cast<double>(isDuration ? -kMaxDurationNs : kMinTimeNs) / 1000.0;
    switch (v.type()) {
    case dom::element_type::INT64: {
        const int64_t i = v.get_int64().value_unsafe();
        if (static_cast<double>(i) > maxUs || static_cast<double>(i) < minUs) {
            t.outOfRange = true;
            return t;
        }
        t.ok = true;
        t.isInteger = true;
        t.us = static_cast<double>(i);
        t.ns = i * 1000;
        return t;
    }
    case dom::element_type::UINT64:
        t.outOfRange = true;
        return t;
    case dom::element_type::DOUBLE:
        t.us = v.get_double().value_unsafe();
        if (!std::isfinite(t.us))
            return t;
        if (t.us > maxUs || t.us < minUs) {
            t.outOfRange = true;
            return t;
        }
        t.ok = true;
        // The DOM keeps no number text; at Kineto's magnitudes the double holds the
        // microseconds to well under a nanosecond (relative ts) or 0.25 us (epoch ts).
        t.ns = std::llround(t.us * 1000.0);
        return t;
    case dom::element_type::STRING: {
        const std::string_view text = v.get_string().value_unsafe();
        const ParsedNumber n = parseJsonNumber(text);
        if (!n.ok || !std::isfinite(n.value))
            return t;
        if (n.value > maxUs || n.value < minUs) {
            t.outOfRange = true;
            return t;
        }
        t.ok = true;
        t.isInteger = n.isInteger;
        t.us = n.value;
        t.ns = microsTextToNanos(text, n.value);
        return t;
    }
    default:
        return t;
    }
}

} // namespace

struct KinetoEventSink::Impl {
    KinetoTrace &trace;
    Diagnostics &diag;
    bool keepRaw;
    dom::parser parser;
    std::vector<int16_t> kindByCat; // cache: cat StrId -> EventKind (or -1 unknown)
    bool haveMin = false;

    Impl(KinetoTrace &t, Diagnostics &d, bool raw) : trace(t), diag(d), keepRaw(raw) {}

    // Duplicate keys behave as in Python's json.load: the last one wins. Each key
    // we read resets what an earlier copy of it set; a repeat is reported once.
    void duplicateKey(std::string_view key)
    {
        diag.warning("kineto.duplicate_key",
                     trace.path + ": an event has the key \"" + std::string(key) +
                         "\" more than once; the last value was used (as Python's json module does)",
                     trace.path);
    }

    void outOfRange(const char *what)
    {
        diag.warning(std::string("kineto.") + what + "_out_of_range",
                     trace.path + ": an event has a \"" + what +
                         "\" outside the supported range (about +/-146 years in ns); it was ignored",
                     trace.path);
    }

    enum ArgBit : uint16_t {
        ArgExternalId = 1, ArgRfId = 2, ArgCorrelation = 4, ArgStream = 8, ArgPgName = 16,
        ArgWaitStream = 32, ArgWaitCorr = 64, ArgDevice = 128, ArgName = 256,
    };

    bool seenArg(uint16_t &seen, uint16_t bit, std::string_view key)
    {
        const bool again = seen & bit;
        if (again)
            duplicateKey(key);
        seen |= bit;
        return again;
    }

    // The collective args of the event being read (its index is events.size()).
    KinetoCommArgs &commArgs()
    {
        const auto index = static_cast<uint32_t>(trace.events.size());
        if (trace.commArgs.empty() || trace.commArgs.back().event != index)
            trace.commArgs.push_back({index});
        return trace.commArgs.back();
    }

    // Collective metadata (job analysis); true when the key was one of them.
    bool readCommArg(std::string_view key, dom::element v)
    {
        int64_t n = 0;
        if (key == "Seq" || key == "seq") {
            if (toInt(v, n))
                commArgs().seq = n;
        } else if (key == "Collective name") {
            if (v.type() == dom::element_type::STRING)
                commArgs().collectiveName = trace.strings.intern(v.get_string().value_unsafe());
        } else if (key == "Process Group Ranks") {
            if (v.type() == dom::element_type::STRING)
                commArgs().groupRanks = trace.strings.intern(v.get_string().value_unsafe());
            else if (v.type() == dom::element_type::ARRAY)
                commArgs().groupRanks = trace.strings.intern(simdjson::minify(v));
        } else if (key == "Dst Rank" || key == "Src Rank") {
            if (toInt(v, n))
                (key[0] == 'S' ? commArgs().srcRank : commArgs().dstRank) = n;
        } else if (key == "In msg nelems" || key == "Out msg nelems" || key == "Group size") {
            if (toInt(v, n) && n >= 0) // sizes from a file: negative ones are ignored
                (key[0] == 'I' ? commArgs().inNelems : key[0] == 'O' ? commArgs().outNelems : commArgs().groupSize) = n;
        } else if (key == "dtype") {
            if (v.type() == dom::element_type::STRING)
                commArgs().dtype = trace.strings.intern(v.get_string().value_unsafe());
        } else {
            return false;
        }
        return true;
    }

    void readArgs(dom::object args, KinetoEvent &ev)
    {
        uint16_t seen = 0;
        for (auto field : args) {
            const std::string_view key = field.key;
            const dom::element v = field.value;
            if (readCommArg(key, v))
                continue;
            if (key.size() < 4)
                continue;
            switch (key[0]) {
            case 'E':
                if (key == "External id") {
                    seenArg(seen, ArgExternalId, key);
                    ev.flags &= ~KinetoEvent::HasExternalId;
                    ev.externalId = -1;
                    if (toInt(v, ev.externalId))
                        ev.flags |= KinetoEvent::HasExternalId;
                    else {
                        ev.externalId = -1;
                        diag.warning("kineto.bad_external_id",
                                     trace.path + ": an \"External id\" is not an integer (or out of range); it was "
                                                  "ignored",
                                     trace.path);
                    }
                }
                break;
            case 'R':
                if (key == "Record function id") {
                    seenArg(seen, ArgRfId, key);
                    ev.flags &= ~KinetoEvent::HasRfId;
                    ev.rfId = 0;
                    if (toInt(v, ev.rfId))
                        ev.flags |= KinetoEvent::HasRfId;
                    else
                        ev.rfId = 0;
                }
                break;
            case 'c':
                if (key == "correlation") {
                    seenArg(seen, ArgCorrelation, key);
                    ev.flags &= ~KinetoEvent::HasCorrelation;
                    if (toInt(v, ev.correlation))
                        ev.flags |= KinetoEvent::HasCorrelation;
                    else
                        ev.correlation = -1;
                }
                break;
            case 's':
                if (key == "stream") {
                    seenArg(seen, ArgStream, key);
                    ev.stream = -1;
                    ev.streamForm = StreamForm::Absent;
                    const auto type = v.type();
                    if (type == dom::element_type::STRING) {
                        std::string_view s = v.get_string().value_unsafe();
                        int64_t parsed = 0;
                        auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), parsed);
                        if (ec == std::errc() && p == s.data() + s.size() && !s.empty()) {
                            ev.stream = parsed;
                            ev.streamForm = StreamForm::Integer;
                        } else {
                            ev.stream = trace.strings.intern(s);
                            ev.streamForm = StreamForm::String;
                        }
                    } else if (toInt(v, ev.stream)) {
                        ev.streamForm = StreamForm::Integer;
                    } else {
                        ev.stream = -1;
                    }
                }
                break;
            case 'P':
                if (key == "Process Group Name") {
                    seenArg(seen, ArgPgName, key);
                    ev.pgName = v.type() == dom::element_type::STRING
                                    ? trace.strings.intern(v.get_string().value_unsafe())
                                    : kNoString;
                }
                break;
            case 'w':
                if (key == "wait_on_stream") {
                    seenArg(seen, ArgWaitStream, key);
                    if (!toInt(v, ev.waitOnStream))
                        ev.waitOnStream = -1;
                } else if (key == "wait_on_cuda_event_record_corr_id") {
                    seenArg(seen, ArgWaitCorr, key);
                    if (!toInt(v, ev.waitOnRecordCorr))
                        ev.waitOnRecordCorr = -1;
                }
                break;
            case 'd':
                if (key == "device") {
                    seenArg(seen, ArgDevice, key);
                    ev.flags &= ~KinetoEvent::HasDevice;
                    if (toInt(v, ev.device))
                        ev.flags |= KinetoEvent::HasDevice;
                    else
                        ev.device = -1;
                }
                break;
            case 'n':
                if (key == "name") {
                    seenArg(seen, ArgName, key);
                    ev.label = v.type() == dom::element_type::STRING
                                   ? trace.strings.intern(v.get_string().value_unsafe())
                                   : kNoString;
                }
                break;
            default:
                break;
            }
        }
    }

    // pid/tid: an integer or a string (then a StrId); a later copy of the key
    // replaces an earlier one entirely, string flag included.
    void readIdField(dom::element v, KinetoEvent &ev, bool isPid)
    {
        if (isPid) {
            ev.pid = 0;
            ev.flags &= ~KinetoEvent::PidIsString;
        } else {
            ev.tid = 0;
            ev.flags &= ~(KinetoEvent::TidIsString | KinetoEvent::HasTid);
        }
        const auto type = v.type();
        int64_t value = 0;
        if (type == dom::element_type::STRING) {
            const StrId id = trace.strings.intern(v.get_string().value_unsafe());
            if (isPid) {
                ev.pid = id;
                ev.flags |= KinetoEvent::PidIsString;
            } else {
                ev.tid = id;
                ev.flags |= KinetoEvent::TidIsString | KinetoEvent::HasTid;
            }
        } else if (toInt(v, value)) {
            if (isPid) {
                ev.pid = value;
            } else {
                ev.tid = value;
                ev.flags |= KinetoEvent::HasTid;
            }
        }
    }

    enum KeyBit : uint16_t {
        KeyPh = 1, KeyPid = 2, KeyCat = 4, KeyName = 8, KeyTs = 16, KeyTid = 32, KeyDur = 64, KeyId = 128,
        KeyBp = 256, KeyArgs = 512,
    };

    void readEvent(dom::object obj, KinetoEvent &ev)
    {
        uint16_t seen = 0;
        auto first = [&](uint16_t bit, std::string_view key) {
            if (seen & bit)
                duplicateKey(key);
            seen |= bit;
        };
        for (auto field : obj) {
            const std::string_view key = field.key;
            const dom::element v = field.value;
            if (key.empty())
                continue;
            switch (key[0]) {
            case 'p':
                if (key == "ph") {
                    first(KeyPh, key);
                    ev.ph = 0;
                    if (v.type() == dom::element_type::STRING) {
                        const std::string_view ph = v.get_string().value_unsafe();
                        ev.ph = ph.empty() ? 0 : ph[0];
                    }
                } else if (key == "pid") {
                    first(KeyPid, key);
                    readIdField(v, ev, true);
                }
                break;
            case 'c':
                if (key == "cat") {
                    first(KeyCat, key);
                    ev.cat = v.type() == dom::element_type::STRING ? trace.strings.intern(v.get_string().value_unsafe())
                                                                   : kNoString;
                }
                break;
            case 'n':
                if (key == "name") {
                    first(KeyName, key);
                    ev.name = v.type() == dom::element_type::STRING
                                  ? trace.strings.intern(v.get_string().value_unsafe())
                                  : kNoString;
                }
                break;
            case 't':
                if (key == "ts") {
                    first(KeyTs, key);
                    ev.flags &= ~(KinetoEvent::HasTs | KinetoEvent::TsIsInteger);
                    ev.ts = 0;
                    ev.tsNs = 0;
                    const TimeValue t = toTime(v, false);
                    if (t.ok) {
                        ev.ts = t.us;
                        ev.tsNs = t.ns;
                        ev.flags |= KinetoEvent::HasTs;
                        if (t.isInteger)
                            ev.flags |= KinetoEvent::TsIsInteger;
                    } else if (t.outOfRange) {
                        outOfRange("ts");
                    } else {
                        diag.warning("kineto.bad_ts", trace.path + ": an event has a \"ts\" that is not a number",
                                     trace.path);
                    }
                } else if (key == "tid") {
                    first(KeyTid, key);
                    readIdField(v, ev, false);
                }
                break;
            case 'd':
                if (key == "dur") {
                    first(KeyDur, key);
                    ev.flags &= ~(KinetoEvent::HasDur | KinetoEvent::DurIsInteger);
                    ev.dur = 0;
                    ev.durNs = 0;
                    const TimeValue t = toTime(v, true);
                    if (t.ok) {
                        ev.dur = t.us;
                        ev.durNs = t.ns;
                        ev.flags |= KinetoEvent::HasDur;
                        if (t.isInteger)
                            ev.flags |= KinetoEvent::DurIsInteger;
                    } else if (t.outOfRange) {
                        outOfRange("dur");
                    } else {
                        diag.warning("kineto.bad_dur", trace.path + ": an event has a \"dur\" that is not a number",
                                     trace.path);
                    }
                }
                break;
            case 'i':
                if (key == "id") {
                    first(KeyId, key);
                    ev.flags &= ~KinetoEvent::HasFlowId;
                    ev.flowId = 0;
                    if (toInt(v, ev.flowId))
                        ev.flags |= KinetoEvent::HasFlowId;
                    else
                        ev.flowId = 0;
                }
                break;
            case 'b':
                if (key == "bp") {
                    first(KeyBp, key);
                    ev.flags &= ~KinetoEvent::FlowBindEnclosing;
                    if (v.type() == dom::element_type::STRING && v.get_string().value_unsafe() == "e")
                        ev.flags |= KinetoEvent::FlowBindEnclosing;
                }
                break;
            case 'a':
                if (key == "args") {
                    const bool again = seen & KeyArgs;
                    first(KeyArgs, key);
                    if (again)
                        resetArgs(ev);
                    if (v.type() == dom::element_type::OBJECT) {
                        ev.flags |= KinetoEvent::HasArgs;
                        readArgs(v.get_object().value_unsafe(), ev);
                    } else {
                        diag.warning("kineto.args_not_object",
                                     trace.path + ": an event has \"args\" that is not an object; it was ignored",
                                     trace.path);
                    }
                }
                break;
            default:
                break;
            }
        }
        ev.kind = kindFor(ev.cat, ev.ph);
    }

    // Forgets what an earlier "args" object of the same event set.
    static void resetArgs(KinetoEvent &ev)
    {
        const KinetoEvent fresh;
        ev.flags &= ~(KinetoEvent::HasArgs | KinetoEvent::HasExternalId | KinetoEvent::HasRfId |
                      KinetoEvent::HasCorrelation | KinetoEvent::HasDevice);
        ev.externalId = fresh.externalId;
        ev.rfId = fresh.rfId;
        ev.correlation = fresh.correlation;
        ev.stream = fresh.stream;
        ev.streamForm = fresh.streamForm;
        ev.pgName = fresh.pgName;
        ev.label = fresh.label;
        ev.waitOnStream = fresh.waitOnStream;
        ev.waitOnRecordCorr = fresh.waitOnRecordCorr;
        ev.device = fresh.device;
    }

    EventKind kindFor(StrId cat, char ph)
    {
        if (ph == 's' || ph == 't' || ph == 'f' || ph == 'M' || ph == 'i' || ph == 'I')
            return classifyCategory(trace.strings.view(cat), ph);
        if (cat >= kindByCat.size())
            kindByCat.resize(cat + 1, -1);
        if (kindByCat[cat] < 0)
            kindByCat[cat] = static_cast<int16_t>(classifyCategory(trace.strings.view(cat), 'X'));
        return static_cast<EventKind>(kindByCat[cat]);
    }

    void note(const KinetoEvent &ev)
    {
        if (!ev.has(KinetoEvent::HasTs)) {
            if (ev.kind != EventKind::Metadata)
                trace.anyMissingTs = true;
            return;
        }
        if (!ev.has(KinetoEvent::TsIsInteger))
            trace.anyFloatTs = true;
        if (ev.kind == EventKind::Metadata)
            return;
        if (ev.durNs < 0)
            diag.warning("kineto.negative_dur",
                         trace.path + ": some events have a negative duration; they are drawn with zero width",
                         trace.path);
        if (!haveMin || ev.tsNs < trace.minTsNs)
            trace.minTsNs = ev.tsNs;
        const int64_t end = ev.tsNs + std::max<int64_t>(ev.durNs, 0);
        if (!haveMin || end > trace.maxEndNs)
            trace.maxEndNs = end;
        haveMin = true;
    }

};

KinetoEventSink::KinetoEventSink(KinetoTrace &trace, Diagnostics &diagnostics, bool keepRaw)
    : d(std::make_unique<Impl>(trace, diagnostics, keepRaw))
{
}

KinetoEventSink::~KinetoEventSink() = default;

void KinetoEventSink::addBatch(const ElementBatch &batch)
{
    const char *json = batch.json.data();
    const auto &spans = batch.spans;
    const uint64_t offset = batch.offset;
    auto &trace = d->trace;
    size_t i = 0;
    const size_t firstEntry = trace.events.size();
    try {
        const dom::element doc = parseBatch(batch, d->parser);
        const dom::array arr = doc.get_array();
        for (dom::element v : arr) {
            KinetoEvent ev;
            if (v.type() == dom::element_type::OBJECT) {
                d->readEvent(v.get_object().value_unsafe(), ev);
            } else {
                d->diag.warning("kineto.event_not_object",
                                trace.path + ": a traceEvents entry is not an object; it was ignored", trace.path,
                                static_cast<int64_t>(offset + spans[i].offset - 1));
            }
            d->note(ev);
            trace.events.push_back(ev);
            if (d->keepRaw)
            {
                uint32_t length = 0;
                const auto handle = appendMinified(trace.rawText, json + spans[i].offset, spans[i].length, length);
                trace.rawSpans.emplace_back(handle, length);
            }
            ++i;
        }
    } catch (const simdjson::simdjson_error &e) {
        if (e.error() == simdjson::MEMALLOC)
            throw std::bad_alloc();
        throw invalidJsonEntry(trace.path, "traceEvents entry", firstEntry, batch, e.what());
    }
}

// distributedInfo.pg_config: [{"pg_name", "pg_desc", "ranks": [...]}, ...]; entries
// without a ranks list or with a non-integer rank are skipped, the counts bounded.
static void readPgConfig(const dom::element &value, std::vector<ProcessGroupConfig> &out)
{
    dom::array groups;
    if (value.get_array().get(groups) != simdjson::SUCCESS)
        return;
    for (dom::element g : groups) {
        if (out.size() >= kMaxPgConfigGroups)
            break;
        dom::object obj;
        if (g.get_object().get(obj) != simdjson::SUCCESS)
            continue;
        ProcessGroupConfig pg;
        bool ranksOk = false;
        for (auto field : obj) {
            const std::string_view k = field.key;
            std::string_view text;
            if ((k == "pg_name" || k == "pg_desc") && field.value.get_string().get(text) == simdjson::SUCCESS)
                (k == "pg_name" ? pg.name : pg.desc) = std::string(text.substr(0, 256));
            else if (k == "ranks") {
                dom::array ranks;
                if (field.value.get_array().get(ranks) != simdjson::SUCCESS)
                    continue;
                ranksOk = true;
                for (dom::element r : ranks) {
                    int64_t n = 0;
                    if (!toInt(r, n) || n < 0 || pg.ranks.size() >= kMaxPgConfigRanks) {
                        ranksOk = false;
                        break;
                    }
                    pg.ranks.push_back(n);
                }
            }
        }
        if (ranksOk)
            out.push_back(std::move(pg));
    }
}

void KinetoEventSink::addTopLevel(const std::string &key, std::string_view raw)
{
    auto &trace = d->trace;
    // A repeated key keeps its first position and takes the last value, as a
    // Python dict built by json.load does (the loader warns about it).
    auto same = std::find_if(trace.topLevel.begin(), trace.topLevel.end(),
                             [&](const auto &kv) { return kv.first == key; });
    if (same != trace.topLevel.end())
        same->second = std::string(raw);
    else
        trace.topLevel.emplace_back(key, std::string(raw));
    try {
        dom::parser p;
        const dom::element doc = p.parse(raw.data(), raw.size(), true);
        int64_t v = 0;
        if (key == "schemaVersion") {
            if (toInt(doc, v))
                trace.schemaVersion = v;
        } else if (key == "baseTimeNanoseconds") {
            if (toInt(doc, v))
                trace.baseTimeNanoseconds = v;
        } else if (key == "distributedInfo") {
            dom::object obj;
            if (doc.get_object().get(obj) == simdjson::SUCCESS) {
                trace.distributed.present = true;
                for (auto field : obj) {
                    const std::string_view k = field.key;
                    const dom::element v = field.value;
                    int64_t n = 0;
                    if (k == "rank" && toInt(v, n))
                        trace.distributed.rank = n;
                    else if (k == "world_size" && toInt(v, n))
                        trace.distributed.worldSize = n;
                    else if (k == "backend" && v.type() == dom::element_type::STRING)
                        trace.distributed.backend = std::string(v.get_string().value_unsafe());
                    else if (k == "pg_config")
                        readPgConfig(v, trace.distributed.groups);
                }
            }
        } else if (key == "deviceProperties") {
            dom::array arr;
            if (doc.get_array().get(arr) == simdjson::SUCCESS)
                trace.deviceCount = static_cast<int>(arr.size());
        }
    } catch (const simdjson::simdjson_error &) {
        d->diag.warning("kineto.bad_metadata", trace.path + ": the top-level \"" + key + "\" value is malformed",
                        trace.path);
    }
}

} // namespace syncscope
