// SPDX-License-Identifier: MIT
// The area selection's aggregate table: per op / kernel name, count, total,
// average, maximum and share of the selected ops' time.
#pragma once

#include "timeline/aggregate.h"

#include <QAbstractTableModel>

namespace syncscope::ui {

class AggregateModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { NameColumn, CountColumn, TotalColumn, AverageColumn, MaxColumn, ShareColumn, ColumnCount };
    explicit AggregateModel(QObject *parent = nullptr);

    void setRows(std::vector<AggregateRow> rows);
    const AggregateRow &row(int r) const { return m_rows[static_cast<size_t>(r)]; }
    double totalNs() const { return m_totalNs; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    // TargetEventRole: the longest op of the row; SortRole: numbers as numbers.
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<AggregateRow> m_rows;
    double m_totalNs = 0;
};

} // namespace syncscope::ui
