// SPDX-License-Identifier: MIT
// The job timeline (display-free): one TimelineModel made of every rank's own
// model, concatenated. A rank's lanes become one group block ("Rank N": a CPU
// summary lane, its CPU threads, its GPU streams); its event ids are shifted by
// a per-rank base (job id = base + the rank's event id) and its times by the
// rank's clock offset onto the reference clock (RankJobStats::clockOffsetUs).
// With the cross-rank analysis, the matched collective kernels carry their
// instance, their wait (kernel start -> last arrival) and the last arriver, and
// the job critical path becomes the model's critical events and arrows.
// The single-rank models are not changed: the job model copies their lanes.
#pragma once

#include "timelinemodel.h"

#include "job/jobanalysis.h"
#include "analysis/ranksummary.h"

#include <memory>
#include <string>
#include <vector>

namespace syncscope::ui {

struct JobTimelineRank {
    int64_t rank = -1;
    std::shared_ptr<const TimelineModel> model; // null: not loaded (yet), or the rank failed (no lanes)
    const RankSummary *summary = nullptr;       // the collectives' kernels; null before the analysis
    std::string label;                          // the rank header's text after "Rank N"
};

struct JobTimelineOptions {
    bool rawClocks = false; // each rank on its own clock (offsets not applied)
};

// `ranks` ascending by rank; `analysis` null while the ranks are still loading
// (raw clocks, no collectives). Never throws for inconsistent input (an
// instance whose kernels are not found is left unlinked).
std::shared_ptr<TimelineModel> buildJobTimelineModel(const std::vector<JobTimelineRank> &ranks,
                                                     const JobAnalysis *analysis, const JobTimelineOptions &options);

// Display orders of the parts (indices into TimelineModel::parts).
enum class RankOrder { ByRank, ByStepTime, ByWaitsCaused };
// `stepTimeUs` / `waitCausedUs` per part (missing: last); ties by rank.
std::vector<uint32_t> rankDisplayOrder(const TimelineModel &model, RankOrder order,
                                       const std::vector<double> &stepTimeUs, const std::vector<double> &waitCausedUs);

// The job event of `rank`'s own event `event`, -1 when the rank is not in the model.
int64_t jobEventId(const TimelineModel &model, int64_t rank, uint32_t event);

} // namespace syncscope::ui
