// SPDX-License-Identifier: MIT
#include "hangmodels.h"

#include <QBrush>
#include <QColor>
#include <QDateTime>
#include <QFont>

namespace syncscope::ui {

QString hangRankRanges(const std::vector<int64_t> &ranks, size_t limit)
{
    QStringList parts;
    size_t ranges = 0;
    for (size_t i = 0; i < ranks.size();) {
        size_t j = i;
        while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1)
            ++j;
        if (++ranges > limit) {
            parts << QObject::tr("\u2026 (%1 ranks)").arg(ranks.size());
            break;
        }
        parts << (i == j ? QString::number(ranks[i]) : QStringLiteral("%1-%2").arg(ranks[i]).arg(ranks[j]));
        i = j + 1;
    }
    return parts.join(QLatin1Char(','));
}

HangSuspectsModel::HangSuspectsModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void HangSuspectsModel::setAnalysis(std::shared_ptr<const HangAnalysis> a)
{
    beginResetModel();
    m_a = std::move(a);
    endResetModel();
}

int HangSuspectsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() || !m_a ? 0 : int(m_a->suspects.size());
}

int HangSuspectsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant HangSuspectsModel::data(const QModelIndex &index, int role) const
{
    if (!m_a || !index.isValid() || size_t(index.row()) >= m_a->suspects.size())
        return {};
    const HangSuspect &s = m_a->suspects[size_t(index.row())];
    if (role == Qt::FontRole && s.root) {
        QFont f;
        f.setBold(true);
        return f;
    }
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
        return {};
    switch (index.column()) {
    case Role:
        return s.root ? tr("root") : tr("consequence");
    case Pg: return QString::fromStdString(s.pgName);
    case Desc: return QString::fromStdString(s.pgDesc);
    case Op: return QString::fromStdString(s.op);
    case Sizes: return QString::fromStdString(hangSizesText(s.inputSizes));
    case Dtype: return QString::fromStdString(hangDtypeText(s.dtype));
    case Seq: return s.p2p ? tr("p2p %1").arg(s.p2pSeqId) : QString::number(s.collectiveSeqId);
    case Kind: return QString::fromStdString(s.kind);
    case Missing: return hangRankRanges(s.missingRanks, role == Qt::ToolTipRole ? 200 : 12);
    case Mismatched: return hangRankRanges(s.mismatchedRanks, role == Qt::ToolTipRole ? 200 : 12);
    case Waiting: return hangRankRanges(s.waitingRanks, role == Qt::ToolTipRole ? 200 : 12);
    case Explains: {
        QStringList pgs;
        for (size_t e : s.explains)
            if (e < m_a->suspects.size())
                pgs << tr("pg %1").arg(QString::fromStdString(m_a->suspects[e].pgName));
        return pgs.join(QStringLiteral(", "));
    }
    default: return {};
    }
}

QVariant HangSuspectsModel::headerData(int section, Qt::Orientation o, int role) const
{
    static const char *names[] = {"Role", "PG", "Desc", "Op", "Sizes", "Dtype", "Seq", "Kind",
                                  "Missing", "Mismatched", "Waiting", "Explains"};
    if (o == Qt::Horizontal && role == Qt::DisplayRole && section >= 0 && section < ColumnCount)
        return tr(names[section]);
    return QAbstractTableModel::headerData(section, o, role);
}

HangEntriesModel::HangEntriesModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void HangEntriesModel::setDump(const FrDump *dump, int highlight)
{
    beginResetModel();
    m_dump = dump;
    m_highlight = highlight;
    endResetModel();
}

int HangEntriesModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() || !m_dump ? 0 : int(m_dump->entries.size());
}

int HangEntriesModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

namespace {

QString dtypes(const std::vector<std::string> &v)
{
    std::string joined;
    for (const auto &d : v)
        joined += (joined.empty() ? "" : ",") + d;
    return QString::fromStdString(hangDtypeText(joined));
}

// Dumps stamp times in ns since the epoch: wall clock with µs, or "+x ms" after creation.
QString wallTime(int64_t ns)
{
    if (ns < 0)
        return {};
    const QDateTime t = QDateTime::fromMSecsSinceEpoch(ns / 1000000, Qt::UTC);
    return t.toString(QStringLiteral("yyyy-MM-dd HH:mm:ss.zzz")) + QStringLiteral("%1").arg((ns / 1000) % 1000, 3, 10, QLatin1Char('0'));
}

QString after(const std::optional<int64_t> &ns, int64_t created)
{
    if (!ns)
        return {};
    if (created < 0)
        return QString::number(*ns);
    return QStringLiteral("+%1 ms").arg(double(*ns - created) / 1e6, 0, 'f', 3);
}

} // namespace

QVariant HangEntriesModel::data(const QModelIndex &index, int role) const
{
    if (!m_dump || !index.isValid() || size_t(index.row()) >= m_dump->entries.size())
        return {};
    const FrEntry &e = m_dump->entries[size_t(index.row())];
    if (role == Qt::BackgroundRole && index.row() == m_highlight)
        return QBrush(QColor(0xff, 0xd8, 0x70));
    if (role == Qt::FontRole && index.row() == m_highlight) {
        QFont f;
        f.setBold(true);
        return f;
    }
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
        return {};
    switch (index.column()) {
    case Record: return qlonglong(e.recordId);
    case Pg: return QString::fromStdString(e.pgName);
    case Desc: return QString::fromStdString(e.pgDesc);
    case Seq: return e.collectiveSeqId >= 0 ? QVariant(qlonglong(e.collectiveSeqId)) : QVariant();
    case P2pSeq: return e.p2pSeqId >= 0 ? QVariant(qlonglong(e.p2pSeqId)) : QVariant();
    case Op: return QString::fromStdString(e.profilingName);
    case Sizes: return QString::fromStdString(hangSizesText(e.inputSizes));
    case Dtype: return dtypes(e.inputDtypes);
    case State: return QString::fromStdString(e.state);
    case Created: return wallTime(e.timeCreatedNs);
    case Started: return after(e.timeDiscoveredStartedNs, e.timeCreatedNs);
    case Completed: return after(e.timeDiscoveredCompletedNs, e.timeCreatedNs);
    case Duration: return e.durationMs ? QStringLiteral("%1 ms").arg(*e.durationMs, 0, 'f', 3) : QString();
    default: return {};
    }
}

QVariant HangEntriesModel::headerData(int section, Qt::Orientation o, int role) const
{
    static const char *names[] = {"Record", "PG", "Desc", "Seq", "P2P seq", "Op", "Sizes", "Dtype",
                                  "State", "Created (UTC)", "Started", "Completed", "Duration"};
    if (o == Qt::Horizontal && role == Qt::DisplayRole && section >= 0 && section < ColumnCount)
        return tr(names[section]);
    return QAbstractTableModel::headerData(section, o, role);
}

int hangStuckEntry(const FrDump &dump, const std::string &pgName, const HangSuspect *suspect)
{
    int last = -1;
    for (size_t i = 0; i < dump.entries.size(); ++i) {
        const FrEntry &e = dump.entries[i];
        if (e.pgName != pgName)
            continue;
        if (suspect && (suspect->p2p ? e.p2pSeqId == suspect->p2pSeqId
                                     : e.collectiveSeqId == suspect->collectiveSeqId && !e.isP2p))
            return int(i);
        last = int(i);
    }
    return last;
}

} // namespace syncscope::ui
