// SPDX-License-Identifier: MIT
#include "syncsweep.h"

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>

namespace syncscope::hta {

namespace {

// Launch ids grouped by a key (a GPU stream, or a CPU thread and stream), ascending
// within a group: a counting sort by group, as the launches are already in id order.
// O(launches) where sorting ids by a tuple of keys cost O(L log L) with dear compares.
template <class Key>
class LaunchGroups
{
public:
    template <class KeyOf>
    LaunchGroups(size_t launches, KeyOf keyOf)
    {
        std::vector<uint32_t> groupOf(launches);
        std::vector<uint32_t> count;
        for (uint32_t k = 0; k < launches; ++k) {
            const auto [it, added] = m_group.try_emplace(keyOf(k), static_cast<uint32_t>(count.size()));
            if (added)
                count.push_back(0);
            groupOf[k] = it->second;
            ++count[it->second];
        }
        m_start.assign(count.size() + 1, 0);
        for (size_t g = 0; g < count.size(); ++g)
            m_start[g + 1] = m_start[g] + count[g];
        std::vector<uint32_t> next(m_start.begin(), m_start.end() - 1);
        m_order.resize(launches);
        for (uint32_t k = 0; k < launches; ++k)
            m_order[next[groupOf[k]]++] = k;
    }
    // The group's launch ids, ascending; empty when no launch has the key.
    std::pair<const uint32_t *, const uint32_t *> find(const Key &key) const
    {
        const auto it = m_group.find(key);
        if (it == m_group.end())
            return {nullptr, nullptr};
        return {m_order.data() + m_start[it->second], m_order.data() + m_start[it->second + 1]};
    }

private:
    struct Hash {
        size_t operator()(const Key &k) const { return k.hash(); }
    };
    std::unordered_map<Key, uint32_t, Hash> m_group;
    std::vector<uint32_t> m_start, m_order;
};

size_t mix(size_t h, uint64_t v)
{
    return h ^ (std::hash<uint64_t>{}(v) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
}
size_t mix(size_t h, const IdKey &k) { return mix(mix(h, k.isString ? 1 : 0), static_cast<uint64_t>(k.value)); }

struct StreamKey { // a GPU and a stream: the launch groups' key and the sweep's
    IdKey device;
    int64_t stream;
    bool operator==(const StreamKey &o) const { return device == o.device && stream == o.stream; }
    bool operator<(const StreamKey &o) const { return std::tie(device, stream) < std::tie(o.device, o.stream); }
    size_t hash() const { return mix(mix(0, device), static_cast<uint64_t>(stream)); }
};

struct ThreadKey { // a CPU thread and the stream it launches onto
    IdKey pid, tid;
    int64_t stream;
    bool operator==(const ThreadKey &o) const { return pid == o.pid && tid == o.tid && stream == o.stream; }
    size_t hash() const { return mix(mix(mix(0, pid), tid), static_cast<uint64_t>(stream)); }
};

} // namespace

SyncTables::SyncTables(const RowTable &rows, Diagnostics &diag, uint16_t launchRole)
{
    buildLaunches(rows, launchRole, nullptr);
    buildRecords(rows, diag);
    buildWaits(rows);
}

SyncTables::SyncTables(const RowTable &rows, Diagnostics &diag, const std::vector<uint8_t> &launchRows)
{
    buildLaunches(rows, 0, &launchRows);
    buildRecords(rows, diag);
    buildWaits(rows);
}

void SyncTables::buildLaunches(const RowTable &rows, uint16_t launchRole, const std::vector<uint8_t> *launchRows)
{
    const auto &events = rows.trace().events;
    const uint32_t n = static_cast<uint32_t>(rows.eventCount());
    struct Order {
        double ts;
        uint32_t runtime, activity;
        bool operator<(const Order &o) const { return ts != o.ts ? ts < o.ts : runtime < o.runtime; }
    };
    std::vector<Order> order;
    for (uint32_t i = 0; i < n; ++i) {
        const bool launch = launchRows ? (*launchRows)[i] != 0 : (rows.nameRoles(i) & launchRole) != 0;
        if (!rows.isLoaded(i) || !launch || rows.indexCorr(i) <= 0)
            continue;
        const uint32_t k = static_cast<uint32_t>(rows.indexCorr(i));
        // Matched to a GPU row on a stream that itself links back (spec 2.7.2).
        if (!rows.isLoaded(k) || rows.stream(k) == -1 || rows.indexCorr(k) <= 0)
            continue;
        order.push_back({rows.ts(i), i, k});
    }
    // Launch ids follow ts; HTA's sort is unstable, we break ties by event index.
    // (Sorted as small records, then filled in: the launches themselves are 72 bytes.)
    if (!std::is_sorted(order.begin(), order.end()))
        std::sort(order.begin(), order.end());
    m_launches.resize(order.size());
    for (size_t j = 0; j < order.size(); ++j) {
        const uint32_t i = order[j].runtime, k = order[j].activity;
        Launch &l = m_launches[j];
        l.runtime = i;
        l.activity = k;
        l.ts = order[j].ts;
        l.cpuPid = pidKey(events[i]);
        l.cpuTid = tidKey(events[i]);
        l.gpuPid = pidKey(events[k]);
        l.stream = rows.stream(k);
    }
}

void SyncTables::buildRecords(const RowTable &rows, Diagnostics &diag)
{
    if (!rows.hasSymbol("cudaEventRecord"))
        return;
    const auto &events = rows.trace().events;
    const uint32_t n = static_cast<uint32_t>(rows.eventCount());
    // Where each awaited record was recorded: (record corr, wait_on_stream, GPU pid of the sync row).
    struct Where {
        int64_t corr;
        uint32_t row;
        int64_t stream;
        IdKey gpu;
    };
    std::vector<Where> where;
    for (uint32_t i = 0; i < n; ++i) {
        if (rows.waitsOnStream(i))
            where.push_back({events[i].waitOnRecordCorr, i, events[i].waitOnStream, pidKey(events[i])});
    }
    std::sort(where.begin(), where.end(),
              [](const Where &a, const Where &b) { return a.corr != b.corr ? a.corr < b.corr : a.row < b.row; });
    std::vector<Where> unique;
    size_t conflicts = 0;
    for (const Where &w : where) {
        if (!unique.empty() && unique.back().corr == w.corr) {
            conflicts += (unique.back().stream != w.stream || !(unique.back().gpu == w.gpu)) ? 1 : 0;
            continue;
        }
        unique.push_back(w);
    }
    if (conflicts > 0)
        diag.warning("cpa.record_on_two_streams",
                     rows.trace().path + ": " + std::to_string(conflicts) +
                         " cuda_sync rows wait on a cudaEventRecord with a different stream or device than an "
                         "earlier row; the first is used (HTA fails on this)",
                     rows.trace().path);

    const LaunchGroups<StreamKey> byStream(m_launches.size(), [&](uint32_t k) {
        return StreamKey{m_launches[k].gpuPid, m_launches[k].stream};
    });
    for (uint32_t i = 0; i < n; ++i) {
        if (!rows.isLoaded(i) || !(rows.nameRoles(i) & RoleEventRecord))
            continue;
        auto it = std::lower_bound(unique.begin(), unique.end(), events[i].correlation,
                                   [](const Where &w, int64_t c) { return w.corr < c; });
        if (it == unique.end() || it->corr != events[i].correlation)
            continue; // nobody waits on this record
        // The last launch onto the record's (GPU, stream) with ts <= the record's ts.
        const auto [lo, hi] = byStream.find(StreamKey{it->gpu, it->stream});
        const double ts = rows.ts(i);
        auto last = std::upper_bound(lo, hi, ts, [&](double t, uint32_t k) { return t < m_launches[k].ts; });
        const int32_t prev = last == lo ? -1 : static_cast<int32_t>(m_launches[*(last - 1)].runtime);
        m_recordRows.emplace_back(i, prev);
    }
    std::stable_sort(m_recordRows.begin(), m_recordRows.end(), [&](const auto &a, const auto &b) {
        return rows.ts(a.first) != rows.ts(b.first) ? rows.ts(a.first) < rows.ts(b.first) : a.first < b.first;
    });
    for (const auto &[row, prev] : m_recordRows)
        m_recordByCorr.emplace_back(events[row].correlation, prev);
    std::stable_sort(m_recordByCorr.begin(), m_recordByCorr.end(),
                     [](const auto &a, const auto &b) { return a.first < b.first; });
}

void SyncTables::buildWaits(const RowTable &rows)
{
    if (!rows.hasSymbol("cudaStreamWaitEvent") || !rows.hasSymbol("Stream Wait Event"))
        return;
    const auto &events = rows.trace().events;
    const uint32_t n = static_cast<uint32_t>(rows.eventCount());
    const LaunchGroups<ThreadKey> byThread(m_launches.size(), [&](uint32_t k) {
        const Launch &l = m_launches[k];
        return ThreadKey{l.cpuPid, l.cpuTid, l.stream};
    });
    for (uint32_t i = 0; i < n; ++i) {
        if (!rows.isLoaded(i) || !(rows.nameRoles(i) & RoleStreamWaitCall) || rows.indexCorr(i) <= 0)
            continue;
        const uint32_t k = static_cast<uint32_t>(rows.indexCorr(i));
        if (!rows.isLoaded(k) || rows.stream(k) == -1 || rows.indexCorr(k) <= 0)
            continue;
        // The first launch from the same thread onto the waiting stream with ts >= the wait's ts.
        const auto [lo, hi] = byThread.find(ThreadKey{pidKey(events[i]), tidKey(events[i]), rows.stream(k)});
        const double ts = rows.ts(i);
        auto first = std::lower_bound(lo, hi, ts, [&](uint32_t x, double t) { return m_launches[x].ts < t; });
        m_waits.emplace_back(i, first == hi ? -1 : static_cast<int32_t>(m_launches[*first].runtime));
    }
}

int32_t SyncTables::recordPreviousLaunch(int64_t corr) const
{
    auto it = std::lower_bound(m_recordByCorr.begin(), m_recordByCorr.end(), corr,
                               [](const auto &p, int64_t c) { return p.first < c; });
    return it != m_recordByCorr.end() && it->first == corr ? it->second : -1;
}

int32_t SyncTables::waitNextLaunch(uint32_t waitRuntime) const
{
    auto it = std::lower_bound(m_waits.begin(), m_waits.end(), waitRuntime,
                               [](const auto &p, uint32_t w) { return p.first < w; });
    return it != m_waits.end() && it->first == waitRuntime ? it->second : -2;
}

bool isSweepRow(const RowTable &rows, uint32_t i)
{
    return rows.isLoaded(i) && rows.indexCorr(i) >= 0 &&
           (rows.stream(i) != -1 || (rows.nameRoles(i) & (RoleEventSync | RoleContextSync)));
}

SweepStats runSyncSweep(const RowTable &rows, const SyncTables &tables, std::vector<uint32_t> sweepRows,
                        const SweepOptions &options, SyncSweepVisitor &visitor)
{
    const auto &events = rows.trace().events;
    // Activities by start, syncs by end: a sync is handled after the work that started before it returned.
    auto sortKey = [&](uint32_t i) { return rows.catRole(i) == CatCudaSync ? rows.end(i) : rows.ts(i); };
    std::sort(sweepRows.begin(), sweepRows.end(), [&](uint32_t a, uint32_t b) {
        const double ka = sortKey(a), kb = sortKey(b);
        return ka != kb ? ka < kb : a < b;
    });

    // Last activity per stream, iterated in first-seen order (Python dict semantics).
    std::map<StreamKey, size_t> slotOf;
    std::vector<std::pair<StreamKey, uint32_t>> last;
    std::unordered_map<uint32_t, std::vector<StreamWait>> pending; // dest -> its waits, in sweep order
    std::vector<StreamWait> waits;
    auto keyOf = [&](uint32_t i) {
        return StreamKey{options.keyByDevice ? pidKey(events[i]) : IdKey{}, rows.stream(i)};
    };
    SweepStats stats;

    for (uint32_t row : sweepRows) {
        const uint16_t roles = rows.nameRoles(row);
        if (rows.catRole(row) == CatCudaSync) {
            if (roles & (RoleStreamWaitEvent | RoleEventSync)) {
                const int32_t prevLaunch = tables.recordPreviousLaunch(events[row].waitOnRecordCorr);
                if (prevLaunch < 0)
                    continue; // record unknown (old traces lack the record id)
                const uint32_t src = static_cast<uint32_t>(rows.indexCorr(static_cast<uint32_t>(prevLaunch)));
                if (roles & RoleStreamWaitEvent) {
                    const int32_t waitCall = rows.indexCorr(row);
                    const int32_t next = waitCall > 0 ? tables.waitNextLaunch(static_cast<uint32_t>(waitCall)) : -2;
                    if (next == -2)
                        ++stats.unmatchedWaits;
                    if (next < 0)
                        continue;
                    const uint32_t dest = static_cast<uint32_t>(rows.indexCorr(static_cast<uint32_t>(next)));
                    auto &list = pending[dest];
                    if (!options.everyWait)
                        list.clear(); // HTA: the last one wins
                    list.push_back({src, row});
                } else if (visitor.sourcePresent(src)) {
                    visitor.cpuSync(src, row, SyncKind::EventSync);
                }
            } else if (roles & RoleStreamSync) {
                auto it = slotOf.find(keyOf(row));
                if (it != slotOf.end())
                    visitor.cpuSync(last[it->second].second, row, SyncKind::StreamSync);
            } else if (roles & RoleContextSync) {
                const IdKey device = pidKey(events[row]);
                for (const auto &[key, activity] : last) {
                    if (!options.keyByDevice || key.device == device)
                        visitor.cpuSync(activity, row, SyncKind::ContextSync);
                }
            } else {
                ++stats.unknownSyncNames;
            }
            continue;
        }
        if (!visitor.present(row))
            continue;
        waits.clear();
        if (auto it = pending.find(row); it != pending.end()) {
            for (const StreamWait &w : it->second)
                if (visitor.sourcePresent(w.src))
                    waits.push_back(w);
            pending.erase(it);
        }
        const StreamKey key = keyOf(row);
        auto [slot, inserted] = slotOf.emplace(key, last.size());
        if (inserted)
            last.emplace_back(key, row);
        const int32_t prev = inserted ? -1 : static_cast<int32_t>(last[slot->second].second);
        visitor.activity(row, prev, waits);
        last[slot->second].second = row;
    }
    return stats;
}

} // namespace syncscope::hta
