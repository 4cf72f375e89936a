// SPDX-License-Identifier: MIT
// The diagnostics of the last load (the same entries and texts as --batch
// prints), one row each: severity, message, code, file, count.
#pragma once

#include "model/diagnostics.h"

#include <QAbstractTableModel>

#include <vector>

namespace syncscope::ui {

class DiagnosticsModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { SeverityColumn, MessageColumn, CodeColumn, FileColumn, CountColumn, ColumnCount };
    explicit DiagnosticsModel(QObject *parent = nullptr);

    void setDiagnostics(const std::vector<Diagnostic> &items);
    const Diagnostic &item(int row) const { return m_items[static_cast<size_t>(row)]; }
    int count(Severity s) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<Diagnostic> m_items; // errors first, then warnings, then infos (stable)
};

} // namespace syncscope::ui
