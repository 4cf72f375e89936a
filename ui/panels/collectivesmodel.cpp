// SPDX-License-Identifier: MIT
#include "collectivesmodel.h"

#include "job/jobdata.h"
#include "panels/criticalpathmodel.h"
#include "timeline/timeformat.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace syncscope::ui {

namespace {

QString duration(double us)
{
    return QString::fromStdString(formatDuration(us * 1000));
}

double firstArrivalUs(const MatchedCollective &c)
{
    double first = std::numeric_limits<double>::infinity();
    for (const auto &[rank, t] : c.arrivalUs)
        first = std::min(first, t);
    return c.arrivalUs.empty() ? 0 : first;
}

double maxWaitUs(const MatchedCollective &c)
{
    double m = 0;
    for (const auto &[rank, w] : c.waitUs)
        m = std::max(m, w);
    return m;
}

QString rankList(const std::vector<int64_t> &ranks)
{
    QStringList list;
    for (auto r : ranks)
        list << QString::number(r);
    return list.join(QStringLiteral(", "));
}

} // namespace

CollectivesModel::CollectivesModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void CollectivesModel::setJob(std::shared_ptr<const JobData> job)
{
    beginResetModel();
    m_job = std::move(job);
    m_originUs = 0;
    if (m_job && !m_job->analysis.collectives.empty()) {
        m_originUs = std::numeric_limits<double>::infinity();
        for (const auto &c : m_job->analysis.collectives)
            if (!c.arrivalUs.empty())
                m_originUs = std::min(m_originUs, firstArrivalUs(c));
        if (!std::isfinite(m_originUs))
            m_originUs = 0;
    }
    endResetModel();
}

int CollectivesModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() || !m_job ? 0 : static_cast<int>(m_job->analysis.collectives.size());
}

int CollectivesModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant CollectivesModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const auto i = static_cast<size_t>(index.row());
    const MatchedCollective &c = m_job->analysis.collectives[i];
    switch (role) {
    case CollectiveIndexRole: return quint32(i);
    case CollectiveFilterRole:
        return QString::fromStdString(c.name) + QLatin1Char(' ') + QString::fromStdString(c.processGroup);
    case Qt::TextAlignmentRole:
        return index.column() == NameColumn || index.column() == GroupColumn || index.column() == MatchedByColumn
                   ? QVariant()
                   : QVariant(int(Qt::AlignRight | Qt::AlignVCenter));
    case Qt::ToolTipRole:
        if (index.column() == ParticipantsColumn)
            return tr("Ranks %1").arg(rankList(c.ranks));
        if (index.column() == CompleteColumn && !c.complete)
            return tr("Not every expected participant of this collective was found");
        if (index.column() == CausedColumn && c.lastArrivalRank >= 0)
            return tr("The other ranks' waits for rank %1 here").arg(c.lastArrivalRank);
        return {};
    case SortRole:
        switch (index.column()) {
        case IndexColumn: return quint32(i);
        case NameColumn: return QString::fromStdString(c.name);
        case GroupColumn: return QString::fromStdString(c.processGroup);
        case ParticipantsColumn: return qint64(c.ranks.size());
        case StartColumn: return firstArrivalUs(c) - m_originUs;
        case SpreadColumn: return c.spreadUs;
        case LastRankColumn: return qint64(c.lastArrivalRank);
        case MaxWaitColumn: return maxWaitUs(c);
        case CausedColumn: return waitCausedUs(c);
        case MatchedByColumn: return QString::fromStdString(c.matchedBy);
        case CompleteColumn: return int(c.complete);
        default: return {};
        }
    case Qt::DisplayRole:
        switch (index.column()) {
        case IndexColumn: return QString::number(i);
        case NameColumn: return QString::fromStdString(c.name);
        case GroupColumn: return c.processGroup.empty() ? QStringLiteral("-") : QString::fromStdString(c.processGroup);
        case ParticipantsColumn: return QString::number(c.ranks.size());
        case StartColumn: return duration(firstArrivalUs(c) - m_originUs);
        case SpreadColumn: return duration(c.spreadUs);
        case LastRankColumn: return c.lastArrivalRank < 0 ? QStringLiteral("-") : QString::number(c.lastArrivalRank);
        case MaxWaitColumn: return duration(maxWaitUs(c));
        case CausedColumn: return duration(waitCausedUs(c));
        case MatchedByColumn: return QString::fromStdString(c.matchedBy);
        case CompleteColumn: return c.complete ? tr("yes") : tr("no");
        default: return {};
        }
    default: return {};
    }
}

QVariant CollectivesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case StartColumn: return tr("First arrival, aligned clock, from the job's first collective");
        case SpreadColumn: return tr("Last arrival minus first arrival");
        case MaxWaitColumn: return tr("The longest wait of a participant for the last arriver");
        case CausedColumn: return tr("The sum of the other participants' waits for the last arriver");
        case MatchedByColumn: return tr("How the instances on the ranks were matched");
        default: return {};
        }
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case IndexColumn: return tr("#");
    case NameColumn: return tr("Collective");
    case GroupColumn: return tr("Process group");
    case ParticipantsColumn: return tr("Ranks");
    case StartColumn: return tr("Start");
    case SpreadColumn: return tr("Spread");
    case LastRankColumn: return tr("Last rank");
    case MaxWaitColumn: return tr("Max wait");
    case CausedColumn: return tr("Waits caused");
    case MatchedByColumn: return tr("Matched by");
    case CompleteColumn: return tr("Complete");
    default: return {};
    }
}

} // namespace syncscope::ui
