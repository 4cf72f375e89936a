// SPDX-License-Identifier: MIT
#include "hang/frpickle.h"

#include "hang/flightrecorder.h"


#include <algorithm>
#include <charconv>
#include <cmath>
#include <cctype>
#include <cstring>
#include <unordered_map>

namespace syncscope {

const FrValue *FrValue::get(std::string_view key) const
{
    if (kind != Kind::Dict)
        return nullptr;
    for (size_t k = items.size(); k >= 2; k -= 2) {
        const FrValue *name = items[k - 2];
        if (name->kind == Kind::String && name->s == key)
            return items[k - 1];
    }
    return nullptr;
}

FrValue *FrTree::make(FrValue::Kind kind)
{
    if (m_used >= maxValues)
        throw FrTooManyValues{};
    if (m_used % kBlock == 0) {
        // A block of values in use (allocated now or kept from the last dump), with room
        // for their item lists.
        if (share)
            share->charge(kBlock * (sizeof(FrValue) + 2 * sizeof(const FrValue *)));
        if (m_used == m_blocks.size() * kBlock)
            m_blocks.push_back(std::make_unique<FrValue[]>(kBlock));
    }
    FrValue &v = m_blocks[m_used / kBlock][m_used % kBlock];
    ++m_used;
    v.kind = kind;
    v.b = false;
    v.i = 0;
    v.f = 0;
    v.s = {};
    v.items.clear();
    v.depth = 1;
    return &v;
}

void FrTree::reset()
{
    root = nullptr;
    text.clear();
    keepAlive.reset();
    m_used = 0;
    if (m_blocks.size() * kBlock > kKeepValues)
        m_blocks.resize(kKeepValues / kBlock); // a huge dump's values are not kept for ever
    for (auto &block : m_blocks) // a huge list's capacity neither
        for (size_t k = 0; k < kBlock; ++k)
            if (block[k].items.capacity() > 4096)
                std::vector<const FrValue *>().swap(block[k].items);
}

size_t frItemBudget(size_t inputBytes)
{
    const size_t bytes = std::min(inputBytes, kFrMaxItems);
    return std::min(kFrMaxItems, bytes * 64 + 4096);
}

namespace {

// Opcode names, for the errors.
const char *opcodeName(uint8_t op)
{
    switch (op) {
    case 'c': return "GLOBAL";
    case 0x93: return "STACK_GLOBAL";
    case 'R': return "REDUCE";
    case 'b': return "BUILD";
    case 'i': return "INST";
    case 'o': return "OBJ";
    case 0x81: return "NEWOBJ";
    case 0x92: return "NEWOBJ_EX";
    case 0x82: return "EXT1";
    case 0x83: return "EXT2";
    case 0x84: return "EXT4";
    case 'P': return "PERSID";
    case 'Q': return "BINPERSID";
    case 0x97: return "NEXT_BUFFER";
    case 0x98: return "READONLY_BUFFER";
    default: return nullptr;
    }
}

std::string hex2(uint8_t v)
{
    static const char *d = "0123456789abcdef";
    return std::string("0x") + d[v >> 4] + d[v & 15];
}

void frAppendUtf8(std::string &out, uint32_t cp)
{
    if (cp < 0x80) {
        out += char(cp);
    } else if (cp < 0x800) {
        out += char(0xC0 | (cp >> 6));
        out += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += char(0xE0 | (cp >> 12));
        out += char(0x80 | ((cp >> 6) & 0x3F));
        out += char(0x80 | (cp & 0x3F));
    } else {
        out += char(0xF0 | ((cp >> 18) & 0x07));
        out += char(0x80 | ((cp >> 12) & 0x3F));
        out += char(0x80 | ((cp >> 6) & 0x3F));
        out += char(0x80 | (cp & 0x3F));
    }
}

class Unpickler
{
public:
    Unpickler(std::string_view bytes, FrTree &tree) : m_in(bytes), m_tree(tree), m_budget(frItemBudget(bytes.size())) {}

    bool run(std::string &error)
    {
        if (m_in.empty())
            return fail(0, "empty input, not a pickle", error);
        while (true) {
            if (m_pos >= m_in.size())
                return fail(m_pos, "truncated: the pickle ends before its STOP opcode", error);
            const size_t at = m_pos;
            const uint8_t op = uint8_t(m_in[m_pos++]);
            if (!step(op, at)) {
                error = "byte " + std::to_string(m_errAt) + ": " + m_err;
                return false;
            }
            if (m_stopped)
                break;
        }
        if (m_stack.size() != 1 || !m_marks.empty())
            return fail(m_pos - 1, "STOP with " + std::to_string(m_stack.size()) + " values on the stack (1 expected)", error);
        m_tree.root = m_stack.back();
        return true;
    }

private:
    std::string_view m_in;
    FrTree &m_tree;
    size_t m_pos = 0;
    size_t m_budget;
    size_t m_items = 0;
    bool m_stopped = false;
    std::vector<const FrValue *> m_stack;
    std::vector<size_t> m_marks;
    // Memo indices are dense from 0 as picklers write them: a vector, with a map for
    // the sparse ones a hostile pickle may use.
    static constexpr uint64_t kDenseMemo = uint64_t(1) << 20;
    std::vector<const FrValue *> m_memoDense;
    std::unordered_map<uint64_t, const FrValue *> m_memo;
    size_t m_memoSize = 0;
    std::string m_err;
    size_t m_errAt = 0;

    bool fail(size_t at, std::string message, std::string &error)
    {
        error = "byte " + std::to_string(at) + ": " + message;
        return false;
    }
    bool err(size_t at, std::string message)
    {
        m_errAt = at;
        m_err = std::move(message);
        return false;
    }
    size_t left() const { return m_in.size() - m_pos; }
    bool need(size_t n, size_t at, const char *what)
    {
        if (n > left())
            return err(at, std::string("truncated: ") + what + " needs " + std::to_string(n) + " bytes, " +
                               std::to_string(left()) + " left");
        return true;
    }
    bool count(size_t at)
    {
        if (++m_items > m_budget)
            return err(at, "more than " + std::to_string(m_budget) + " values for a pickle of " +
                               std::to_string(m_in.size()) + " bytes");
        return true;
    }
    uint64_t readLe(size_t n)
    {
        uint64_t v = 0;
        for (size_t k = 0; k < n; ++k)
            v |= uint64_t(uint8_t(m_in[m_pos + k])) << (8 * k);
        m_pos += n;
        return v;
    }
    bool push(const FrValue *v, size_t at)
    {
        if (!count(at))
            return false;
        m_stack.push_back(v);
        return true;
    }
    FrValue *make(FrValue::Kind kind) { return m_tree.make(kind); }
    bool pushInt(int64_t v, size_t at)
    {
        FrValue *x = make(FrValue::Kind::Int);
        x->i = v;
        return push(x, at);
    }
    bool pushString(FrValue::Kind kind, std::string s, size_t at)
    {
        FrValue *x = make(kind);
        x->s = m_tree.own(std::move(s));
        return push(x, at);
    }
    // A string stored as-is in the input: the value points at it.
    bool pushView(FrValue::Kind kind, std::string_view s, size_t at)
    {
        FrValue *x = make(kind);
        x->s = s;
        return push(x, at);
    }
    // A length-prefixed string: the length is checked against the bytes left before
    // anything is allocated.
    bool lengthPrefixed(size_t lenBytes, FrValue::Kind kind, size_t at, const char *what)
    {
        if (!need(lenBytes, at, what))
            return false;
        const uint64_t n = readLe(lenBytes);
        if (n > left())
            return err(at, "truncated or corrupt: " + std::string(what) + " of " + std::to_string(n) + " bytes, only " +
                               std::to_string(left()) + " left");
        const std::string_view s = m_in.substr(m_pos, size_t(n));
        m_pos += size_t(n);
        return pushView(kind, s, at);
    }
    bool readLine(size_t at, std::string_view &line)
    {
        const size_t nl = m_in.find('\n', m_pos);
        if (nl == std::string_view::npos)
            return err(at, "truncated: no end of line");
        line = m_in.substr(m_pos, nl - m_pos);
        m_pos = nl + 1;
        return true;
    }
    bool top(size_t at, const char *op)
    {
        if (m_stack.empty() || (!m_marks.empty() && m_stack.size() <= m_marks.back()))
            return err(at, std::string(op) + " on an empty stack");
        return true;
    }
    // The values above the topmost MARK, which is popped.
    bool popMark(size_t at, const char *op, std::vector<const FrValue *> &out)
    {
        if (m_marks.empty())
            return err(at, std::string(op) + " without a MARK");
        const size_t m = m_marks.back();
        m_marks.pop_back();
        out.assign(m_stack.begin() + ptrdiff_t(m), m_stack.end());
        m_stack.resize(m);
        return true;
    }
    // Records that `child` is now inside `parent`; refuses nesting past kFrMaxDepth.
    bool nest(FrValue *parent, const FrValue *child, size_t at)
    {
        parent->depth = std::max<uint32_t>(parent->depth, child->depth + 1);
        if (parent->depth > kFrMaxDepth)
            return err(at, "nesting deeper than " + std::to_string(kFrMaxDepth) + " levels");
        return count(at);
    }
    bool makeSeq(FrValue::Kind kind, std::vector<const FrValue *> items, size_t at)
    {
        FrValue *x = make(kind);
        for (const FrValue *v : items)
            if (!nest(x, v, at))
                return false;
        x->items = std::move(items);
        return push(x, at);
    }
    // The container under the values being added: a List (or Set for ADDITEMS) made
    // here, so it can be modified.
    FrValue *mutableAt(size_t index, FrValue::Kind kind, size_t at, const char *op)
    {
        if (index >= m_stack.size()) {
            err(at, std::string(op) + " without a container");
            return nullptr;
        }
        const FrValue *c = m_stack[index];
        if (c->kind != kind) {
            err(at, std::string(op) + " on a value that is not a " +
                        (kind == FrValue::Kind::List ? "list" : kind == FrValue::Kind::Dict ? "dict" : "set"));
            return nullptr;
        }
        return const_cast<FrValue *>(c); // every value lives in m_tree's arena, made mutable by us
    }
    bool append(FrValue *c, const std::vector<const FrValue *> &items, size_t at)
    {
        for (const FrValue *v : items) {
            if (!nest(c, v, at))
                return false;
            c->items.push_back(v);
        }
        return true;
    }
    bool memoPut(uint64_t index, size_t at)
    {
        if (m_stack.empty())
            return err(at, "memo put on an empty stack");
        const bool known = index < kDenseMemo ? index < m_memoDense.size() && m_memoDense[index] : m_memo.count(index) > 0;
        if (!known && m_memoSize >= m_budget)
            return err(at, "memo larger than " + std::to_string(m_budget) + " entries");
        m_memoSize += known ? 0 : 1;
        if (index < kDenseMemo) {
            if (index >= m_memoDense.size())
                m_memoDense.resize(std::max<size_t>(size_t(index) + 1, m_memoDense.size() * 2), nullptr);
            m_memoDense[index] = m_stack.back();
        } else {
            m_memo[index] = m_stack.back();
        }
        return true;
    }
    // The memo index after a PUT/GET opcode: a decimal line (p, g), 1 byte (q, h) or 4 (r, j).
    bool memoIndex(uint8_t op, size_t at, uint64_t &index)
    {
        if (op == 'p' || op == 'g') {
            std::string_view line;
            int64_t v;
            if (!readLine(at, line) || !parseDecimal(line, at, v))
                return false;
            index = uint64_t(v);
            return true;
        }
        const size_t width = op == 'q' || op == 'h' ? 1 : 4;
        const bool put = op == 'q' || op == 'r';
        if (!need(width, at, width == 1 ? (put ? "BINPUT" : "BINGET") : (put ? "LONG_BINPUT" : "LONG_BINGET")))
            return false;
        index = readLe(width);
        return true;
    }
    bool memoGet(uint64_t index, size_t at)
    {
        const FrValue *v = nullptr;
        if (index < kDenseMemo) {
            if (index < m_memoDense.size())
                v = m_memoDense[index];
        } else if (const auto it = m_memo.find(index); it != m_memo.end()) {
            v = it->second;
        }
        if (!v)
            return err(at, "memo entry " + std::to_string(index) + " was never stored");
        return push(v, at);
    }
    bool parseDecimal(std::string_view text, size_t at, int64_t &v)
    {
        while (!text.empty() && (text.back() == 'L' || text.back() == ' ' || text.back() == '\r'))
            text.remove_suffix(1);
        if (!text.empty() && text.front() == '+')
            text.remove_prefix(1);
        const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
        if (text.empty() || r.ec != std::errc() || r.ptr != text.data() + text.size())
            return err(at, "not a 64-bit integer: '" + std::string(text.substr(0, 40)) + "'");
        return true;
    }
    bool pushLongBytes(uint64_t n, size_t at, const char *what)
    {
        if (n > left())
            return err(at, std::string(what) + " of " + std::to_string(n) + " bytes, only " + std::to_string(left()) +
                               " left");
        if (n > 8)
            return err(at, std::string(what) + " integer of " + std::to_string(n) + " bytes (at most 8 supported)");
        uint64_t v = readLe(size_t(n));
        if (n > 0 && n < 8 && (v >> (8 * n - 1)) & 1)
            v |= ~uint64_t(0) << (8 * n); // sign-extend
        return pushInt(int64_t(v), at);
    }
    // Python's repr of a str (STRING, protocol 0): quotes and the common escapes.
    bool unquote(std::string_view text, size_t at, std::string &out)
    {
        if (text.size() < 2 || (text.front() != '\'' && text.front() != '"') || text.back() != text.front())
            return err(at, "STRING argument is not quoted");
        text = text.substr(1, text.size() - 2);
        for (size_t k = 0; k < text.size(); ++k) {
            const char c = text[k];
            if (c != '\\' || k + 1 == text.size()) {
                out += c;
                continue;
            }
            const char e = text[++k];
            switch (e) {
            case 'n': out += '\n'; break;
            case 't': out += '\t'; break;
            case 'r': out += '\r'; break;
            case 'x':
                if (k + 2 < text.size() && std::isxdigit(uint8_t(text[k + 1])) && std::isxdigit(uint8_t(text[k + 2]))) {
                    out += char(std::stoi(std::string(text.substr(k + 1, 2)), nullptr, 16));
                    k += 2;
                } else {
                    return err(at, "bad \\x escape in STRING");
                }
                break;
            default: out += e; break;
            }
        }
        return true;
    }
    // raw-unicode-escape (UNICODE, protocol 0): \uXXXX and \UXXXXXXXX; other bytes are Latin-1.
    void rawUnicode(std::string_view text, std::string &out)
    {
        for (size_t k = 0; k < text.size(); ++k) {
            const uint8_t c = uint8_t(text[k]);
            if (c == '\\' && k + 1 < text.size() && (text[k + 1] == 'u' || text[k + 1] == 'U')) {
                const size_t n = text[k + 1] == 'u' ? 4 : 8;
                if (k + 2 + n <= text.size()) {
                    uint32_t cp = 0;
                    const auto r = std::from_chars(text.data() + k + 2, text.data() + k + 2 + n, cp, 16);
                    if (r.ec == std::errc() && r.ptr == text.data() + k + 2 + n && cp <= 0x10FFFF) {
                        frAppendUtf8(out, cp);
                        k += 1 + n;
                        continue;
                    }
                }
            }
            frAppendUtf8(out, c);
        }
    }

    bool step(uint8_t op, size_t at)
    {
        using K = FrValue::Kind;
        if (const char *name = opcodeName(op))
            return err(at, std::string("opcode ") + name + " (" + hex2(op) +
                               ") refused: a flight-recorder dump holds builtin data only, and this opcode would "
                               "import, call or look up an object");
        switch (op) {
        case 0x80: // PROTO
            if (!need(1, at, "PROTO"))
                return false;
            if (uint8_t(m_in[m_pos]) > 5)
                return err(at, "pickle protocol " + std::to_string(uint8_t(m_in[m_pos])) + " (2-5 supported)");
            ++m_pos;
            return true;
        case 0x95: { // FRAME: only a hint for buffering; its length must fit
            if (!need(8, at, "FRAME"))
                return false;
            const uint64_t n = readLe(8);
            if (n > left())
                return err(at, "FRAME of " + std::to_string(n) + " bytes, only " + std::to_string(left()) + " left");
            return true;
        }
        case '.': // STOP
            m_stopped = true;
            return true;
        case '(': // MARK
            if (m_marks.size() >= kFrMaxDepth)
                return err(at, "more than " + std::to_string(kFrMaxDepth) + " nested MARKs");
            m_marks.push_back(m_stack.size());
            return true;
        case '0': // POP
            if (!m_marks.empty() && m_marks.back() == m_stack.size()) {
                m_marks.pop_back(); // POP of a MARK, as Python does
                return true;
            }
            if (!top(at, "POP"))
                return false;
            m_stack.pop_back();
            return true;
        case '1': { // POP_MARK
            std::vector<const FrValue *> dropped;
            return popMark(at, "POP_MARK", dropped);
        }
        case '2': // DUP
            if (!top(at, "DUP"))
                return false;
            return push(m_stack.back(), at);
        case 'N': return push(make(K::Null), at);
        case 0x88:
        case 0x89: {
            FrValue *x = make(K::Bool);
            x->b = op == 0x88;
            return push(x, at);
        }
        case 'I': { // INT (text; "01"/"00" are True/False)
            std::string_view line;
            if (!readLine(at, line))
                return false;
            if (line == "01" || line == "00") {
                FrValue *x = make(K::Bool);
                x->b = line == "01";
                return push(x, at);
            }
            int64_t v;
            return parseDecimal(line, at, v) && pushInt(v, at);
        }
        case 'L': { // LONG (text)
            std::string_view line;
            int64_t v;
            return readLine(at, line) && parseDecimal(line, at, v) && pushInt(v, at);
        }
        case 'J':
            if (!need(4, at, "BININT"))
                return false;
            return pushInt(int64_t(int32_t(uint32_t(readLe(4)))), at);
        case 'K':
            if (!need(1, at, "BININT1"))
                return false;
            return pushInt(int64_t(readLe(1)), at);
        case 'M':
            if (!need(2, at, "BININT2"))
                return false;
            return pushInt(int64_t(readLe(2)), at);
        case 0x8a: // LONG1
            if (!need(1, at, "LONG1"))
                return false;
            return pushLongBytes(readLe(1), at, "LONG1");
        case 0x8b: { // LONG4
            if (!need(4, at, "LONG4"))
                return false;
            const uint64_t n = readLe(4);
            if (n & 0x80000000u)
                return err(at, "LONG4 with a negative length");
            return pushLongBytes(n, at, "LONG4");
        }
        case 'G': { // BINFLOAT, big-endian IEEE 754
            if (!need(8, at, "BINFLOAT"))
                return false;
            uint64_t bits = 0;
            for (int k = 0; k < 8; ++k)
                bits = (bits << 8) | uint8_t(m_in[m_pos + k]);
            m_pos += 8;
            FrValue *x = make(K::Float);
            std::memcpy(&x->f, &bits, 8);
            return push(x, at);
        }
        case 'F': { // FLOAT (text)
            std::string_view line;
            if (!readLine(at, line))
                return false;
            double v = 0;
            const auto r = std::from_chars(line.data(), line.data() + line.size(), v);
            if (line.empty() || r.ec != std::errc())
                return err(at, "FLOAT argument is not a number");
            FrValue *x = make(K::Float);
            x->f = v;
            return push(x, at);
        }
        case 'S': { // STRING (text, quoted)
            std::string_view line;
            std::string s;
            return readLine(at, line) && unquote(line, at, s) && pushString(K::String, std::move(s), at);
        }
        case 'V': { // UNICODE (text, raw-unicode-escape)
            std::string_view line;
            if (!readLine(at, line))
                return false;
            std::string s;
            rawUnicode(line, s);
            return pushString(K::String, std::move(s), at);
        }
        case 'T': { // BINSTRING: signed 4-byte length
            if (!need(4, at, "BINSTRING"))
                return false;
            if (uint8_t(m_in[m_pos + 3]) & 0x80)
                return err(at, "BINSTRING with a negative length");
            return lengthPrefixed(4, K::String, at, "BINSTRING");
        }
        case 'U': return lengthPrefixed(1, K::String, at, "SHORT_BINSTRING");
        case 0x8c: return lengthPrefixed(1, K::String, at, "SHORT_BINUNICODE");
        case 'X': return lengthPrefixed(4, K::String, at, "BINUNICODE");
        case 0x8d: return lengthPrefixed(8, K::String, at, "BINUNICODE8");
        case 'B': return lengthPrefixed(4, K::Bytes, at, "BINBYTES");
        case 'C': return lengthPrefixed(1, K::Bytes, at, "SHORT_BINBYTES");
        case 0x8e: return lengthPrefixed(8, K::Bytes, at, "BINBYTES8");
        case 0x96: return lengthPrefixed(8, K::Bytes, at, "BYTEARRAY8");
        case ']': return push(make(K::List), at);
        case '}': return push(make(K::Dict), at);
        case ')': return push(make(K::Tuple), at);
        case 0x8f: return push(make(K::Set), at);
        case 't':
        case 'l':
        case 0x91: { // TUPLE, LIST, FROZENSET
            std::vector<const FrValue *> items;
            const char *name = op == 't' ? "TUPLE" : op == 'l' ? "LIST" : "FROZENSET";
            return popMark(at, name, items) && makeSeq(op == 't' ? K::Tuple : op == 'l' ? K::List : K::Set, std::move(items), at);
        }
        case 0x85:
        case 0x86:
        case 0x87: { // TUPLE1-3
            const size_t n = size_t(op - 0x84);
            const size_t floor = m_marks.empty() ? 0 : m_marks.back();
            if (m_stack.size() < floor + n)
                return err(at, "TUPLE" + std::to_string(n) + " with fewer than " + std::to_string(n) + " values");
            std::vector<const FrValue *> items(m_stack.end() - ptrdiff_t(n), m_stack.end());
            m_stack.resize(m_stack.size() - n);
            return makeSeq(K::Tuple, std::move(items), at);
        }
        case 'a': { // APPEND
            const size_t floor = m_marks.empty() ? 0 : m_marks.back();
            if (m_stack.size() < floor + 2)
                return err(at, "APPEND without a list and a value");
            FrValue *list = mutableAt(m_stack.size() - 2, K::List, at, "APPEND");
            if (!list)
                return false;
            const FrValue *v = m_stack.back();
            m_stack.pop_back();
            return append(list, {v}, at);
        }
        case 'e':
        case 0x90: { // APPENDS, ADDITEMS
            const char *name = op == 'e' ? "APPENDS" : "ADDITEMS";
            std::vector<const FrValue *> items;
            if (!popMark(at, name, items))
                return false;
            if (m_stack.empty())
                return err(at, std::string(name) + " without a container");
            FrValue *c = mutableAt(m_stack.size() - 1, op == 'e' ? K::List : K::Set, at, name);
            return c && append(c, items, at);
        }
        case 'd': { // DICT
            std::vector<const FrValue *> items;
            if (!popMark(at, "DICT", items))
                return false;
            if (items.size() % 2)
                return err(at, "DICT with an odd number of values");
            return makeSeq(K::Dict, std::move(items), at);
        }
        case 's': { // SETITEM
            const size_t floor = m_marks.empty() ? 0 : m_marks.back();
            if (m_stack.size() < floor + 3)
                return err(at, "SETITEM without a dict, a key and a value");
            FrValue *dict = mutableAt(m_stack.size() - 3, K::Dict, at, "SETITEM");
            if (!dict)
                return false;
            std::vector<const FrValue *> kv(m_stack.end() - 2, m_stack.end());
            m_stack.resize(m_stack.size() - 2);
            return append(dict, kv, at);
        }
        case 'u': { // SETITEMS
            std::vector<const FrValue *> items;
            if (!popMark(at, "SETITEMS", items))
                return false;
            if (items.size() % 2)
                return err(at, "SETITEMS with an odd number of values");
            if (m_stack.empty())
                return err(at, "SETITEMS without a dict");
            FrValue *dict = mutableAt(m_stack.size() - 1, K::Dict, at, "SETITEMS");
            return dict && append(dict, items, at);
        }
        case 'p': // PUT (text), BINPUT, LONG_BINPUT
        case 'q':
        case 'r': {
            uint64_t index;
            return memoIndex(op, at, index) && memoPut(index, at);
        }
        case 0x94: // MEMOIZE
            return memoPut(m_memoSize, at);
        case 'g': // GET (text), BINGET, LONG_BINGET
        case 'h':
        case 'j': {
            uint64_t index;
            return memoIndex(op, at, index) && memoGet(index, at);
        }
        default:
            return err(at, "unknown or unsupported opcode " + hex2(op));
        }
    }
};

} // namespace

bool frUnpickle(std::string_view bytes, FrTree &tree, std::string &error)
{
    Unpickler u(bytes, tree);
    return u.run(error);
}

} // namespace syncscope
