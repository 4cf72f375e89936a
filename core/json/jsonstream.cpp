// SPDX-License-Identifier: MIT
#include "jsonstream.h"

#include "batchparse.h"

#include "io/bytesource.h"
#include "jsonscan.h"

#include <simdjson.h>

#include <array>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <variant>
#include <cstring>
#include <vector>

namespace syncscope {

namespace {

constexpr size_t kNotFound = static_cast<size_t>(-1);
// The read window starts small (a job reads thousands of small files: zeroing and
// faulting in 1 MiB each was most of a 1,000-rank load) and doubles while the file
// goes on, up to kSteadyBuffer; beyond that only for a larger element.
constexpr size_t kInitialBuffer = 64u << 10;
constexpr size_t kSteadyBuffer = 1u << 20; // more costs memory, not speed
constexpr size_t kPadding = 64; // >= SIMDJSON_PADDING
// One JSON value (a trace event, an ET node, a top-level value) larger than this
// is refused: no real trace has one, and a crafted file could otherwise make us
// buffer gigabytes (a 1 GiB string compresses to 1 MB).
constexpr size_t kMaxValueBytes = size_t(256) << 20;

inline bool isWs(char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

// Bytes that matter while skipping a nested value outside strings.
const std::array<bool, 256> kStructural = [] {
    std::array<bool, 256> t {};
    for (unsigned char c : {'"', '{', '}', '[', ']'})
        t[c] = true;
    return t;
}();

// Position of the closing quote of a string whose body starts at `s`.
size_t findStringEnd(const char *s, const char *end)
{
    const char *from = s;
    while (from < end) {
        const auto *q = static_cast<const char *>(std::memchr(from, '"', static_cast<size_t>(end - from)));
        if (!q)
            return kNotFound;
        size_t backslashes = 0;
        for (const char *b = q - 1; b >= s && *b == '\\'; --b)
            ++backslashes;
        if (backslashes % 2 == 0)
            return static_cast<size_t>(q - s);
        from = q + 1;
    }
    return kNotFound;
}

// Length of the complete JSON value at p, or kNotFound when it runs past `end`.
size_t scanValue(const char *p, const char *end, bool atEof)
{
    const char c = *p;
    if (c == '"') {
        const size_t q = findStringEnd(p + 1, end);
        return q == kNotFound ? kNotFound : q + 2;
    }
    if (c == '{' || c == '[') {
        int64_t depth = 0;
        const char *i = p;
        while (i < end) {
            while (i < end && !kStructural[static_cast<unsigned char>(*i)])
                ++i;
            if (i >= end)
                break;
            switch (*i) {
            case '"': {
                const size_t q = findStringEnd(i + 1, end);
                if (q == kNotFound)
                    return kNotFound;
                i += q + 2;
                continue;
            }
            case '{':
            case '[':
                ++depth;
                break;
            default: // '}' or ']'
                if (--depth == 0)
                    return static_cast<size_t>(i - p) + 1;
                break;
            }
            ++i;
        }
        return kNotFound;
    }
    const char *i = p;
    while (i < end && *i != ',' && *i != '}' && *i != ']' && !isWs(*i))
        ++i;
    if (i == end && !atEof)
        return kNotFound;
    return i == p ? 1 : static_cast<size_t>(i - p);
}

class Streamer
{
public:
    Streamer(ByteSource &src, const std::string &path, JsonStreamHandler &handler, const std::atomic<bool> *cancel)
        : m_src(src), m_path(path), m_handler(handler), m_cancel(cancel), m_buf(kInitialBuffer)
    {
    }

    JsonStreamStats run()
    {
        int c = peekNonWs();
        if (c < 0)
            throw InputError("json.empty", m_path + ": the file is empty");
        // Tolerate a UTF-8 byte order mark (plain and gzip'd alike: the first read
        // of a plain file returns only the two sniffed bytes).
        if (static_cast<unsigned char>(c) == 0xEF) {
            while (m_end - m_begin < 3 && fill()) {
            }
            if (m_end - m_begin >= 3 && std::memcmp(m_buf.data() + m_begin, "\xEF\xBB\xBF", 3) == 0) {
                m_begin += 3;
                c = peekNonWs();
                if (c < 0)
                    throw InputError("json.empty", m_path + ": the file holds only a byte order mark");
            }
        }
        if (c == '[') {
            m_stats.bareArray = true;
            if (m_handler.streamArray({})) {
                streamArray({});
            } else {
                const size_t len = scanValueAt();
                validateValue(len, "the top-level array");
                m_handler.topLevelValue({}, view(len));
                m_begin += len;
            }
        } else if (c == '{') {
            ++m_begin;
            readObject();
        } else {
            throw InputError("json.not_json",
                             m_path + ": is not JSON (it starts with " + describeByte(c) +
                                 ", expected '{' or '[')",
                             static_cast<int64_t>(m_base + m_begin));
        }
        // Python's json.load rejects anything after the document ("Extra data").
        const int after = peekNonWs();
        if (after >= 0)
            throw InputError("json.trailing_data",
                             m_path + ": unexpected data after the end of the JSON document at byte " +
                                 std::to_string(m_base + m_begin) + " (" + describeByte(after) +
                                 "); two documents in one file, or garbage appended?",
                             static_cast<int64_t>(m_base + m_begin));
        m_stats.bytes = m_base + m_end;
        return m_stats;
    }

private:
    static std::string describeByte(int c)
    {
        if (c >= 0x20 && c < 0x7f)
            return std::string("'") + static_cast<char>(c) + "'";
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02x", static_cast<unsigned>(c & 0xff));
        return std::string("byte ") + hex;
    }

    std::string_view view(size_t len) const { return {m_buf.data() + m_begin, len}; }

    [[noreturn]] void truncated(const char *what)
    {
        throw InputError("json.truncated",
                         m_path + ": the JSON ends early (truncated) " + what + " at byte " +
                             std::to_string(m_base + m_end) + "; the file was probably cut off",
                         static_cast<int64_t>(m_base + m_end));
    }

    [[noreturn]] void invalid(const std::string &what)
    {
        throw InputError("json.invalid",
                         m_path + ": invalid JSON at byte " + std::to_string(m_base + m_begin) + ": " + what,
                         static_cast<int64_t>(m_base + m_begin));
    }

    // Keeps bytes from m_begin on, reads more. Returns false at end of input.
    bool fill()
    {
        if (m_cancel && *m_cancel)
            throw InputError("load.cancelled", m_path + ": loading was cancelled");
        if (m_begin > 0) {
            std::memmove(m_buf.data(), m_buf.data() + m_begin, m_end - m_begin);
            m_base += m_begin;
            m_end -= m_begin;
            m_begin = 0;
        }
        if (m_end == m_buf.size()) {
            if (m_buf.size() >= kMaxValueBytes)
                throw InputError("json.value_too_large",
                                 m_path + ": a single JSON value starting at byte " + std::to_string(m_base) +
                                     " is larger than " + std::to_string(kMaxValueBytes >> 20) +
                                     " MiB; no trace event or node is that large, so the file was refused",
                                 static_cast<int64_t>(m_base));
            m_buf.resize(m_buf.size() * 2);
        } else if (m_buf.size() < kSteadyBuffer && m_base >= m_buf.size()) {
            m_buf.resize(m_buf.size() * 2); // a large file: read it in larger pieces
        }
        if (m_eof)
            return false;
        const size_t n = m_src.read(m_buf.data() + m_end, m_buf.size() - m_end);
        if (n == 0) {
            m_eof = true;
            return false;
        }
        m_end += n;
        return true;
    }

    int peekNonWs()
    {
        for (;;) {
            while (m_begin < m_end && isWs(m_buf[m_begin]))
                ++m_begin;
            if (m_begin < m_end)
                return static_cast<unsigned char>(m_buf[m_begin]);
            if (!fill())
                return -1;
        }
    }

    size_t scanValueAt()
    {
        for (;;) {
            const size_t len = scanValue(m_buf.data() + m_begin, m_buf.data() + m_end, m_eof);
            if (len != kNotFound)
                return len;
            if (!fill() && m_eof) {
                const size_t last = scanValue(m_buf.data() + m_begin, m_buf.data() + m_end, true);
                if (last != kNotFound)
                    return last;
                truncated("inside a value");
            }
        }
    }

    // The top-level object, strictly: '{' (key ':' value (',' key ':' value)*)? '}'.
    void readObject()
    {
        if (peekNonWs() == '}') {
            ++m_begin;
            return;
        }
        for (;;) {
            const int c = peekNonWs();
            if (c < 0)
                truncated("inside the top-level object");
            if (c != '"')
                invalid(c == '}' ? "a trailing comma before '}' in the top-level object"
                                 : "expected a quoted key in the top-level object");
            const size_t len = scanValueAt();
            validateValue(len, "a top-level key");
            std::string key = unescapeKey(view(len));
            m_begin += len;
            const int colon = peekNonWs();
            if (colon < 0)
                truncated("after a key");
            if (colon != ':')
                invalid("expected ':' after key \"" + key + "\"");
            ++m_begin;
            const int v = peekNonWs();
            if (v < 0)
                truncated("after a key");
            if (v == '[' && m_handler.streamArray(key)) {
                streamArray(key);
            } else {
                const size_t vlen = scanValueAt();
                validateValue(vlen, ("the value of \"" + key + "\"").c_str());
                m_handler.topLevelValue(key, view(vlen));
                m_begin += vlen;
            }
            const int next = peekNonWs();
            if (next < 0)
                truncated("inside the top-level object");
            ++m_begin;
            if (next == '}')
                return;
            if (next != ',') {
                --m_begin;
                invalid("expected ',' or '}' after the value of \"" + key + "\"");
            }
        }
    }

    // Checks a value the handler gets as raw text (it may be copied into outputs
    // verbatim): strict JSON, valid UTF-8, bounded nesting. simdjson does all three.
    void validateValue(size_t len, const char *what)
    {
        simdjson::padded_string copy(m_buf.data() + m_begin, len);
        simdjson::dom::element ignored;
        if (!m_validatorReady) {
            if (m_validator.allocate(1 << 16, kMaxJsonDepth + 1) != simdjson::SUCCESS)
                throw std::bad_alloc();
            m_validatorReady = true;
        }
        const auto error = m_validator.parse(copy).get(ignored);
        if (error == simdjson::MEMALLOC)
            throw std::bad_alloc();
        if (error == simdjson::DEPTH_ERROR)
            throw InputError("json.too_deep",
                             m_path + ": " + what + " nests objects and arrays deeper than " +
                                 std::to_string(kMaxJsonDepth) + " levels (the limit)",
                             static_cast<int64_t>(m_base + m_begin));
        if (error != simdjson::SUCCESS)
            invalid(std::string(what) + " is not valid JSON (" + simdjson::error_message(error) + ")");
    }

    static std::string unescapeKey(std::string_view quoted)
    {
        std::string out;
        out.reserve(quoted.size());
        for (size_t i = 1; i + 1 < quoted.size(); ++i) {
            char ch = quoted[i];
            if (ch == '\\' && i + 2 < quoted.size()) {
                ++i;
                switch (quoted[i]) {
                case 'n': ch = '\n'; break;
                case 't': ch = '\t'; break;
                case 'r': ch = '\r'; break;
                case 'b': ch = '\b'; break;
                case 'f': ch = '\f'; break;
                default: ch = quoted[i]; break; // \" \\ \/ (\u kept literally: keys are ASCII)
                }
            }
            out.push_back(ch);
        }
        return out;
    }

    void flushBatch()
    {
        if (m_batchCount == 0)
            return;
        const size_t len = m_batchEnd - m_batchStart;
        auto &json = m_batch.json;
        if (json.size() < len + 2 + kPadding)
            json.resize(len + 2 + kPadding + (len >> 3));
        json[0] = '[';
        std::memcpy(json.data() + 1, m_buf.data() + m_batchStart, len);
        json[len + 1] = ']';
        std::memset(json.data() + len + 2, 0, kPadding);
        m_batch.length = len + 2;
        m_batch.offset = m_base + m_batchStart;
        m_handler.elementBatch(m_batch);
        m_stats.elements += m_batchCount;
        m_batchCount = 0;
        m_batch.spans.clear();
    }

    void streamArray(std::string_view key)
    {
        const std::string keyCopy(key);
        m_handler.arrayBegin(keyCopy);
        ++m_begin; // '['
        m_batchCount = 0;
        bool expectValue = true, first = true;
        for (;;) {
            while (m_begin < m_end && isWs(m_buf[m_begin]))
                ++m_begin;
            if (m_begin == m_end) {
                flushBatch();
                if (!fill())
                    truncated(("inside the \"" + keyCopy + "\" array").c_str());
                continue;
            }
            const char c = m_buf[m_begin];
            // Strict separators: '[' (value (',' value)*)? ']' — Python rejects [1,,2], [1,] and [1 2].
            if (c == ']') {
                if (expectValue && !first)
                    invalid("a trailing comma before ']' in the \"" + keyCopy + "\" array");
                flushBatch();
                ++m_begin;
                m_handler.arrayEnd(keyCopy);
                return;
            }
            if (c == ',') {
                if (expectValue)
                    invalid("a missing value before ',' in the \"" + keyCopy + "\" array");
                expectValue = true;
                ++m_begin;
                continue;
            }
            if (!expectValue)
                invalid("expected ',' or ']' between elements of the \"" + keyCopy + "\" array");
            size_t len = scanValue(m_buf.data() + m_begin, m_buf.data() + m_end, m_eof);
            if (len == kNotFound) {
                flushBatch();
                if (!fill())
                    truncated(("inside the \"" + keyCopy + "\" array").c_str());
                continue;
            }
            if (m_batchCount == 0)
                m_batchStart = m_begin;
            if (m_begin - m_batchStart + len > 0xffffffffu)
                invalid("an array element larger than 4 GiB");
            m_batch.spans.push_back({static_cast<uint32_t>(m_begin - m_batchStart + 1), static_cast<uint32_t>(len)});
            m_batchEnd = m_begin + len;
            ++m_batchCount;
            m_begin += len;
            expectValue = false;
            first = false;
        }
    }

    ByteSource &m_src;
    const std::string &m_path;
    JsonStreamHandler &m_handler;
    const std::atomic<bool> *m_cancel;
    std::vector<char> m_buf;
    size_t m_begin = 0;
    size_t m_end = 0;
    uint64_t m_base = 0;
    bool m_eof = false;
    ElementBatch m_batch;
    size_t m_batchStart = 0;
    size_t m_batchEnd = 0;
    size_t m_batchCount = 0;
    JsonStreamStats m_stats;
    simdjson::dom::parser m_validator;
    bool m_validatorReady = false;
};

} // namespace

// Streams being read at once in this process. Parsing ahead pays only when this is the
// one load: two (a pair's host and device trace) or a job's ranks keep every core busy
// already, and parsing ahead there cost a job 14 % (issue 40, class 11).
std::atomic<int> s_asyncStreams{0};

struct AsyncJsonStreamHandler::Impl {
    struct TopLevel {
        std::string key, raw;
    };
    struct Begin {
        std::string key;
    };
    struct End {
        std::string key;
    };
    using Item = std::variant<TopLevel, Begin, End, ElementBatch>;

    JsonStreamHandler &target;
    std::mutex mutex;
    std::condition_variable changed;
    std::deque<Item> queue;
    std::vector<ElementBatch> spare; // recycled buffers, so pages are faulted in once
    std::exception_ptr error;
    bool closing = false;
    bool busy = false;
    std::thread worker;

    static constexpr size_t kMaxQueued = 2;

    explicit Impl(JsonStreamHandler &t) : target(t)
    {
        s_asyncStreams.fetch_add(1, std::memory_order_relaxed);
        worker = std::thread([this] { run(); });
    }

    void run()
    {
        for (;;) {
            Item item;
            {
                std::unique_lock lock(mutex);
                changed.wait(lock, [this] { return !queue.empty() || closing; });
                if (queue.empty())
                    return;
                item = std::move(queue.front());
                queue.pop_front();
                busy = true;
            }
            changed.notify_all();
            std::exception_ptr failure;
            try {
                if (!error)
                    deliver(item);
            } catch (...) {
                failure = std::current_exception();
            }
            {
                std::lock_guard lock(mutex);
                if (failure && !error)
                    error = failure;
                if (auto *batch = std::get_if<ElementBatch>(&item))
                    spare.push_back(std::move(*batch));
                busy = false;
            }
            changed.notify_all();
        }
    }

    void deliver(Item &item)
    {
        if (auto *t = std::get_if<TopLevel>(&item))
            target.topLevelValue(t->key, t->raw);
        else if (auto *b = std::get_if<Begin>(&item))
            target.arrayBegin(b->key);
        else if (auto *e = std::get_if<End>(&item))
            target.arrayEnd(e->key);
        else
            target.elementBatch(std::get<ElementBatch>(item));
    }

    void push(Item item)
    {
        std::unique_lock lock(mutex);
        changed.wait(lock, [this] { return queue.size() < kMaxQueued || error; });
        if (error)
            std::rethrow_exception(error);
        queue.push_back(std::move(item));
        changed.notify_all();
    }

    void drain()
    {
        std::unique_lock lock(mutex);
        changed.wait(lock, [this] { return queue.empty() && !busy; });
    }

    ~Impl()
    {
        {
            std::lock_guard lock(mutex);
            closing = true;
        }
        changed.notify_all();
        worker.join();
        s_asyncStreams.fetch_sub(1, std::memory_order_relaxed);
    }
};

AsyncJsonStreamHandler::AsyncJsonStreamHandler(JsonStreamHandler &target) : d(std::make_unique<Impl>(target)) {}

AsyncJsonStreamHandler::~AsyncJsonStreamHandler() = default;

bool AsyncJsonStreamHandler::streamArray(std::string_view key)
{
    // Needs an answer now: wait until the worker has applied everything queued so far.
    d->drain();
    if (d->error)
        std::rethrow_exception(d->error);
    return d->target.streamArray(key);
}

void AsyncJsonStreamHandler::topLevelValue(std::string_view key, std::string_view raw)
{
    d->push(Impl::TopLevel{std::string(key), std::string(raw)});
}

void AsyncJsonStreamHandler::arrayBegin(std::string_view key)
{
    d->push(Impl::Begin{std::string(key)});
}

void AsyncJsonStreamHandler::arrayEnd(std::string_view key)
{
    d->push(Impl::End{std::string(key)});
}

void AsyncJsonStreamHandler::elementBatch(ElementBatch &batch)
{
    ElementBatch replacement;
    bool behind = false;
    {
        std::lock_guard lock(d->mutex);
        if (!d->spare.empty()) {
            replacement = std::move(d->spare.back());
            d->spare.pop_back();
        }
        behind = d->queue.size() >= Impl::kMaxQueued;
    }
    std::swap(batch, replacement);
    batch.spans.clear();
    if (replacement.parsed)
        replacement.parsed->ok = false; // a recycled buffer's parse is of an earlier batch
    // The worker is behind: this thread would wait in push(), so it parses the batch
    // instead (a failed parse is left to the worker, which reports it) -- when no other
    // load is running, which would be using that core.
    if (behind && s_asyncStreams.load(std::memory_order_relaxed) == 1 && d->target.parsesBatchesWhole()) {
        if (!replacement.parsed)
            replacement.parsed = std::make_shared<PreParsedBatch>();
        PreParsedBatch &p = *replacement.parsed;
        auto result = p.parser.parse(replacement.json.data(), replacement.length, false);
        p.ok = result.error() == simdjson::SUCCESS && result.value_unsafe().is_array();
        if (p.ok)
            p.doc = result.value_unsafe();
    }
    d->push(std::move(replacement));
}

simdjson::dom::element parseBatch(const ElementBatch &batch, simdjson::dom::parser &parser)
{
    if (batch.parsed && batch.parsed->ok)
        return batch.parsed->doc;
    return parser.parse(batch.json.data(), batch.length, false);
}

void AsyncJsonStreamHandler::finish()
{
    d->drain();
    std::lock_guard lock(d->mutex);
    if (d->error)
        std::rethrow_exception(d->error);
}

InputError invalidJsonEntry(const std::string &path, const char *what, size_t batchFirstEntry, const ElementBatch &batch,
                            const char *detail)
{
    // simdjson rejects the batch as a whole; parse its elements one by one (only on
    // this error path) to name the entry that is wrong and where it starts.
    size_t bad = 0;
    std::string why = detail;
    simdjson::dom::parser parser;
    for (size_t k = 0; k < batch.spans.size(); ++k) {
        const ElementSpan &span = batch.spans[k];
        const simdjson::padded_string copy(batch.json.data() + span.offset, span.length);
        simdjson::dom::element ignored;
        const auto error = parser.parse(copy).get(ignored);
        if (error != simdjson::SUCCESS) {
            bad = k;
            why = simdjson::error_message(error);
            break;
        }
    }
    const uint64_t at = batch.offset + (bad < batch.spans.size() ? batch.spans[bad].offset - 1 : 0);
    return InputError("json.invalid",
                      path + ": invalid JSON in " + what + " " + std::to_string(batchFirstEntry + bad) +
                          " (at byte " + std::to_string(at) + "): " + why,
                      static_cast<int64_t>(at));
}

JsonStreamStats streamJson(ByteSource &source, const std::string &path, JsonStreamHandler &handler,
                           const std::atomic<bool> *cancel)
{
    Streamer s(source, path, handler, cancel);
    return s.run();
}

} // namespace syncscope
