// SPDX-License-Identifier: MIT
// One collective instance of a job, one row per participating rank: its arrival
// (kernel start on the job timeline's axis), its wait for the last arrival, the
// transfer (last arrival -> its kernel end), its kernel time, why it arrived when
// it did (lateness split, docs/job_analysis.md "Lateness"), the message size and
// nccl-tests' algbw / busbw over the transfer time (core/analysis/busbw.h).
// Also the helpers the Collectives table shares with it: the job's time origin,
// an instance's arrival in job time, and the name the exported .et gives it.
#pragma once

#include <QAbstractTableModel>
#include <QString>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace syncscope {
struct MatchedCollective;
struct RankCollective;
struct RankLateness;
} // namespace syncscope

namespace syncscope::ui {

struct JobData;

// quint32 Kineto event (in that rank's trace) of a row's collective kernel.
constexpr int RankEventRole = Qt::UserRole + 23;

// The job timeline's time origin (TimelineModel::originNs of buildJobTimelineModel
// with aligned clocks): the earliest aligned trace start of a loaded rank.
int64_t jobTimeOriginNs(const JobData &job);

// Participant k's arrival (kernel start) in ns from `originNs`, computed as the job
// timeline places the kernel (own-clock start + rounded offset), so both agree exactly.
double arrivalJobNs(const JobData &job, const MatchedCollective &c, size_t k, int64_t originNs);

// Per collective (JobAnalysis::collectives order): what the exported .et calls it
// (chakraKernelCommKind on its first loaded participant's kernel, as the exporter
// does): "ALL_TO_ALL", "SEND", ..., "COMP_NODE"; "" when no participant is loaded.
std::vector<std::string> collectiveChakraKinds(const JobData &job);

// "sendrecv (.et: ALL_TO_ALL)": the one name of a collective in every panel.
QString collectiveDisplayName(const MatchedCollective &c, const std::string &chakraKind);

// "1.00 MiB", "12.5 GB/s" ("-" for a negative rate): the job docks' size and bandwidth texts.
QString bytesText(int64_t bytes);
QString gbpsText(double gbps);

// Participant k's kernel in its rank's summary, null when not there.
const RankCollective *participantKernel(const JobData &job, const MatchedCollective &c, size_t k);

class CollectiveRanksModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column {
        RankColumn,
        ArrivalColumn,    // kernel start, job time (ms)
        WaitColumn,       // arrival -> last arrival
        TransferColumn,   // last arrival -> own kernel end
        KernelColumn,     // own kernel duration
        LateColumn,       // arrival - first arrival
        StartSkewColumn,  // ... from starting the interval later
        WorkExcessColumn, // ... from a longer interval (work)
        SizeColumn,       // nccl-tests' S in bytes
        AlgBwColumn,      // S / transfer (GB/s)
        BusBwColumn,      // algbw x factor (GB/s)
        ColumnCount
    };
    explicit CollectiveRanksModel(QObject *parent = nullptr);

    // Shows instance `index` of `job` (-1 / null: nothing), times from `originNs`.
    void setCollective(std::shared_ptr<const JobData> job, qint64 index, int64_t originNs,
                       const std::string &chakraKind);
    qint64 collective() const { return m_index; }
    // "allreduce #3 (.et: ALL_REDUCE) · process group 0 · 4 ranks · last: rank 2 · all_reduce, busbw factor 1.50".
    QString title() const { return m_title; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    // SortRole (numbers as numbers), RankRole, RankEventRole (absent when unknown).
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    struct Row {
        int64_t rank = -1;
        int64_t event = -1;             // Kineto event of its kernel, -1 unknown
        double arrivalNs = 0;           // job time
        double waitUs = 0, transferUs = 0, kernelUs = 0;
        bool last = false;
        const RankLateness *late = nullptr;
        std::optional<int64_t> bytes;
        double algBwGBps = -1, busBwGBps = -1; // -1: unknown
    };
    const std::vector<Row> &rows() const { return m_rows; }

private:
    std::shared_ptr<const JobData> m_job;
    qint64 m_index = -1;
    QString m_title;
    std::vector<Row> m_rows;
};

} // namespace syncscope::ui
