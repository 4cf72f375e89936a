// SPDX-License-Identifier: MIT
#include "stringtable.h"

namespace syncscope {

namespace {
constexpr size_t kBlockSize = 1 << 16;
}

StringTable::StringTable()
{
    m_views.emplace_back();
    m_index.emplace(std::string_view(), kNoString);
}

StrId StringTable::intern(std::string_view s)
{
    if (auto it = m_index.find(s); it != m_index.end())
        return it->second;
    // Append to the current block unless it would reallocate (views must stay valid).
    if (m_blocks.empty() || m_blocks.back().capacity() - m_blocks.back().size() < s.size()) {
        m_blocks.emplace_back();
        m_blocks.back().reserve(std::max(kBlockSize, s.size()));
    }
    std::string &block = m_blocks.back();
    const size_t at = block.size();
    block.append(s);
    std::string_view stored(block.data() + at, s.size());
    const auto id = static_cast<StrId>(m_views.size());
    m_views.push_back(stored);
    m_index.emplace(stored, id);
    m_arenaBytes += s.size();
    return id;
}

int64_t StringTable::find(std::string_view s) const
{
    auto it = m_index.find(s);
    return it == m_index.end() ? -1 : static_cast<int64_t>(it->second);
}

} // namespace syncscope
