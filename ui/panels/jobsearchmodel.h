// SPDX-License-Identifier: MIT
// Search over the ops of every rank of a job (cross-rank search): the rules of
// the single-rank search (panels/searchmodel.h: substring, case-insensitive
// unless asked, or a regular expression on the op names; a number also finds
// the ops with that correlation, External id or Record function id), over each
// loaded rank's Kineto events, with a rank column. Matches are in aligned time
// order (each rank's clock offset from the cross-rank analysis applied), so the
// same op on several ranks appears side by side.
#pragma once

#include <QAbstractTableModel>

#include <memory>
#include <vector>

namespace syncscope::ui {

struct JobData;

class JobSearchModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { RankColumn, NameColumn, KindColumn, StartColumn, DurationColumn, ColumnCount };
    struct Match {
        int64_t rank = -1;
        uint32_t event = 0;   // Kineto event index in that rank's trace
        double startUs = 0;   // aligned, from the job's earliest event
        double durUs = 0;
    };
    explicit JobSearchModel(QObject *parent = nullptr);

    void setJob(std::shared_ptr<const JobData> job);
    void clear() { setJob(nullptr); }
    // Returns false (and leaves no matches) for an invalid regular expression; see error().
    bool setQuery(const QString &text, bool regex, bool caseSensitive = false);
    QString error() const { return m_error; }
    int matchCount() const { return static_cast<int>(m_matches.size()); }
    const Match &matchAt(int row) const { return m_matches[static_cast<size_t>(row)]; }
    // How many ranks have at least one match.
    int rankCount() const { return m_ranksHit; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    // RankRole (panels/ranktablemodel.h) and TargetEventRole (panels/treemodel.h) on
    // every column; SortRole: numbers as numbers.
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const JobData> m_job;
    std::vector<Match> m_matches;
    int m_ranksHit = 0;
    QString m_error;
};

} // namespace syncscope::ui
