// SPDX-License-Identifier: MIT
#include "jsonscan.h"

#include "pyjson.h"

#include <algorithm>
#include <cstring>

namespace syncscope {

namespace {

bool isWs(char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

size_t stringEnd(std::string_view t, size_t i) // i at the opening quote; returns index after closing quote
{
    for (++i; i < t.size(); ++i) {
        if (t[i] == '\\')
            ++i;
        else if (t[i] == '"')
            return i + 1;
    }
    return std::string_view::npos;
}

} // namespace

size_t jsonNestingDepth(std::string_view t)
{
    size_t depth = 0, deepest = 0;
    for (size_t i = 0; i < t.size(); ++i) {
        const char ch = t[i];
        if (ch == '"') {
            i = stringEnd(t, i);
            if (i == std::string_view::npos)
                break;
            --i;
        } else if (ch == '{' || ch == '[') {
            deepest = std::max(deepest, ++depth);
        } else if ((ch == '}' || ch == ']') && depth > 0) {
            --depth;
        }
    }
    return deepest;
}

size_t jsonValueLength(std::string_view t)
{
    if (t.empty())
        return std::string_view::npos;
    const char c = t[0];
    if (c == '"')
        return stringEnd(t, 0);
    if (c == '{' || c == '[') {
        int depth = 0;
        for (size_t i = 0; i < t.size(); ++i) {
            const char ch = t[i];
            if (ch == '"') {
                i = stringEnd(t, i);
                if (i == std::string_view::npos)
                    return i;
                --i;
            } else if (ch == '{' || ch == '[') {
                ++depth;
            } else if (ch == '}' || ch == ']') {
                if (--depth == 0)
                    return i + 1;
            }
        }
        return std::string_view::npos;
    }
    size_t i = 0;
    while (i < t.size() && t[i] != ',' && t[i] != '}' && t[i] != ']' && !isWs(t[i]))
        ++i;
    return i == 0 ? std::string_view::npos : i;
}

std::vector<JsonMember> jsonObjectMembers(std::string_view t)
{
    std::vector<JsonMember> out;
    const bool ok = forEachMember(t, [&](std::string_view key, std::string_view value) {
        out.push_back({key.find('\\') == std::string_view::npos ? std::string(key) : decodeJsonString(key), value});
    });
    if (!ok)
        out.clear();
    return out;
}

} // namespace syncscope
