// SPDX-License-Identifier: MIT
#include "htarows.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace syncscope::hta {

namespace {

constexpr std::string_view kLaunchNames[] = {
    "cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel", "cuLaunchKernelEx",
    "cudaMemcpyAsync", "cudaMemsetAsync", "hipLaunchKernel", "hipExtModuleLaunchKernel",
    "hipMemcpyAsync", "hipMemsetAsync", "hipMemcpyWithStream",
    "runFunction - job_prep_and_submit_for_execution",
};
// HTA d731cc2e knew only these (no cuLaunchKernelEx, HIP or MTIA names).
constexpr std::string_view kLaunchNamesD731[] = {"cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel",
                                                 "cudaMemcpyAsync", "cudaMemsetAsync"};
constexpr std::string_view kLockNames[] = {"cudaHostAlloc", "cudaLaunchKernel", "cudaMemcpyAsync"};
constexpr std::string_view kBlockingNames[] = {"cudaDeviceSynchronize", "cudaStreamSynchronize",
                                               "cudaEventQuery",        "cudaEventSynchronize",
                                               "cudaMemcpy",            "cudaMemcpyAsync"};

template <size_t N>
bool oneOf(std::string_view s, const std::string_view (&list)[N])
{
    return std::find(std::begin(list), std::end(list), s) != std::end(list);
}

// ^ProfilerStep#\d+ (Python re.match: anchored at the start only).
bool isProfilerStepName(std::string_view s)
{
    constexpr std::string_view prefix = "ProfilerStep#";
    return s.size() > prefix.size() && s.substr(0, prefix.size()) == prefix && s[prefix.size()] >= '0' &&
           s[prefix.size()] <= '9';
}

uint16_t nameRolesOf(std::string_view s)
{
    uint16_t r = 0;
    if (oneOf(s, kLaunchNames))
        r |= RoleLaunch;
    if (oneOf(s, kLaunchNamesD731))
        r |= RoleLaunchD731;
    if (oneOf(s, kLockNames))
        r |= RoleLock;
    if (oneOf(s, kBlockingNames))
        r |= RoleBlocking;
    if (s == "cudaEventRecord")
        r |= RoleEventRecord;
    if (s == "cudaStreamWaitEvent")
        r |= RoleStreamWaitCall;
    if (s == "Context Sync")
        r |= RoleContextSync;
    if (s == "Stream Sync")
        r |= RoleStreamSync;
    if (s == "Event Sync")
        r |= RoleEventSync;
    if (s == "Stream Wait Event")
        r |= RoleStreamWaitEvent;
    if (isProfilerStepName(s))
        r |= RoleProfilerStep;
    if (s.find("forward") != std::string_view::npos)
        r |= RoleForward;
    if (s.find("autograd") != std::string_view::npos)
        r |= RoleAutograd;
    return r;
}

uint8_t catRoleOf(std::string_view s)
{
    // Older Kineto spellings too (kinetoparser.cpp, classifyCategory).
    if (s == "cpu_op" || s == "Operator")
        return CatCpuOp;
    if (s == "cuda_runtime" || s == "cuda_driver" || s == "Runtime" || s == "Driver")
        return CatRuntime;
    if (s == "user_annotation")
        return CatUserAnnotation;
    if (s == "cuda_sync")
        return CatCudaSync;
    if (s == "Trace")
        return CatTrace;
    if (s == "python_function" || s == "Python")
        return CatPythonFunction;
    return CatNone;
}

} // namespace

RowTable::RowTable(const KinetoTrace &trace, const RowOptions &options, Diagnostics &diag) : m_trace(&trace)
{
    classifyStrings();
    buildRows(options, diag);
    linkCorrelations();
    if (options.dropLastProfilerStep)
        filterLastProfilerStep(options.profilerStepSubstring, diag);
    m_loadedRows = 0;
    for (uint8_t f : m_flags)
        m_loadedRows += (f & FlagLoaded) ? 1 : 0;
}

void RowTable::classifyStrings()
{
    const StringTable &strings = m_trace->strings;
    m_nameRoles.resize(strings.size());
    m_catRoles.resize(strings.size());
    for (StrId id = 0; id < strings.size(); ++id) {
        m_nameRoles[id] = nameRolesOf(strings.view(id));
        m_catRoles[id] = catRoleOf(strings.view(id));
    }
}

void RowTable::buildRows(const RowOptions &options, Diagnostics &diag)
{
    const auto &events = m_trace->events;
    const size_t n = events.size();
    m_flags.assign(n, 0);
    m_roles.assign(n, 0);
    m_cat.assign(n, CatNone);
    m_stream.assign(n, -1);
    m_corr.resize(n);
    m_kind.resize(n);
    m_ts.assign(n, 0.0);
    m_dur.assign(n, 0.0);
    m_symbol.assign(m_trace->strings.size(), 0);

    // pandas makes the ts column float64 when a ts is fractional or missing: HTA then rounds.
    bool floatColumn = m_trace->anyFloatTs || m_trace->anyMissingTs;
    for (size_t i = 0; i < n && !floatColumn; ++i)
        floatColumn = !events[i].has(KinetoEvent::HasTs);
    m_rounded = floatColumn && options.nsRounding;

    size_t missingTs = 0, missingDur = 0;
    bool haveMin = false;
    for (size_t i = 0; i < n; ++i) {
        const KinetoEvent &e = events[i];
        m_corr[i] = e.correlation;
        m_kind[i] = e.kind;
        missingDur += (e.ph == 'X' && !e.has(KinetoEvent::HasDur)) ? 1 : 0;
        // A row has a dur and a cat, and the cat is not "Trace" (spec 1.2).
        if (!e.has(KinetoEvent::HasDur) || e.cat == kNoString || m_catRoles[e.cat] == CatTrace)
            continue;
        if (!e.has(KinetoEvent::HasTs)) {
            ++missingTs;
            continue;
        }
        const int64_t stream = e.htaStream();
        const uint16_t roles = m_nameRoles[e.name];
        m_flags[i] = FlagParsed | FlagLoaded |
                     (((stream >= 0 && e.correlation >= 0) || (roles & (RoleContextSync | RoleEventSync))) ? FlagGpuSide
                                                                                                            : 0) |
                     (e.waitOnStream > -1 ? FlagWaitsOnStream : 0);
        m_roles[i] = roles;
        m_cat[i] = m_catRoles[e.cat];
        m_stream[i] = stream;
        m_symbol[e.name] = 1;
        m_symbol[e.cat] = 1;
        double ts = e.ts, dur = e.dur;
        if (m_rounded) {
            // Spec 1.4: ceil the start, floor the end, derive the duration.
            const double end = std::floor(ts + dur);
            ts = std::ceil(ts);
            dur = end - ts;
        }
        m_ts[i] = ts;
        m_dur[i] = dur;
        if (!haveMin || ts < m_minTs)
            m_minTs = ts;
        haveMin = true;
        ++m_parsedRows;
    }
    // Alignment (spec 1.8): differences are unchanged, only the origin moves.
    for (size_t i = 0; i < n; ++i) {
        if (m_flags[i] & FlagLoaded)
            m_ts[i] -= m_minTs;
    }
    if (missingDur > 0)
        diag.warning("cpa.missing_dur",
                     m_trace->path + ": " + std::to_string(missingDur) +
                         " complete events (ph X) have no \"dur\"; the critical-path analysis ignores them as HTA does",
                     m_trace->path);
    if (missingTs > 0)
        diag.warning("cpa.missing_ts",
                     m_trace->path + ": " + std::to_string(missingTs) +
                         " events have a \"dur\" but no \"ts\"; the critical-path analysis ignores them",
                     m_trace->path);
}

void RowTable::linkCorrelations()
{
    const auto &events = m_trace->events;
    const size_t n = events.size();
    m_indexCorr.assign(n, -1);
    struct Entry {
        int64_t corr;
        uint32_t index;
        bool gpu;
    };
    std::vector<Entry> entries;
    for (uint32_t i = 0; i < n; ++i) {
        if (!(m_flags[i] & FlagParsed))
            continue;
        const int64_t corr = m_corr[i];
        m_indexCorr[i] = corr >= 0 ? 0 : -1; // min(correlation, 0)
        if (corr != -1)
            entries.push_back({corr, i, isGpuSide(i)});
    }
    // By (corr, index). Entries come in index order, so a stable counting sort by corr
    // does it in O(n) when the ids are small and dense, as Kineto's are.
    int64_t lo = 0, hi = -1;
    for (const Entry &e : entries) {
        lo = std::min(lo, e.corr);
        hi = std::max(hi, e.corr);
    }
    if (lo >= 0 && hi >= 0 && hi < static_cast<int64_t>(4 * entries.size() + 1024)) {
        std::vector<uint32_t> first(static_cast<size_t>(hi) + 2, 0);
        for (const Entry &e : entries)
            ++first[static_cast<size_t>(e.corr) + 1];
        for (size_t c = 1; c < first.size(); ++c)
            first[c] += first[c - 1];
        std::vector<Entry> sorted(entries.size());
        for (const Entry &e : entries)
            sorted[first[static_cast<size_t>(e.corr)]++] = e;
        entries.swap(sorted);
    } else {
        std::sort(entries.begin(), entries.end(), [](const Entry &a, const Entry &b) {
            return a.corr != b.corr ? a.corr < b.corr : a.index < b.index;
        });
    }
    // Inner join on correlation; with duplicates the last pair in join order wins,
    // i.e. every row points to the last partner (in file order) of the other side.
    for (size_t a = 0; a < entries.size();) {
        size_t b = a;
        int64_t lastCpu = -1, lastGpu = -1;
        while (b < entries.size() && entries[b].corr == entries[a].corr) {
            (entries[b].gpu ? lastGpu : lastCpu) = entries[b].index;
            ++b;
        }
        if (lastCpu >= 0 && lastGpu >= 0) {
            for (size_t k = a; k < b; ++k)
                m_indexCorr[entries[k].index] = static_cast<int32_t>(entries[k].gpu ? lastCpu : lastGpu);
        }
        a = b;
    }
}

int32_t RowTable::partner(uint32_t i) const
{
    const int32_t k = m_indexCorr[i];
    if (k != 0)
        return k;
    const auto &events = m_trace->events;
    const bool realZero = i != 0 && (m_flags[0] & FlagParsed) && events[0].correlation == events[i].correlation &&
                          isGpuSide(0) != isGpuSide(i);
    return realZero ? 0 : -1;
}

void RowTable::filterLastProfilerStep(bool substring, Diagnostics &diag)
{
    // Only with two or more distinct ProfilerStep#N symbols (spec 1.7); for
    // d731cc2e any symbol containing "ProfilerStep".
    std::vector<uint8_t> isStep = substring ? stringsContaining("ProfilerStep") : std::vector<uint8_t>();
    if (!substring) {
        isStep.assign(m_nameRoles.size(), 0);
        for (StrId id = 0; id < m_nameRoles.size(); ++id)
            isStep[id] = (m_nameRoles[id] & RoleProfilerStep) ? 1 : 0;
    }
    size_t stepSymbols = 0;
    for (StrId id = 0; id < m_symbol.size(); ++id)
        stepSymbols += (m_symbol[id] && isStep[id]) ? 1 : 0;
    if (stepSymbols < 2)
        return;
    const auto &events = m_trace->events;
    const uint32_t n = static_cast<uint32_t>(events.size());
    bool anyCpu = false, anyStep = false;
    double minCpuTs = 0, lastStepTs = 0;
    for (uint32_t i = 0; i < n; ++i) {
        if (!isLoaded(i) || isGpuSide(i))
            continue;
        if (!anyCpu || m_ts[i] < minCpuTs)
            minCpuTs = m_ts[i];
        anyCpu = true;
        if (isStep[events[i].name]) {
            if (!anyStep || m_ts[i] > lastStepTs)
                lastStepTs = m_ts[i];
            anyStep = true;
        }
    }
    if (!anyCpu)
        return;
    const double cut = anyStep ? lastStepTs : minCpuTs;
    std::vector<int64_t> keptCorr;
    size_t dropped = 0;
    for (uint32_t i = 0; i < n; ++i) {
        if (!isLoaded(i) || isGpuSide(i))
            continue;
        if (m_ts[i] < cut) {
            keptCorr.push_back(events[i].correlation);
        } else {
            m_flags[i] &= static_cast<uint8_t>(~FlagLoaded);
            ++dropped;
        }
    }
    std::sort(keptCorr.begin(), keptCorr.end());
    keptCorr.erase(std::unique(keptCorr.begin(), keptCorr.end()), keptCorr.end());
    for (uint32_t i = 0; i < n; ++i) {
        if (!isLoaded(i) || !isGpuSide(i))
            continue;
        if (!std::binary_search(keptCorr.begin(), keptCorr.end(), events[i].correlation)) {
            m_flags[i] &= static_cast<uint8_t>(~FlagLoaded);
            ++dropped;
        }
    }
    m_filtered = true;
    diag.info("cpa.last_step_dropped",
              m_trace->path + ": as HTA does, the last ProfilerStep and everything that starts in it (" +
                  std::to_string(dropped) + " events) are left out of the critical-path analysis",
              m_trace->path);
}

std::vector<uint32_t> RowTable::tableOrder() const
{
    std::vector<uint32_t> order;
    order.reserve(m_loadedRows);
    const uint32_t n = static_cast<uint32_t>(m_flags.size());
    if (m_filtered) {
        for (uint32_t i = 0; i < n; ++i)
            if (isLoaded(i) && isGpuSide(i))
                order.push_back(i);
        for (uint32_t i = 0; i < n; ++i)
            if (isLoaded(i) && !isGpuSide(i))
                order.push_back(i);
    } else {
        for (uint32_t i = 0; i < n; ++i)
            if (isLoaded(i))
                order.push_back(i);
    }
    return order;
}

bool RowTable::hasSymbol(std::string_view s) const
{
    const int64_t id = m_trace->strings.find(s);
    return id >= 0 && static_cast<size_t>(id) < m_symbol.size() && m_symbol[static_cast<size_t>(id)];
}

bool RowTable::anySymbolContains(std::string_view text) const
{
    for (StrId id = 0; id < m_symbol.size(); ++id) {
        if (m_symbol[id] && m_trace->strings.view(id).find(text) != std::string_view::npos)
            return true;
    }
    return false;
}

std::vector<uint8_t> RowTable::stringsContaining(std::string_view text) const
{
    const StringTable &strings = m_trace->strings;
    std::vector<uint8_t> out(strings.size(), 0);
    for (StrId id = 0; id < strings.size(); ++id)
        out[id] = strings.view(id).find(text) != std::string_view::npos ? 1 : 0;
    return out;
}

} // namespace syncscope::hta
