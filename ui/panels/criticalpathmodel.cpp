// SPDX-License-Identifier: MIT
#include "criticalpathmodel.h"

#include "analysis/criticalpath.h"
#include "analysis/graphcapture.h"
#include "panels/treemodel.h"
#include "timeline/timeformat.h"
#include "timeline/timelinemodel.h"

#include <algorithm>
#include <map>

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
    m_cp = std::move(cp);
    m_model = std::move(model);
    rebuild();
}

void CriticalOpsModel::setShowZeroRows(bool on)
{
    if (m_showZero == on)
        return;
    m_showZero = on;
    rebuild();
}

void CriticalOpsModel::setGrouped(bool on)
{
    if (m_grouped == on)
        return;
    m_grouped = on;
    rebuild();
}

QString CriticalOpsModel::opName(const CriticalOpRow &r) const
{
    if (r.event >= 0 && m_model) {
        const std::string_view n = m_model->name(static_cast<uint32_t>(r.event));
        return QString::fromUtf8(n.data(), static_cast<qsizetype>(n.size()));
    }
    return QStringLiteral("(%1)").arg(edgeTypeText(r.edgeType));
}

void CriticalOpsModel::rebuild()
{
    beginResetModel();
    std::vector<CriticalOpRow> rows = m_cp ? criticalOpRows(*m_cp) : std::vector<CriticalOpRow>{};
    if (!m_showZero)
        rows.erase(std::remove_if(rows.begin(), rows.end(),
                                  [](const CriticalOpRow &r) { return r.event < 0 && r.durationUs == 0; }),
                   rows.end());
    m_counts.clear();
    if (m_grouped) {
        // By name, in order of first appearance; the bucket is the one with the most time.
        std::vector<CriticalOpRow> groups;
        std::vector<std::map<std::string, double>> buckets;
        std::map<QString, size_t> index;
        for (const CriticalOpRow &r : rows) {
            auto [it, fresh] = index.try_emplace(opName(r), groups.size());
            if (fresh) {
                groups.push_back(r);
                buckets.emplace_back();
                m_counts.push_back(0);
            } else {
                groups[it->second].durationUs += r.durationUs;
                groups[it->second].edges += r.edges;
            }
            ++m_counts[it->second];
            buckets[it->second][r.boundBy] += r.durationUs;
        }
        for (size_t g = 0; g < groups.size(); ++g)
            groups[g].boundBy = std::max_element(buckets[g].begin(), buckets[g].end(), [](const auto &a, const auto &b) {
                                    return a.second < b.second;
                                })->first;
        rows = std::move(groups);
    }
    m_rows = std::move(rows);
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
        return index.column() == IndexColumn || index.column() == TimeColumn || index.column() == ShareColumn ||
                       (m_grouped && index.column() == LaneColumn)
                   ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter))
                   : QVariant();
    if (role == Qt::UserRole) // sort/compare value for tests: share in percent
        return m_totalUs > 0 ? 100.0 * r.durationUs / m_totalUs : 0.0;
    if (role == SortRole) {
        switch (index.column()) {
        case IndexColumn: return index.row();
        case OpColumn: return opName(r);
        case LaneColumn: return m_grouped ? QVariant(groupCount(index.row())) : index.data(Qt::DisplayRole);
        case TimeColumn:
        case ShareColumn: return r.durationUs;
        default: return index.data(Qt::DisplayRole);
        }
    }
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
        return {};
    switch (index.column()) {
    case IndexColumn:
        return index.row() + 1;
    case OpColumn:
        if (role == Qt::ToolTipRole && !m_grouped && m_capture && r.event >= 0)
            if (const CapturedOrigin *o = m_capture->find(static_cast<uint32_t>(r.event)); o && !o->opName.empty())
                return tr("%1\nGraph replay: captured in %2%3")
                    .arg(opName(r), QString::fromStdString(o->opName),
                         o->inputDims.empty() ? QString() : tr(", inputs %1").arg(QString::fromStdString(o->inputDims)));
        return opName(r);
    case LaneColumn:
        if (m_grouped)
            return groupCount(index.row());
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
    case LaneColumn: return m_grouped ? tr("Count") : tr("Lane");
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
    m_rows.clear();
    if (m_cp && m_cp->success)
        for (size_t k = 0; k < m_cp->summary.size(); ++k)
            if (!m_cp->summary[k].boundBy.empty() || m_cp->summary[k].durationUs > 0)
                m_rows.push_back(k);
    endResetModel();
}

std::string BreakdownModel::boundBy(int row) const
{
    return row >= 0 && row < rowCount() ? m_cp->summary[m_rows[static_cast<size_t>(row)]].boundBy : std::string();
}

int BreakdownModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int BreakdownModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant BreakdownModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const CpSummaryRow &r = m_cp->summary[m_rows[static_cast<size_t>(index.row())]];
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
