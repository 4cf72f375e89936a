// SPDX-License-Identifier: MIT
#include "analysis/gapcauses.h"

#include "analysis/htabreakdown.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <string_view>

namespace syncscope {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool isIdleKernelCat(std::string_view cat)
{
    static constexpr std::array<std::string_view, 7> cats = {"kernel", "Kernel",     "gpu_memset",     "Memset",
                                                             "gpu_memcpy", "Memcpy", "mtia_ccp_events"};
    return std::find(cats.begin(), cats.end(), cat) != cats.end();
}

// An interval with the trace ns of the events its ends come from.
struct Span {
    double ts, end;
    int64_t tsNs, endNs;
};

// intervals.h mergeIntervals (HTA's merge_kernel_intervals), carrying the ns of the ends.
std::vector<Span> mergeSpans(std::vector<Span> v)
{
    std::sort(v.begin(), v.end(), [](const Span &a, const Span &b) { return a.ts < b.ts; });
    std::vector<Span> out;
    for (const Span &s : v) {
        if (!out.empty() && !(s.ts > out.back().end)) {
            if (s.end > out.back().end) {
                out.back().end = s.end;
                out.back().endNs = s.endNs;
            }
        } else {
            out.push_back(s);
        }
    }
    return out;
}

double lengthOf(const std::vector<Span> &v)
{
    double s = 0;
    for (const Span &x : v)
        s += x.end - x.ts;
    return s;
}

// comm minus comp, both merged (sorted, disjoint): the pieces of positive length.
std::vector<ExposedInterval> subtract(const std::vector<Span> &comm, const std::vector<Span> &comp)
{
    std::vector<ExposedInterval> out;
    size_t j = 0;
    for (const Span &c : comm) {
        double cur = c.ts;
        int64_t curNs = c.tsNs;
        while (j < comp.size() && comp[j].end <= cur)
            ++j;
        for (size_t k = j; k < comp.size() && comp[k].ts < c.end && cur < c.end; ++k) {
            if (comp[k].ts > cur)
                out.push_back({cur, comp[k].ts, curNs, comp[k].tsNs});
            if (comp[k].end > cur) {
                cur = comp[k].end;
                curNs = comp[k].endNs;
            }
        }
        if (c.end > cur)
            out.push_back({cur, c.end, curNs, c.endNs});
    }
    return out;
}

} // namespace

const char *idleCauseName(IdleCause cause)
{
    switch (cause) {
    case IdleCause::HostWait: return "host_wait";
    case IdleCause::KernelWait: return "kernel_wait";
    case IdleCause::Other: break;
    }
    return "other";
}

std::vector<StreamIdleGaps> idleGaps(const hta::RowTable &rows, const IdleGapOptions &options)
{
    return idleGaps(rows, rows.tableOrder(), options);
}

// HTA's _analyze_idle_time_for_stream, the one classifier (computeHtaBreakdown sums its gaps).
std::vector<StreamIdleGaps> idleGaps(const hta::RowTable &rows, const std::vector<uint32_t> &order,
                                     const IdleGapOptions &options)
{
    const KinetoTrace &trace = rows.trace();
    // HTA joins ts_runtime on index_correlation; 0 ("no partner") joins HTA's row 0.
    int64_t firstParsed = -1;
    for (uint32_t i = 0; i < rows.eventCount() && firstParsed < 0; ++i)
        if (rows.isParsed(i))
            firstParsed = i;
    auto runtimeTs = [&](uint32_t i) {
        const int32_t k = rows.indexCorr(i);
        const int64_t r = k > 0 ? k : (k == 0 ? firstParsed : -1);
        return r >= 0 && rows.isLoaded(static_cast<uint32_t>(r)) ? rows.ts(static_cast<uint32_t>(r)) : kNaN;
    };
    std::vector<int64_t> streams;
    std::map<int64_t, std::vector<uint32_t>> byStream;
    std::vector<int8_t> catOk(trace.strings.size(), -1);
    for (uint32_t i : order) {
        const KinetoEvent &e = trace.events[i];
        if (rows.stream(i) == -1 || e.cat == kNoString)
            continue;
        int8_t &ok = catOk[e.cat];
        if (ok < 0)
            ok = isIdleKernelCat(trace.strings.view(e.cat)) ? 1 : 0;
        if (!ok)
            continue;
        auto &v = byStream[rows.stream(i)];
        if (v.empty())
            streams.push_back(rows.stream(i));
        v.push_back(i);
    }
    std::vector<StreamIdleGaps> out;
    out.reserve(streams.size());
    for (int64_t stream : streams) {
        std::vector<uint32_t> &v = byStream[stream];
        std::stable_sort(v.begin(), v.end(), [&](uint32_t a, uint32_t b) { return rows.ts(a) < rows.ts(b); });
        StreamIdleGaps s;
        s.stream = stream;
        s.firstEvent = v.front();
        s.gaps.reserve(v.size() - 1);
        // The first row has no previous end (NaN): HTA files it as "other" with no time.
        for (size_t j = 1; j < v.size(); ++j) {
            IdleGap g;
            g.before = v[j - 1];
            g.after = v[j];
            g.startUs = rows.end(g.before);
            g.endUs = rows.ts(g.after);
            g.startNs = trace.events[g.before].endNs() - trace.minTsNs;
            g.endNs = trace.events[g.after].tsNs - trace.minTsNs;
            if (runtimeTs(g.after) > g.startUs)
                g.cause = IdleCause::HostWait; // launched after the previous row had ended
            else if (g.endUs - g.startUs < options.consecutive_kernel_delay)
                g.cause = IdleCause::KernelWait;
            s.gaps.push_back(g);
        }
        out.push_back(std::move(s));
    }
    return out;
}

std::vector<GpuExposedComm> exposedCommIntervals(const hta::RowTable &rows)
{
    const KinetoTrace &trace = rows.trace();
    struct Gpu {
        std::vector<Span> comm, comp, mem;
    };
    std::map<int64_t, Gpu> gpus; // by pid
    std::vector<int8_t> typeOf(trace.strings.size(), -1);
    for (uint32_t i = 0; i < rows.eventCount(); ++i) {
        if (!rows.isLoaded(i) || rows.stream(i) == -1)
            continue;
        const KinetoEvent &e = trace.events[i];
        int8_t &type = typeOf[e.name];
        if (type < 0)
            type = static_cast<int8_t>(htaKernelType(trace.strings.view(e.name)));
        const Span s{rows.ts(i), rows.end(i), e.tsNs - trace.minTsNs, e.endNs() - trace.minTsNs};
        switch (static_cast<HtaKernelType>(type)) {
        case HtaKernelType::Communication: gpus[e.pid].comm.push_back(s); break;
        case HtaKernelType::Computation: gpus[e.pid].comp.push_back(s); break;
        case HtaKernelType::Memory: gpus[e.pid].mem.push_back(s); break;
        case HtaKernelType::Other: gpus[e.pid]; break; // the GPU exists, with nothing to add
        }
    }
    std::vector<GpuExposedComm> out;
    out.reserve(gpus.size());
    for (auto &[pid, g] : gpus) {
        GpuExposedComm r;
        r.pid = pid;
        const std::vector<Span> comm = mergeSpans(std::move(g.comm));
        r.comm_us = lengthOf(comm);
        r.memcpy_us = lengthOf(mergeSpans(std::move(g.mem)));
        r.exposed = subtract(comm, mergeSpans(std::move(g.comp)));
        out.push_back(std::move(r));
    }
    return out;
}

} // namespace syncscope
