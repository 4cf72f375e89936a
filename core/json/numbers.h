// SPDX-License-Identifier: MIT
// Number parsing shared by the readers: Kineto times are decimal microseconds
// ("ts": 1712195495507268.2); we keep both the IEEE double the reference tools
// compute with and an exact integer nanosecond value for the timeline.
#pragma once

#include <cstdint>
#include <string_view>

namespace syncscope {

struct ParsedNumber {
    bool ok = false;
    bool isInteger = false; // no fraction and no exponent in the text
    int64_t integer = 0;    // valid when isInteger (and it fitted)
    double value = 0;       // correctly rounded double of the text
};

ParsedNumber parseJsonNumber(std::string_view text);

// Microseconds written as decimal text -> nanoseconds, rounded half away from zero.
// Falls back to llround(value * 1000) for exponent notation.
int64_t microsTextToNanos(std::string_view text, double value);

// Range of the times we accept, in nanoseconds. Chosen so that ts + dur and the
// difference of any two times fit in int64 without overflow (2^62 ns is 146
// years after the epoch; Kineto's epoch timestamps are ~1.8e18 ns).
constexpr int64_t kMaxTimeNs = int64_t(1) << 62;
constexpr int64_t kMinTimeNs = -(int64_t(1) << 60);
constexpr int64_t kMaxDurationNs = int64_t(1) << 60; // |dur| limit (36 years)

// A double that converts to int64 without overflow (finite, in [-2^63, 2^63)).
bool doubleFitsInt64(double d);

// Trims JSON whitespace at both ends (simdjson's raw tokens may carry trailing blanks).
std::string_view trimJson(std::string_view s);

} // namespace syncscope
