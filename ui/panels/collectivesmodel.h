// SPDX-License-Identifier: MIT
// The collectives of a job matched across its ranks (JobAnalysis::collectives),
// one row each: name, what the exported .et calls it, process group, participants,
// when the first rank arrived (job time: aligned clock, from the job timeline's
// origin, so the table and the timeline's axis agree), the spread of arrivals, the
// last rank, the longest wait, the waits that rank caused, the last arriver's
// lateness split into start skew and work excess (docs/job_analysis.md,
// "Lateness") with the window-edge marker, how the instance was matched,
// whether every expected rank took part, and its message size, transfer time
// (last arrival -> end), busbw and whether that is far below the job's median
// for the same type and size (core/job/collectivebw.h, as the job report).
#pragma once

#include "job/collectivebw.h"

#include <QAbstractTableModel>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

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
        ChakraColumn,     // what the exported .et calls it: ALL_TO_ALL, SEND, ... (collectiveChakraKinds)
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
        SizeColumn,       // nccl-tests' S
        TransferColumn,   // last arrival -> end, mean over the ranks
        BusBwColumn,      // over the transfer
        SlowColumn,       // "slow": busbw < kSlowBusBwRatio x the job's median (same type and size)
        ColumnCount
    };
    explicit CollectivesModel(QObject *parent = nullptr);

    // Also sets the time origin to jobTimeOriginNs(job), the job timeline's.
    void setJob(std::shared_ptr<const JobData> job);
    void clear() { setJob(nullptr); }
    const JobData *job() const { return m_job.get(); }
    std::shared_ptr<const JobData> sharedJob() const { return m_job; }
    // The 0 of the Start column: the job timeline's TimelineModel::originNs (absolute
    // ns, aligned clock), so the table reads as the axis does.
    void setTimeOrigin(qint64 originNs);
    qint64 timeOriginNs() const { return m_originNs; }
    // "ALL_TO_ALL" for collective `index` ("" unknown); see collectiveChakraKinds.
    std::string chakraKind(quint32 index) const { return index < m_kinds.size() ? m_kinds[index] : std::string(); }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    // SortRole (panels/criticalpathmodel.h): numbers as numbers.
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    void updateStarts();
    std::shared_ptr<const JobData> m_job;
    qint64 m_originNs = 0;
    std::vector<std::string> m_kinds; // per collective, as the .et names it
    std::vector<double> m_startNs;    // per collective: first arrival from m_originNs
    std::vector<CollectiveBandwidth> m_bandwidth; // per collective (jobCollectiveBandwidths)
};

} // namespace syncscope::ui
