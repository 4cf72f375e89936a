// SPDX-License-Identifier: MIT
#include "exclusivetime.h"

#include <algorithm>
#include <limits>

namespace syncscope {

namespace {

// Max-of-end segment tree answering "first position in [lo, hi) whose end > u".
class MaxEndTree
{
public:
    explicit MaxEndTree(const std::vector<double> &ends)
    {
        m_size = 1;
        while (m_size < ends.size())
            m_size <<= 1;
        m_tree.assign(2 * m_size, -std::numeric_limits<double>::infinity());
        std::copy(ends.begin(), ends.end(), m_tree.begin() + static_cast<ptrdiff_t>(m_size));
        for (size_t i = m_size - 1; i >= 1; --i)
            m_tree[i] = std::max(m_tree[2 * i], m_tree[2 * i + 1]);
    }

    // Returns hi when there is none.
    size_t firstAbove(size_t lo, size_t hi, double u) const
    {
        if (lo >= hi)
            return hi;
        return descend(1, 0, m_size, lo, hi, u);
    }

private:
    size_t descend(size_t node, size_t nodeLo, size_t nodeHi, size_t lo, size_t hi, double u) const
    {
        if (nodeHi <= lo || nodeLo >= hi || m_tree[node] <= u)
            return hi;
        if (nodeHi - nodeLo == 1)
            return nodeLo;
        const size_t mid = (nodeLo + nodeHi) / 2;
        const size_t left = descend(2 * node, nodeLo, mid, lo, hi, u);
        if (left != hi)
            return left;
        return descend(2 * node + 1, mid, nodeHi, lo, hi, u);
    }

    size_t m_size = 1;
    std::vector<double> m_tree;
};

} // namespace

void computeExclusiveTimes(const KinetoTrace &trace, const std::vector<uint32_t> &ops, std::vector<PyNumber> &exclusive)
{
    const size_t n = ops.size();
    if (n == 0)
        return;
    std::vector<double> ts(n), ends(n);
    std::vector<uint8_t> endIsInt(n);
    for (size_t i = 0; i < n; ++i) {
        const KinetoEvent &e = trace.events[ops[i]];
        ts[i] = e.ts;
        ends[i] = e.ts + e.dur;
        endIsInt[i] = (!e.has(KinetoEvent::HasTs) || e.has(KinetoEvent::TsIsInteger)) &&
                      (!e.has(KinetoEvent::HasDur) || e.has(KinetoEvent::DurIsInteger));
    }
    const MaxEndTree tree(ends);
    for (size_t i = 0; i < n; ++i) {
        const KinetoEvent &p = trace.events[ops[i]];
        PyNumber result{p.dur, !p.has(KinetoEvent::HasDur) || p.has(KinetoEvent::DurIsInteger)};
        const double pEnd = ends[i];
        // Ops are sorted by start, so the scan window ends at the first start after pEnd.
        const size_t k = static_cast<size_t>(std::upper_bound(ts.begin() + static_cast<ptrdiff_t>(i) + 1, ts.end(),
                                                              pEnd) -
                                             ts.begin());
        bool open = false;
        double regionStart = 0, regionEnd = -std::numeric_limits<double>::infinity();
        bool regionInt = true;
        size_t lo = i + 1;
        while (lo < k) {
            const size_t j = tree.firstAbove(lo, k, open ? regionEnd : -std::numeric_limits<double>::infinity());
            if (j >= k)
                break;
            if (ends[j] <= pEnd && ts[j] >= p.ts) {
                if (open && ts[j] <= regionEnd) {
                    regionEnd = ends[j];
                    regionInt = regionInt && endIsInt[j];
                } else {
                    if (open) {
                        result.value -= regionEnd - regionStart;
                        result.isInt = result.isInt && regionInt;
                    }
                    open = true;
                    regionStart = ts[j];
                    regionEnd = ends[j];
                    const KinetoEvent &c = trace.events[ops[j]];
                    regionInt = endIsInt[j] && (!c.has(KinetoEvent::HasTs) || c.has(KinetoEvent::TsIsInteger));
                }
            }
            lo = j + 1;
        }
        if (open) {
            result.value -= regionEnd - regionStart;
            result.isInt = result.isInt && regionInt;
        }
        exclusive[ops[i]] = result;
    }
}

} // namespace syncscope
