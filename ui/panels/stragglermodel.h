// SPDX-License-Identifier: MIT
// The tables of the Stragglers dock (the job's straggler what-if, core/job/
// stragglerwhatif.h): per step (measured, ideal, S), per op type (S_t), per
// data-parallel rank (S_w) and per pipeline stage (S), one model for the four,
// numbers sorted as numbers (SortRole).
#pragma once

#include "job/stragglerwhatif.h"

#include <QAbstractTableModel>

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

namespace syncscope::ui {

// A finished computation of the Stragglers dock: the what-if and which ranks
// (rank numbers) each dp rank and each stage of its layout holds.
struct StragglerPanelResult {
    StragglerWhatIf whatIf;
    std::map<int64_t, std::vector<int64_t>> ranksOfDp, ranksOfStage;
    std::string parallelism;   // the --parallelism text it ran with ("" : from the traces)
    int gpuTimelinesBuilt = 0; // ranks whose GPU timeline the panel had to build (not from the loader)
    double seconds = 0;        // wall time of the whole computation
};

// qint64: the lowest rank of a dp-rank or stage row (-1 none).
constexpr int StragglerRankRole = Qt::UserRole + 41;

class StragglerTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Table { Steps, OpTypes, DpRanks, Stages };
    // Steps: step, measured ms, ideal ms, S. OpTypes: type, comm, count, ideal µs, S_t.
    // DpRanks: dp rank, S_w, ranks. Stages: stage, S, ranks.
    explicit StragglerTableModel(Table table, QObject *parent = nullptr);

    Table table() const { return m_table; }
    void setResult(std::shared_ptr<const StragglerPanelResult> result); // null: empty
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // The column holding the slowdown of this table (S, S_t or S_w).
    int slowdownColumn() const;

private:
    Table m_table;
    std::shared_ptr<const StragglerPanelResult> m_result;
};

} // namespace syncscope::ui
