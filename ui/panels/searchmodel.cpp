// SPDX-License-Identifier: MIT
#include "searchmodel.h"

#include "panels/eventquery.h"
#include "panels/treemodel.h"
#include "model/kinetotrace.h"
#include "timeline/timeformat.h"
#include "timeline/timelinemodel.h"

#include <algorithm>

namespace syncscope::ui {

SearchModel::SearchModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void SearchModel::setTimeline(std::shared_ptr<const TimelineModel> model)
{
    beginResetModel();
    m_model = std::move(model);
    m_matches.clear();
    m_error.clear();
    endResetModel();
}

bool SearchModel::setQuery(const QString &text, bool regex, bool caseSensitive)
{
    beginResetModel();
    m_matches.clear();
    m_error.clear();
    bool ok = true;
    const KinetoTrace *trace = m_model ? m_model->trace.get() : nullptr;
    if (trace && !text.isEmpty()) {
        const EventQuery query(text, regex, caseSensitive);
        m_error = query.error();
        ok = query.valid();
        if (ok) { // in start order, as the timeline shows them
            query.scan(
                *trace, [this](uint32_t i) { return m_model->layout.pos(i).row >= 0; },
                [this](uint32_t i) { m_matches.push_back(i); });
            std::stable_sort(m_matches.begin(), m_matches.end(), [this](uint32_t a, uint32_t b) {
                return m_model->startNs(a) < m_model->startNs(b);
            });
        }
    }
    endResetModel();
    return ok;
}

int SearchModel::rowAtOrAfter(double ns) const
{
    if (m_matches.empty())
        return -1;
    auto it = std::lower_bound(m_matches.begin(), m_matches.end(), ns,
                               [this](uint32_t e, double t) { return m_model->startNs(e) < t; });
    return it == m_matches.end() ? 0 : static_cast<int>(it - m_matches.begin());
}

int SearchModel::rowOf(uint32_t event) const
{
    if (!m_model)
        return -1;
    const double t = m_model->startNs(event);
    auto it = std::lower_bound(m_matches.begin(), m_matches.end(), t,
                               [this](uint32_t e, double x) { return m_model->startNs(e) < x; });
    for (; it != m_matches.end() && m_model->startNs(*it) == t; ++it)
        if (*it == event)
            return static_cast<int>(it - m_matches.begin());
    return -1;
}

int SearchModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : matchCount();
}

int SearchModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant SearchModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= matchCount() || !m_model)
        return {};
    const uint32_t ev = eventAt(index.row());
    if (role == TargetEventRole)
        return QVariant(qint64(ev));
    if (role == Qt::TextAlignmentRole)
        return index.column() >= StartColumn ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter)) : QVariant();
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
        return {};
    switch (index.column()) {
    case NameColumn: {
        const std::string_view n = m_model->name(ev);
        return QString::fromUtf8(n.data(), static_cast<qsizetype>(n.size()));
    }
    case LaneColumn:
        return QString::fromStdString(m_model->laneName(ev));
    case StartColumn:
        return QString::fromStdString(formatDuration(m_model->startNs(ev)));
    case DurationColumn:
        return QString::fromStdString(formatDuration(m_model->endNs(ev) - m_model->startNs(ev)));
    default:
        return {};
    }
}

QVariant SearchModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn: return tr("Op");
    case LaneColumn: return tr("Lane");
    case StartColumn: return tr("Start");
    case DurationColumn: return tr("Duration");
    default: return {};
    }
}

} // namespace syncscope::ui
