// SPDX-License-Identifier: MIT
#include "aggregatemodel.h"

#include "panels/criticalpathmodel.h"
#include "panels/treemodel.h"
#include "timeline/timeformat.h"

namespace syncscope::ui {

AggregateModel::AggregateModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void AggregateModel::setRows(std::vector<AggregateRow> rows)
{
    beginResetModel();
    m_rows = std::move(rows);
    m_totalNs = 0;
    for (const AggregateRow &r : m_rows)
        m_totalNs += r.totalNs;
    endResetModel();
}

int AggregateModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int AggregateModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant AggregateModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const AggregateRow &r = row(index.row());
    const double share = m_totalNs > 0 ? 100.0 * r.totalNs / m_totalNs : 0;
    if (role == TargetEventRole)
        return qint64(r.maxEvent);
    if (role == Qt::TextAlignmentRole)
        return index.column() != NameColumn ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter)) : QVariant();
    if (role == SortRole) {
        switch (index.column()) {
        case NameColumn: return QString::fromStdString(r.name);
        case CountColumn: return qulonglong(r.count);
        case TotalColumn:
        case ShareColumn: return r.totalNs;
        case AverageColumn: return r.avgNs();
        case MaxColumn: return r.maxNs;
        default: return {};
        }
    }
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
        return {};
    auto dur = [](double ns) { return QString::fromStdString(formatDuration(ns)); };
    switch (index.column()) {
    case NameColumn: return QString::fromStdString(r.name);
    case CountColumn: return qulonglong(r.count);
    case TotalColumn: return dur(r.totalNs);
    case AverageColumn: return dur(r.avgNs());
    case MaxColumn: return dur(r.maxNs);
    case ShareColumn: return QStringLiteral("%1 %").arg(share, 0, 'f', 1);
    default: return {};
    }
}

QVariant AggregateModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::ToolTipRole && section == ShareColumn)
        return tr("Share of the time of all ops in the selected area");
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn: return tr("Name");
    case CountColumn: return tr("Count");
    case TotalColumn: return tr("Total");
    case AverageColumn: return tr("Average");
    case MaxColumn: return tr("Max");
    case ShareColumn: return tr("Share");
    default: return {};
    }
}

} // namespace syncscope::ui
