// SPDX-License-Identifier: MIT
#include "edgeindex.h"

#include <algorithm>

namespace syncscope::ui {

const char *edgeKindName(EdgeKind k)
{
    switch (k) {
    case EdgeKind::Launch: return "Launch";
    case EdgeKind::Sync: return "Sync";
    case EdgeKind::CriticalPath: return "Critical path";
    case EdgeKind::InterThread: return "Inter-thread";
    }
    return "";
}

void EdgeIndex::finish()
{
    m_byEvent.clear();
    for (int k = 0; k < kEdgeKindCount; ++k) {
        Kind &kind = m_kinds[k];
        // Critical-path edges keep their path order for ties, so stable sort everywhere.
        std::stable_sort(kind.edges.begin(), kind.edges.end(),
                         [](const TimelineEdge &a, const TimelineEdge &b) { return a.minNs() < b.minNs(); });
        kind.prefixMaxEnd.resize(kind.edges.size());
        double m = -1e300;
        for (size_t i = 0; i < kind.edges.size(); ++i) {
            m = std::max(m, kind.edges[i].maxNs());
            kind.prefixMaxEnd[i] = m;
            const uint32_t ref = (static_cast<uint32_t>(k) << 28) | static_cast<uint32_t>(i);
            m_byEvent.emplace_back(kind.edges[i].from, ref);
            if (kind.edges[i].to != kind.edges[i].from)
                m_byEvent.emplace_back(kind.edges[i].to, ref);
        }
    }
    std::sort(m_byEvent.begin(), m_byEvent.end());
}

size_t EdgeIndex::total() const
{
    size_t n = 0;
    for (const auto &k : m_kinds)
        n += k.edges.size();
    return n;
}

void EdgeIndex::visible(EdgeKind k, double t0, double t1, double bucketNs, size_t budget,
                        std::vector<uint32_t> &out) const
{
    const Kind &kind = m_kinds[static_cast<int>(k)];
    const auto &e = kind.edges;
    // First edge whose running max end reaches t0: nothing before it can be visible.
    size_t i = static_cast<size_t>(std::lower_bound(kind.prefixMaxEnd.begin(), kind.prefixMaxEnd.end(), t0) -
                                   kind.prefixMaxEnd.begin());
    size_t found = 0;
    // Past the budget, one edge per pixel column: by its start column when it starts in
    // view (the rest of that column is skipped by binary search), else by the column
    // where it ends (edges crossing the left border, or the whole view, share one).
    std::vector<uint8_t> byStart, byEnd;
    const bool canThin = bucketNs > 0 && t1 > t0;
    const size_t columns = canThin ? static_cast<size_t>((t1 - t0) / bucketNs) + 2 : 0;
    while (i < e.size() && e[i].minNs() <= t1) {
        const TimelineEdge &x = e[i];
        if (x.maxNs() < t0) {
            ++i;
            continue;
        }
        if (found < budget || !canThin) {
            out.push_back(static_cast<uint32_t>(i));
            ++found;
            ++i;
            continue;
        }
        if (byStart.empty()) {
            byStart.assign(columns, 0);
            byEnd.assign(columns, 0);
        }
        if (x.minNs() >= t0) {
            const size_t col = std::min(columns - 1, static_cast<size_t>((x.minNs() - t0) / bucketNs));
            if (!byStart[col]) {
                byStart[col] = 1;
                out.push_back(static_cast<uint32_t>(i));
            }
            const double next = t0 + double(col + 1) * bucketNs;
            i = static_cast<size_t>(std::lower_bound(e.begin() + static_cast<std::ptrdiff_t>(i) + 1, e.end(), next,
                                                     [](const TimelineEdge &y, double t) { return y.minNs() < t; }) -
                                    e.begin());
        } else {
            const size_t col = std::min(columns - 1, static_cast<size_t>((std::min(x.maxNs(), t1) - t0) / bucketNs));
            if (!byEnd[col]) {
                byEnd[col] = 1;
                out.push_back(static_cast<uint32_t>(i));
            }
            ++i;
        }
    }
}

std::vector<EdgeRef> EdgeIndex::edgesOf(uint32_t event) const
{
    std::vector<EdgeRef> out;
    auto it = std::lower_bound(m_byEvent.begin(), m_byEvent.end(), std::make_pair(event, uint32_t(0)));
    for (; it != m_byEvent.end() && it->first == event; ++it)
        out.push_back({static_cast<EdgeKind>(it->second >> 28), it->second & ((1u << 28) - 1)});
    return out;
}

} // namespace syncscope::ui
