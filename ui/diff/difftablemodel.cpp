// SPDX-License-Identifier: MIT
#include "difftablemodel.h"

#include <QBrush>
#include <QColor>

#include <cmath>

namespace syncscope::ui {

namespace {

QString q(const std::string &s)
{
    return QString::fromStdString(s);
}

} // namespace

std::vector<DiffTableRow> diffTableRows(const TraceDiff &d)
{
    std::vector<DiffTableRow> rows;
    auto changed = [](const DiffSide &a, const DiffSide &b, double av, double bv) {
        return a.count != b.count || av != bv;
    };
    for (const OpDiff &r : d.ops)
        if (changed(r.baseline, r.candidate, r.baseline.selfUs, r.candidate.selfUs) || r.added || r.removed)
            rows.push_back({QStringLiteral("op"), q(d.paths.leaf(r.path)), q(d.paths.path(r.path)), {}, r.path,
                            r.baseline.selfUs, r.candidate.selfUs, r.baseline.count, r.candidate.count});
    for (const auto *list : {&d.kernelsByOp, &d.memcpysByOp})
        for (const GpuDiff &r : *list)
            if (changed(r.baseline, r.candidate, r.baseline.totalUs, r.candidate.totalUs))
                rows.push_back({q(r.category), q(r.name), q(d.pathText(r.launchPath)), r.name, r.launchPath,
                                r.baseline.totalUs, r.candidate.totalUs, r.baseline.count, r.candidate.count});
    for (const SyncDiff &r : d.syncByWaiter)
        if (changed(r.baseline, r.candidate, r.baseline.totalUs, r.candidate.totalUs))
            rows.push_back({QStringLiteral("sync"), q(r.kind + " in " + r.call), q(d.pathText(r.waiter)), r.call,
                            r.waiter, r.baseline.totalUs, r.candidate.totalUs, r.baseline.count,
                            r.candidate.count});
    return rows;
}

DiffTableModel::DiffTableModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void DiffTableModel::setDiff(std::shared_ptr<const TraceDiff> diff)
{
    beginResetModel();
    m_diff = std::move(diff);
    m_rows = m_diff ? diffTableRows(*m_diff) : std::vector<DiffTableRow>{};
    endResetModel();
}

int DiffTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int DiffTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant DiffTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const DiffTableRow &r = m_rows[static_cast<size_t>(index.row())];
    const double pct = r.baselineUs != 0 ? 100.0 * r.deltaUs() / r.baselineUs : (r.candidateUs != 0 ? INFINITY : 0);
    if (role == Qt::UserRole) { // sort keys
        switch (index.column()) {
        case Baseline: return r.baselineUs;
        case Candidate: return r.candidateUs;
        case Delta: return r.deltaUs();
        case DeltaPercent: return std::isinf(pct) ? 1e300 : pct;
        case Counts: return r.candidateCount - r.baselineCount;
        default: return data(index, Qt::DisplayRole);
        }
    }
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case Category: return r.category;
        case Name: return r.name;
        case Where: return r.where;
        case Baseline: return QString::number(r.baselineUs, 'f', 1);
        case Candidate: return QString::number(r.candidateUs, 'f', 1);
        case Delta: return QString::number(r.deltaUs(), 'f', 1).prepend(r.deltaUs() > 0 ? QStringLiteral("+") : QString());
        case DeltaPercent:
            return std::isinf(pct) ? QStringLiteral("new") : QString::asprintf("%+.1f%%", pct);
        case Counts: return QStringLiteral("%1 \u2192 %2").arg(r.baselineCount).arg(r.candidateCount);
        default: return {};
        }
    }
    if (role == Qt::ToolTipRole) { // the full name (cells elide it) and both runs, on every column
        QString tip = r.category + QLatin1Char(' ') + r.name;
        if (!r.where.isEmpty())
            tip += QStringLiteral("\n") + r.where;
        tip += tr("\nbaseline %1 \u00b5s (%2\u00d7) \u2192 candidate %3 \u00b5s (%4\u00d7)\n\u0394 %5 \u00b5s%6")
                   .arg(QString::number(r.baselineUs, 'f', 1))
                   .arg(r.baselineCount)
                   .arg(QString::number(r.candidateUs, 'f', 1))
                   .arg(r.candidateCount)
                   .arg(QString::number(r.deltaUs(), 'f', 1).prepend(r.deltaUs() > 0 ? QStringLiteral("+") : QString()))
                   .arg(std::isinf(pct) ? tr(" (new)") : QString::asprintf(" (%+.1f %%)", pct));
        return tip;
    }
    if (role == Qt::ForegroundRole && (index.column() == Delta || index.column() == DeltaPercent) && r.deltaUs() != 0)
        return QBrush(r.deltaUs() > 0 ? QColor(0xc6, 0x28, 0x28) : QColor(0x2e, 0x7d, 0x32)); // slower / faster
    if (role == Qt::TextAlignmentRole && index.column() >= Baseline)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant DiffTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    static const char *const names[] = {"Category", "Name", "Where", "Baseline (\u00b5s)", "Candidate (\u00b5s)",
                                        "\u0394 (\u00b5s)", "\u0394 %", "Count"};
    return section >= 0 && section < ColumnCount ? tr(names[section]) : QVariant();
}

} // namespace syncscope::ui
