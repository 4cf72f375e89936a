// SPDX-License-Identifier: MIT
// The ranks of an opened job as a table, one row per discovered rank: its step
// time, single-rank critical path and dominant bound-by bucket, the collective
// waits it suffered and caused (and of those, the part its extra work and the
// part its start skew caused), how often it arrived last, its link coverage,
// its GPU's comm/comp overlap and exposed communication (HTA / TraceLens, the job
// report's ranks[i].breakdown) and the exit code of a rank that failed. The same figures as the batch job
// summary (core/job/jobdocument.cpp formatJobSummary), so GUI and batch agree.
#pragma once

#include <QAbstractTableModel>

#include <memory>
#include <string>
#include <vector>

namespace syncscope {
struct RankCpGraph;
}

namespace syncscope::ui {

struct JobData;

// "cpu_bound 63%": the largest bucket of a rank's critical path, as the batch
// job summary prints it; "-" without a valid path.
std::string dominantBoundBy(const RankCpGraph &cp);

// qint64 rank number of a row (any column).
constexpr int RankRole = Qt::UserRole + 20;

class RankTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column {
        RankColumn,
        StatusColumn,
        StepColumn,
        CriticalPathColumn,
        BoundByColumn,
        WaitsColumn,
        CausedColumn,
        WorkDelayCostColumn,  // the waits caused by its extra work
        StartSkewCostColumn,  // the waits caused by its starting later
        LastColumn,
        LinkColumn,
        OverlapColumn,      // HTA comm_comp_overlap_pct (whole trace)
        ExposedCommColumn,  // TraceLens exposed communication (whole trace)
        ColumnCount
    };
    // One row's figures; -1 where unknown (shown as "-", sorted below every value).
    struct Row {
        int64_t rank = -1;
        int exitCode = 0;
        QString status;          // "ok" or "exit N"; the first error as tooltip
        QString problem;
        double stepUs = -1;
        double criticalPathUs = -1;
        std::string boundBy = "-"; // dominantBoundBy()
        double boundPct = -1;
        double waitUs = -1;      // collective waits suffered (µs)
        double causedUs = -1;    // waits caused
        double workDelayCostUs = -1;  // ... by its extra work (RankJobStats::workDelayCostUs)
        double startSkewCostUs = -1;  // ... by starting the interval later
        int64_t lastArrivals = -1;
        int64_t collectives = -1;
        double linkPct = -1;     // 0..100
        double overlapPct = -1;  // comm/comp overlap 0..100; -1 unknown or undefined (no communication)
        double exposedCommUs = -1;
        double commUs = -1;      // all communication (the union of its kernels)
        double gpuSpanUs = -1;   // HTA's kernel_time_us
    };

    explicit RankTableModel(QObject *parent = nullptr);

    void setJob(std::shared_ptr<const JobData> job);
    void clear() { setJob(nullptr); }
    const JobData *job() const { return m_job.get(); }
    const Row &row(int r) const { return m_rows[static_cast<size_t>(r)]; }
    int rowOfRank(int64_t rank) const; // -1 when absent

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    // SortRole (panels/criticalpathmodel.h): numbers as numbers; RankRole: the rank.
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const JobData> m_job;
    std::vector<Row> m_rows;
    int64_t m_topStraggler = -1;
};

} // namespace syncscope::ui
