// SPDX-License-Identifier: MIT
// How the panels' sortable tables look and behave: sorted through a proxy,
// whole rows selected one at a time, read-only, compact rows, no row numbers,
// text too long for its cell elided in the middle (names keep their distinguishing
// tail; name columns get the kernel-aware ElidedNameDelegate with setNameColumn).
#pragma once

#include "panels/copyrows.h"
#include "panels/elidedname.h"

#include <QHeaderView>
#include <QSortFilterProxyModel>
#include <QTableView>

namespace syncscope::ui {

inline void setupSortedTable(QTableView *view, QSortFilterProxyModel *sorted, int sortColumn, Qt::SortOrder order)
{
    view->setModel(sorted);
    installCopyRows(view);
    view->setSortingEnabled(true);
    view->sortByColumn(sortColumn, order);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setSelectionMode(QAbstractItemView::SingleSelection);
    view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    view->verticalHeader()->hide();
    view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 4);
    view->setAlternatingRowColors(true);
    view->setWordWrap(false); // one line per row: elided, never wrapped
    view->setTextElideMode(Qt::ElideMiddle);
}

// A column of op / kernel names: painted by ElidedNameDelegate and, with `stretch`,
// taking the width the other columns leave (the full name is in the cell's tooltip).
inline ElidedNameDelegate *setNameColumn(QTableView *view, int column, bool stretch = true)
{
    auto *delegate = new ElidedNameDelegate(view);
    view->setItemDelegateForColumn(column, delegate);
    view->setWordWrap(false);
    view->setTextElideMode(Qt::ElideMiddle);
    if (stretch)
        view->horizontalHeader()->setSectionResizeMode(column, QHeaderView::Stretch);
    return delegate;
}

// Every column not stretched (or given a mode already) is sized to its content: the
// numbers are read whole and the name columns get the rest. Call once the model has its columns.
inline void fitColumnsToContents(QTableView *view)
{
    QHeaderView *header = view->horizontalHeader();
    for (int c = 0; c < header->count(); ++c)
        if (header->sectionResizeMode(c) == QHeaderView::Interactive)
            header->setSectionResizeMode(c, QHeaderView::ResizeToContents);
}

} // namespace syncscope::ui
