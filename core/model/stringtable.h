// SPDX-License-Identifier: MIT
// Interned strings: every event name, category and arg value that repeats is
// stored once; records hold a 32-bit StrId instead of a std::string.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace syncscope {

using StrId = uint32_t;
constexpr StrId kNoString = 0; // id 0 is the empty string

class StringTable
{
public:
    StringTable();
    StringTable(const StringTable &) = delete;
    StringTable &operator=(const StringTable &) = delete;
    StringTable(StringTable &&) = default;
    StringTable &operator=(StringTable &&) = default;

    StrId intern(std::string_view s);
    // Returns kNoString-or-id without inserting; -1 when absent.
    int64_t find(std::string_view s) const;
    std::string_view view(StrId id) const { return m_views[id]; }
    std::string str(StrId id) const { return std::string(m_views[id]); }
    size_t size() const { return m_views.size(); }
    size_t bytes() const { return m_arenaBytes; }

private:
    std::deque<std::string> m_blocks; // stable storage; views point into it
    std::vector<std::string_view> m_views;
    std::unordered_map<std::string_view, StrId> m_index;
    size_t m_arenaBytes = 0;
};

} // namespace syncscope
