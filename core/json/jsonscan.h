// SPDX-License-Identifier: MIT
// Small helpers over JSON text we already know to be valid (minified node or
// event text): value extents and the top-level members of an object.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace syncscope {

// The deepest nesting of objects and arrays Syncscope reads, copies or
// re-formats. Python's json module (which the reference tools use) handles
// about 990 levels; real traces use fewer than 10. The bound keeps every walk
// shallow and json.dump(indent=4) re-formatting linear in the input (its
// indentation costs up to ~4 bytes per level per line).
constexpr size_t kMaxJsonDepth = 512;

// Deepest nesting of objects and arrays in `text` (0 for a scalar), counting
// brackets outside strings; iterative, any input.
size_t jsonNestingDepth(std::string_view text);

// Length of the JSON value that starts at text[0] (leading whitespace not
// allowed); npos when it does not end inside `text`.
size_t jsonValueLength(std::string_view text);

struct JsonMember {
    std::string key;        // decoded
    std::string_view value; // raw value text
};

// Members of the object `text` in order; empty when `text` is not an object.
std::vector<JsonMember> jsonObjectMembers(std::string_view text);

// Calls f(rawKey, value) for each member of the object `t`, in order, without
// allocating (keys are not unescaped). Returns false on malformed text.
template <typename F>
bool forEachMember(std::string_view t, F &&f);
// Calls f(value) for each element of the array `t`. Returns false on malformed text.
template <typename F>
bool forEachElement(std::string_view t, F &&f);

namespace jsonscan_detail {
inline bool isWs(char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}
} // namespace jsonscan_detail

// Walks the items of the object or array `t` (`open` is '{' or '['), calling
// f(rawKey, value) for object members and f({}, value) for array elements.
template <typename F>
bool forEachItem(std::string_view t, char open, F &&f)
{
    using jsonscan_detail::isWs;
    const char close = open == '{' ? '}' : ']';
    size_t i = 0;
    auto skip = [&] {
        while (i < t.size() && isWs(t[i]))
            ++i;
    };
    skip();
    if (i >= t.size() || t[i] != open)
        return false;
    ++i;
    for (;;) {
        skip();
        if (i >= t.size())
            return false;
        if (t[i] == close)
            return true;
        if (t[i] == ',') {
            ++i;
            continue;
        }
        std::string_view key;
        if (open == '{') {
            const size_t keyLen = jsonValueLength(t.substr(i));
            if (t[i] != '"' || keyLen == std::string_view::npos)
                return false;
            key = t.substr(i + 1, keyLen - 2);
            i += keyLen;
            skip();
            if (i >= t.size() || t[i] != ':')
                return false;
            ++i;
            skip();
        }
        const size_t valueLen = jsonValueLength(t.substr(i));
        if (valueLen == std::string_view::npos)
            return false;
        f(key, t.substr(i, valueLen));
        i += valueLen;
    }
}

template <typename F>
bool forEachMember(std::string_view t, F &&f)
{
    return forEachItem(t, '{', f);
}

template <typename F>
bool forEachElement(std::string_view t, F &&f)
{
    return forEachItem(t, '[', [&](std::string_view, std::string_view value) { f(value); });
}

} // namespace syncscope
