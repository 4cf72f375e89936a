// SPDX-License-Identifier: MIT
// The collectives of a job matched across its ranks (JobAnalysis::collectives),
// one row each: name, process group, participants, when the first rank arrived
// (aligned clock, from the job's first arrival), the spread of arrivals, the
// last rank, the longest wait, the waits that rank caused, the last arriver's
// lateness split into start skew and work excess (docs/job_analysis.md,
// "Lateness") with the window-edge marker, how the instance was matched and
// whether every expected rank took part.
#pragma once

#include <QAbstractTableModel>

#include <cstdint>
#include <memory>

namespace syncscope {
struct MatchedCollective;
struct RankLateness;
struct RootCauseOp;
} // namespace syncscope

namespace syncscope::ui {

struct JobData;

// quint32 index into JobAnalysis::collectives of a row (any column).
constexpr int CollectiveIndexRole = Qt::UserRole + 21;
// "name process-group": what the panel's filter box matches.
constexpr int CollectiveFilterRole = Qt::UserRole + 22;

// The last arriver's lateness split of an instance; null without a last arriver.
const RankLateness *lastArrivalLateness(const MatchedCollective &c);

// The Kineto event (index into that rank's trace) of a root-cause op: same name, its
// aligned start less the rank's clock offset within 1 µs of the event's start (the
// nearest); -1 when the rank has no loaded trace or no such event.
int64_t rootCauseEvent(const JobData &job, const RootCauseOp &op);

class CollectivesModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column {
        IndexColumn,
        NameColumn,
        GroupColumn,
        ParticipantsColumn,
        StartColumn,
        SpreadColumn,
        LastRankColumn,
        MaxWaitColumn,
        CausedColumn,
        LateColumn,       // the last arriver's lateness (arrival - first arrival)
        StartSkewColumn,  // ... explained by starting the interval later
        WorkExcessColumn, // ... explained by a longer interval (its work)
        WindowEdgeColumn, // "edge": the last arriver started the recorded step later
        MatchedByColumn,
        CompleteColumn,
        ColumnCount
    };
    explicit CollectivesModel(QObject *parent = nullptr);

    void setJob(std::shared_ptr<const JobData> job);
    void clear() { setJob(nullptr); }
    const JobData *job() const { return m_job.get(); }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    // SortRole (panels/criticalpathmodel.h): numbers as numbers.
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const JobData> m_job;
    double m_originUs = 0; // the job's first arrival
};

} // namespace syncscope::ui
