// SPDX-License-Identifier: MIT
#include "jobsearchmodel.h"

#include "job/jobdata.h"
#include "model/kinetotrace.h"
#include "panels/criticalpathmodel.h"
#include "panels/ranktablemodel.h"
#include "panels/treemodel.h"
#include "timeline/timeformat.h"

#include "panels/eventquery.h"

#include <algorithm>
#include <limits>
#include <map>

namespace syncscope::ui {

namespace {

// The events a search shows: complete events (ph X), the ones drawn on a timeline.
bool searchable(const KinetoEvent &e)
{
    return e.ph == 'X' && e.kind != EventKind::TraceSpan && e.has(KinetoEvent::HasTs);
}

} // namespace

JobSearchModel::JobSearchModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void JobSearchModel::setJob(std::shared_ptr<const JobData> job)
{
    beginResetModel();
    m_job = std::move(job);
    m_matches.clear();
    m_ranksHit = 0;
    m_error.clear();
    endResetModel();
}

bool JobSearchModel::setQuery(const QString &text, bool regex, bool caseSensitive)
{
    beginResetModel();
    m_matches.clear();
    m_ranksHit = 0;
    const EventQuery query(text, regex, caseSensitive);
    m_error = query.error();
    const bool ok = query.valid();
    if (m_job && ok && !text.isEmpty()) {
        std::map<int64_t, double> offsetUs; // ADDED to a rank's own clock to reach the reference clock
        for (const auto &s : m_job->analysis.ranks)
            offsetUs[s.rank] = s.clockOffsetUs;
        double originUs = std::numeric_limits<double>::infinity();
        for (const JobRankData &r : m_job->ranks) {
            const KinetoTrace *trace = r.analysis && r.analysis->device ? r.analysis->device.get() : nullptr;
            if (!trace)
                continue;
            const auto off = offsetUs.find(r.rank);
            const double offset = off == offsetUs.end() ? 0 : off->second;
            originUs = std::min(originUs, static_cast<double>(trace->minTsNs) / 1e3 + offset);
            const size_t before = m_matches.size();
            query.scan(
                *trace, [trace](uint32_t i) { return searchable(trace->events[i]); },
                [&](uint32_t i) {
                    const KinetoEvent &e = trace->events[i];
                    m_matches.push_back({r.rank, i, static_cast<double>(e.tsNs) / 1e3 + offset,
                                         static_cast<double>(e.durNs) / 1e3});
                });
            m_ranksHit += m_matches.size() > before ? 1 : 0;
        }
        for (Match &m : m_matches)
            m.startUs -= originUs;
        std::stable_sort(m_matches.begin(), m_matches.end(), [](const Match &a, const Match &b) {
            return a.startUs < b.startUs || (a.startUs == b.startUs && a.rank < b.rank);
        });
    }
    endResetModel();
    return ok;
}

int JobSearchModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : matchCount();
}

int JobSearchModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant JobSearchModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= matchCount() || !m_job)
        return {};
    const Match &m = matchAt(index.row());
    if (role == RankRole)
        return qint64(m.rank);
    if (role == TargetEventRole)
        return qint64(m.event);
    if (role == Qt::TextAlignmentRole)
        return index.column() == NameColumn || index.column() == KindColumn
                   ? QVariant()
                   : QVariant(int(Qt::AlignRight | Qt::AlignVCenter));
    const int ri = m_job->indexOfRank(m.rank);
    const KinetoTrace *trace = ri >= 0 ? m_job->ranks[static_cast<size_t>(ri)].analysis->device.get() : nullptr;
    if (!trace)
        return {};
    const KinetoEvent &e = trace->events[m.event];
    if (role == SortRole) {
        switch (index.column()) {
        case RankColumn: return qint64(m.rank);
        case StartColumn: return m.startUs;
        case DurationColumn: return m.durUs;
        default: break; // text columns sort by their text
        }
    }
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole && role != SortRole)
        return {};
    switch (index.column()) {
    case RankColumn: return QString::number(m.rank);
    case NameColumn: {
        const std::string_view n = trace->str(e.name);
        return QString::fromUtf8(n.data(), static_cast<qsizetype>(n.size()));
    }
    case KindColumn: {
        QString kind = QLatin1String(eventKindName(e.kind));
        if (isGpuActivity(e.kind) && e.htaStream() >= 0)
            kind += tr(", stream %1").arg(e.htaStream());
        return kind;
    }
    case StartColumn: return QString::fromStdString(formatDuration(m.startUs * 1000));
    case DurationColumn: return QString::fromStdString(formatDuration(m.durUs * 1000));
    default: return {};
    }
}

QVariant JobSearchModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::ToolTipRole && section == StartColumn)
        return tr("Aligned clock (each rank's clock offset applied), from the job's earliest event");
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case RankColumn: return tr("Rank");
    case NameColumn: return tr("Op");
    case KindColumn: return tr("Kind");
    case StartColumn: return tr("Start");
    case DurationColumn: return tr("Duration");
    default: return {};
    }
}

} // namespace syncscope::ui
