// SPDX-License-Identifier: MIT
#include "stragglermodel.h"

#include "panels/criticalpathmodel.h" // SortRole

#include <QLocale>

namespace syncscope::ui {

namespace {

QString slowdownText(double s)
{
    return QString::number(s, 'f', 3);
}

QString ranksText(const std::map<int64_t, std::vector<int64_t>> &of, int64_t key)
{
    const auto it = of.find(key);
    if (it == of.end())
        return QStringLiteral("-");
    QStringList parts;
    for (int64_t r : it->second)
        parts << QString::number(r);
    return parts.join(QStringLiteral(", "));
}

qint64 firstRank(const std::map<int64_t, std::vector<int64_t>> &of, int64_t key)
{
    const auto it = of.find(key);
    return it == of.end() || it->second.empty() ? -1 : it->second.front();
}

} // namespace

StragglerTableModel::StragglerTableModel(Table table, QObject *parent)
    : QAbstractTableModel(parent)
    , m_table(table)
{
}

void StragglerTableModel::setResult(std::shared_ptr<const StragglerPanelResult> result)
{
    beginResetModel();
    m_result = std::move(result);
    endResetModel();
}

int StragglerTableModel::rowCount(const QModelIndex &parent) const
{
    if (parent.isValid() || !m_result || !m_result->whatIf.ok)
        return 0;
    const StragglerWhatIf &w = m_result->whatIf;
    switch (m_table) {
    case Steps:
        return int(w.steps.size());
    case OpTypes:
        return int(w.byOpType.size());
    case DpRanks:
        return int(w.byDpRank.size());
    case Stages:
        return int(w.byStage.size());
    }
    return 0;
}

int StragglerTableModel::columnCount(const QModelIndex &parent) const
{
    if (parent.isValid())
        return 0;
    switch (m_table) {
    case Steps:
        return 5;
    case OpTypes:
        return 5;
    case DpRanks:
    case Stages:
        return 3;
    }
    return 0;
}

int StragglerTableModel::slowdownColumn() const
{
    switch (m_table) {
    case Steps:
        return 4;
    case OpTypes:
        return 4;
    case DpRanks:
    case Stages:
        return 1;
    }
    return 1;
}

QVariant StragglerTableModel::data(const QModelIndex &index, int role) const
{
    if (!m_result || !index.isValid() || index.row() >= rowCount())
        return {};
    const StragglerWhatIf &w = m_result->whatIf;
    const size_t row = size_t(index.row());
    const int col = index.column();
    const bool display = role == Qt::DisplayRole;
    const bool sort = role == SortRole;
    if (role == Qt::TextAlignmentRole) {
        const bool text = m_table == OpTypes && (col == 0 || col == 1);
        const bool list = (m_table == DpRanks || m_table == Stages) && col == 2;
        return QVariant::fromValue(text || list ? Qt::AlignLeft | Qt::AlignVCenter : Qt::AlignRight | Qt::AlignVCenter);
    }
    switch (m_table) {
    case Steps: {
        const StragglerStep &s = w.steps[row];
        if (display || sort) {
            switch (col) {
            case 0:
                return display ? (s.number < 0 ? QStringLiteral("whole trace") : QString::number(s.number))
                               : QVariant(qint64(s.number));
            case 1:
                return display ? QVariant(QString::number(s.measuredUs / 1e3, 'f', 3)) : QVariant(s.measuredUs);
            case 2:
                return display ? QVariant(QString::number(s.noDelayUs / 1e3, 'f', 3)) : QVariant(s.noDelayUs);
            case 3:
                return display ? QVariant(QString::number(s.idealUs / 1e3, 'f', 3)) : QVariant(s.idealUs);
            case 4:
                return display ? QVariant(slowdownText(s.slowdown)) : QVariant(s.slowdown);
            }
        }
        break;
    }
    case OpTypes: {
        const StragglerOpType &t = w.byOpType[row];
        if (display || sort) {
            switch (col) {
            case 0:
                return QString::fromStdString(t.type);
            case 1:
                return display ? (t.comm ? tr("comm") : tr("compute")) : QVariant(int(t.comm));
            case 2:
                return display ? QVariant(QLocale().toString(qint64(t.count))) : QVariant(qint64(t.count));
            case 3:
                return display ? QVariant(QString::number(t.idealUs, 'f', 1)) : QVariant(t.idealUs);
            case 4:
                return display ? QVariant(slowdownText(t.slowdown)) : QVariant(t.slowdown);
            }
        }
        if (role == Qt::ToolTipRole && col == 0)
            return QString::fromStdString(t.type);
        break;
    }
    case DpRanks:
    case Stages: {
        const auto &[key, s] = m_table == DpRanks ? w.byDpRank[row] : w.byStage[row];
        const auto &of = m_table == DpRanks ? m_result->ranksOfDp : m_result->ranksOfStage;
        if (role == StragglerRankRole)
            return firstRank(of, key);
        if (display || sort) {
            switch (col) {
            case 0:
                return display ? QVariant(QString::number(key)) : QVariant(qint64(key));
            case 1:
                return display ? QVariant(slowdownText(s)) : QVariant(s);
            case 2:
                return ranksText(of, key);
            }
        }
        if (role == Qt::ToolTipRole)
            return tr("Ranks %1. Click to show the first one's lanes.").arg(ranksText(of, key));
        break;
    }
    }
    return {};
}

QVariant StragglerTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    static const char *const steps[] = {"Step", "Measured ms", "No-delay ms", "Ideal ms", "S"};
    static const char *const types[] = {"Op type", "Kind", "Count", "Ideal \u00b5s", "S_t"};
    static const char *const dp[] = {"DP rank", "S_w", "Ranks"};
    static const char *const stages[] = {"Stage", "S", "Ranks"};
    if (role == Qt::DisplayRole) {
        if (section < 0 || section >= columnCount())
            return {};
        switch (m_table) {
        case Steps:
            return tr(steps[section]);
        case OpTypes:
            return tr(types[section]);
        case DpRanks:
            return tr(dp[section]);
        case Stages:
            return tr(stages[section]);
        }
    }
    if (role == Qt::ToolTipRole && section == slowdownColumn()) {
        switch (m_table) {
        case Steps:
            return tr("Step without launch delays / ideal step (every op at its ideal duration), as the study");
        case OpTypes:
            return tr("The ideal with this op type's measured durations / the ideal");
        case DpRanks:
            return tr("The ideal with this data-parallel rank's measured durations / the ideal");
        case Stages:
            return tr("The ideal with this pipeline stage's measured durations / the ideal");
        }
    }
    return {};
}

} // namespace syncscope::ui
