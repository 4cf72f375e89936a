// SPDX-License-Identifier: MIT
// What-if rules relative to the data (docs/what_if.md, "Relative to the data"):
// the statistics of =median|mean|min, and what the coll=, pg= and step= selectors
// look at on one trace (the same facts the job layer reads from RankCollective and
// RankStep, core/job/ranksummary.cpp).
#include "whatif.h"

#include "analysis/collectivekernel.h"
#include "analysis/stepwindow.h"

#include <algorithm>
#include <numeric>

namespace syncscope {

const char *whatIfStatisticName(WhatIfRule::Statistic statistic)
{
    switch (statistic) {
    case WhatIfRule::Median: return "median";
    case WhatIfRule::Mean: return "mean";
    case WhatIfRule::Min: return "min";
    }
    return "median";
}

double whatIfStatistic(WhatIfRule::Statistic statistic, std::vector<double> values)
{
    if (values.empty())
        return 0;
    switch (statistic) {
    case WhatIfRule::Min: return *std::min_element(values.begin(), values.end());
    case WhatIfRule::Mean:
        // Divided as it goes: a sum of many weights near 2^60 ns stays finite.
        return std::accumulate(values.begin(), values.end(), 0.0,
                               [n = double(values.size())](double acc, double v) { return acc + v / n; });
    case WhatIfRule::Median: {
        const size_t mid = values.size() / 2;
        std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
        const double upper = values[mid];
        if (values.size() % 2 == 1)
            return upper;
        const double lower = *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid));
        return lower / 2 + upper / 2; // numpy's median of an even count
    }
    }
    return 0;
}

const WhatIfEngine::EventFacts &WhatIfEngine::facts() const
{
    std::call_once(m_factsOnce, [this] {
        auto f = std::make_unique<EventFacts>();
        const KinetoTrace &trace = m_trace;
        // Collective kernels as RankCollective names them: the kernel's own args, else
        // those of the CPU op that launched it (same External id), else the kernel name.
        std::unordered_map<int64_t, uint32_t> cpuOpWithArgs;
        for (const KinetoCommArgs &a : trace.commArgs) {
            const KinetoEvent &e = trace.events[a.event];
            if (isCpuSideOp(e.kind) && e.has(KinetoEvent::HasExternalId) && a.collectiveName != kNoString)
                cpuOpWithArgs.emplace(e.externalId, a.event);
        }
        for (uint32_t i = 0; i < trace.events.size(); ++i) {
            const KinetoEvent &e = trace.events[i];
            if (e.kind != EventKind::Kernel)
                continue;
            const std::string_view name = trace.str(e.name);
            const KinetoCommArgs *args = trace.commArgsOf(i);
            StrId pg = e.pgName;
            if (!args && e.has(KinetoEvent::HasExternalId))
                if (const auto l = cpuOpWithArgs.find(e.externalId); l != cpuOpWithArgs.end()) {
                    args = trace.commArgsOf(l->second);
                    pg = pg != kNoString ? pg : trace.events[l->second].pgName;
                }
            const bool named = args && args->collectiveName != kNoString;
            if (!named && !isCollectiveKernel(name))
                continue;
            f->collective.emplace(i, std::pair{named ? std::string(trace.str(args->collectiveName))
                                                     : collectiveFromKernel(name),
                                               std::string(trace.str(pg))});
        }
        // Steps: the ProfilerStep#N annotations; an event is in the last one starting
        // at or before its start that also contains it.
        struct Window {
            int64_t startNs, endNs, number;
        };
        std::vector<Window> steps;
        for (uint32_t s : profilerStepEvents(trace)) {
            const KinetoEvent &e = trace.events[s];
            const int64_t n = profilerStepNumber(trace.str(e.name));
            if (n >= 0 && e.has(KinetoEvent::HasTs))
                steps.push_back({e.tsNs, e.endNs(), n});
        }
        std::sort(steps.begin(), steps.end(), [](const Window &a, const Window &b) { return a.startNs < b.startNs; });
        f->step.assign(trace.events.size(), -1);
        for (uint32_t i = 0; i < trace.events.size() && !steps.empty(); ++i) {
            const int64_t ns = trace.events[i].tsNs;
            auto it = std::upper_bound(steps.begin(), steps.end(), ns,
                                       [](int64_t t, const Window &w) { return t < w.startNs; });
            if (it != steps.begin() && ns <= std::prev(it)->endNs)
                f->step[i] = std::prev(it)->number;
        }
        m_facts = std::move(f);
    });
    return *m_facts;
}

} // namespace syncscope
