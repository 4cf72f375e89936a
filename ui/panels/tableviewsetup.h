// SPDX-License-Identifier: MIT
// How the panels' sortable tables look and behave: sorted through a proxy,
// whole rows selected one at a time, read-only, compact rows, no row numbers.
#pragma once

#include <QHeaderView>
#include <QSortFilterProxyModel>
#include <QTableView>

namespace syncscope::ui {

inline void setupSortedTable(QTableView *view, QSortFilterProxyModel *sorted, int sortColumn, Qt::SortOrder order)
{
    view->setModel(sorted);
    view->setSortingEnabled(true);
    view->sortByColumn(sortColumn, order);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setSelectionMode(QAbstractItemView::SingleSelection);
    view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    view->verticalHeader()->hide();
    view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 4);
    view->setAlternatingRowColors(true);
}

} // namespace syncscope::ui
