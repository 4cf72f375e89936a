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

// Trims JSON whitespace at both ends (simdjson's raw tokens may carry trailing blanks).
std::string_view trimJson(std::string_view s);

} // namespace syncscope
