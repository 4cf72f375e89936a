// SPDX-License-Identifier: MIT
// The byte encoding of RankSummary (ranksummaryio.cpp) for the files that write a
// part of it (rankbreakdown.cpp): little-endian fixed-width fields, strings and
// vectors prefixed by a 32-bit count, every read bounds-checked. Internal to core/job.
#pragma once

#include "analysis/ranksummary.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

namespace syncscope::summarybytes {

class Writer
{
public:
    template <typename T>
    void num(T v)
    {
        static_assert(std::is_arithmetic_v<T>);
        unsigned char b[sizeof(T)];
        std::memcpy(b, &v, sizeof(T));
        if constexpr (std::endian::native == std::endian::big)
            std::reverse(b, b + sizeof(T));
        out.append(reinterpret_cast<const char *>(b), sizeof(T));
    }
    void str(const std::string &s)
    {
        num(static_cast<uint32_t>(s.size()));
        out += s;
    }
    void optional(const std::optional<int64_t> &v)
    {
        num(static_cast<uint8_t>(v.has_value()));
        num(v.value_or(0));
    }
    std::string out;
};

struct Corrupt : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class Reader
{
public:
    explicit Reader(std::string_view b) : bytes(b) {}
    template <typename T>
    T num()
    {
        need(sizeof(T), "a number");
        unsigned char b[sizeof(T)];
        std::memcpy(b, bytes.data() + pos, sizeof(T));
        if constexpr (std::endian::native == std::endian::big)
            std::reverse(b, b + sizeof(T));
        pos += sizeof(T);
        T v;
        std::memcpy(&v, b, sizeof(T));
        return v;
    }
    std::string str()
    {
        const uint32_t n = num<uint32_t>();
        need(n, "a string");
        std::string s(bytes.substr(pos, n));
        pos += n;
        return s;
    }
    std::optional<int64_t> optional()
    {
        const bool has = num<uint8_t>() != 0;
        const int64_t v = num<int64_t>();
        return has ? std::optional<int64_t>(v) : std::nullopt;
    }
    bool flag() { return num<uint8_t>() != 0; }
    // A count of items that take at least `minBytes` each.
    size_t count(size_t minBytes, const char *what)
    {
        const uint32_t n = num<uint32_t>();
        if (minBytes > 0 && n > (bytes.size() - pos) / minBytes)
            throw Corrupt(std::string("the count of ") + what + " (" + std::to_string(n) + ") exceeds the bytes left");
        return n;
    }
    void need(size_t n, const char *what) const
    {
        if (n > bytes.size() - pos)
            throw Corrupt(std::string("truncated at byte ") + std::to_string(pos) + " while reading " + what);
    }
    bool atEnd() const { return pos == bytes.size(); }
    size_t position() const { return pos; }

private:
    std::string_view bytes;
    size_t pos = 0;
};

// The readers take ts within [-2^60, 2^62] ns and dur within +-2^60 ns; ends and
// sums of those stay within these bounds, so any difference of two fits int64.
constexpr int64_t kMinTimeNs = -(int64_t(1) << 61);
constexpr int64_t kMaxTimeNs = (int64_t(1) << 62) + (int64_t(1) << 60);
constexpr int64_t kMaxSpanNs = int64_t(1) << 62;

inline int64_t readTime(Reader &r, const char *what)
{
    const int64_t v = r.num<int64_t>();
    if (v < kMinTimeNs || v > kMaxTimeNs)
        throw Corrupt(std::string(what) + " " + std::to_string(v) + " ns is outside the range a trace can hold");
    return v;
}

inline int64_t readSpan(Reader &r, const char *what)
{
    const int64_t v = r.num<int64_t>();
    if (v < -kMaxSpanNs || v > kMaxSpanNs)
        throw Corrupt(std::string(what) + " " + std::to_string(v) + " ns is outside the range a trace can hold");
    return v;
}

inline double finite(Reader &r, const char *what)
{
    const double v = r.num<double>();
    if (!std::isfinite(v))
        throw Corrupt(std::string(what) + " is not a finite number");
    return v;
}

// A double that may be NaN (HTA's undefined ratios) but not infinite.
inline double finiteOrNan(Reader &r, const char *what)
{
    const double v = r.num<double>();
    if (std::isinf(v))
        throw Corrupt(std::string(what) + " is infinite");
    return v;
}

// RankSummary::breakdown (rankbreakdown.cpp).
void writeRankBreakdown(Writer &w, const std::optional<RankBreakdown> &b);
std::optional<RankBreakdown> readRankBreakdown(Reader &r);

} // namespace syncscope::summarybytes
