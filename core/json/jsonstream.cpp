// SPDX-License-Identifier: MIT
#include "jsonstream.h"

#include "io/bytesource.h"

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
constexpr size_t kInitialBuffer = 1u << 20; // grows for a larger element; more costs memory, not speed
constexpr size_t kPadding = 64; // >= SIMDJSON_PADDING

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
        // Tolerate a UTF-8 byte order mark.
        if (static_cast<unsigned char>(c) == 0xEF && m_end - m_begin >= 3 &&
            std::memcmp(m_buf.data() + m_begin, "\xEF\xBB\xBF", 3) == 0) {
            m_begin += 3;
            c = peekNonWs();
        }
        if (c == '[') {
            m_stats.bareArray = true;
            if (m_handler.streamArray({})) {
                streamArray({});
            } else {
                const size_t len = scanValueAt();
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
        if (m_end == m_buf.size())
            m_buf.resize(m_buf.size() * 2);
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

    void readObject()
    {
        bool expectKey = true;
        for (;;) {
            const int c = peekNonWs();
            if (c < 0)
                truncated("inside the top-level object");
            if (c == '}') {
                ++m_begin;
                return;
            }
            if (c == ',') {
                ++m_begin;
                expectKey = true;
                continue;
            }
            if (c != '"' || !expectKey)
                invalid("expected a quoted key in the top-level object");
            const size_t len = scanValueAt();
            std::string key = unescapeKey(view(len));
            m_begin += len;
            if (peekNonWs() != ':')
                invalid("expected ':' after key \"" + key + "\"");
            ++m_begin;
            const int v = peekNonWs();
            if (v < 0)
                truncated("after a key");
            if (v == '[' && m_handler.streamArray(key)) {
                streamArray(key);
            } else {
                const size_t vlen = scanValueAt();
                m_handler.topLevelValue(key, view(vlen));
                m_begin += vlen;
            }
            expectKey = false;
        }
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
            if (c == ']') {
                flushBatch();
                ++m_begin;
                m_handler.arrayEnd(keyCopy);
                return;
            }
            if (c == ',') {
                ++m_begin;
                continue;
            }
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
};

} // namespace

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
    {
        std::lock_guard lock(d->mutex);
        if (!d->spare.empty()) {
            replacement = std::move(d->spare.back());
            d->spare.pop_back();
        }
    }
    std::swap(batch, replacement);
    batch.spans.clear();
    d->push(std::move(replacement));
}

void AsyncJsonStreamHandler::finish()
{
    d->drain();
    std::lock_guard lock(d->mutex);
    if (d->error)
        std::rethrow_exception(d->error);
}

InputError invalidJsonEntry(const std::string &path, const char *what, size_t entry, const ElementBatch &batch,
                            size_t indexInBatch, const char *detail)
{
    const uint64_t at =
        batch.offset + (indexInBatch < batch.spans.size() ? batch.spans[indexInBatch].offset - 1 : 0);
    return InputError("json.invalid",
                      path + ": invalid JSON in " + what + " " + std::to_string(entry) + " (near byte " +
                          std::to_string(at) + "): " + detail,
                      static_cast<int64_t>(at));
}

JsonStreamStats streamJson(ByteSource &source, const std::string &path, JsonStreamHandler &handler,
                           const std::atomic<bool> *cancel)
{
    Streamer s(source, path, handler, cancel);
    return s.run();
}

} // namespace syncscope
