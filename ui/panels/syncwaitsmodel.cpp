// SPDX-License-Identifier: MIT
#include "syncwaitsmodel.h"

#include "panels/criticalpathmodel.h"
#include "panels/treemodel.h"
#include "session/analysis.h"
#include "timeline/timeformat.h"
#include "timeline/timelinemodel.h"

namespace syncscope::ui {

SyncWaitsModel::SyncWaitsModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void SyncWaitsModel::setSources(std::shared_ptr<const Analysis> analysis, std::shared_ptr<const TimelineModel> model)
{
    beginResetModel();
    m_analysis = std::move(analysis);
    m_model = std::move(model);
    endResetModel();
}

QString SyncWaitsModel::sourceText(bool inferred)
{
    return inferred ? QStringLiteral("inferred") : QStringLiteral("cuda_sync");
}

QString SyncWaitsModel::totalsText() const
{
    if (!m_analysis)
        return {};
    const SyncWaitTotals totals = syncWaitTotals(m_analysis->syncEdges);
    // " (12 inferred)", " (3 inferred, 9 from cuda_sync)", " (9 from cuda_sync)".
    auto sources = [](size_t inferred, size_t edges) {
        if (inferred == 0)
            return tr(" (%1 from cuda_sync)").arg(edges);
        if (inferred == edges)
            return tr(" (%1 inferred)").arg(inferred);
        return tr(" (%1 inferred, %2 from cuda_sync)").arg(inferred).arg(edges - inferred);
    };
    QStringList parts;
    for (int k = 0; k < kSyncKindCount; ++k) {
        const SyncKindTotals &t = totals.byKind[static_cast<size_t>(k)];
        if (t.edges == 0)
            continue;
        const QString note = t.inferred == 0 ? QString()
                             : t.inferred == t.edges ? tr(" (inferred)")
                                                     : tr(" (%1 inferred)").arg(t.inferred);
        parts << tr("%1: %2 %3%4, %5")
                     .arg(QLatin1String(syncKindName(static_cast<SyncKind>(k))))
                     .arg(t.edges)
                     .arg(t.edges == 1 ? tr("wait") : tr("waits"), note,
                          QString::fromStdString(formatDuration(t.waitUs * 1000)));
    }
    if (parts.isEmpty())
        return tr("No sync waits in this trace.");
    const size_t edges = m_analysis->syncEdges.size();
    return tr("%1 %2%3, %4 waited \u2014 %5")
        .arg(edges)
        .arg(edges == 1 ? tr("sync edge") : tr("sync edges"), sources(totals.inferredEdges(), edges))
        .arg(QString::fromStdString(formatDuration(totals.totalWaitUs() * 1000)), parts.join(QStringLiteral(" \u00b7 ")));
}

int SyncWaitsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() || !m_analysis ? 0 : static_cast<int>(m_analysis->syncEdges.size());
}

int SyncWaitsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString SyncWaitsModel::eventName(uint32_t event) const
{
    if (!m_model)
        return {};
    const std::string_view n = m_model->name(event);
    return QString::fromUtf8(n.data(), static_cast<qsizetype>(n.size()));
}

QVariant SyncWaitsModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const SyncEdge &e = m_analysis->syncEdges[static_cast<size_t>(index.row())];
    if (role == TargetEventRole) {
        if (index.column() == SourceColumn)
            return qint64(e.syncEvent);
        return qint64(index.column() == WaitedForColumn || index.column() == StreamColumn ? e.src : e.dst);
    }
    if (role == Qt::ToolTipRole && index.column() == SourceColumn)
        return e.inferred ? tr("Inferred from the runtime call and the GPU timing (the trace has no cuda_sync row for it)")
                          : tr("From Kineto's cuda_sync row (HTA's rules)");
    if (role == Qt::TextAlignmentRole)
        return index.column() == WaitColumn ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter)) : QVariant();
    if (role == SortRole && index.column() == WaitColumn)
        return e.waitUs;
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole && role != SortRole)
        return {};
    switch (index.column()) {
    case KindColumn: return QLatin1String(syncKindName(e.kind));
    case SourceColumn: return sourceText(e.inferred);
    case WaitingColumn: return eventName(e.dst);
    case WaitedForColumn: return eventName(e.src);
    case StreamColumn: return m_model ? QString::fromStdString(m_model->laneName(e.src)) : QString();
    case WaitColumn: return QString::fromStdString(formatDuration(e.waitUs * 1000));
    default: return {};
    }
}

QVariant SyncWaitsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case KindColumn: return tr("Kind");
    case SourceColumn: return tr("Source");
    case WaitingColumn: return tr("Waiting op");
    case WaitedForColumn: return tr("Waited for (GPU op)");
    case StreamColumn: return tr("Stream");
    case WaitColumn: return tr("Wait");
    default: return {};
    }
}

} // namespace syncscope::ui
