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
struct GraphCaptureLink;
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

// The value a column sorts by (numbers as numbers; path order for "#").
constexpr int SortRole = Qt::UserRole + 7;

class CriticalOpsModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { IndexColumn, OpColumn, LaneColumn, TimeColumn, ShareColumn, BoundByColumn, ColumnCount };
    explicit CriticalOpsModel(QObject *parent = nullptr);

    void setPath(std::shared_ptr<const CriticalPathResult> cp, std::shared_ptr<const TimelineModel> model);
    // A replayed graph op's tooltip names the CPU op its launch was captured in.
    void setGraphCapture(std::shared_ptr<const GraphCaptureLink> capture) { m_capture = std::move(capture); }
    // Zero-length rows without an op ("(dependency) 0 ns") are hidden unless asked for.
    void setShowZeroRows(bool on);
    bool showZeroRows() const { return m_showZero; }
    // One row per op name: how many times on the path, the total and its share
    // (the Lane column becomes the count; a click selects the first occurrence).
    void setGrouped(bool on);
    bool grouped() const { return m_grouped; }
    const CriticalOpRow &row(int r) const { return m_rows[static_cast<size_t>(r)]; }
    // Grouped mode: how many path rows a group holds.
    int groupCount(int r) const { return m_counts.empty() ? 1 : m_counts[static_cast<size_t>(r)]; }
    double totalUs() const { return m_totalUs; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    void rebuild();
    QString opName(const CriticalOpRow &r) const;

    std::shared_ptr<const CriticalPathResult> m_cp;
    std::shared_ptr<const TimelineModel> m_model;
    std::shared_ptr<const GraphCaptureLink> m_capture;
    std::vector<CriticalOpRow> m_rows;
    std::vector<int> m_counts; // grouped mode
    double m_totalUs = 0;
    bool m_showZero = false;
    bool m_grouped = false;
};

class BreakdownModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { BoundByColumn, ShareColumn, TimeColumn, ColumnCount };
    explicit BreakdownModel(QObject *parent = nullptr);

    void setPath(std::shared_ptr<const CriticalPathResult> cp);
    // HTA's bucket name of a row ("" for dependency / sync edges).
    std::string boundBy(int row) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const CriticalPathResult> m_cp;
    std::vector<size_t> m_rows; // summary rows shown: a 0 ns dependency bucket is left out
};

} // namespace syncscope::ui
