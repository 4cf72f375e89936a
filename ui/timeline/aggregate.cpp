// SPDX-License-Identifier: MIT
#include "aggregate.h"

#include <algorithm>
#include <unordered_map>

namespace syncscope::ui {

std::vector<AggregateRow> aggregateRange(const TimelineModel &model, double t0, double t1,
                                         const std::vector<uint32_t> &rows)
{
    std::vector<AggregateRow> out;
    if (!(t1 > t0))
        return out;
    std::unordered_map<std::string_view, size_t> byName;
    auto visit = [&](const LaneRow &row) {
        // A GPU stream's annotations (the GPU copy of ProfilerStep#N) are not GPU work: they
        // would top the kernel table with the whole step.
        const bool gpuLane = row.group < model.layout.groups.size() && model.layout.groups[row.group].gpu;
        // Ops in a row do not overlap: both ends ascend, so the ones meeting [t0, t1] are contiguous.
        auto first = std::upper_bound(row.end.begin(), row.end.end(), int64_t(t0)) - row.end.begin();
        for (size_t i = size_t(first); i < row.size() && double(row.start[i]) < t1; ++i) {
            if (gpuLane && model.category(row.event[i]) == Category::Annotation)
                continue;
            const double clipped = std::min<double>(double(row.end[i]), t1) - std::max<double>(double(row.start[i]), t0);
            const std::string_view name = model.name(row.event[i]);
            auto [it, fresh] = byName.try_emplace(name, out.size());
            if (fresh) {
                out.push_back({std::string(name)});
                out.back().maxEvent = row.event[i];
                out.back().maxNs = -1;
            }
            AggregateRow &a = out[it->second];
            ++a.count;
            a.totalNs += std::max(0.0, clipped);
            if (clipped > a.maxNs) {
                a.maxNs = std::max(0.0, clipped);
                a.maxEvent = row.event[i];
            }
        }
    };
    if (rows.empty()) // every lane once: a job's rank summaries repeat their lanes' ops
        for (const LaneRow &row : model.layout.rows) {
            if (!model.layout.groups[row.group].isSummary())
                visit(row);
        }
    else
        for (uint32_t r : rows)
            if (r < model.layout.rows.size())
                visit(model.layout.rows[r]);
    std::sort(out.begin(), out.end(), [](const AggregateRow &a, const AggregateRow &b) {
        return a.totalNs != b.totalNs ? a.totalNs > b.totalNs : a.name < b.name;
    });
    return out;
}

} // namespace syncscope::ui
