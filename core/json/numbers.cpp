// SPDX-License-Identifier: MIT
#include "numbers.h"

#include <charconv>
#include <cmath>
#include <limits>

namespace syncscope {

bool doubleFitsInt64(double d)
{
    // 2^63 is exactly representable; every double below it converts without overflow.
    return std::isfinite(d) && d >= -9223372036854775808.0 && d < 9223372036854775808.0;
}

std::string_view trimJson(std::string_view s)
{
    auto ws = [](char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; };
    while (!s.empty() && ws(s.front()))
        s.remove_prefix(1);
    while (!s.empty() && ws(s.back()))
        s.remove_suffix(1);
    return s;
}

ParsedNumber parseJsonNumber(std::string_view text)
{
    ParsedNumber r;
    text = trimJson(text);
    if (text.empty())
        return r;
    bool integer = true;
    for (char c : text) {
        if (c == '.' || c == 'e' || c == 'E') {
            integer = false;
            break;
        }
    }
    const char *first = text.data();
    const char *last = text.data() + text.size();
    // std::from_chars rejects a leading '+', which JSON does not allow either.
    auto [p, ec] = std::from_chars(first, last, r.value);
    if (ec == std::errc::result_out_of_range) {
        r.value = text.front() == '-' ? -std::numeric_limits<double>::infinity()
                                      : std::numeric_limits<double>::infinity();
    } else if (ec != std::errc() || p != last) {
        return r;
    }
    r.ok = true;
    if (integer) {
        auto [q, ec2] = std::from_chars(first, last, r.integer);
        r.isInteger = ec2 == std::errc() && q == last;
        if (!r.isInteger) // too large for int64: keep it as a float
            r.integer = 0;
    }
    return r;
}

int64_t microsTextToNanos(std::string_view text, double value)
{
    text = trimJson(text);
    size_t i = 0;
    bool negative = false;
    if (i < text.size() && text[i] == '-') {
        negative = true;
        ++i;
    }
    int64_t whole = 0;
    size_t digits = 0;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, ++digits) {
        if (whole > (std::numeric_limits<int64_t>::max() / 10 - 10) / 1000)
            return doubleFitsInt64(value * 1000.0) ? std::llround(value * 1000.0) : 0;
        whole = whole * 10 + (text[i] - '0');
    }
    int64_t frac = 0;
    int fracDigits = 0;
    bool roundUp = false;
    if (i < text.size() && text[i] == '.') {
        ++i;
        for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
            if (fracDigits < 3) {
                frac = frac * 10 + (text[i] - '0');
                ++fracDigits;
            } else if (fracDigits == 3) {
                roundUp = text[i] >= '5';
                ++fracDigits;
            }
        }
    }
    if (i != text.size() || digits == 0) { // exponent or something unusual
        const double ns = value * 1000.0;
        return doubleFitsInt64(ns) ? std::llround(ns) : 0; // callers range-check `value` first
    }
    while (fracDigits < 3) {
        frac *= 10;
        ++fracDigits;
    }
    int64_t ns = whole * 1000 + frac + (roundUp ? 1 : 0);
    return negative ? -ns : ns;
}

} // namespace syncscope
