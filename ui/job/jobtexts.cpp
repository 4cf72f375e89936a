// SPDX-License-Identifier: MIT
#include "jobtexts.h"

#include "job/jobanalysis.h"
#include "timeline/timeformat.h"

#include <QObject>

namespace syncscope::ui {

QString topStragglerText(const JobAnalysis &job)
{
    if (job.stragglers.empty())
        return {};
    const int64_t r = job.stragglers.front();
    for (const RankJobStats &s : job.ranks)
        if (s.rank == r && s.workDelayCostUs > 0)
            return QObject::tr("top straggler rank %1 (its extra work caused %2 of waits)")
                .arg(r)
                .arg(QString::fromStdString(formatDuration(s.workDelayCostUs * 1000)));
    return {};
}

QString jobPathSkewText(const JobAnalysis &job)
{
    const JobStepTime &t = job.criticalPath.stepTime;
    if (!job.criticalPath.valid || !t.valid || !(t.outsideWindowUs > 0))
        return {};
    return QObject::tr(" (+ %1 start skew before it)").arg(QString::fromStdString(formatDuration(t.outsideWindowUs * 1000)));
}

} // namespace syncscope::ui
