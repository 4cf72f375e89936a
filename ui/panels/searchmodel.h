// SPDX-License-Identifier: MIT
// Search over the ops on the timeline: a substring (case-insensitive unless asked)
// or a regular expression matched against the op names; a number also finds
// the ops with that correlation, External id or Record function id. Matches are
// in time order; each name is matched once, not once per event.
#pragma once

#include <QAbstractTableModel>

#include <memory>
#include <vector>

namespace syncscope::ui {

struct TimelineModel;

class SearchModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { NameColumn, LaneColumn, StartColumn, DurationColumn, ColumnCount };
    explicit SearchModel(QObject *parent = nullptr);

    void setTimeline(std::shared_ptr<const TimelineModel> model);
    // Returns false (and leaves no matches) for an invalid regular expression; see error().
    bool setQuery(const QString &text, bool regex, bool caseSensitive = false);
    QString error() const { return m_error; }
    int matchCount() const { return static_cast<int>(m_matches.size()); }
    uint32_t eventAt(int row) const { return m_matches[static_cast<size_t>(row)]; }
    // The match at or after time `ns` (wrapping), for "next from here".
    int rowAtOrAfter(double ns) const;
    int rowOf(uint32_t event) const; // -1 when not a match

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const TimelineModel> m_model;
    std::vector<uint32_t> m_matches; // event ids, by start time
    QString m_error;
};

} // namespace syncscope::ui
