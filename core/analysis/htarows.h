// SPDX-License-Identifier: MIT
// HTA's view of one Kineto trace (critical_path_spec.md, section 1): which events
// are rows, their times after HTA's ns rounding and alignment, the CPU<->GPU
// correlation links, the load-time filter of the last ProfilerStep, and the
// exact names HTA compares against. Flat per-event arrays, built in O(n log n).
#pragma once

#include "model/diagnostics.h"
#include "model/kinetotrace.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace syncscope::hta {

// The role of a name (a StrId), one bit per exact-name list of spec 1.3.
enum NameRole : uint16_t {
    RoleLaunch = 1 << 0,          // kernel/memcpy/memset launch runtime calls
    RoleLock = 1 << 1,            // cudaHostAlloc, cudaLaunchKernel, cudaMemcpyAsync
    RoleBlocking = 1 << 2,        // synchronising calls whose own time is not counted
    RoleEventRecord = 1 << 3,     // cudaEventRecord
    RoleStreamWaitCall = 1 << 4,  // cudaStreamWaitEvent
    RoleContextSync = 1 << 5,     // cuda_sync "Context Sync"
    RoleStreamSync = 1 << 6,      // cuda_sync "Stream Sync"
    RoleEventSync = 1 << 7,       // cuda_sync "Event Sync"
    RoleStreamWaitEvent = 1 << 8, // cuda_sync "Stream Wait Event"
    RoleProfilerStep = 1 << 9,    // ^ProfilerStep#\d+
    RoleForward = 1 << 10,        // contains "forward"
    RoleAutograd = 1 << 11,       // contains "autograd"
    RoleLaunchD731 = 1 << 12,     // the launch names of HTA d731cc2e (a subset of RoleLaunch)
};

// The role of a category (a StrId).
enum CatRole : uint8_t {
    CatNone = 0,
    CatCpuOp = 1,         // cpu_op
    CatRuntime = 2,       // cuda_runtime or cuda_driver
    CatUserAnnotation = 3,
    CatCudaSync = 4,
    CatTrace = 5,         // "Trace": never a row
    CatPythonFunction = 6,
};

struct RowOptions {
    bool nsRounding = true;           // false = HTA_DISABLE_NS_ROUNDING=1
    bool dropLastProfilerStep = true; // HTA's load filter (spec 1.7)
    // HTA d731cc2e's filter counts every name containing "ProfilerStep", not only ProfilerStep#N.
    bool profilerStepSubstring = false;
};

// Rows of one trace as HTA loads them. Times are HTA's: rounded when the
// trace has fractional timestamps, then shifted so the earliest row starts at 0.
class RowTable
{
public:
    // Builds the table; problems (rows without ts, ambiguous links) become warnings.
    RowTable(const KinetoTrace &trace, const RowOptions &options, Diagnostics &diag);

    const KinetoTrace &trace() const { return *m_trace; }
    size_t eventCount() const { return m_flags.size(); }
    bool isLoaded(uint32_t i) const { return m_flags[i] & FlagLoaded; }
    bool isParsed(uint32_t i) const { return m_flags[i] & FlagParsed; }
    double ts(uint32_t i) const { return m_ts[i]; }
    double dur(uint32_t i) const { return m_dur[i]; }
    double end(uint32_t i) const { return m_ts[i] + m_dur[i]; }
    // HTA's index_correlation: -1 no correlation, 0 no partner found, else the partner's index.
    int32_t indexCorr(uint32_t i) const { return m_indexCorr[i]; }
    // The linked partner as an event index, -1 when none. Unlike indexCorr, 0 means
    // event 0 only when event 0 really is the partner (HTA conflates the two).
    int32_t partner(uint32_t i) const;
    int64_t stream(uint32_t i) const { return m_stream[i]; }
    // Copies of event fields the passes read for most rows: a dense column costs one
    // cache line per 8 rows where the 136-byte events cost one or two per row.
    int64_t correlation(uint32_t i) const { return m_corr[i]; }
    EventKind kind(uint32_t i) const { return m_kind[i]; }
    // A loaded row with args.wait_on_stream (cuda_sync rows that wait on a record).
    bool waitsOnStream(uint32_t i) const { return (m_flags[i] & (FlagLoaded | FlagWaitsOnStream)) == (FlagLoaded | FlagWaitsOnStream); }
    uint16_t nameRoles(uint32_t i) const { return m_roles[i]; }
    uint8_t catRole(uint32_t i) const { return m_cat[i]; }
    uint16_t rolesOfName(StrId id) const { return m_nameRoles[id]; }

    // HTA's symbol table: names and categories of all parsed rows.
    bool hasSymbol(std::string_view s) const;
    bool anySymbolContains(std::string_view text) const;
    // For each StrId: does it contain `text` (for per-row substring tests in O(1)).
    std::vector<uint8_t> stringsContaining(std::string_view text) const;
    // Spec 1.6 "GPU side" of the correlation join.
    bool isGpuSide(uint32_t i) const { return m_flags[i] & FlagGpuSide; }

    // Loaded rows in HTA's table order: file order, or after the last-step
    // filter all GPU-side rows first, then the CPU-side rows.
    std::vector<uint32_t> tableOrder() const;

    size_t parsedRows() const { return m_parsedRows; }
    size_t loadedRows() const { return m_loadedRows; }
    bool rounded() const { return m_rounded; }
    bool lastStepFiltered() const { return m_filtered; }
    double minTs() const { return m_minTs; } // absolute (rounded) ts of the earliest row

private:
    void classifyStrings();
    void buildRows(const RowOptions &options, Diagnostics &diag);
    void linkCorrelations();
    void filterLastProfilerStep(bool substring, Diagnostics &diag);

    enum Flag : uint8_t { FlagParsed = 1, FlagLoaded = 2, FlagGpuSide = 4, FlagWaitsOnStream = 8 };
    const KinetoTrace *m_trace;
    // Per event, so the passes over all events stay in small, dense columns.
    std::vector<uint8_t> m_flags;
    std::vector<uint16_t> m_roles; // name roles
    std::vector<uint8_t> m_cat;    // category role
    std::vector<int64_t> m_stream; // HTA-normalised stream
    std::vector<int64_t> m_corr;   // every event's correlation (-1 when absent)
    std::vector<EventKind> m_kind; // every event's kind
    std::vector<double> m_ts, m_dur;
    std::vector<int32_t> m_indexCorr;
    std::vector<uint16_t> m_nameRoles;
    std::vector<uint8_t> m_catRoles;
    std::vector<uint8_t> m_symbol; // per StrId: used as a name or cat of a parsed row
    size_t m_parsedRows = 0, m_loadedRows = 0;
    bool m_rounded = false, m_filtered = false;
    double m_minTs = 0;
};

// Same-entity test for pid/tid values that may be strings (StrIds) or integers.
struct IdKey {
    bool isString = false;
    int64_t value = 0;
    bool operator==(const IdKey &o) const { return isString == o.isString && value == o.value; }
    bool operator<(const IdKey &o) const { return isString != o.isString ? !isString : value < o.value; }
};
inline IdKey pidKey(const KinetoEvent &e) { return {e.has(KinetoEvent::PidIsString), e.pid}; }
inline IdKey tidKey(const KinetoEvent &e) { return {e.has(KinetoEvent::TidIsString), e.tid}; }

} // namespace syncscope::hta
