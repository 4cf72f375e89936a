// SPDX-License-Identifier: MIT
#include "diagnosticsmodel.h"

#include <QApplication>
#include <QFileInfo>
#include <QStyle>

#include <algorithm>

namespace syncscope::ui {

DiagnosticsModel::DiagnosticsModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void DiagnosticsModel::setDiagnostics(const std::vector<Diagnostic> &items)
{
    beginResetModel();
    m_items = items;
    std::stable_sort(m_items.begin(), m_items.end(), [](const Diagnostic &a, const Diagnostic &b) {
        return static_cast<int>(a.severity) > static_cast<int>(b.severity);
    });
    endResetModel();
}

int DiagnosticsModel::count(Severity s) const
{
    return static_cast<int>(std::count_if(m_items.begin(), m_items.end(),
                                          [s](const Diagnostic &d) { return d.severity == s; }));
}

int DiagnosticsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_items.size());
}

int DiagnosticsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant DiagnosticsModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const Diagnostic &d = item(index.row());
    if (role == Qt::DecorationRole && index.column() == SeverityColumn && qobject_cast<QApplication *>(qApp)) {
        const QStyle::StandardPixmap icon = d.severity == Severity::Error     ? QStyle::SP_MessageBoxCritical
                                            : d.severity == Severity::Warning ? QStyle::SP_MessageBoxWarning
                                                                              : QStyle::SP_MessageBoxInformation;
        return QApplication::style()->standardIcon(icon);
    }
    if (role == Qt::ToolTipRole && index.column() == MessageColumn)
        return QString::fromStdString(d.message);
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case SeverityColumn: return QString::fromLatin1(severityName(d.severity));
    case MessageColumn: return QString::fromStdString(d.message);
    case CodeColumn: return QString::fromStdString(d.code);
    case FileColumn: return d.file.empty() ? QString() : QFileInfo(QString::fromStdString(d.file)).fileName();
    case CountColumn: return d.count > 1 ? QVariant(qlonglong(d.count)) : QVariant();
    default: return {};
    }
}

QVariant DiagnosticsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case SeverityColumn: return tr("Severity");
    case MessageColumn: return tr("Message");
    case CodeColumn: return tr("Code");
    case FileColumn: return tr("File");
    case CountColumn: return tr("Count");
    default: return {};
    }
}

} // namespace syncscope::ui
