// SPDX-License-Identifier: MIT
// Every sync wait of the trace (core's Analysis::syncEdges) as a table: the kind,
// where the edge comes from (a cuda_sync row, or inferred from the runtime calls),
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
    enum Column { KindColumn, SourceColumn, WaitingColumn, WaitedForColumn, StreamColumn, WaitColumn, ColumnCount };
    explicit SyncWaitsModel(QObject *parent = nullptr);

    void setSources(std::shared_ptr<const Analysis> analysis, std::shared_ptr<const TimelineModel> model);
    // "12 sync edges (12 inferred), 1.2 ms in all — Stream Sync: 3 waits (3 inferred), 1.2 ms · ...":
    // the totals, and per kind ("" without an analysis).
    QString totalsText() const;
    // The Source column's text: "cuda_sync" (from a cuda_sync row) or "inferred".
    static QString sourceText(bool inferred);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    // TargetEventRole: the waiting op, the GPU op in the "waited for" and stream columns, the
    // cuda_sync row or the runtime call that shows the wait in the source column; SortRole: numbers as numbers.
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QString eventName(uint32_t event) const;

    std::shared_ptr<const Analysis> m_analysis;
    std::shared_ptr<const TimelineModel> m_model;
};

} // namespace syncscope::ui
