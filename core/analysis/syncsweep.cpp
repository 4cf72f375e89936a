// SPDX-License-Identifier: MIT
#include "syncsweep.h"

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>

namespace syncscope::hta {

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
    for (uint32_t i = 0; i < n; ++i) {
        const bool launch = launchRows ? (*launchRows)[i] != 0 : (rows.nameRoles(i) & launchRole) != 0;
        if (!rows.isLoaded(i) || !launch || rows.indexCorr(i) <= 0)
            continue;
        const uint32_t k = static_cast<uint32_t>(rows.indexCorr(i));
        // Matched to a GPU row on a stream that itself links back (spec 2.7.2).
        if (!rows.isLoaded(k) || rows.stream(k) == -1 || rows.indexCorr(k) <= 0)
            continue;
        Launch l;
        l.runtime = i;
        l.activity = k;
        l.ts = rows.ts(i);
        l.cpuPid = pidKey(events[i]);
        l.cpuTid = tidKey(events[i]);
        l.gpuPid = pidKey(events[k]);
        l.stream = rows.stream(k);
        m_launches.push_back(l);
    }
    // Launch ids follow ts; HTA's sort is unstable, we break ties by event index.
    std::sort(m_launches.begin(), m_launches.end(), [](const Launch &a, const Launch &b) {
        return a.ts != b.ts ? a.ts < b.ts : a.runtime < b.runtime;
    });
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
        if (rows.isLoaded(i) && events[i].waitOnStream > -1)
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

    // Launches grouped by (GPU, stream), ids ascending within a group.
    std::vector<uint32_t> byStream(m_launches.size());
    for (uint32_t k = 0; k < byStream.size(); ++k)
        byStream[k] = k;
    auto streamKey = [&](uint32_t k) { return std::make_tuple(m_launches[k].gpuPid, m_launches[k].stream, k); };
    std::sort(byStream.begin(), byStream.end(), [&](uint32_t a, uint32_t b) { return streamKey(a) < streamKey(b); });

    for (uint32_t i = 0; i < n; ++i) {
        if (!rows.isLoaded(i) || !(rows.nameRoles(i) & RoleEventRecord))
            continue;
        auto it = std::lower_bound(unique.begin(), unique.end(), events[i].correlation,
                                   [](const Where &w, int64_t c) { return w.corr < c; });
        if (it == unique.end() || it->corr != events[i].correlation)
            continue; // nobody waits on this record
        // The last launch onto the record's (GPU, stream) with ts <= the record's ts.
        auto lo = std::lower_bound(byStream.begin(), byStream.end(), 0u, [&](uint32_t k, uint32_t) {
            const Launch &l = m_launches[k];
            return std::tie(l.gpuPid, l.stream) < std::tie(it->gpu, it->stream);
        });
        // Binary search for the group's end too: a linear walk is quadratic in launches per stream.
        auto hi = std::upper_bound(lo, byStream.end(), 0u, [&](uint32_t, uint32_t k) {
            const Launch &l = m_launches[k];
            return std::tie(it->gpu, it->stream) < std::tie(l.gpuPid, l.stream);
        });
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
    // Launches grouped by (CPU pid, CPU tid, stream), ids ascending.
    std::vector<uint32_t> byThread(m_launches.size());
    for (uint32_t k = 0; k < byThread.size(); ++k)
        byThread[k] = k;
    auto key = [&](uint32_t k) {
        const Launch &l = m_launches[k];
        return std::make_tuple(l.cpuPid, l.cpuTid, l.stream, k);
    };
    std::sort(byThread.begin(), byThread.end(), [&](uint32_t a, uint32_t b) { return key(a) < key(b); });

    for (uint32_t i = 0; i < n; ++i) {
        if (!rows.isLoaded(i) || !(rows.nameRoles(i) & RoleStreamWaitCall) || rows.indexCorr(i) <= 0)
            continue;
        const uint32_t k = static_cast<uint32_t>(rows.indexCorr(i));
        if (!rows.isLoaded(k) || rows.stream(k) == -1 || rows.indexCorr(k) <= 0)
            continue;
        const IdKey pid = pidKey(events[i]), tid = tidKey(events[i]);
        const int64_t stream = rows.stream(k); // the waiting stream
        auto lo = std::lower_bound(byThread.begin(), byThread.end(), 0u, [&](uint32_t x, uint32_t) {
            const Launch &l = m_launches[x];
            return std::tie(l.cpuPid, l.cpuTid, l.stream) < std::tie(pid, tid, stream);
        });
        auto hi = std::upper_bound(lo, byThread.end(), 0u, [&](uint32_t, uint32_t x) {
            const Launch &l = m_launches[x];
            return std::tie(pid, tid, stream) < std::tie(l.cpuPid, l.cpuTid, l.stream);
        });
        // The first launch from the same thread onto the waiting stream with ts >= the wait's ts.
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

namespace {

struct StreamKey {
    IdKey device;
    int64_t stream;
    bool operator<(const StreamKey &o) const { return std::tie(device, stream) < std::tie(o.device, o.stream); }
};

} // namespace

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
