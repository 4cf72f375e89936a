// SPDX-License-Identifier: MIT
// The job's headline figures as the window words them (status bar, Ranks dock): each
// label names the metric it ranks by, so two docks never tell different stories
// (issue 41: "top straggler rank 37 (170 ms of waits caused)" beside an order by waits
// caused that put rank 12 first).
#pragma once

#include <QString>

namespace syncscope {
struct JobAnalysis;
}

namespace syncscope::ui {

// "top straggler rank R (its extra work caused X of waits)": the first of
// JobAnalysis::stragglers, by that cost; empty when there is none.
QString topStragglerText(const JobAnalysis &job);
// " (+ X start skew before it)" after the job critical path: the step time the walk
// found before the path's first rank started (JobStepTime::outsideWindowUs); empty when none.
QString jobPathSkewText(const JobAnalysis &job);

} // namespace syncscope::ui
