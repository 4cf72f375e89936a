// SPDX-License-Identifier: MIT
// Every sync wait of the trace (core's Analysis::syncEdges) as a table: the kind,
// the op that waited, the GPU op it waited for, that op's stream and how long it
// waited; per-kind totals for the panel's header.
#pragma once

#include <QAbstractTableModel>

#include <memory>

namespace syncscope {
struct Analysis;
}

namespace syncscope::ui {

struct TimelineModel;

class SyncWaitsModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { KindColumn, WaitingColumn, WaitedForColumn, StreamColumn, WaitColumn, ColumnCount };
    explicit SyncWaitsModel(QObject *parent = nullptr);

    void setSources(std::shared_ptr<const Analysis> analysis, std::shared_ptr<const TimelineModel> model);
    // "Stream Sync 3 waits, 1.2 ms · Context Sync ...": the totals per kind ("" when none).
    QString totalsText() const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    // TargetEventRole: the waiting op, or the GPU op in the "waited for" column; SortRole: numbers as numbers.
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QString eventName(uint32_t event) const;

    std::shared_ptr<const Analysis> m_analysis;
    std::shared_ptr<const TimelineModel> m_model;
};

} // namespace syncscope::ui
