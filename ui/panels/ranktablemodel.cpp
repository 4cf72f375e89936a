// SPDX-License-Identifier: MIT
#include "ranktablemodel.h"

#include "job/jobdata.h"
#include "job/jobdocument.h"
#include "panels/criticalpathmodel.h"
#include "session/exitcodes.h"
#include "timeline/timeformat.h"

#include <QFont>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace syncscope::ui {

namespace {

QString duration(double us)
{
    return us < 0 ? QStringLiteral("-") : QString::fromStdString(formatDuration(us * 1000));
}

} // namespace

std::string dominantBoundBy(const RankCpGraph &cp)
{
    if (!cp.valid || cp.summaryPct.empty())
        return "-";
    // max_element keeps the first of equal buckets, as formatJobSummary does.
    auto best = std::max_element(cp.summaryPct.begin(), cp.summaryPct.end(),
                                 [](const auto &a, const auto &b) { return a.second < b.second; });
    char pct[32];
    std::snprintf(pct, sizeof pct, "%.0f", best->second);
    return best->first + " " + pct + "%";
}

RankTableModel::RankTableModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void RankTableModel::setJob(std::shared_ptr<const JobData> job)
{
    beginResetModel();
    m_job = std::move(job);
    m_rows.clear();
    m_topStraggler = -1;
    if (m_job) {
        // JobAnalysis::ranks follows analysableRanks(), not JobData::ranks: map by rank number.
        std::map<int64_t, const RankJobStats *> stats;
        for (const auto &s : m_job->analysis.ranks)
            stats[s.rank] = &s;
        for (const JobRankData &r : m_job->ranks) {
            const RankSummary &s = r.summary;
            Row row;
            row.rank = r.rank;
            row.exitCode = s.exitCode;
            row.status = s.exitCode == ExitOk ? tr("ok") : tr("exit %1").arg(s.exitCode);
            for (const auto &d : s.diagnostics.items())
                if (d.severity == Severity::Error) {
                    row.problem = QString::fromStdString(d.message);
                    break;
                }
            row.stepUs = rankStepTimeUs(s, m_job->window);
            if (s.criticalPath.valid) {
                row.criticalPathUs = s.criticalPath.weightUs;
                row.boundBy = dominantBoundBy(s.criticalPath);
                for (const auto &[bound, pct] : s.criticalPath.summaryPct)
                    row.boundPct = std::max(row.boundPct, pct);
            }
            if (const auto it = stats.find(r.rank); it != stats.end()) {
                row.waitUs = it->second->collectiveWaitUs;
                row.causedUs = it->second->collectiveWaitCausedUs;
                row.workDelayCostUs = it->second->workDelayCostUs;
                row.startSkewCostUs = it->second->startSkewCostUs;
                row.lastArrivals = it->second->lastArrivals;
                row.collectives = it->second->collectives;
            }
            if (s.link.present)
                row.linkPct = 100 * s.link.coverage;
            if (s.breakdown && s.breakdown->valid) {
                const RankBreakdown &b = *s.breakdown;
                row.overlapPct = std::isfinite(b.overlapPct) ? b.overlapPct : -1;
                row.exposedCommUs = b.exposedCommUs;
                row.commUs = b.commUs;
                row.gpuSpanUs = b.kernelUs;
            }
            m_rows.push_back(std::move(row));
        }
        // Stragglers are ranked by work delay cost: the rank whose extra work (not its
        // start skew, e.g. a profiler starting later) made the others wait most.
        if (!m_job->analysis.stragglers.empty()) {
            const int64_t top = m_job->analysis.stragglers.front();
            const int r = rowOfRank(top);
            if (r >= 0 && m_rows[static_cast<size_t>(r)].workDelayCostUs > 0)
                m_topStraggler = top;
        }
    }
    endResetModel();
}

int RankTableModel::rowOfRank(int64_t rank) const
{
    for (size_t i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].rank == rank)
            return static_cast<int>(i);
    return -1;
}

int RankTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int RankTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RankTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const Row &r = m_rows[static_cast<size_t>(index.row())];
    if (role == RankRole)
        return qint64(r.rank);
    if (role == Qt::TextAlignmentRole)
        return index.column() == BoundByColumn || index.column() == StatusColumn
                   ? QVariant()
                   : QVariant(int(Qt::AlignRight | Qt::AlignVCenter));
    if (role == Qt::FontRole && r.rank == m_topStraggler) {
        QFont bold;
        bold.setBold(true);
        return bold;
    }
    if (role == Qt::ToolTipRole) {
        if (index.column() == StatusColumn && !r.problem.isEmpty())
            return r.problem;
        // The breakdown columns explain their own value, the straggler's row or not.
        if (index.column() == ExposedCommColumn && r.exposedCommUs >= 0 && r.gpuSpanUs > 0)
            return tr("%1 of %2 communication not hidden under computation (%3 % of the GPU span)")
                .arg(duration(r.exposedCommUs), duration(r.commUs))
                .arg(100 * r.exposedCommUs / r.gpuSpanUs, 0, 'f', 1);
        if (index.column() == OverlapColumn && r.overlapPct < 0 && r.gpuSpanUs >= 0)
            return tr("No communication kernels: the overlap is undefined (HTA: NaN)");
        if (r.rank == m_topStraggler)
            return tr("Rank %1's extra work caused the most collective waits in this job (work delay cost %2)")
                .arg(r.rank)
                .arg(duration(r.workDelayCostUs));
        if (index.column() == LastColumn && r.collectives >= 0)
            return tr("Last to arrive in %1 of the %2 collectives it took part in").arg(r.lastArrivals).arg(r.collectives);
        return {};
    }
    if (role == SortRole) {
        switch (index.column()) {
        case RankColumn: return qint64(r.rank);
        case StatusColumn: return r.exitCode;
        case StepColumn: return r.stepUs;
        case CriticalPathColumn: return r.criticalPathUs;
        case BoundByColumn: return QString::fromStdString(r.boundBy);
        case WaitsColumn: return r.waitUs;
        case CausedColumn: return r.causedUs;
        case WorkDelayCostColumn: return r.workDelayCostUs;
        case StartSkewCostColumn: return r.startSkewCostUs;
        case LastColumn: return qint64(r.lastArrivals);
        case LinkColumn: return r.linkPct;
        case OverlapColumn: return r.overlapPct;
        case ExposedCommColumn: return r.exposedCommUs;
        default: return {};
        }
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case RankColumn: return QString::number(r.rank);
    case StatusColumn: return r.status;
    case StepColumn: return duration(r.stepUs);
    case CriticalPathColumn: return duration(r.criticalPathUs);
    case BoundByColumn: return QString::fromStdString(r.boundBy);
    case WaitsColumn: return duration(r.waitUs);
    case CausedColumn: return duration(r.causedUs);
    case WorkDelayCostColumn: return duration(r.workDelayCostUs);
    case StartSkewCostColumn: return duration(r.startSkewCostUs);
    case LastColumn: return r.lastArrivals < 0 ? QStringLiteral("-") : QString::number(r.lastArrivals);
    case LinkColumn: return r.linkPct < 0 ? QStringLiteral("-") : QString::number(r.linkPct, 'f', 1) + QStringLiteral(" %");
    case OverlapColumn:
        return r.overlapPct < 0 ? QStringLiteral("-") : QString::number(r.overlapPct, 'f', 2) + QStringLiteral(" %");
    case ExposedCommColumn: return duration(r.exposedCommUs);
    default: return {};
    }
}

QVariant RankTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case StepColumn: return tr("The analysed step (window) on this rank's own clock");
        case CriticalPathColumn: return tr("This rank's single-rank critical path of the step");
        case BoundByColumn: return tr("The largest bound-by bucket of that critical path");
        case WaitsColumn: return tr("Time this rank waited in collectives for the last arriver");
        case CausedColumn: return tr("The other ranks' waits in the collectives this rank arrived last at");
        case WorkDelayCostColumn:
            return tr("The part of the waits caused that this rank's extra work explains (its ops ran longer)");
        case StartSkewCostColumn:
            return tr("The part of the waits caused that starting later explains (at the window edge often the "
                      "profiler starting later on this rank)");
        case LastColumn: return tr("Collectives this rank arrived last at");
        case LinkColumn: return tr("Host ops linked to their Kineto twin");
        case OverlapColumn:
            return tr("HTA's comm/comp overlap over the whole trace: the share of this rank's communication kernel "
                      "time that computation kernels ran under");
        case ExposedCommColumn:
            return tr("TraceLens' exposed communication over the whole trace: communication kernel time not "
                      "overlapped by any computation kernel on the same GPU");
        default: return {};
        }
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case RankColumn: return tr("Rank");
    case StatusColumn: return tr("Status");
    case StepColumn: return tr("Step time");
    case CriticalPathColumn: return tr("Critical path");
    case BoundByColumn: return tr("Bound by");
    case WaitsColumn: return tr("Waits suffered");
    case CausedColumn: return tr("Waits caused");
    case WorkDelayCostColumn: return tr("Work delay cost");
    case StartSkewCostColumn: return tr("Start skew cost");
    case LastColumn: return tr("Times last");
    case LinkColumn: return tr("Link coverage");
    case OverlapColumn: return tr("Comm/comp overlap");
    case ExposedCommColumn: return tr("Exposed comm");
    default: return {};
    }
}

} // namespace syncscope::ui
