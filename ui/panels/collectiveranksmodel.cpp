// SPDX-License-Identifier: MIT
#include "collectiveranksmodel.h"

#include "analysis/chakracommkind.h"
#include "analysis/busbw.h"
#include "job/collectivebw.h"
#include "job/jobdata.h"
#include "panels/criticalpathmodel.h"
#include "panels/ranktablemodel.h"
#include "timeline/timeformat.h"

#include <QFont>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace syncscope::ui {

namespace {

QString ranksDuration(double us)
{
    return QString::fromStdString(formatDuration(us * 1000));
}

double offsetUsOf(const JobData &job, int64_t rank)
{
    for (const RankJobStats &s : job.analysis.ranks)
        if (s.rank == rank)
            return s.clockOffsetUs;
    return 0;
}

} // namespace

const RankCollective *participantKernel(const JobData &job, const MatchedCollective &c, size_t k)
{
    if (k >= c.ranks.size() || k >= c.index.size())
        return nullptr;
    const int i = job.indexOfRank(c.ranks[k]);
    if (i < 0 || c.index[k] >= job.ranks[size_t(i)].summary.collectives.size())
        return nullptr;
    return &job.ranks[size_t(i)].summary.collectives[c.index[k]];
}

QString bytesText(int64_t b)
{
    if (b < 1024)
        return QStringLiteral("%1 B").arg(b);
    static const char *const kUnits[] = {"KiB", "MiB", "GiB", "TiB"};
    double v = double(b);
    int u = -1;
    while (v >= 1024 && u < 3) {
        v /= 1024;
        ++u;
    }
    return QStringLiteral("%1 %2").arg(v, 0, 'f', v < 10 ? 2 : 1).arg(QLatin1String(kUnits[u]));
}

QString gbpsText(double v)
{
    return v < 0 ? QStringLiteral("-") : QStringLiteral("%1 GB/s").arg(v, 0, 'f', v < 10 ? 2 : 1);
}

int64_t jobTimeOriginNs(const JobData &job)
{
    // As buildJobTimelineModel: min over the loaded ranks of trace start + rounded offset.
    int64_t origin = std::numeric_limits<int64_t>::max();
    for (const JobRankData &r : job.ranks)
        if (r.analysis && r.analysis->device)
            origin = std::min<int64_t>(origin, r.analysis->device->minTsNs +
                                                   std::llround(offsetUsOf(job, r.rank) * 1000));
    return origin == std::numeric_limits<int64_t>::max() ? 0 : origin;
}

double arrivalJobNs(const JobData &job, const MatchedCollective &c, size_t k, int64_t originNs)
{
    if (const RankCollective *kc = participantKernel(job, c, k))
        return double(kc->startNs + std::llround(offsetUsOf(job, c.ranks[k]) * 1000) - originNs);
    const auto it = k < c.ranks.size() ? c.arrivalUs.find(c.ranks[k]) : c.arrivalUs.end();
    return it == c.arrivalUs.end() ? 0.0 : it->second * 1000.0 - double(originNs);
}

std::vector<std::string> collectiveChakraKinds(const JobData &job)
{
    std::vector<std::string> out(job.analysis.collectives.size());
    std::map<int64_t, std::unique_ptr<ChakraKernelKinds>> kinds; // per rank, built when first needed
    for (size_t ci = 0; ci < out.size(); ++ci) {
        const MatchedCollective &c = job.analysis.collectives[ci];
        for (size_t k = 0; k < c.ranks.size() && out[ci].empty(); ++k) {
            const RankCollective *kc = participantKernel(job, c, k);
            const int i = job.indexOfRank(c.ranks[k]);
            const Analysis *a = i >= 0 ? job.ranks[size_t(i)].analysis.get() : nullptr;
            if (!kc || !a || !a->device)
                continue;
            auto &lookup = kinds[c.ranks[k]];
            if (!lookup)
                lookup = std::make_unique<ChakraKernelKinds>(a->host.get(), *a->device,
                                                             a->link ? &*a->link : nullptr);
            const std::string name = chakraCommKindName(lookup->of(kc->event));
            out[ci] = name.empty() ? std::string("COMP_NODE") : name;
        }
    }
    return out;
}

QString collectiveDisplayName(const MatchedCollective &c, const std::string &chakraKind)
{
    const QString name = QString::fromStdString(c.name);
    return chakraKind.empty() ? name
                              : QStringLiteral("%1 (.et: %2)").arg(name, QString::fromStdString(chakraKind));
}

CollectiveRanksModel::CollectiveRanksModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void CollectiveRanksModel::setCollective(std::shared_ptr<const JobData> job, qint64 index, int64_t originNs,
                                         const std::string &chakraKind)
{
    beginResetModel();
    m_job = std::move(job);
    m_rows.clear();
    m_title.clear();
    m_index = m_job && index >= 0 && index < qint64(m_job->analysis.collectives.size()) ? index : -1;
    if (m_index < 0) {
        endResetModel();
        return;
    }
    const JobData &job_ = *m_job;
    const MatchedCollective &c = job_.analysis.collectives[size_t(m_index)];
    // Sizes, transfers and bandwidths as the job report computes them (core/job/collectivebw.h),
    // the type busbw is measured as named by the .et's kind shown in the title.
    std::vector<const RankCollective *> kernels(c.ranks.size(), nullptr);
    for (size_t k = 0; k < c.ranks.size(); ++k)
        kernels[k] = participantKernel(job_, c, k);
    const CollectiveBandwidth bw = collectiveBandwidth(c, kernels, collectiveTypeOf(chakraKind));
    const CollectiveType type = bw.type;
    const int64_t groupSize = bw.groupSize;
    for (size_t k = 0; k < c.ranks.size(); ++k) {
        const CollectiveRankBandwidth &b = bw.ranks[k];
        Row row;
        row.rank = b.rank;
        if (b.kernel)
            row.event = b.kernel->event;
        row.arrivalNs = arrivalJobNs(job_, c, k, originNs);
        row.waitUs = b.waitUs;
        row.kernelUs = std::max(0.0, b.kernelUs);
        row.transferUs = b.transferUs < 0 ? 0.0 : b.transferUs;
        row.last = row.rank == c.lastArrivalRank;
        if (const auto l = c.lateness.find(row.rank); l != c.lateness.end())
            row.late = &l->second;
        row.bytes = b.bytes;
        row.algBwGBps = b.algBwGBps;
        row.busBwGBps = b.busBwGBps;
        m_rows.push_back(row);
    }
    m_title = tr("%1 #%2 · process group %3 · %n rank(s)", nullptr, int(c.ranks.size()))
                  .arg(collectiveDisplayName(c, chakraKind))
                  .arg(m_index)
                  .arg(c.processGroup.empty() ? QStringLiteral("-") : QString::fromStdString(c.processGroup));
    if (c.lastArrivalRank >= 0)
        m_title += tr(" · last: rank %1").arg(c.lastArrivalRank);
    if (const double f = busBwFactor(type, groupSize); f > 0)
        m_title += tr(" · busbw as %1 of %2 ranks (factor %3)")
                       .arg(QString::fromUtf8(collectiveTypeName(type).data(), qsizetype(collectiveTypeName(type).size())))
                       .arg(groupSize)
                       .arg(f, 0, 'f', 3);
    endResetModel();
}

int CollectiveRanksModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int CollectiveRanksModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant CollectiveRanksModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const Row &r = m_rows[size_t(index.row())];
    const RankLateness *late = r.late;
    switch (role) {
    case RankRole: return qint64(r.rank);
    case RankEventRole: return r.event >= 0 ? QVariant(quint32(r.event)) : QVariant();
    case Qt::TextAlignmentRole: return int(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::FontRole:
        if (r.last) {
            QFont f;
            f.setBold(true);
            return f;
        }
        return {};
    case Qt::ToolTipRole:
        if (index.column() == RankColumn && r.last)
            return tr("Rank %1 arrived last: the others waited for it").arg(r.rank);
        if (index.column() >= LateColumn && index.column() <= WorkExcessColumn && late) {
            QString tip = tr("Rank %1 came %2 after the first = start skew %3 + work excess %4")
                              .arg(r.rank)
                              .arg(ranksDuration(late->lateUs), ranksDuration(late->startSkewUs), ranksDuration(late->workExcessUs));
            if (late->unexplainedUs > 0)
                tip += tr(" + unexplained %1").arg(ranksDuration(late->unexplainedUs));
            if (late->fromWindowStart)
                tip += QLatin1Char('\n') + tr("From the step start: no earlier collective in the window");
            return tip;
        }
        if (index.column() == SizeColumn && r.bytes)
            return tr("%1 bytes").arg(*r.bytes);
        return {};
    case SortRole:
        switch (index.column()) {
        case RankColumn: return qint64(r.rank);
        case ArrivalColumn: return r.arrivalNs;
        case WaitColumn: return r.waitUs;
        case TransferColumn: return r.transferUs;
        case KernelColumn: return r.kernelUs;
        case LateColumn: return late ? late->lateUs : -1.0;
        case StartSkewColumn: return late ? late->startSkewUs : -1.0;
        case WorkExcessColumn: return late ? late->workExcessUs : -1.0;
        case SizeColumn: return r.bytes ? qint64(*r.bytes) : qint64(-1);
        case AlgBwColumn: return r.algBwGBps;
        case BusBwColumn: return r.busBwGBps;
        default: return {};
        }
    case Qt::DisplayRole:
        switch (index.column()) {
        case RankColumn: return QString::number(r.rank);
        case ArrivalColumn: return QStringLiteral("%1 ms").arg(r.arrivalNs / 1e6, 0, 'f', 3);
        case WaitColumn: return ranksDuration(r.waitUs);
        case TransferColumn: return ranksDuration(r.transferUs);
        case KernelColumn: return ranksDuration(r.kernelUs);
        case LateColumn: return late ? ranksDuration(late->lateUs) : QStringLiteral("-");
        case StartSkewColumn: return late ? ranksDuration(late->startSkewUs) : QStringLiteral("-");
        case WorkExcessColumn: return late ? ranksDuration(late->workExcessUs) : QStringLiteral("-");
        case SizeColumn: return r.bytes ? bytesText(*r.bytes) : QStringLiteral("-");
        case AlgBwColumn: return gbpsText(r.algBwGBps);
        case BusBwColumn: return gbpsText(r.busBwGBps);
        default: return {};
        }
    default: return {};
    }
}

QVariant CollectiveRanksModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case ArrivalColumn:
            return tr("Kernel start in job time: aligned clock, from the job timeline's origin (its axis' 0)");
        case WaitColumn: return tr("From the kernel's start to the last rank's arrival (the last arriver waits 0)");
        case TransferColumn:
            return tr("From the last rank's arrival to this rank's kernel end: the data moving, nobody waiting");
        case KernelColumn: return tr("The whole kernel: wait + transfer");
        case LateColumn: return tr("Arrival minus the first rank's arrival");
        case StartSkewColumn:
            return tr("The part of the lateness from starting the interval since the previous synchronisation "
                      "point later");
        case WorkExcessColumn: return tr("The part of the lateness from taking longer over that interval (work)");
        case SizeColumn:
            return tr("nccl-tests' size S from the Kineto args (In/Out msg nelems x dtype): the gathered output of "
                      "an all-gather, the input of a reduce-scatter, the message otherwise; the exported .et's "
                      "comm_size");
        case AlgBwColumn:
            return tr("algbw = size / transfer time (GB/s = 1e9 bytes/s). Transfer, not kernel time: the wait "
                      "for a late rank is no bandwidth");
        case BusBwColumn:
            return tr("busbw = algbw x nccl-tests' factor: all_reduce 2(n-1)/n; all_gather, reduce_scatter, "
                      "all_to_all (n-1)/n; broadcast, reduce, send/recv 1 (over the transfer time)");
        default: return {};
        }
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case RankColumn: return tr("Rank");
    case ArrivalColumn: return tr("Arrival (job time)");
    case WaitColumn: return tr("Wait");
    case TransferColumn: return tr("Transfer");
    case KernelColumn: return tr("Kernel");
    case LateColumn: return tr("Late");
    case StartSkewColumn: return tr("Start skew");
    case WorkExcessColumn: return tr("Work excess");
    case SizeColumn: return tr("Size");
    case AlgBwColumn: return tr("algbw");
    case BusBwColumn: return tr("busbw");
    default: return {};
    }
}

} // namespace syncscope::ui
