// SPDX-License-Identifier: MIT
// Text the generators write the same way (internal to bench/tracegen).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace tracegen::format {

// Whole nanoseconds as Kineto writes them: "<µs>.<ns>".
inline std::string fmtNs(int64_t ns)
{
    char buf[48];
    std::snprintf(buf, sizeof buf, "%lld.%03lld", static_cast<long long>(ns / 1000), static_cast<long long>(ns % 1000));
    return buf;
}

// "Process Group Ranks" / pg_config ranks as PyTorch writes them: "[0, 1, 2]".
inline std::string rankListText(const std::vector<int> &ranks)
{
    std::string s = "[";
    for (size_t i = 0; i < ranks.size(); ++i)
        s += (i ? ", " : "") + std::to_string(ranks[i]);
    return s + "]";
}

} // namespace tracegen::format
