// SPDX-License-Identifier: MIT
#include "kinetoparser.h"

#include "io/bytesource.h"
#include "json/minify.h"
#include "json/numbers.h"

#include <simdjson.h>

#include <charconv>
#include <cmath>

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
    if (cat == "cpu_op")
        return EventKind::CpuOp;
    if (cat == "user_annotation")
        return EventKind::UserAnnotation;
    if (cat == "cuda_runtime")
        return EventKind::Runtime;
    if (cat == "kernel")
        return EventKind::Kernel;
    if (cat == "gpu_memcpy")
        return EventKind::Memcpy;
    if (cat == "gpu_memset")
        return EventKind::Memset;
    if (cat == "cuda_sync")
        return EventKind::CudaSync;
    if (cat == "cuda_driver")
        return EventKind::Driver;
    if (cat == "gpu_user_annotation")
        return EventKind::GpuUserAnnotation;
    if (cat == "python_function")
        return EventKind::PythonFunction;
    if (cat == "Trace")
        return EventKind::TraceSpan;
    return EventKind::Other;
}

namespace {

// Integer from a JSON number or numeric string (Chakra applies int() to External id).
bool toInt(dom::element v, int64_t &out)
{
    switch (v.type()) {
    case dom::element_type::INT64:
        out = v.get_int64().value_unsafe();
        return true;
    case dom::element_type::UINT64:
        out = static_cast<int64_t>(v.get_uint64().value_unsafe());
        return true;
    case dom::element_type::DOUBLE: {
        const double d = v.get_double().value_unsafe();
        if (!std::isfinite(d))
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
    bool isInteger = false;
    double us = 0;
    int64_t ns = 0;
};

TimeValue toTime(dom::element v)
{
    TimeValue t;
    switch (v.type()) {
    case dom::element_type::INT64:
    case dom::element_type::UINT64: {
        const int64_t i = v.type() == dom::element_type::INT64
                              ? v.get_int64().value_unsafe()
                              : static_cast<int64_t>(v.get_uint64().value_unsafe());
        t.ok = true;
        t.isInteger = true;
        t.us = static_cast<double>(i);
        t.ns = i * 1000;
        return t;
    }
    case dom::element_type::DOUBLE:
        t.us = v.get_double().value_unsafe();
        if (!std::isfinite(t.us))
            return t;
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
                commArgs().peer = n;
        } else {
            return false;
        }
        return true;
    }

    void readArgs(dom::object args, KinetoEvent &ev)
    {
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
                    if (toInt(v, ev.externalId))
                        ev.flags |= KinetoEvent::HasExternalId;
                    else
                        diag.warning("kineto.bad_external_id",
                                     trace.path + ": an \"External id\" is not an integer; it was ignored",
                                     trace.path);
                }
                break;
            case 'R':
                if (key == "Record function id" && toInt(v, ev.rfId))
                    ev.flags |= KinetoEvent::HasRfId;
                break;
            case 'c':
                if (key == "correlation" && toInt(v, ev.correlation))
                    ev.flags |= KinetoEvent::HasCorrelation;
                break;
            case 's':
                if (key == "stream") {
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
                    }
                }
                break;
            case 'P':
                if (key == "Process Group Name" && v.type() == dom::element_type::STRING)
                    ev.pgName = trace.strings.intern(v.get_string().value_unsafe());
                break;
            case 'w':
                if (key == "wait_on_stream")
                    toInt(v, ev.waitOnStream);
                else if (key == "wait_on_cuda_event_record_corr_id")
                    toInt(v, ev.waitOnRecordCorr);
                break;
            case 'd':
                if (key == "device" && toInt(v, ev.device))
                    ev.flags |= KinetoEvent::HasDevice;
                break;
            case 'n':
                if (key == "name" && v.type() == dom::element_type::STRING)
                    ev.label = trace.strings.intern(v.get_string().value_unsafe());
                break;
            default:
                break;
            }
        }
    }

    void readIdField(dom::element v, KinetoEvent &ev, StrId &pidOrTid, bool isPid)
    {
        const auto type = v.type();
        int64_t value = 0;
        if (type == dom::element_type::STRING) {
            pidOrTid = trace.strings.intern(v.get_string().value_unsafe());
            if (isPid) {
                ev.pid = pidOrTid;
                ev.flags |= KinetoEvent::PidIsString;
            } else {
                ev.tid = pidOrTid;
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

    void readEvent(dom::object obj, KinetoEvent &ev)
    {
        StrId scratch = 0;
        for (auto field : obj) {
            const std::string_view key = field.key;
            const dom::element v = field.value;
            if (key.empty())
                continue;
            switch (key[0]) {
            case 'p':
                if (key == "ph") {
                    if (v.type() == dom::element_type::STRING) {
                        const std::string_view ph = v.get_string().value_unsafe();
                        ev.ph = ph.empty() ? 0 : ph[0];
                    }
                } else if (key == "pid") {
                    readIdField(v, ev, scratch, true);
                }
                break;
            case 'c':
                if (key == "cat" && v.type() == dom::element_type::STRING)
                    ev.cat = trace.strings.intern(v.get_string().value_unsafe());
                break;
            case 'n':
                if (key == "name" && v.type() == dom::element_type::STRING)
                    ev.name = trace.strings.intern(v.get_string().value_unsafe());
                break;
            case 't':
                if (key == "ts") {
                    const TimeValue t = toTime(v);
                    if (t.ok) {
                        ev.ts = t.us;
                        ev.tsNs = t.ns;
                        ev.flags |= KinetoEvent::HasTs;
                        if (t.isInteger)
                            ev.flags |= KinetoEvent::TsIsInteger;
                    } else {
                        diag.warning("kineto.bad_ts", trace.path + ": an event has a \"ts\" that is not a number",
                                     trace.path);
                    }
                } else if (key == "tid") {
                    readIdField(v, ev, scratch, false);
                }
                break;
            case 'd':
                if (key == "dur") {
                    const TimeValue t = toTime(v);
                    if (t.ok) {
                        ev.dur = t.us;
                        ev.durNs = t.ns;
                        ev.flags |= KinetoEvent::HasDur;
                        if (t.isInteger)
                            ev.flags |= KinetoEvent::DurIsInteger;
                    } else {
                        diag.warning("kineto.bad_dur", trace.path + ": an event has a \"dur\" that is not a number",
                                     trace.path);
                    }
                }
                break;
            case 'i':
                if (key == "id" && toInt(v, ev.flowId))
                    ev.flags |= KinetoEvent::HasFlowId;
                break;
            case 'b':
                if (key == "bp" && v.type() == dom::element_type::STRING && v.get_string().value_unsafe() == "e")
                    ev.flags |= KinetoEvent::FlowBindEnclosing;
                break;
            case 'a':
                if (key == "args") {
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
    try {
        const dom::element doc = d->parser.parse(json, batch.length, false);
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
        throw invalidJsonEntry(trace.path, "traceEvents entry", trace.events.size(), batch, i, e.what());
    }
}

void KinetoEventSink::addTopLevel(const std::string &key, std::string_view raw)
{
    auto &trace = d->trace;
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
