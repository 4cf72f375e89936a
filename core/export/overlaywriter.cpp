// SPDX-License-Identifier: MIT
#include "overlaywriter.h"

#include "io/bytesource.h"
#include "io/outputfile.h"
#include "json/jsonstream.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace syncscope {

namespace {

// --- a minimal scanner over one event's (valid) JSON text ---

size_t skipWs(std::string_view s, size_t i)
{
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
        ++i;
    return i;
}

size_t skipString(std::string_view s, size_t i) // s[i] == '"'; returns the index after the closing quote
{
    for (++i; i < s.size(); ++i) {
        if (s[i] == '\\')
            ++i;
        else if (s[i] == '"')
            return i + 1;
    }
    return s.size();
}

size_t skipValue(std::string_view s, size_t i)
{
    if (i >= s.size())
        return i;
    if (s[i] == '"')
        return skipString(s, i);
    if (s[i] == '{' || s[i] == '[') {
        int depth = 0;
        while (i < s.size()) {
            const char c = s[i];
            if (c == '"') {
                i = skipString(s, i);
                continue;
            }
            if (c == '{' || c == '[')
                ++depth;
            else if ((c == '}' || c == ']') && --depth == 0)
                return i + 1;
            ++i;
        }
        return i;
    }
    while (i < s.size() && s[i] != ',' && s[i] != '}' && s[i] != ']' && s[i] != ' ' && s[i] != '\n' &&
           s[i] != '\t' && s[i] != '\r')
        ++i;
    return i;
}

struct Member {
    std::string_view key; // raw text between the quotes
    size_t valueStart, valueEnd;
};

// Members of the object starting at s[open] == '{'; `close` receives the index of its '}'.
std::vector<Member> members(std::string_view s, size_t open, size_t &close)
{
    std::vector<Member> out;
    size_t i = skipWs(s, open + 1);
    while (i < s.size() && s[i] == '"') {
        const size_t keyEnd = skipString(s, i);
        const std::string_view key = s.substr(i + 1, keyEnd - i - 2);
        size_t v = skipWs(s, keyEnd);
        v = skipWs(s, v + 1); // past ':'
        const size_t end = skipValue(s, v);
        out.push_back({key, v, end});
        i = skipWs(s, end);
        if (i < s.size() && s[i] == ',')
            i = skipWs(s, i + 1);
    }
    close = i;
    return out;
}

std::string idValue(const KinetoTrace &t, const KinetoEvent &e, bool pid)
{
    const bool isString = pid ? e.has(KinetoEvent::PidIsString) : e.has(KinetoEvent::TidIsString);
    const int64_t v = pid ? e.pid : e.tid;
    if (isString)
        return nlohmann::json(std::string(t.str(static_cast<StrId>(v)))).dump(-1, ' ', false,
                                                                                nlohmann::json::error_handler_t::replace);
    return std::to_string(v);
}

// HTA's flow endpoint time: the raw start, or the raw end pulled back by up to
// 1 µs on GPU rows (args.device >= 0) so the arrow binds inside the slice; truncated.
int64_t flowTs(const KinetoEvent &e, bool isStart)
{
    if (isStart)
        return static_cast<int64_t>(e.ts);
    double end = e.ts + e.dur;
    if (e.has(KinetoEvent::HasDevice) && e.device >= 0)
        end -= std::min(1.0, e.dur);
    return static_cast<int64_t>(end);
}

// The flow pairs to append, in a deterministic order (HTA's order follows hash seeds).
std::vector<std::string> buildFlows(const KinetoTrace &trace, const CriticalPathResult &r, const OverlayOptions &o)
{
    const CpGraph &g = r.graph;
    const bool d731 = o.htaVersion == HtaVersion::D731cc2e;
    std::vector<uint8_t> onPath(static_cast<size_t>(g.edgeCount()), 0);
    for (int32_t e : r.pathEdges)
        onPath[e] = 1;
    std::vector<int32_t> chosen;
    if (o.allEvents && o.showAllEdges) {
        for (int32_t e : g.adjacencyOrder()) {
            const bool zeroLaunch = g.edgeType[e] == CpEdgeType::KernelLaunchDelay && g.edgeWeight[e] == 0;
            if (!zeroLaunch || o.showZeroWeightLaunchEdges)
                chosen.push_back(e);
        }
    } else {
        for (int32_t e : r.pathEdges) { // d731cc2e: all of them (the type filter came with HTA PR #249)
            const CpEdgeType t = g.edgeType[e];
            if (d731 || t == CpEdgeType::Dependency || t == CpEdgeType::KernelLaunchDelay ||
                t == CpEdgeType::SyncDependency)
                chosen.push_back(e);
        }
    }
    std::vector<std::string> flows;
    flows.reserve(chosen.size() * 2);
    int64_t id = 0;
    for (int32_t e : chosen) {
        // Before HTA PR #262 the type string was the flow's cat and args had no type.
        const std::string type = cpEdgeTypeValue(g.edgeType[e]);
        const std::string args = ",\"cat\":\"" + (d731 ? type : std::string("critical_path")) +
                                 "\",\"name\":\"critical_path\",\"args\":{\"weight\":" +
                                 std::to_string(static_cast<int64_t>(g.edgeWeight[e])) + ",\"critical\":" +
                                 (onPath[e] ? "true" : "false") + (d731 ? "}" : ",\"type\":\"" + type + "\"}");
        for (int side = 0; side < 2; ++side) {
            const int32_t node = side == 0 ? g.edgeFrom[e] : g.edgeTo[e];
            const KinetoEvent &ev = trace.events[static_cast<size_t>(g.nodeEvent[node])];
            flows.push_back(std::string("{\"ph\":\"") + (side == 0 ? "s" : "f") + "\",\"id\":" + std::to_string(id) +
                            ",\"pid\":" + idValue(trace, ev, true) + ",\"tid\":" + idValue(trace, ev, false) +
                            ",\"ts\":" + std::to_string(flowTs(ev, g.nodeIsStart[node] != 0)) + args +
                            (side == 1 ? ",\"bp\":\"e\"}" : "}"));
        }
        ++id;
    }
    return flows;
}

class OverlayHandler : public JsonStreamHandler
{
public:
    OverlayHandler(OutputFile &out, const KinetoTrace &trace, const std::vector<uint8_t> &critical,
                   const OverlayOptions &options, std::vector<std::string> flows)
        : m_out(out), m_trace(trace), m_critical(critical), m_options(options), m_flows(std::move(flows))
    {
    }

    bool streamArray(std::string_view key) override { return !m_streamed && (key == "traceEvents" || key.empty()); }

    void topLevelValue(std::string_view key, std::string_view raw) override
    {
        member(key);
        m_out.write(raw);
    }

    void arrayBegin(std::string_view key) override
    {
        m_streamed = true;
        if (!key.empty())
            member(key);
        m_out.write("[");
    }

    void elementBatch(ElementBatch &batch) override
    {
        for (const ElementSpan &span : batch.spans) {
            const std::string_view text(batch.json.data() + span.offset, span.length);
            const size_t index = m_index++;
            if (index >= m_trace.events.size()) {
                m_mismatch = true;
                continue;
            }
            const KinetoEvent &e = m_trace.events[index];
            const bool critical = m_critical[index] != 0;
            if (!m_options.allEvents && e.ph == 'X' && !critical && e.kind != EventKind::UserAnnotation &&
                e.kind != EventKind::PythonFunction)
                continue;
            m_out.write(m_elements++ ? ",\n" : "\n");
            if (critical)
                m_out.write(markEventCritical(text));
            else
                m_out.write(text);
        }
    }

    void arrayEnd(std::string_view) override
    {
        for (const std::string &f : m_flows) {
            m_out.write(std::string_view(m_elements++ ? ",\n" : "\n"));
            m_out.write(f);
        }
        m_out.write("\n]");
    }

    // Closes the document; false when the input does not match the loaded trace.
    bool finish()
    {
        if (m_open)
            m_out.write("\n}\n");
        else
            m_out.write("\n");
        return m_streamed && !m_mismatch && m_index == m_trace.events.size();
    }
    size_t written() const { return m_elements - m_flows.size(); }

private:
    void member(std::string_view key)
    {
        m_out.write(m_open ? ",\n" : "{\n");
        m_open = true;
        m_out.write(nlohmann::json(std::string(key)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
        m_out.write(": ");
    }

    OutputFile &m_out;
    const KinetoTrace &m_trace;
    const std::vector<uint8_t> &m_critical;
    const OverlayOptions &m_options;
    std::vector<std::string> m_flows;
    bool m_open = false, m_streamed = false, m_mismatch = false;
    size_t m_index = 0, m_elements = 0;
};

bool endsWith(const std::string &s, std::string_view suffix)
{
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

} // namespace

std::string markEventCritical(std::string_view s)
{
    const size_t open = skipWs(s, 0);
    if (open >= s.size() || s[open] != '{')
        return std::string(s);
    size_t close = 0;
    const std::vector<Member> top = members(s, open, close);
    const Member *args = nullptr;
    for (const Member &m : top)
        if (m.key == "args")
            args = &m;
    std::string out;
    out.reserve(s.size() + 24);
    if (!args) { // HTA would fail here; give the event an args object
        const size_t at = top.empty() ? close : top.back().valueEnd;
        out.append(s.substr(0, at));
        out.append(top.empty() ? "\"args\":{\"critical\":1}" : ",\"args\":{\"critical\":1}");
        out.append(s.substr(at));
        return out;
    }
    if (s[args->valueStart] != '{') {
        out.append(s.substr(0, args->valueStart));
        out.append("{\"critical\":1}");
        out.append(s.substr(args->valueEnd));
        return out;
    }
    size_t argsClose = 0;
    const std::vector<Member> inner = members(s, args->valueStart, argsClose);
    for (const Member &m : inner) {
        if (m.key == "critical") { // dict assignment keeps the key's position
            out.append(s.substr(0, m.valueStart));
            out.append("1");
            out.append(s.substr(m.valueEnd));
            return out;
        }
    }
    const size_t at = inner.empty() ? argsClose : inner.back().valueEnd; // HTA appends the key
    out.append(s.substr(0, at));
    out.append(inner.empty() ? "\"critical\":1" : ",\"critical\":1");
    out.append(s.substr(at));
    return out;
}

bool writeOverlay(const std::string &outPath, const KinetoTrace &trace, const CriticalPathResult &result,
                  const OverlayOptions &options, Diagnostics &diag, OverlayStats *stats)
{
    if (!result.success) {
        diag.error("export.overlay", "no overlay written: the critical-path analysis failed (" + result.reason + ")",
                   outPath);
        return false;
    }
    std::vector<uint8_t> critical(trace.events.size(), 0);
    for (uint32_t ev : result.criticalEvents)
        critical[ev] = 1;
    try {
        std::vector<std::string> inputs = options.otherInputs;
        inputs.push_back(trace.path);
        OutputFile out(outPath, inputs,
                       endsWith(outPath, ".gz") ? OutputFile::Compression::Gzip : OutputFile::Compression::None);
        std::vector<std::string> flows = buildFlows(trace, result, options);
        const size_t flowPairs = flows.size() / 2;
        OverlayHandler handler(out, trace, critical, options, std::move(flows));
        std::unique_ptr<ByteSource> source = openByteSource(trace.path);
        {
            AsyncJsonStreamHandler async(handler); // scan the input while this thread writes
            streamJson(*source, trace.path, async);
            async.finish();
        }
        if (!handler.finish()) {
            diag.error("export.overlay",
                       trace.path + ": the trace file no longer matches the loaded trace (its traceEvents differ); "
                                    "no overlay written",
                       outPath);
            return false;
        }
        out.commit();
        if (stats) {
            stats->eventsWritten = handler.written();
            stats->criticalEvents = result.criticalEvents.size();
            stats->flowPairs = flowPairs;
        }
        return true;
    } catch (const InputError &e) {
        diag.error("export.overlay", std::string("cannot re-read the trace for the overlay: ") + e.what(), outPath);
    } catch (const std::exception &e) {
        diag.error("export.overlay", std::string("cannot write the overlay: ") + e.what(), outPath);
    }
    return false;
}

} // namespace syncscope
