// SPDX-License-Identifier: MIT
// The Breakdown dock's numbers (docs/breakdowns.md, "In the inspector"): the
// stacked split of a window's GPU kernel span, and the read-only tables of one
// BreakdownSet (temporal, idle time by stream and cause, kernels by type, top
// kernels, launch statistics, queue length per stream).
#pragma once

#include "report/breakdownreport.h"

#include <QAbstractTableModel>
#include <QString>
#include <QStringList>
#include <QVariant>

#include <vector>

namespace syncscope::ui {

// One window's HTA kernel span (temporal.kernel_time_us) cut into disjoint parts that
// add up to it: compute alone, communication hidden under compute, exposed
// communication, the rest of HTA's non-compute time (memcpy / memset / other GPU
// rows) and idle. µs; valid = false when HTA has no temporal breakdown (no GPU row).
struct BreakdownSplit {
    enum Part { Compute, OverlappedComm, ExposedComm, MemoryOther, Idle, PartCount };
    bool valid = false;
    double spanUs = 0;
    double us[PartCount] = {};
    double pct(int part) const { return spanUs > 0 ? 100.0 * us[part] / spanUs : 0.0; }
};
BreakdownSplit breakdownSplit(const BreakdownSet &set);
QString breakdownPartName(int part);

// A small table of cells: the text shown, the value it sorts by, an optional tooltip.
struct BreakdownCell {
    QString text;
    QVariant sort;
    QString tooltip;
};

class BreakdownTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    BreakdownTableModel(QStringList headers, QObject *parent = nullptr);
    void setRows(std::vector<std::vector<BreakdownCell>> rows);
    const BreakdownCell &cell(int row, int column) const { return m_rows[size_t(row)][size_t(column)]; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    // SortRole (criticalpathmodel.h): numbers as numbers; numbers are right-aligned.
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QStringList m_headers;
    std::vector<std::vector<BreakdownCell>> m_rows;
};

// The six tables of one window, in the dock's tab order.
enum BreakdownTable { TemporalTable, IdleTable, KernelTypeTable, TopKernelsTable, LaunchTable, QueueTable, TableCount };
QString breakdownTableTitle(int table);
// A model with that table's columns (no rows).
BreakdownTableModel *makeBreakdownTable(int table, QObject *parent);
// Fills it from `set`.
void fillBreakdownTable(int table, BreakdownTableModel *model, const BreakdownSet &set);
// Top kernels: the name column (elided by ElidedNameDelegate).
constexpr int kTopKernelsNameColumn = 1;

} // namespace syncscope::ui
