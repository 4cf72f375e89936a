// SPDX-License-Identifier: MIT
#include "collectivesmodel.h"
#include "collectiveranksmodel.h"

#include "job/jobdata.h"
#include "model/kinetotrace.h"
#include "panels/criticalpathmodel.h"
#include "timeline/timeformat.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace syncscope::ui {

namespace {

QString collectivesDuration(double us)
{
    return QString::fromStdString(formatDuration(us * 1000));
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

const RankLateness *lastArrivalLateness(const MatchedCollective &c)
{
    if (c.lastArrivalRank < 0)
        return nullptr;
    const auto it = c.lateness.find(c.lastArrivalRank);
    return it == c.lateness.end() ? nullptr : &it->second;
}

int64_t rootCauseEvent(const JobData &job, const RootCauseOp &op)
{
    const int i = job.indexOfRank(op.rank);
    if (i < 0)
        return -1;
    const JobRankData &r = job.ranks[size_t(i)];
    const KinetoTrace *trace = r.analysis && r.analysis->device ? r.analysis->device.get() : nullptr;
    if (!trace)
        return -1;
    double offsetUs = 0; // ADDED to the rank's own clock to reach the reference clock
    for (const auto &s : job.analysis.ranks)
        if (s.rank == op.rank)
            offsetUs = s.clockOffsetUs;
    const auto targetNs = static_cast<int64_t>(std::llround((op.startUs - offsetUs) * 1000.0));
    int64_t best = -1;
    int64_t bestDist = 1000; // 1 µs
    for (uint32_t k = 0; k < trace->events.size(); ++k) {
        const KinetoEvent &e = trace->events[k];
        if (e.ph != 'X' || !e.has(KinetoEvent::HasTs))
            continue;
        const int64_t dist = std::llabs(e.tsNs - targetNs);
        if (dist <= bestDist && trace->str(e.name) == op.op) {
            if (dist == bestDist && best >= 0)
                continue;
            best = k;
            bestDist = dist;
        }
    }
    return best;
}

CollectivesModel::CollectivesModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void CollectivesModel::setJob(std::shared_ptr<const JobData> job)
{
    beginResetModel();
    m_job = std::move(job);
    m_kinds = m_job ? collectiveChakraKinds(*m_job) : std::vector<std::string>();
    m_originNs = m_job ? jobTimeOriginNs(*m_job) : 0;
    m_bandwidth.clear();
    if (m_job) {
        std::vector<const RankSummary *> summaries;
        for (const JobRankData &r : m_job->ranks)
            summaries.push_back(&r.summary);
        m_bandwidth = jobCollectiveBandwidths(summaries, m_job->analysis);
    }
    updateStarts();
    endResetModel();
}

void CollectivesModel::setTimeOrigin(qint64 originNs)
{
    if (originNs == m_originNs)
        return;
    m_originNs = originNs;
    updateStarts();
    if (rowCount() > 0)
        Q_EMIT dataChanged(index(0, StartColumn), index(rowCount() - 1, StartColumn));
}

void CollectivesModel::updateStarts()
{
    m_startNs.clear();
    if (!m_job)
        return;
    for (const MatchedCollective &c : m_job->analysis.collectives) {
        double first = c.ranks.empty() ? 0.0 : std::numeric_limits<double>::infinity();
        for (size_t k = 0; k < c.ranks.size(); ++k)
            first = std::min(first, arrivalJobNs(*m_job, c, k, m_originNs));
        m_startNs.push_back(first);
    }
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
    const RankLateness *late = lastArrivalLateness(c);
    static const CollectiveBandwidth kNoBandwidth;
    const CollectiveBandwidth &bw = i < m_bandwidth.size() ? m_bandwidth[i] : kNoBandwidth;
    switch (role) {
    case CollectiveIndexRole: return quint32(i);
    case CollectiveFilterRole:
        return QString::fromStdString(c.name) + QLatin1Char(' ') + QString::fromStdString(c.processGroup) +
               QLatin1Char(' ') + QString::fromStdString(chakraKind(quint32(i)));
    case Qt::TextAlignmentRole:
        return index.column() == NameColumn || index.column() == ChakraColumn || index.column() == GroupColumn
                       || index.column() == MatchedByColumn || index.column() == WindowEdgeColumn
                       || index.column() == SlowColumn
                   ? QVariant()
                   : QVariant(int(Qt::AlignRight | Qt::AlignVCenter));
    case Qt::ToolTipRole:
        if (index.column() == NameColumn || index.column() == ChakraColumn)
            return collectiveDisplayName(c, chakraKind(quint32(i)));
        if (index.column() == ParticipantsColumn)
            return tr("Ranks %1").arg(rankList(c.ranks));
        if (index.column() == CompleteColumn && !c.complete)
            return tr("Not every expected participant of this collective was found");
        if (index.column() == SizeColumn && bw.messageBytes)
            return tr("%1 bytes").arg(*bw.messageBytes);
        if (index.column() >= TransferColumn && index.column() <= SlowColumn && bw.busBwGBps >= 0) {
            QString tip = tr("busbw %1 over a transfer of %2 (%3 of %4 ranks, factor %5); the job's median for "
                             "%3 of this size: %6")
                              .arg(gbpsText(bw.busBwGBps), collectivesDuration(bw.transferUs),
                                   QString::fromUtf8(collectiveTypeName(bw.type).data(),
                                                     qsizetype(collectiveTypeName(bw.type).size())))
                              .arg(bw.groupSize)
                              .arg(busBwFactor(bw.type, bw.groupSize), 0, 'f', 3)
                              .arg(gbpsText(bw.medianBusBwGBps));
            if (bw.slow)
                tip += QLatin1Char('\n')
                       + tr("Slow: below %1 x that median. The transfer starts at the last arrival, so this is the "
                            "data moving slowly (a slow link or contention), not a rank arriving late")
                             .arg(kSlowBusBwRatio);
            return tip;
        }
        if (index.column() == CausedColumn && c.lastArrivalRank >= 0)
            return tr("The other ranks' waits for rank %1 here").arg(c.lastArrivalRank);
        if (index.column() >= LateColumn && index.column() <= WindowEdgeColumn && late) {
            QString tip = tr("Rank %1 came %2 after the first = start skew %3 + work excess %4")
                              .arg(c.lastArrivalRank)
                              .arg(collectivesDuration(late->lateUs), collectivesDuration(late->startSkewUs), collectivesDuration(late->workExcessUs));
            if (late->unexplainedUs > 0)
                tip += tr(" + unexplained %1").arg(collectivesDuration(late->unexplainedUs));
            if (c.windowEdge)
                tip += QLatin1Char('\n')
                       + tr("Window edge: it started the recorded step later (often the profiler starting later "
                            "on that rank), not slower work");
            return tip;
        }
        return {};
    case SortRole:
        switch (index.column()) {
        case IndexColumn: return quint32(i);
        case NameColumn: return QString::fromStdString(c.name);
        case ChakraColumn: return QString::fromStdString(chakraKind(quint32(i)));
        case GroupColumn: return QString::fromStdString(c.processGroup);
        case ParticipantsColumn: return qint64(c.ranks.size());
        case StartColumn: return m_startNs[i] / 1e3;
        case SpreadColumn: return c.spreadUs;
        case LastRankColumn: return qint64(c.lastArrivalRank);
        case MaxWaitColumn: return maxWaitUs(c);
        case CausedColumn: return waitCausedUs(c);
        case LateColumn: return late ? late->lateUs : -1.0;
        case StartSkewColumn: return late ? late->startSkewUs : -1.0;
        case WorkExcessColumn: return late ? late->workExcessUs : -1.0;
        case WindowEdgeColumn: return int(c.windowEdge);
        case MatchedByColumn: return QString::fromStdString(c.matchedBy);
        case CompleteColumn: return int(c.complete);
        case SizeColumn: return bw.messageBytes ? qint64(*bw.messageBytes) : qint64(-1);
        case TransferColumn: return bw.transferUs;
        case BusBwColumn: return bw.busBwGBps;
        case SlowColumn: return int(bw.slow);
        default: return {};
        }
    case Qt::DisplayRole:
        switch (index.column()) {
        case IndexColumn: return QString::number(i);
        case NameColumn: return QString::fromStdString(c.name);
        case ChakraColumn: return m_kinds[i].empty() ? QStringLiteral("-") : QString::fromStdString(m_kinds[i]);
        case GroupColumn: return c.processGroup.empty() ? QStringLiteral("-") : QString::fromStdString(c.processGroup);
        case ParticipantsColumn: return QString::number(c.ranks.size());
        case StartColumn: return QStringLiteral("%1 ms").arg(m_startNs[i] / 1e6, 0, 'f', 3);
        case SpreadColumn: return collectivesDuration(c.spreadUs);
        case LastRankColumn: return c.lastArrivalRank < 0 ? QStringLiteral("-") : QString::number(c.lastArrivalRank);
        case MaxWaitColumn: return collectivesDuration(maxWaitUs(c));
        case CausedColumn: return collectivesDuration(waitCausedUs(c));
        case LateColumn: return late ? collectivesDuration(late->lateUs) : QStringLiteral("-");
        case StartSkewColumn: return late ? collectivesDuration(late->startSkewUs) : QStringLiteral("-");
        case WorkExcessColumn: return late ? collectivesDuration(late->workExcessUs) : QStringLiteral("-");
        case WindowEdgeColumn: return c.windowEdge ? tr("edge") : QString();
        case MatchedByColumn: return QString::fromStdString(c.matchedBy);
        case CompleteColumn: return c.complete ? tr("yes") : tr("no");
        case SizeColumn: return bw.messageBytes ? bytesText(*bw.messageBytes) : QStringLiteral("-");
        case TransferColumn: return bw.transferUs < 0 ? QStringLiteral("-") : collectivesDuration(bw.transferUs);
        case BusBwColumn: return gbpsText(bw.busBwGBps);
        case SlowColumn: return bw.slow ? tr("slow") : QString();
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
        case StartColumn:
            return tr("First arrival (kernel start) in job time: aligned clock, from the job timeline's origin "
                      "(its axis' 0)");
        case ChakraColumn:
            return tr("What the exported Chakra .et calls this collective (COMM_COLL comm_type, SEND or RECV): "
                      "NCCL builds an all-to-all from SendRecv kernels");
        case SpreadColumn: return tr("Last arrival minus first arrival");
        case MaxWaitColumn: return tr("The longest wait of a participant for the last arriver");
        case CausedColumn: return tr("The sum of the other participants' waits for the last arriver");
        case LateColumn: return tr("How long after the first rank the last arriver came");
        case StartSkewColumn:
            return tr("The part of the last arriver's lateness from starting the interval since its previous "
                      "synchronisation point later");
        case WorkExcessColumn:
            return tr("The part of the last arriver's lateness from taking longer over that interval (its work)");
        case WindowEdgeColumn:
            return tr("edge: the last arriver started the recorded step later (often the profiler starting later "
                      "on that rank), not slower work");
        case MatchedByColumn: return tr("How the instances on the ranks were matched");
        case SizeColumn:
            return tr("nccl-tests' size S from the Kineto args (In/Out msg nelems x dtype): the gathered output of "
                      "an all-gather, the input of a reduce-scatter, the message otherwise");
        case TransferColumn:
            return tr("From the last rank's arrival to the kernel end, the mean over the ranks (nccl-tests averages "
                      "its ranks' times): the data moving, nobody waiting");
        case BusBwColumn:
            return tr("busbw = S / transfer x nccl-tests' factor: all_reduce 2(n-1)/n; all_gather, reduce_scatter, "
                      "all_to_all (n-1)/n; broadcast, reduce, send/recv 1");
        case SlowColumn:
            return tr("slow: busbw below %1 x the job's median busbw of the instances of the same collective type "
                      "and size. Over the transfer, so a slow link, not a late rank")
                .arg(kSlowBusBwRatio);
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
    case ChakraColumn: return tr(".et type");
    case StartColumn: return tr("Start (job time)");
    case SpreadColumn: return tr("Spread");
    case LastRankColumn: return tr("Last rank");
    case MaxWaitColumn: return tr("Max wait");
    case CausedColumn: return tr("Waits caused");
    case LateColumn: return tr("Late");
    case StartSkewColumn: return tr("Start skew");
    case WorkExcessColumn: return tr("Work excess");
    case WindowEdgeColumn: return tr("Window edge");
    case MatchedByColumn: return tr("Matched by");
    case CompleteColumn: return tr("Complete");
    case SizeColumn: return tr("Size");
    case TransferColumn: return tr("Transfer");
    case BusBwColumn: return tr("busbw");
    case SlowColumn: return tr("Slow busbw");
    default: return {};
    }
}

} // namespace syncscope::ui
