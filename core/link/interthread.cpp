// SPDX-License-Identifier: MIT
#include "interthread.h"

#include <algorithm>

namespace syncscope {

std::vector<int32_t> findInterThreadDeps(const KinetoTrace &trace, const KinetoView &view, double gapUs)
{
    const auto &events = trace.events;
    std::vector<int32_t> dep(events.size(), -1);
    const bool chakra = view.mode == LinkMode::Chakra;
    // Per thread: ts of its CPU ops (already stable-sorted by ts).
    std::vector<std::vector<double>> tsOf(view.threadCpuOps.size());
    for (size_t t = 0; t < view.threadCpuOps.size(); ++t)
        for (uint32_t idx : view.threadCpuOps[t])
            tsOf[t].push_back(events[idx].ts);

    // The latest op with 0 < ts < `before` on threads other than `self`; ties go
    // to the first thread in Chakra's order and the first op of equal ts.
    auto latestElsewhere = [&](uint32_t self, double before) -> int32_t {
        int32_t best = -1;
        double bestTs = chakra ? 0.0 : -1e300;
        for (uint32_t t : view.cpuThreadOrder) {
            if (t == self)
                continue;
            const auto &ts = tsOf[t];
            auto it = std::lower_bound(ts.begin(), ts.end(), before); // first ts >= before
            if (it == ts.begin())
                continue;
            const double candTs = *(it - 1);
            if (!(candTs > bestTs))
                continue;
            // First op with that ts (Chakra keeps the first found among equals).
            const auto first = std::lower_bound(ts.begin(), it, candTs);
            best = static_cast<int32_t>(view.threadCpuOps[t][static_cast<size_t>(first - ts.begin())]);
            bestTs = candTs;
        }
        return best;
    };

    for (uint32_t t = 0; t < view.threadCpuOps.size(); ++t) {
        const auto &ops = view.threadCpuOps[t];
        int32_t current = -1;
        for (size_t i = 0; i < ops.size(); ++i) {
            const KinetoEvent &op = events[ops[i]];
            if (i == 0 || op.ts - events[ops[i - 1]].ts - events[ops[i - 1]].dur > gapUs) {
                const int32_t found = latestElsewhere(t, op.ts);
                current = found;
                // Chakra carries the rf_id: a missing or zero rf_id means "no dependency".
                if (chakra && found >= 0 &&
                    (!events[static_cast<size_t>(found)].has(KinetoEvent::HasRfId) ||
                     events[static_cast<size_t>(found)].rfId == 0))
                    current = -1;
            }
            dep[ops[i]] = current;
        }
    }
    return dep;
}

} // namespace syncscope
