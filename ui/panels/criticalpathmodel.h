// SPDX-License-Identifier: MIT
// The critical path as tables: the ops on the path in path order with their
// time and share of the path (consecutive critical edges attributed to the same
// op and bucket are one row), and HTA's bound-by breakdown.
#pragma once

#include <QAbstractTableModel>

#include <memory>
#include <string>
#include <vector>

namespace syncscope {
struct CriticalPathResult;
}

namespace syncscope::ui {

struct TimelineModel;

struct CriticalOpRow {
    int64_t event = -1;     // -1: edges without an attributed op
    double durationUs = 0;  // sum of the critical edge weights in this row
    std::string boundBy;    // HTA's bucket ("cpu_bound", ...), "" for dependency/sync edges
    uint8_t edgeType = 0;   // CpEdgeType of the row's first edge
    int edges = 0;
};

// Visible for testing.
std::vector<CriticalOpRow> criticalOpRows(const CriticalPathResult &cp);

class CriticalOpsModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { IndexColumn, OpColumn, LaneColumn, TimeColumn, ShareColumn, BoundByColumn, ColumnCount };
    explicit CriticalOpsModel(QObject *parent = nullptr);

    void setPath(std::shared_ptr<const CriticalPathResult> cp, std::shared_ptr<const TimelineModel> model);
    const CriticalOpRow &row(int r) const { return m_rows[static_cast<size_t>(r)]; }
    double totalUs() const { return m_totalUs; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const CriticalPathResult> m_cp;
    std::shared_ptr<const TimelineModel> m_model;
    std::vector<CriticalOpRow> m_rows;
    double m_totalUs = 0;
};

class BreakdownModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { BoundByColumn, ShareColumn, TimeColumn, ColumnCount };
    explicit BreakdownModel(QObject *parent = nullptr);

    void setPath(std::shared_ptr<const CriticalPathResult> cp);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const CriticalPathResult> m_cp;
};

} // namespace syncscope::ui
