// SPDX-License-Identifier: MIT
#include "align.h"

#include <algorithm>
#include <unordered_map>

namespace syncscope {

namespace {

using Pairs = std::vector<std::pair<uint32_t, uint32_t>>;

// Longest run of `cands` (sorted by first) whose second is strictly increasing (patience sorting).
Pairs longestIncreasing(const Pairs &cands)
{
    std::vector<uint32_t> tails; // index into cands of the smallest tail of each length
    std::vector<int32_t> prev(cands.size(), -1);
    for (uint32_t k = 0; k < cands.size(); ++k) {
        auto it = std::lower_bound(tails.begin(), tails.end(), cands[k].second,
                                   [&](uint32_t t, uint32_t v) { return cands[t].second < v; });
        if (it != tails.begin())
            prev[k] = static_cast<int32_t>(*(it - 1));
        if (it == tails.end())
            tails.push_back(k);
        else
            *it = k;
    }
    Pairs out;
    for (int32_t k = tails.empty() ? -1 : static_cast<int32_t>(tails.back()); k >= 0; k = prev[k])
        out.push_back(cands[k]);
    std::reverse(out.begin(), out.end());
    return out;
}

// Exact LCS for a small range.
void lcs(const std::vector<uint32_t> &a, const std::vector<uint32_t> &b, uint32_t a0, uint32_t a1, uint32_t b0,
         uint32_t b1, Pairs &out)
{
    const uint32_t n = a1 - a0, m = b1 - b0;
    std::vector<uint16_t> t((n + 1) * (m + 1), 0);
    auto at = [&](uint32_t i, uint32_t j) -> uint16_t & { return t[i * (m + 1) + j]; };
    for (uint32_t i = n; i-- > 0;)
        for (uint32_t j = m; j-- > 0;)
            at(i, j) = a[a0 + i] == b[b0 + j] ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
    for (uint32_t i = 0, j = 0; i < n && j < m;) {
        if (a[a0 + i] == b[b0 + j]) {
            out.emplace_back(a0 + i, b0 + j);
            ++i, ++j;
        } else if (at(i + 1, j) >= at(i, j + 1))
            ++i;
        else
            ++j;
    }
}

} // namespace

Pairs alignSequences(const std::vector<uint32_t> &a, const std::vector<uint32_t> &b)
{
    Pairs out;
    struct Range {
        uint32_t a0, a1, b0, b1;
    };
    std::vector<Range> work{{0, static_cast<uint32_t>(a.size()), 0, static_cast<uint32_t>(b.size())}};
    while (!work.empty()) {
        Range r = work.back();
        work.pop_back();
        while (r.a0 < r.a1 && r.b0 < r.b1 && a[r.a0] == b[r.b0])
            out.emplace_back(r.a0++, r.b0++);
        while (r.a0 < r.a1 && r.b0 < r.b1 && a[r.a1 - 1] == b[r.b1 - 1])
            out.emplace_back(--r.a1, --r.b1);
        if (r.a0 == r.a1 || r.b0 == r.b1)
            continue;
        const uint64_t cells = uint64_t(r.a1 - r.a0) * (r.b1 - r.b0);
        if (cells <= 4096) {
            lcs(a, b, r.a0, r.a1, r.b0, r.b1, out);
            continue;
        }
        // Occurrences per key on both sides: (count in a, count in b, position in a, position in b).
        struct Seen {
            uint32_t na = 0, nb = 0, ia = 0, ib = 0;
        };
        std::unordered_map<uint32_t, Seen> seen;
        seen.reserve((r.a1 - r.a0) + (r.b1 - r.b0));
        for (uint32_t i = r.a0; i < r.a1; ++i) {
            Seen &s = seen[a[i]];
            ++s.na;
            s.ia = i;
        }
        for (uint32_t j = r.b0; j < r.b1; ++j) {
            auto it = seen.find(b[j]);
            if (it != seen.end()) {
                ++it->second.nb;
                it->second.ib = j;
            }
        }
        Pairs cands;
        for (uint32_t i = r.a0; i < r.a1; ++i) {
            const Seen &s = seen[a[i]];
            if (s.na == 1 && s.nb == 1)
                cands.emplace_back(i, s.ib);
        }
        Pairs anchors = longestIncreasing(cands);
        if (anchors.empty()) {
            // No unique key: the k-th occurrence of a key in a against its k-th in b.
            std::unordered_map<uint32_t, std::vector<uint32_t>> where;
            for (uint32_t j = r.b0; j < r.b1; ++j)
                where[b[j]].push_back(j);
            std::unordered_map<uint32_t, uint32_t> used;
            cands.clear();
            for (uint32_t i = r.a0; i < r.a1; ++i) {
                auto it = where.find(a[i]);
                if (it == where.end())
                    continue;
                uint32_t &k = used[a[i]];
                if (k < it->second.size())
                    cands.emplace_back(i, it->second[k++]);
            }
            for (const auto &p : longestIncreasing(cands))
                out.push_back(p);
            continue;
        }
        uint32_t pa = r.a0, pb = r.b0;
        for (const auto &[i, j] : anchors) {
            out.emplace_back(i, j);
            if (pa < i && pb < j)
                work.push_back({pa, i, pb, j});
            pa = i + 1;
            pb = j + 1;
        }
        if (pa < r.a1 && pb < r.b1)
            work.push_back({pa, r.a1, pb, r.b1});
    }
    std::sort(out.begin(), out.end());
    return out;
}

} // namespace syncscope
