// SPDX-License-Identifier: MIT
#include "copyrows.h"

#include <QAbstractItemView>
#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QItemSelectionModel>

#include <algorithm>

namespace syncscope::ui {

QString copiedRows(const QAbstractItemView *view)
{
    const QAbstractItemModel *m = view->model();
    if (!m || !view->selectionModel())
        return {};
    QModelIndexList rows = view->selectionModel()->selectedRows();
    if (rows.isEmpty() && view->currentIndex().isValid())
        rows << view->currentIndex().siblingAtColumn(0);
    std::sort(rows.begin(), rows.end(), [](const QModelIndex &a, const QModelIndex &b) { return a.row() < b.row(); });
    QStringList lines, header;
    for (int c = 0; c < m->columnCount(); ++c)
        header << m->headerData(c, Qt::Horizontal).toString();
    lines << header.join(QLatin1Char('\t'));
    for (const QModelIndex &r : rows) {
        QStringList cells;
        for (int c = 0; c < m->columnCount(r.parent()); ++c)
            cells << r.siblingAtColumn(c).data(Qt::DisplayRole).toString();
        lines << cells.join(QLatin1Char('\t'));
    }
    return lines.join(QLatin1Char('\n'));
}

void installCopyRows(QAbstractItemView *view)
{
    auto *copy = new QAction(QObject::tr("Copy"), view);
    copy->setShortcut(QKeySequence::Copy);
    copy->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    QObject::connect(copy, &QAction::triggered, view, [view] { QApplication::clipboard()->setText(copiedRows(view)); });
    view->addAction(copy);
}

} // namespace syncscope::ui
