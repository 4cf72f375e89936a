// SPDX-License-Identifier: MIT
// The compare window's table: every changed key of a run diff (ops by call path
// with their self time, kernels and copies by launching op, sync waits by waiting
// op) with both sides and the delta. Qt::UserRole gives the numbers for sorting,
// Qt::ToolTipRole the full name and both runs on every column.
#pragma once

#include "diff/tracediff.h"

#include <QAbstractTableModel>

#include <memory>

namespace syncscope::ui {

struct DiffTableRow {
    QString category;     // "op", "kernel", "memcpy", "memset", "sync"
    QString name;
    QString where;        // op path / launching op / waiting op
    std::string rawName;  // as in the trace (kernels, copies), for finding the events
    uint32_t path = kNoPath;
    double baselineUs = 0, candidateUs = 0;
    qint64 baselineCount = 0, candidateCount = 0;
    double deltaUs() const { return candidateUs - baselineUs; }
};

class DiffTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { Category, Name, Where, Baseline, Candidate, Delta, DeltaPercent, Counts, ColumnCount };

    explicit DiffTableModel(QObject *parent = nullptr);
    void setDiff(std::shared_ptr<const TraceDiff> diff);
    const DiffTableRow &row(int r) const { return m_rows[static_cast<size_t>(r)]; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const TraceDiff> m_diff;
    std::vector<DiffTableRow> m_rows;
};

// Builds the rows (also for tests): keys whose time or count differs, ops ranked by self time.
std::vector<DiffTableRow> diffTableRows(const TraceDiff &diff);

} // namespace syncscope::ui
