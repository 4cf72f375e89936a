// SPDX-License-Identifier: MIT
#include "pystr.h"

#include "numbers.h"
#include "pyjson.h"

#include <cmath>
#include <cstdint>
#include <vector>

namespace syncscope {

namespace {

// Py_UNICODE_ISPRINTABLE for the ranges that occur in practice: controls (Cc),
// format (Cf), separators (Zs except ' ', Zl, Zp), surrogates (Cs), private
// use (Co), non-characters and the unassigned planes (Cn).
bool isPrintable(uint32_t cp)
{
    if (cp < 0x7f)
        return cp >= 0x20;
    if (cp <= 0xa0 || cp == 0xad)
        return false;
    if (cp < 0x0600)
        return true;
    struct Range {
        uint32_t lo, hi;
    };
    static const Range kNonPrintable[] = {
        {0x0600, 0x0605}, {0x061c, 0x061c}, {0x06dd, 0x06dd}, {0x070f, 0x070f}, {0x0890, 0x0891},
        {0x08e2, 0x08e2}, {0x1680, 0x1680}, {0x180e, 0x180e}, {0x2000, 0x200f}, {0x2028, 0x202f},
        {0x205f, 0x206f}, {0x3000, 0x3000}, {0xd800, 0xf8ff}, {0xfdd0, 0xfdef}, {0xfeff, 0xfeff},
        {0xfff0, 0xfffb}, {0x110bd, 0x110bd}, {0x110cd, 0x110cd}, {0x13430, 0x1343f}, {0x1bca0, 0x1bca3},
        {0x1d173, 0x1d17a}, {0x323b0, 0xe00ff}, {0xe01f0, 0x10ffff},
    };
    if ((cp & 0xfffe) == 0xfffe)
        return false;
    for (const Range &r : kNonPrintable)
        if (cp >= r.lo && cp <= r.hi)
            return false;
    return true;
}

void appendUtf8(std::string &out, uint32_t cp)
{
    if (cp < 0x80) {
        out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
        out.push_back(static_cast<char>(0xc0 | (cp >> 6)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
    } else if (cp < 0x10000) {
        out.push_back(static_cast<char>(0xe0 | (cp >> 12)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
    } else {
        out.push_back(static_cast<char>(0xf0 | (cp >> 18)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3f)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
    }
}

// Decodes one UTF-8 sequence at s[i]; advances i. Invalid bytes give U+FFFD.
uint32_t nextUtf8(std::string_view s, size_t &i)
{
    const auto b0 = static_cast<unsigned char>(s[i]);
    if (b0 < 0x80) {
        ++i;
        return b0;
    }
    int len = b0 >= 0xf0 && b0 < 0xf5 ? 4 : b0 >= 0xe0 ? 3 : b0 >= 0xc2 && b0 < 0xe0 ? 2 : 0;
    if (len == 0 || i + static_cast<size_t>(len) > s.size()) {
        ++i;
        return 0xfffd;
    }
    uint32_t cp = b0 & (0x7f >> len);
    for (int k = 1; k < len; ++k) {
        const auto b = static_cast<unsigned char>(s[i + static_cast<size_t>(k)]);
        if ((b & 0xc0) != 0x80) {
            ++i;
            return 0xfffd;
        }
        cp = (cp << 6) | (b & 0x3f);
    }
    i += static_cast<size_t>(len);
    return cp;
}

int hexDigit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

bool hex4(std::string_view s, size_t at, uint32_t &v)
{
    if (at + 4 > s.size())
        return false;
    v = 0;
    for (size_t k = 0; k < 4; ++k) {
        const int d = hexDigit(s[at + k]);
        if (d < 0)
            return false;
        v = (v << 4) | static_cast<uint32_t>(d);
    }
    return true;
}

// Code points of a JSON string body; surrogate pairs are joined, lone ones kept.
void decodeJsonBody(std::string_view body, std::vector<uint32_t> &cps)
{
    cps.clear();
    for (size_t i = 0; i < body.size();) {
        if (body[i] != '\\') {
            cps.push_back(nextUtf8(body, i));
            continue;
        }
        if (i + 1 >= body.size()) {
            cps.push_back('\\');
            break;
        }
        const char e = body[i + 1];
        i += 2;
        switch (e) {
        case 'n': cps.push_back('\n'); break;
        case 'r': cps.push_back('\r'); break;
        case 't': cps.push_back('\t'); break;
        case 'b': cps.push_back('\b'); break;
        case 'f': cps.push_back('\f'); break;
        case 'u': {
            uint32_t cp = 0;
            if (!hex4(body, i, cp)) {
                cps.push_back(0xfffd);
                break;
            }
            i += 4;
            uint32_t lo = 0;
            if (cp >= 0xd800 && cp < 0xdc00 && i + 1 < body.size() && body[i] == '\\' && body[i + 1] == 'u' &&
                hex4(body, i + 2, lo) && lo >= 0xdc00 && lo < 0xe000) {
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                i += 6;
            }
            cps.push_back(cp);
            break;
        }
        default: cps.push_back(static_cast<unsigned char>(e)); break; // \" \\ \/
        }
    }
}

void appendReprOfCodepoints(std::string &out, const std::vector<uint32_t> &cps)
{
    bool single = false, dbl = false;
    for (uint32_t cp : cps) {
        single |= cp == '\'';
        dbl |= cp == '"';
    }
    const char quote = single && !dbl ? '"' : '\'';
    static const char kHex[] = "0123456789abcdef";
    out.push_back(quote);
    for (uint32_t cp : cps) {
        if (cp == static_cast<uint32_t>(quote) || cp == '\\') {
            out.push_back('\\');
            out.push_back(static_cast<char>(cp));
        } else if (cp == '\t') {
            out += "\\t";
        } else if (cp == '\n') {
            out += "\\n";
        } else if (cp == '\r') {
            out += "\\r";
        } else if (isPrintable(cp)) {
            appendUtf8(out, cp);
        } else {
            const int digits = cp < 0x100 ? 2 : cp < 0x10000 ? 4 : 8;
            out.push_back('\\');
            out.push_back(digits == 2 ? 'x' : digits == 4 ? 'u' : 'U');
            for (int k = digits - 1; k >= 0; --k)
                out.push_back(kHex[(cp >> (4 * k)) & 0xf]);
        }
    }
    out.push_back(quote);
}

bool isWs(char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

// Finds the end of the string starting at json[i] == '"'; returns the index of
// the closing quote or npos.
size_t closingQuote(std::string_view json, size_t i)
{
    for (++i; i < json.size(); ++i) {
        if (json[i] == '\\')
            ++i;
        else if (json[i] == '"')
            return i;
    }
    return std::string_view::npos;
}

struct Member {
    size_t start;  // of the key's repr in `out`
    size_t keyEnd; // end of the key's repr
    size_t end;    // end of the value
};

struct Frame {
    bool object = false;
    size_t start = 0; // position of '{' / '[' in `out`
    std::vector<Member> members;
};

// A dict keeps the first position of a key and its last value.
void foldDuplicateKeys(std::string &out, const Frame &f)
{
    const auto key = [&](const Member &m) { return std::string_view(out).substr(m.start, m.keyEnd - m.start); };
    bool duplicates = false;
    for (size_t a = 0; a < f.members.size() && !duplicates; ++a)
        for (size_t b = a + 1; b < f.members.size() && !duplicates; ++b)
            duplicates = key(f.members[a]) == key(f.members[b]);
    if (!duplicates)
        return;
    std::string rebuilt;
    std::vector<std::string_view> seen;
    for (size_t a = 0; a < f.members.size(); ++a) {
        const std::string_view k = key(f.members[a]);
        bool dup = false;
        for (auto s : seen)
            dup |= s == k;
        if (dup)
            continue;
        seen.push_back(k);
        const Member *last = &f.members[a];
        for (size_t b = a + 1; b < f.members.size(); ++b)
            if (key(f.members[b]) == k)
                last = &f.members[b];
        if (!rebuilt.empty())
            rebuilt += ", ";
        rebuilt.append(k);
        rebuilt.append(out, last->keyEnd, last->end - last->keyEnd);
    }
    out.resize(f.start + 1);
    out += rebuilt;
}

} // namespace

void appendPyReprOfJsonString(std::string &out, std::string_view body)
{
    std::vector<uint32_t> cps;
    decodeJsonBody(body, cps);
    appendReprOfCodepoints(out, cps);
}

void appendPyRepr(std::string &out, std::string_view utf8)
{
    std::vector<uint32_t> cps;
    cps.reserve(utf8.size());
    for (size_t i = 0; i < utf8.size();)
        cps.push_back(nextUtf8(utf8, i));
    appendReprOfCodepoints(out, cps);
}

bool appendPyStr(std::string &out, std::string_view json)
{
    std::vector<Frame> stack;
    size_t i = 0;
    auto skip = [&] {
        while (i < json.size() && isWs(json[i]))
            ++i;
    };
    // Parses the key of the next object member (at json[i]) and ": ".
    auto key = [&]() -> bool {
        skip();
        if (i >= json.size() || json[i] != '"')
            return false;
        const size_t close = closingQuote(json, i);
        if (close == std::string_view::npos)
            return false;
        Member m{out.size(), 0, 0};
        appendPyReprOfJsonString(out, json.substr(i + 1, close - i - 1));
        m.keyEnd = out.size();
        i = close + 1;
        skip();
        if (i >= json.size() || json[i] != ':')
            return false;
        ++i;
        out += ": ";
        stack.back().members.push_back(m);
        return true;
    };
    for (;;) {
        // A value starts at json[i].
        skip();
        if (i >= json.size())
            return false;
        const char c = json[i];
        bool opened = false;
        if (c == '[' || c == '{') {
            Frame f;
            f.object = c == '{';
            f.start = out.size();
            stack.push_back(std::move(f));
            out.push_back(c);
            ++i;
            skip();
            const char closer = c == '[' ? ']' : '}';
            if (i < json.size() && json[i] == closer) {
                ++i;
                out.push_back(closer);
                stack.pop_back();
            } else {
                opened = true;
                if (c == '{' && !key())
                    return false;
            }
        } else if (c == '"') {
            const size_t close = closingQuote(json, i);
            if (close == std::string_view::npos)
                return false;
            appendPyReprOfJsonString(out, json.substr(i + 1, close - i - 1));
            i = close + 1;
        } else {
            const size_t start = i;
            while (i < json.size() && json[i] != ',' && json[i] != ']' && json[i] != '}' && !isWs(json[i]))
                ++i;
            const std::string_view tok = json.substr(start, i - start);
            if (tok == "true")
                out += "True";
            else if (tok == "false")
                out += "False";
            else if (tok == "null")
                out += "None";
            else if (tok == "NaN")
                out += "nan";
            else if (tok == "Infinity")
                out += "inf";
            else if (tok == "-Infinity")
                out += "-inf";
            else {
                const ParsedNumber n = parseJsonNumber(tok);
                if (!n.ok)
                    return false;
                bool intText = true, zero = true;
                for (char d : tok) {
                    intText &= d != '.' && d != 'e' && d != 'E';
                    zero &= d == '0' || d == '-';
                }
                if (intText) {
                    out += zero ? std::string_view("0") : tok; // Python ints: any size, no "-0"
                } else if (std::isnan(n.value)) {
                    out += "nan";
                } else if (std::isinf(n.value)) {
                    out += n.value > 0 ? "inf" : "-inf"; // 1e999 overflows to inf in Python too
                } else {
                    appendPyFloat(out, n.value);
                }
            }
        }
        if (opened)
            continue;
        // After a value: close containers or move to the next element.
        for (;;) {
            skip();
            if (stack.empty())
                return i == json.size();
            if (i >= json.size())
                return false;
            Frame &top = stack.back();
            const char d = json[i++];
            if (d == ',') {
                if (top.object)
                    top.members.back().end = out.size();
                out += ", ";
                if (top.object && !key())
                    return false;
                break;
            }
            if (d != (top.object ? '}' : ']'))
                return false;
            if (top.object) {
                top.members.back().end = out.size();
                foldDuplicateKeys(out, top);
            }
            out.push_back(d);
            stack.pop_back();
        }
    }
}

std::string pyStr(std::string_view json)
{
    std::string out;
    if (!appendPyStr(out, json))
        return {};
    return out;
}

} // namespace syncscope
