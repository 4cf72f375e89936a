// SPDX-License-Identifier: MIT
// Append-only storage for many small texts (minified node/event JSON). Blocks
// are never reallocated, so growing it never copies what it holds: a vector
// would momentarily need twice the memory whenever it outgrew its capacity.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

namespace syncscope {

class TextArena
{
public:
    using Handle = uint64_t; // block << 32 | offset

    // Space for up to `maxLength` bytes; finish with commit(used).
    char *reserve(size_t maxLength)
    {
        if (m_blocks.empty() || m_blockSize[m_blocks.size() - 1] - m_used < maxLength) {
            const size_t size = std::max(kBlockSize, maxLength);
            // Not zeroed: a block's pages become resident only as texts fill them (a small
            // trace would otherwise hold 16 MB per arena; a job keeps one per rank and trace).
            m_blocks.push_back(std::make_unique_for_overwrite<char[]>(size));
            m_blockSize.push_back(size);
            m_used = 0;
        }
        return m_blocks.back().get() + m_used;
    }
    Handle commit(size_t length)
    {
        const Handle h = (static_cast<uint64_t>(m_blocks.size() - 1) << 32) | m_used;
        m_used += length;
        m_bytes += length;
        return h;
    }
    Handle append(std::string_view text)
    {
        std::memcpy(reserve(text.size()), text.data(), text.size());
        return commit(text.size());
    }
    std::string_view view(Handle h, uint32_t length) const
    {
        return {m_blocks[h >> 32].get() + (h & 0xffffffffu), length};
    }
    uint64_t bytes() const { return m_bytes; }
    bool empty() const { return m_bytes == 0; }

private:
    static constexpr size_t kBlockSize = 16u << 20;
    std::vector<std::unique_ptr<char[]>> m_blocks;
    std::vector<size_t> m_blockSize;
    size_t m_used = 0;
    uint64_t m_bytes = 0;
};

} // namespace syncscope
