// SPDX-License-Identifier: MIT
#include "syncwaitspanel.h"

#include "panels/tableviewsetup.h"
#include "panels/criticalpathmodel.h"
#include "panels/treemodel.h"

#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

namespace syncscope::ui {

SyncWaitsPanel::SyncWaitsPanel(QWidget *parent)
    : QWidget(parent)
    , m_model(new SyncWaitsModel(this))
    , m_sorted(new QSortFilterProxyModel(this))
    , m_totals(new QLabel(this))
    , m_view(new QTableView(this))
{
    m_totals->setWordWrap(true);
    m_totals->setTextFormat(Qt::PlainText);
    m_totals->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_totals);
    layout->addWidget(m_view, 1);
    m_sorted->setSourceModel(m_model);
    m_sorted->setSortRole(SortRole);
    m_view->setModel(m_sorted);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(SyncWaitsModel::WaitColumn, Qt::DescendingOrder);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 4);
    m_view->setWordWrap(false);
    m_view->setAlternatingRowColors(true);
    m_view->setTextElideMode(Qt::ElideMiddle);
    setNameColumn(m_view, SyncWaitsModel::WaitingColumn);
    setNameColumn(m_view, SyncWaitsModel::WaitedForColumn);
    fitColumnsToContents(m_view);
    auto jump = [this](const QModelIndex &index) {
        const QVariant t = index.data(TargetEventRole);
        if (t.isValid())
            Q_EMIT eventRequested(t.toLongLong());
    };
    connect(m_view, &QTableView::clicked, this, jump);
    connect(m_view, &QTableView::activated, this, jump);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentChanged, this,
            [jump](const QModelIndex &current, const QModelIndex &previous) {
                if (current.isValid() && current.row() != previous.row())
                    jump(current);
            });
    setSources(nullptr, nullptr);
}

void SyncWaitsPanel::setSources(std::shared_ptr<const Analysis> analysis, std::shared_ptr<const TimelineModel> model)
{
    const bool have = analysis != nullptr;
    m_model->setSources(std::move(analysis), std::move(model));
    m_totals->setText(have ? m_model->totalsText() : tr("No analysis yet."));
}

} // namespace syncscope::ui
