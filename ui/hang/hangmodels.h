// SPDX-License-Identifier: MIT
// The hang view's tables (issue 29): the suspects of the analysis, root cause first, and
// one rank's flight recorder entries with the stuck op's entry marked.
#pragma once

#include "hang/hanganalysis.h"

#include <QAbstractTableModel>

#include <memory>
#include <vector>

namespace syncscope::ui {

// "12-15,40": ascending ranks as ranges, at most `limit` ranges then "... (N ranks)".
QString hangRankRanges(const std::vector<int64_t> &ranks, size_t limit = 12);

class HangSuspectsModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { Role, Pg, Desc, Op, Sizes, Dtype, Seq, Kind, Missing, Mismatched, Waiting, Explains, ColumnCount };
    explicit HangSuspectsModel(QObject *parent = nullptr);
    void setAnalysis(std::shared_ptr<const HangAnalysis> a);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

private:
    std::shared_ptr<const HangAnalysis> m_a;
};

class HangEntriesModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { Record, Pg, Desc, Seq, P2pSeq, Op, Sizes, Dtype, State, Created, Started, Completed, Duration, ColumnCount };
    explicit HangEntriesModel(QObject *parent = nullptr);
    // The dump's entries (null: none); `highlight` is the row drawn as the stuck op (-1 none).
    void setDump(const FrDump *dump, int highlight);
    const FrDump *dump() const { return m_dump; }
    int highlighted() const { return m_highlight; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

private:
    const FrDump *m_dump = nullptr;
    int m_highlight = -1;
};

// The entry of `dump` for the suspect's stuck op (same group and seq), else the rank's
// last entry in that group, else -1.
int hangStuckEntry(const FrDump &dump, const std::string &pgName, const HangSuspect *suspect);

} // namespace syncscope::ui
