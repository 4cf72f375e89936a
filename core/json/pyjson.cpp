// SPDX-License-Identifier: MIT
#include "pyjson.h"

#include "jsonscan.h"
#include "numbers.h"

#include <charconv>
#include <cmath>
#include <cstring>

namespace syncscope {

void appendPyFloat(std::string &out, double v)
{
    if (std::isnan(v)) {
        out += "NaN";
        return;
    }
    if (std::isinf(v)) {
        out += v > 0 ? "Infinity" : "-Infinity";
        return;
    }
    // Shortest round-trip digits in scientific form: d[.ddd]e±XX
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
    std::string_view s(buf, static_cast<size_t>(res.ptr - buf));
    bool negative = false;
    if (!s.empty() && s.front() == '-') {
        negative = true;
        s.remove_prefix(1);
    }
    const size_t ePos = s.find('e');
    std::string digits;
    digits.push_back(s[0]);
    if (ePos > 1)
        digits.append(s.substr(2, ePos - 2)); // skip the '.'
    int exp = 0;
    std::from_chars(s.data() + ePos + 1 + (s[ePos + 1] == '+' ? 1 : 0), s.data() + s.size(), exp);
    if (negative)
        out.push_back('-');
    const int nd = static_cast<int>(digits.size());
    if (exp >= -4 && exp < 16) {
        if (exp >= 0) {
            if (nd <= exp + 1) {
                out.append(digits);
                out.append(static_cast<size_t>(exp + 1 - nd), '0');
                out += ".0";
            } else {
                out.append(digits, 0, static_cast<size_t>(exp + 1));
                out.push_back('.');
                out.append(digits, static_cast<size_t>(exp + 1));
            }
        } else {
            out += "0.";
            out.append(static_cast<size_t>(-exp - 1), '0');
            out.append(digits);
        }
        return;
    }
    out.push_back(digits[0]);
    if (nd > 1) {
        out.push_back('.');
        out.append(digits, 1);
    }
    out.push_back('e');
    out.push_back(exp < 0 ? '-' : '+');
    const int a = exp < 0 ? -exp : exp;
    if (a < 10)
        out.push_back('0');
    out += std::to_string(a);
}

std::string pyFloat(double v)
{
    std::string s;
    appendPyFloat(s, v);
    return s;
}

void appendPyNumber(std::string &out, PyNumber n)
{
    if (n.isInt) {
        char buf[32];
        auto res = std::to_chars(buf, buf + sizeof buf, static_cast<int64_t>(n.value));
        out.append(buf, res.ptr);
    } else {
        appendPyFloat(out, n.value);
    }
}

namespace {

const char kHex[] = "0123456789abcdef";

void appendU16(std::string &out, unsigned cp)
{
    out += "\\u";
    out.push_back(kHex[(cp >> 12) & 0xf]);
    out.push_back(kHex[(cp >> 8) & 0xf]);
    out.push_back(kHex[(cp >> 4) & 0xf]);
    out.push_back(kHex[cp & 0xf]);
}

bool plainAscii(std::string_view s)
{
    for (unsigned char c : s)
        if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\')
            return false;
    return true;
}

unsigned hexValue(char c)
{
    if (c >= '0' && c <= '9')
        return static_cast<unsigned>(c - '0');
    if (c >= 'a' && c <= 'f')
        return static_cast<unsigned>(c - 'a' + 10);
    if (c >= 'A' && c <= 'F')
        return static_cast<unsigned>(c - 'A' + 10);
    return 0;
}

void pyAppendUtf8(std::string &out, uint32_t cp)
{
    if (cp < 0x80) {
        out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
        out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
        out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
}

} // namespace

std::string decodeJsonString(std::string_view body)
{
    std::string out;
    out.reserve(body.size());
    for (size_t i = 0; i < body.size(); ++i) {
        const char c = body[i];
        if (c != '\\' || i + 1 >= body.size()) {
            out.push_back(c);
            continue;
        }
        const char e = body[++i];
        switch (e) {
        case 'n': out.push_back('\n'); break;
        case 'r': out.push_back('\r'); break;
        case 't': out.push_back('\t'); break;
        case 'b': out.push_back('\b'); break;
        case 'f': out.push_back('\f'); break;
        case 'u': {
            if (i + 4 >= body.size())
                break;
            uint32_t cp = 0;
            for (int k = 1; k <= 4; ++k)
                cp = (cp << 4) | hexValue(body[i + static_cast<size_t>(k)]);
            i += 4;
            if (cp >= 0xD800 && cp < 0xDC00 && i + 6 < body.size() + 0 && body[i + 1] == '\\' && body[i + 2] == 'u') {
                uint32_t lo = 0;
                for (int k = 3; k <= 6; ++k)
                    lo = (lo << 4) | hexValue(body[i + static_cast<size_t>(k)]);
                if (lo >= 0xDC00 && lo < 0xE000) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    i += 6;
                }
            }
            pyAppendUtf8(out, cp);
            break;
        }
        default: out.push_back(e); break; // \" \\ \/
        }
    }
    return out;
}

void appendPyJsonString(std::string &out, std::string_view s)
{
    out.push_back('"');
    if (plainAscii(s)) {
        out.append(s);
        out.push_back('"');
        return;
    }
    for (size_t i = 0; i < s.size(); ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        switch (c) {
        case '"': out += "\\\""; continue;
        case '\\': out += "\\\\"; continue;
        case '\n': out += "\\n"; continue;
        case '\r': out += "\\r"; continue;
        case '\t': out += "\\t"; continue;
        case '\b': out += "\\b"; continue;
        case '\f': out += "\\f"; continue;
        default: break;
        }
        if (c < 0x20) {
            appendU16(out, c);
        } else if (c < 0x80) {
            out.push_back(static_cast<char>(c));
        } else {
            // Decode one UTF-8 sequence; invalid bytes are escaped as themselves.
            uint32_t cp = c;
            int extra = 0;
            if ((c & 0xE0) == 0xC0) {
                cp = c & 0x1F;
                extra = 1;
            } else if ((c & 0xF0) == 0xE0) {
                cp = c & 0x0F;
                extra = 2;
            } else if ((c & 0xF8) == 0xF0) {
                cp = c & 0x07;
                extra = 3;
            }
            if (i + static_cast<size_t>(extra) >= s.size() + (extra == 0 ? 1 : 0))
                extra = 0;
            for (int k = 1; k <= extra; ++k)
                cp = (cp << 6) | (static_cast<unsigned char>(s[i + static_cast<size_t>(k)]) & 0x3F);
            i += static_cast<size_t>(extra);
            if (cp >= 0x10000) {
                cp -= 0x10000;
                appendU16(out, 0xD800 + (cp >> 10));
                appendU16(out, 0xDC00 + (cp & 0x3FF));
            } else {
                appendU16(out, cp);
            }
        }
    }
    out.push_back('"');
}

void appendNewlineIndent(std::string &out, int indent, int level)
{
    out.push_back('\n');
    out.append(static_cast<size_t>(indent * level), ' ');
}

namespace {

class Reformatter
{
public:
    Reformatter(std::string &out, std::string_view in, int indent) : m_out(out), m_in(in), m_indent(indent) {}

    bool value(int level)
    {
        skipWs();
        if (m_pos >= m_in.size())
            return false;
        const char c = m_in[m_pos];
        if (c == '{')
            return container(level, '}', true);
        if (c == '[')
            return container(level, ']', false);
        if (c == '"')
            return string();
        return scalar();
    }

    bool atEnd()
    {
        skipWs();
        return m_pos == m_in.size();
    }

private:
    void skipWs()
    {
        while (m_pos < m_in.size() &&
               (m_in[m_pos] == ' ' || m_in[m_pos] == '\n' || m_in[m_pos] == '\r' || m_in[m_pos] == '\t'))
            ++m_pos;
    }

    bool container(int level, char close, bool isObject)
    {
        // Bounded recursion: one frame per level, at most kMaxJsonDepth.
        if (++m_depth > kMaxJsonDepth)
            return false;
        ++m_pos;
        skipWs();
        if (m_pos < m_in.size() && m_in[m_pos] == close) {
            ++m_pos;
            m_out.push_back(isObject ? '{' : '[');
            m_out.push_back(close);
            --m_depth;
            return true;
        }
        m_out.push_back(isObject ? '{' : '[');
        for (bool first = true;; first = false) {
            if (!first)
                m_out.push_back(',');
            appendNewlineIndent(m_out, m_indent, level + 1);
            if (isObject) {
                skipWs();
                if (m_pos >= m_in.size() || m_in[m_pos] != '"' || !string())
                    return false;
                skipWs();
                if (m_pos >= m_in.size() || m_in[m_pos] != ':')
                    return false;
                ++m_pos;
                m_out += ": ";
            }
            if (!value(level + 1))
                return false;
            skipWs();
            if (m_pos >= m_in.size())
                return false;
            if (m_in[m_pos] == ',') {
                ++m_pos;
                continue;
            }
            if (m_in[m_pos] != close)
                return false;
            ++m_pos;
            break;
        }
        appendNewlineIndent(m_out, m_indent, level);
        m_out.push_back(close);
        --m_depth;
        return true;
    }

    bool string()
    {
        const size_t start = ++m_pos;
        bool escapes = false;
        while (m_pos < m_in.size() && m_in[m_pos] != '"') {
            if (m_in[m_pos] == '\\') {
                escapes = true;
                ++m_pos;
            }
            ++m_pos;
        }
        if (m_pos >= m_in.size())
            return false;
        const std::string_view body = m_in.substr(start, m_pos - start);
        ++m_pos;
        if (escapes)
            appendPyJsonString(m_out, decodeJsonString(body));
        else
            appendPyJsonString(m_out, body);
        return true;
    }

    bool scalar()
    {
        const size_t start = m_pos;
        while (m_pos < m_in.size() && m_in[m_pos] != ',' && m_in[m_pos] != '}' && m_in[m_pos] != ']' &&
               m_in[m_pos] != ' ' && m_in[m_pos] != '\n' && m_in[m_pos] != '\r' && m_in[m_pos] != '\t')
            ++m_pos;
        const std::string_view tok = m_in.substr(start, m_pos - start);
        if (tok.empty())
            return false;
        if (tok == "true" || tok == "false" || tok == "null" || tok == "NaN" || tok == "Infinity" ||
            tok == "-Infinity") {
            m_out.append(tok);
            return true;
        }
        const ParsedNumber n = parseJsonNumber(tok);
        if (!n.ok)
            return false;
        bool isIntText = true;
        for (char ch : tok)
            isIntText &= ch != '.' && ch != 'e' && ch != 'E';
        if (isIntText) {
            // Python ints have arbitrary precision: keep the digits, drop a "-0" sign.
            if (tok == "-0")
                m_out.push_back('0');
            else
                m_out.append(tok);
        } else {
            appendPyFloat(m_out, n.value);
        }
        return true;
    }

    std::string &m_out;
    std::string_view m_in;
    int m_indent;
    size_t m_pos = 0;
    size_t m_depth = 0;
};

} // namespace

bool appendPyJson(std::string &out, std::string_view json, int indent, int level)
{
    Reformatter r(out, json, indent);
    return r.value(level) && r.atEnd();
}

} // namespace syncscope
