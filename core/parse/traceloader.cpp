// SPDX-License-Identifier: MIT
#include "traceloader.h"

#include "hostparser.h"
#include "io/bytesource.h"
#include "json/jsonstream.h"
#include "kinetoparser.h"

#include <algorithm>
#include <set>

namespace syncscope {

const char *traceKindName(TraceKind k)
{
    switch (k) {
    case TraceKind::Host:
        return "host execution trace";
    case TraceKind::Device:
        return "Kineto device trace";
    case TraceKind::Unknown:
        break;
    }
    return "unknown";
}

namespace {

// The marks Syncscope's own JSON outputs carry at the top level: the pair report opens
// with "syncscope", the job report's "job" holds "syncscope_version", the diff reports
// and critical-path files say "tool": "syncscope". Job discovery skips such files.
bool isOwnOutputMarker(std::string_view key, std::string_view raw)
{
    return key == "syncscope" || (key == "tool" && raw == "\"syncscope\"") ||
           (key == "job" && raw.find("\"syncscope_version\"") != std::string_view::npos);
}

std::string describeJsonValue(std::string_view raw)
{
    if (raw.empty())
        return "empty";
    switch (raw.front()) {
    case '{': return "an object";
    case '"': return "a string";
    case 't':
    case 'f': return "a boolean";
    case 'n': return "null";
    default: return "a number";
    }
}

class DispatchHandler : public JsonStreamHandler
{
public:
    DispatchHandler(const std::string &path, Diagnostics &diag, const LoadOptions &options, ByteSource &source)
        : m_path(path), m_diag(diag), m_options(options), m_source(source)
    {
    }

    bool streamArray(std::string_view key) override
    {
        if (m_result.kind != TraceKind::Unknown)
            return false;
        if (key == "traceEvents" || key.empty()) {
            noteKey(key);
            becomeDevice();
            return true;
        }
        if (key == "nodes") {
            noteKey(key);
            becomeHost();
            return true;
        }
        return false;
    }

    void topLevelValue(std::string_view key, std::string_view raw) override
    {
        noteKey(key);
        if (isOwnOutputMarker(key, raw))
            m_result.writtenBySyncscope = true;
        std::string k(key);
        if ((key == "traceEvents" || key == "nodes") && m_result.kind == TraceKind::Unknown) {
            m_diag.error(key == "nodes" ? "host.bad_nodes" : "kineto.bad_trace_events",
                         m_path + ": \"" + k + "\" is " + describeJsonValue(raw) + ", expected an array", m_path);
            m_badKey = true;
        }
        if (m_kineto)
            m_kineto->addTopLevel(k, raw);
        else if (m_host)
            m_host->addTopLevel(k, raw);
        else
            m_pending.emplace_back(std::move(k), std::string(raw));
    }

    void arrayBegin(std::string_view) override
    {
        if (m_result.device)
            m_result.device->traceEventsPosition = m_result.device->topLevel.size();
        if (m_result.host)
            m_result.host->nodesPosition = m_result.host->topLevel.size();
    }
    void arrayEnd(std::string_view) override {}

    // Both sinks parse each batch whole (set in streamArray, before any batch).
    bool parsesBatchesWhole() const override { return m_kineto || m_host; }

    void elementBatch(ElementBatch &batch) override
    {
        if (m_kineto)
            reserveAhead(m_result.device->events, batch.spans.size());
        else if (m_host)
            reserveAhead(m_result.host->nodes, batch.spans.size());
        if (m_kineto)
            m_kineto->addBatch(batch);
        else if (m_host)
            m_host->addBatch(batch);
        if (m_options.progress && m_source.fileSize() > 0)
            m_options.progress(static_cast<double>(m_source.consumed()) / static_cast<double>(m_source.fileSize()));
    }

    void finish(bool complete)
    {
        if (m_host && complete)
            m_host->finish();
        if (m_result.kind == TraceKind::Unknown && complete && !m_badKey) {
            bool hasSchema = false;
            for (const auto &kv : m_pending)
                hasSchema |= kv.first == "schema";
            if (hasSchema)
                m_diag.error("host.no_nodes",
                             m_path + ": looks like an execution trace (it has \"schema\") but has no \"nodes\" array",
                             m_path);
            else
                m_diag.error("input.not_a_trace",
                             m_path + ": is neither a host execution trace (no \"nodes\" array) nor a Kineto "
                                      "device trace (no \"traceEvents\" array)",
                             m_path);
        }
    }

    LoadedTrace &result() { return m_result; }

private:
    // Python's json.load keeps the last of duplicate keys. For the big array that
    // would mean dropping everything read so far, so refuse rather than guess.
    void noteKey(std::string_view key)
    {
        if (m_keys.insert(std::string(key)).second)
            return;
        if (key == "traceEvents" || key == "nodes")
            m_diag.error("json.duplicate_array",
                         m_path + ": the top-level key \"" + std::string(key) +
                             "\" occurs more than once; Python's json module would silently keep only the last "
                             "array, so the file is refused",
                         m_path);
        else
            m_diag.warning("json.duplicate_key",
                           m_path + ": the top-level key \"" + std::string(key) +
                               "\" occurs more than once; the last value is used (as Python's json module does)",
                           m_path);
    }

    // Growing a vector of millions of records by doubling copies it and briefly
    // needs both copies, so reserve for the whole file — extrapolated from the
    // records per byte actually read so far, never from a size the file claims
    // (a gzip trailer can say 4 GiB for a 1 MB file).
    template <typename Vec>
    void reserveAhead(Vec &records, size_t incoming)
    {
        const size_t needed = records.size() + incoming;
        if (needed <= records.capacity())
            return;
        const uint64_t consumed = std::max<uint64_t>(m_source.consumed(), 1);
        const uint64_t total = std::max(m_source.fileSize(), consumed);
        const double estimate = 1.05 * static_cast<double>(needed) * static_cast<double>(total) /
                                static_cast<double>(consumed);
        // Never grow by less than half: a low estimate must not make every batch reallocate.
        const size_t geometric = records.capacity() + records.capacity() / 2;
        records.reserve(std::max({static_cast<size_t>(estimate), needed, geometric}));
    }

    void becomeDevice()
    {
        m_result.kind = TraceKind::Device;
        m_result.device = std::make_shared<KinetoTrace>();
        m_result.device->path = m_path;
        m_kineto = std::make_unique<KinetoEventSink>(*m_result.device, m_diag, m_options.keepRawEvents);
        for (auto &kv : m_pending)
            m_kineto->addTopLevel(kv.first, kv.second);
        m_pending.clear();
    }
    void becomeHost()
    {
        m_result.kind = TraceKind::Host;
        m_result.host = std::make_shared<HostTrace>();
        m_result.host->path = m_path;
        m_host = std::make_unique<HostNodeSink>(*m_result.host, m_diag);
        for (auto &kv : m_pending)
            m_host->addTopLevel(kv.first, kv.second);
        m_pending.clear();
    }

    const std::string &m_path;
    Diagnostics &m_diag;
    const LoadOptions &m_options;
    ByteSource &m_source;
    LoadedTrace m_result;
    std::unique_ptr<KinetoEventSink> m_kineto;
    std::unique_ptr<HostNodeSink> m_host;
    std::vector<std::pair<std::string, std::string>> m_pending;
    bool m_badKey = false;
    std::set<std::string> m_keys;
};


// Thrown to stop a headOnly load once the header is in.
struct HeadRead {
};

// headOnly: forwards the top-level values and the first batch of a Kineto trace's events
// (their pid and start time), then stops. A Kineto trace whose distributedInfo was not
// before its events (any top-level order is valid JSON) is read on to the end, its
// later events skipped unparsed, so the values after traceEvents are seen as well.
class HeadOnlyHandler : public JsonStreamHandler
{
public:
    explicit HeadOnlyHandler(JsonStreamHandler &target) : m_target(target) {}
    bool streamArray(std::string_view key) override
    {
        const bool stream = m_target.streamArray(key);
        if (stream && key == "nodes") // an ET's schema and pid stand before its nodes: nothing more needed
            throw HeadRead{};
        return stream;
    }
    void topLevelValue(std::string_view key, std::string_view raw) override
    {
        m_target.topLevelValue(key, raw);
        if (key == "distributedInfo") {
            m_sawDistributed = true;
            if (m_firstBatchIn)
                throw HeadRead{};
        }
    }
    void arrayBegin(std::string_view key) override { m_target.arrayBegin(key); }
    void arrayEnd(std::string_view key) override { m_target.arrayEnd(key); }
    void elementBatch(ElementBatch &batch) override
    {
        if (m_firstBatchIn)
            return;
        m_target.elementBatch(batch);
        m_firstBatchIn = true;
        if (m_sawDistributed)
            throw HeadRead{};
    }

private:
    JsonStreamHandler &m_target;
    bool m_firstBatchIn = false;
    bool m_sawDistributed = false;
};


} // namespace

LoadedTrace loadTrace(const std::string &path, Diagnostics &allDiagnostics, const LoadOptions &options)
{
    Diagnostics diagnostics;
    struct Merge {
        Diagnostics &from, &to;
        ~Merge() { to.append(from); }
    } merge{diagnostics, allDiagnostics};
    std::unique_ptr<ByteSource> source;
    try {
        source = openByteSource(path);
    } catch (const InputError &e) {
        diagnostics.error(e.code(), e.what(), path, e.offset());
        return {};
    }
    DispatchHandler handler(path, diagnostics, options, *source);
    HeadOnlyHandler head(handler);
    bool complete = false;
    JsonStreamStats stats;
    try {
        // Small files: one thread. Large ones: scan on this thread, parse on a worker.
        if (options.headOnly) {
            stats = streamJson(*source, path, head, options.cancel);
        } else if (source->fileSize() < (4u << 20) && !source->compressed()) {
            stats = streamJson(*source, path, handler, options.cancel);
        } else {
            AsyncJsonStreamHandler async(handler);
            stats = streamJson(*source, path, async, options.cancel);
            async.finish();
        }
        complete = true;
    } catch (const HeadRead &) {
        complete = true; // the header is in; the rest is deliberately left unread
    } catch (const InputError &e) {
        diagnostics.error(e.code(), e.what(), path, e.offset());
    } catch (const std::bad_alloc &) {
        diagnostics.error("input.out_of_memory", path + ": not enough memory to load this trace", path);
    }
    if (!options.headOnly || handler.result().kind == TraceKind::Unknown) // a partial list is not finished
        handler.finish(complete);
    LoadedTrace result = std::move(handler.result());
    result.complete = complete && !diagnostics.hasErrors();
    const uint64_t bytes = complete ? stats.bytes : 0;
    if (result.device) {
        result.device->inputBytes = bytes;
        result.device->compressed = source->compressed();
        result.device->bareArray = stats.bareArray;
    }
    if (result.host) {
        result.host->inputBytes = bytes;
        result.host->compressed = source->compressed();
    }
    return result;
}

} // namespace syncscope
