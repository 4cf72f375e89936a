// SPDX-License-Identifier: MIT
// Streams the top level of a large JSON document without building a DOM.
// Every top-level key is reported with its raw value text, except the one big
// array the caller asks for ("traceEvents", "nodes"), whose elements are handed
// over in batches of complete elements, ready for simdjson's on-demand parser.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "io/bytesource.h"

namespace syncscope {

class ByteSource;

struct ElementSpan {
    uint32_t offset;
    uint32_t length;
};

struct PreParsedBatch; // json/batchparse.h

// "[e1,e2,...]" followed by zero padding, so simdjson can parse it in place.
struct ElementBatch {
    std::vector<char> json;         // size() >= length + padding
    size_t length = 0;              // bytes of "[...]"
    std::vector<ElementSpan> spans; // each element's (offset, length) inside json
    uint64_t offset = 0;            // input offset of json[1] (for messages)
    // Set (ok) when the streaming thread parsed the batch already; read it with parseBatch().
    std::shared_ptr<PreParsedBatch> parsed;
};

class JsonStreamHandler
{
public:
    virtual ~JsonStreamHandler() = default;
    // A top-level key was read; return true to stream its value element by element
    // (only honoured when the value is an array).
    virtual bool streamArray(std::string_view key) = 0;
    // A top-level value that is not streamed, as raw JSON text.
    virtual void topLevelValue(std::string_view key, std::string_view raw) = 0;
    // Start and end of a streamed array. For a bare top-level array the key is empty.
    virtual void arrayBegin(std::string_view key) = 0;
    virtual void arrayEnd(std::string_view key) = 0;
    // A batch of complete elements; the handler may swap the vectors out to keep them.
    virtual void elementBatch(ElementBatch &batch) = 0;
    // True when elementBatch() parses each batch whole with parseBatch(): an
    // AsyncJsonStreamHandler then parses batches ahead while its worker is behind and
    // no other stream is being read in the process.
    virtual bool parsesBatchesWhole() const { return false; }
};

struct JsonStreamStats {
    uint64_t bytes = 0;     // decompressed bytes read
    uint64_t elements = 0;  // streamed array elements
    bool bareArray = false; // the document is a top-level array
};

// Forwards every call to `target` on a worker thread, in order, so scanning the
// input and parsing the batches overlap on two cores. Exceptions thrown by the
// target are rethrown from the streaming thread.
class AsyncJsonStreamHandler : public JsonStreamHandler
{
public:
    explicit AsyncJsonStreamHandler(JsonStreamHandler &target);
    ~AsyncJsonStreamHandler() override;
    bool streamArray(std::string_view key) override;
    void topLevelValue(std::string_view key, std::string_view raw) override;
    void arrayBegin(std::string_view key) override;
    void arrayEnd(std::string_view key) override;
    void elementBatch(ElementBatch &batch) override;
    // Waits for the worker to drain the queue; rethrows its exception if any.
    void finish();

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

// The error for a batch simdjson rejected: names the file, the array ("traceEvents
// entry", "node"), the position of the first bad entry (the batch's first entry
// is number `batchFirstEntry`) and the byte offset where that entry starts.
InputError invalidJsonEntry(const std::string &path, const char *what, size_t batchFirstEntry, const ElementBatch &batch,
                            const char *detail);

// Reads the whole source. Throws InputError (codes "json.empty", "json.not_json",
// "json.truncated", "json.invalid") naming `path`.
JsonStreamStats streamJson(ByteSource &source, const std::string &path, JsonStreamHandler &handler,
                           const std::atomic<bool> *cancel = nullptr);

} // namespace syncscope
