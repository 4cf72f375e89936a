// SPDX-License-Identifier: MIT
// Small helpers over JSON text we already know to be valid (minified node or
// event text): value extents and the top-level members of an object.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace syncscope {

// Length of the JSON value that starts at text[0] (leading whitespace not
// allowed); npos when it does not end inside `text`.
size_t jsonValueLength(std::string_view text);

struct JsonMember {
    std::string key;        // decoded
    std::string_view value; // raw value text
};

// Members of the object `text` in order; empty when `text` is not an object.
std::vector<JsonMember> jsonObjectMembers(std::string_view text);

} // namespace syncscope
