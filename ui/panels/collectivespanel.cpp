// SPDX-License-Identifier: MIT
#include "collectivespanel.h"
#include "tableviewsetup.h"

#include "panels/criticalpathmodel.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

namespace syncscope::ui {

CollectivesPanel::CollectivesPanel(QWidget *parent)
    : QWidget(parent)
    , m_model(new CollectivesModel(this))
    , m_sorted(new QSortFilterProxyModel(this))
    , m_filter(new QLineEdit(this))
    , m_count(new QLabel(this))
    , m_view(new QTableView(this))
{
    m_filter->setPlaceholderText(tr("Filter by collective name or process group"));
    m_filter->setClearButtonEnabled(true);
    auto *bar = new QHBoxLayout;
    bar->setContentsMargins(4, 4, 4, 0);
    bar->addWidget(m_filter, 1);
    bar->addWidget(m_count);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(m_view, 1);
    m_sorted->setSourceModel(m_model);
    m_sorted->setSortRole(SortRole);
    m_sorted->setFilterRole(CollectiveFilterRole);
    m_sorted->setFilterKeyColumn(CollectivesModel::NameColumn);
    m_sorted->setFilterCaseSensitivity(Qt::CaseInsensitive);
    setupSortedTable(m_view, m_sorted, CollectivesModel::IndexColumn, Qt::AscendingOrder);
    m_view->setTabKeyNavigation(false);
    m_view->setWordWrap(false);
    m_view->horizontalHeader()->setSectionResizeMode(CollectivesModel::NameColumn, QHeaderView::Stretch);
    auto activate = [this](const QModelIndex &index) {
        const QVariant i = index.data(CollectiveIndexRole);
        if (i.isValid())
            Q_EMIT collectiveActivated(i.toUInt());
    };
    connect(m_view, &QTableView::clicked, this, activate);
    connect(m_view, &QTableView::activated, this, activate);
    connect(m_filter, &QLineEdit::textChanged, this, &CollectivesPanel::setFilterText);
    clear();
}

void CollectivesPanel::setJob(std::shared_ptr<const JobData> job)
{
    m_model->setJob(std::move(job));
    m_view->resizeColumnsToContents();
    updateCount();
}

void CollectivesPanel::clear()
{
    setJob(nullptr);
}

void CollectivesPanel::setFilterText(const QString &text)
{
    if (m_filter->text() != text)
        m_filter->setText(text); // emits textChanged, which comes back here
    m_sorted->setFilterFixedString(text);
    updateCount();
}

void CollectivesPanel::selectCollective(quint32 index)
{
    if (index >= quint32(m_model->rowCount()))
        return;
    QModelIndex row = m_sorted->mapFromSource(m_model->index(int(index), 0));
    if (!row.isValid()) { // hidden by the filter
        setFilterText({});
        row = m_sorted->mapFromSource(m_model->index(int(index), 0));
    }
    m_view->selectionModel()->setCurrentIndex(row, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_view->scrollTo(row);
}

void CollectivesPanel::updateCount()
{
    const int all = m_model->rowCount();
    const int shown = m_sorted->rowCount();
    m_count->setText(shown == all ? tr("%n collective(s)", nullptr, all) : tr("%1 of %2").arg(shown).arg(all));
}

} // namespace syncscope::ui
