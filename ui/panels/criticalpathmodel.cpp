// SPDX-License-Identifier: MIT
#include "criticalpathmodel.h"

#include "analysis/criticalpath.h"
#include "panels/treemodel.h"
#include "timeline/timeformat.h"
#include "timeline/timelinemodel.h"

namespace syncscope::ui {

namespace {

QString edgeTypeText(uint8_t t)
{
    switch (static_cast<CpEdgeType>(t)) {
    case CpEdgeType::OperatorKernel: return QObject::tr("operator");
    case CpEdgeType::Dependency: return QObject::tr("dependency");
    case CpEdgeType::KernelLaunchDelay: return QObject::tr("kernel launch delay");
    case CpEdgeType::KernelKernelDelay: return QObject::tr("kernel-kernel delay");
    case CpEdgeType::SyncDependency: return QObject::tr("sync dependency");
    }
    return {};
}

QString boundByText(const std::string &b)
{
    return b.empty() ? QObject::tr("(dependency)") : QString::fromStdString(b);
}

} // namespace

std::vector<CriticalOpRow> criticalOpRows(const CriticalPathResult &cp)
{
    std::vector<CriticalOpRow> rows;
    if (!cp.success)
        return rows;
    for (const CpBreakdownRow &b : cp.breakdown) {
        const int64_t ev = b.event >= 0 ? b.event : -1;
        if (!rows.empty() && rows.back().event == ev && rows.back().boundBy == cpBoundName(b.bound) &&
            (ev >= 0 || rows.back().edgeType == static_cast<uint8_t>(b.type))) {
            rows.back().durationUs += b.duration;
            ++rows.back().edges;
            continue;
        }
        CriticalOpRow r;
        r.event = ev;
        r.durationUs = b.duration;
        r.boundBy = cpBoundName(b.bound);
        r.edgeType = static_cast<uint8_t>(b.type);
        r.edges = 1;
        rows.push_back(std::move(r));
    }
    return rows;
}

CriticalOpsModel::CriticalOpsModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void CriticalOpsModel::setPath(std::shared_ptr<const CriticalPathResult> cp, std::shared_ptr<const TimelineModel> model)
{
    beginResetModel();
    m_cp = std::move(cp);
    m_model = std::move(model);
    m_rows = m_cp ? criticalOpRows(*m_cp) : std::vector<CriticalOpRow>{};
    m_totalUs = m_cp && m_cp->success ? m_cp->weightUs : 0;
    endResetModel();
}

int CriticalOpsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int CriticalOpsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant CriticalOpsModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const CriticalOpRow &r = row(index.row());
    if (role == TargetEventRole)
        return r.event >= 0 ? QVariant(qint64(r.event)) : QVariant();
    if (role == Qt::TextAlignmentRole)
        return index.column() == IndexColumn || index.column() == TimeColumn || index.column() == ShareColumn
                   ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter))
                   : QVariant();
    if (role == Qt::UserRole) // sort/compare value for tests: share in percent
        return m_totalUs > 0 ? 100.0 * r.durationUs / m_totalUs : 0.0;
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
        return {};
    switch (index.column()) {
    case IndexColumn:
        return index.row() + 1;
    case OpColumn:
        if (r.event >= 0 && m_model) {
            const std::string_view n = m_model->name(static_cast<uint32_t>(r.event));
            return QString::fromUtf8(n.data(), static_cast<qsizetype>(n.size()));
        }
        return QStringLiteral("(%1)").arg(edgeTypeText(r.edgeType));
    case LaneColumn:
        return r.event >= 0 && m_model ? QString::fromStdString(m_model->laneName(static_cast<uint32_t>(r.event)))
                                       : QString();
    case TimeColumn:
        return QString::fromStdString(formatDuration(r.durationUs * 1000));
    case ShareColumn:
        return m_totalUs > 0 ? QStringLiteral("%1 %").arg(100.0 * r.durationUs / m_totalUs, 0, 'f', 1) : QString();
    case BoundByColumn:
        return boundByText(r.boundBy);
    default:
        return {};
    }
}

QVariant CriticalOpsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case IndexColumn: return tr("#");
    case OpColumn: return tr("Op");
    case LaneColumn: return tr("Lane");
    case TimeColumn: return tr("On path");
    case ShareColumn: return tr("Share");
    case BoundByColumn: return tr("Bound by");
    default: return {};
    }
}

BreakdownModel::BreakdownModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void BreakdownModel::setPath(std::shared_ptr<const CriticalPathResult> cp)
{
    beginResetModel();
    m_cp = std::move(cp);
    endResetModel();
}

int BreakdownModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() || !m_cp || !m_cp->success ? 0 : static_cast<int>(m_cp->summary.size());
}

int BreakdownModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant BreakdownModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const CpSummaryRow &r = m_cp->summary[static_cast<size_t>(index.row())];
    if (role == Qt::TextAlignmentRole)
        return index.column() != BoundByColumn ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter)) : QVariant();
    if (role == Qt::UserRole)
        return r.percent;
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
        return {};
    switch (index.column()) {
    case BoundByColumn: return boundByText(r.boundBy);
    case ShareColumn: return QStringLiteral("%1 %").arg(r.percent, 0, 'f', 1);
    case TimeColumn: return QString::fromStdString(formatDuration(r.durationUs * 1000));
    default: return {};
    }
}

QVariant BreakdownModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case BoundByColumn: return tr("Bound by");
    case ShareColumn: return tr("Share");
    case TimeColumn: return tr("Time");
    default: return {};
    }
}

} // namespace syncscope::ui
