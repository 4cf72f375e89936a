// SPDX-License-Identifier: MIT
#include "traceshape.h"

#include "syncinfer.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <unordered_map>

namespace syncscope {

namespace {

std::string lower(std::string_view s)
{
    std::string out(s);
    for (char &c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// Categories that carry a device or stream argument without being GPU work.
bool knownNotGpu(std::string_view lowered)
{
    return lowered == "overhead" || lowered == "cpu_instant_event" || lowered == "[memory]" ||
           lowered == "trace" || lowered == "ac2g" || lowered == "async_cpu_to_gpu" || lowered == "fwdbwd" ||
           lowered == "python_function" || lowered == "user_annotation" || lowered == "external_correlation";
}

bool gpuSounding(std::string_view lowered)
{
    for (std::string_view w : {"gpu", "kernel", "memcpy", "memset", "cuda", "hip", "device", "mtia", "xpu"})
        if (lowered.find(w) != std::string_view::npos)
            return true;
    return false;
}

std::string fmtMs(double us)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f ms", us / 1000.0);
    return buf;
}

} // namespace

std::vector<UnknownGpuCategory> unknownGpuCategories(const KinetoTrace &trace)
{
    // Per category, once: 0 CPU-side by name, 1 GPU-sounding, 2 neither (GPU work only
    // where a row has a stream argument).
    std::unordered_map<StrId, uint8_t> verdict;
    std::map<StrId, int64_t> counts;
    for (const KinetoEvent &e : trace.events) {
        if (e.kind != EventKind::Other || e.ph != 'X' || e.cat == kNoString)
            continue;
        auto it = verdict.find(e.cat);
        if (it == verdict.end()) {
            const std::string l = lower(trace.str(e.cat));
            it = verdict.emplace(e.cat, knownNotGpu(l) ? 0 : gpuSounding(l) ? 1 : 2).first;
        }
        if (it->second == 1 || (it->second == 2 && e.streamForm != StreamForm::Absent))
            ++counts[e.cat];
    }
    std::vector<UnknownGpuCategory> out;
    for (const auto &[cat, n] : counts)
        out.push_back({std::string(trace.str(cat)), n});
    std::sort(out.begin(), out.end(), [](const auto &a, const auto &b) { return a.events > b.events; });
    return out;
}

GpuStartHole findGpuStartHole(const KinetoTrace &trace)
{
    GpuStartHole hole;
    const auto &events = trace.events;
    double first = std::numeric_limits<double>::infinity(), last = -first;
    int64_t firstGpu = -1;
    for (uint32_t i = 0; i < events.size(); ++i) {
        const KinetoEvent &e = events[i];
        if (e.ph != 'X' || !e.has(KinetoEvent::HasTs) || e.kind == EventKind::TraceSpan)
            continue;
        first = std::min(first, e.ts);
        last = std::max(last, e.ts + std::max(0.0, e.dur));
        if (isGpuActivity(e.kind) && (firstGpu < 0 || e.ts < events[static_cast<size_t>(firstGpu)].ts))
            firstGpu = i;
    }
    if (firstGpu < 0 || !(last > first))
        return hole;
    const KinetoEvent &g = events[static_cast<size_t>(firstGpu)];
    // Its launch: the runtime call of the same correlation; without one, the first
    // launch-like call of the trace (the GPU cannot have started before it).
    double launchEnd = std::numeric_limits<double>::quiet_NaN();
    double firstLaunchEnd = std::numeric_limits<double>::infinity();
    RuntimeApiTable apis(trace);
    for (const KinetoEvent &e : events) {
        if ((e.kind != EventKind::Runtime && e.kind != EventKind::Driver) || !e.has(KinetoEvent::HasTs))
            continue;
        if (g.has(KinetoEvent::HasCorrelation) && e.has(KinetoEvent::HasCorrelation) &&
            e.correlation == g.correlation)
            launchEnd = e.ts + std::max(0.0, e.dur);
        const RuntimeApi api = apis.of(e.name);
        if (api == RuntimeApi::KernelLaunch || api == RuntimeApi::GraphLaunch || api == RuntimeApi::CopyAsync ||
            api == RuntimeApi::Copy || api == RuntimeApi::Memset)
            firstLaunchEnd = std::min(firstLaunchEnd, e.ts + std::max(0.0, e.dur));
    }
    if (std::isnan(launchEnd))
        launchEnd = firstLaunchEnd;
    if (!std::isfinite(launchEnd) || launchEnd >= g.ts)
        return hole;
    hole.startUs = launchEnd - first;
    hole.endUs = g.ts - first;
    hole.traceSpanUs = last - first;
    hole.firstGpuEvent = static_cast<uint32_t>(firstGpu);
    hole.found = hole.lengthUs() >= kMinGpuStartHoleUs && hole.share() >= kMinGpuStartHoleShare;
    return hole;
}

void checkTraceShape(const KinetoTrace &trace, Diagnostics &diag)
{
    // One warning naming every category (a list folds repeated codes into one entry).
    const std::vector<UnknownGpuCategory> unknown = unknownGpuCategories(trace);
    if (!unknown.empty()) {
        std::string list;
        for (size_t k = 0; k < unknown.size() && k < 8; ++k)
            list += (k ? ", \"" : "\"") + unknown[k].category + "\" (" + std::to_string(unknown[k].events) + ")";
        if (unknown.size() > 8)
            list += " and " + std::to_string(unknown.size() - 8) + " more";
        diag.warning("kineto.unknown_gpu_category",
                     trace.path + ": events of categories Syncscope does not read look like GPU work (a stream "
                                  "argument or a GPU-sounding name): " +
                         list + "; they are left off the GPU lanes and every analysis",
                     trace.path);
    }
    const GpuStartHole hole = findGpuStartHole(trace);
    if (hole.found) {
        char share[16];
        std::snprintf(share, sizeof share, "%.0f %%", hole.share() * 100);
        diag.warning("trace.gpu_start_hole",
                     trace.path + ": the GPU's first op (" + std::string(trace.str(trace.events[hole.firstGpuEvent].name)) +
                         ") starts " + fmtMs(hole.lengthUs()) + " after its launch returned (" + fmtMs(hole.startUs) +
                         " -> " + fmtMs(hole.endUs) + " from the trace start, " + share +
                         " of the trace) and the GPU recorded nothing before it: either the GPU was still busy with "
                         "work queued before the profiler started, or the CPU and GPU clocks are out of step; the "
                         "critical path runs through this hole as a GPU wait",
                     trace.path);
    }
}

} // namespace syncscope
