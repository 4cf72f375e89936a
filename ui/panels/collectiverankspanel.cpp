// SPDX-License-Identifier: MIT
#include "collectiverankspanel.h"
#include "tableviewsetup.h"

#include "panels/criticalpathmodel.h"
#include "panels/ranktablemodel.h"

#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

namespace syncscope::ui {

CollectiveRanksPanel::CollectiveRanksPanel(QWidget *parent)
    : QWidget(parent)
    , m_model(new CollectiveRanksModel(this))
    , m_sorted(new QSortFilterProxyModel(this))
    , m_title(new QLabel(this))
    , m_view(new QTableView(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 2, 4, 0);
    // One line, whole text in the tooltip: a wrapped title would make the dock taller
    // than the timeline can spare.
    m_title->setWordWrap(false);
    m_title->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    layout->addWidget(m_title);
    layout->addWidget(m_view, 1);
    m_sorted->setSourceModel(m_model);
    m_sorted->setSortRole(SortRole);
    setupSortedTable(m_view, m_sorted, CollectiveRanksModel::RankColumn, Qt::AscendingOrder);
    m_view->setTabKeyNavigation(false);
    fitColumnsToContents(m_view); // numbers only: each read whole
    auto activate = [this](const QModelIndex &index) {
        const QVariant event = index.data(RankEventRole);
        if (event.isValid())
            Q_EMIT rankEventActivated(index.data(RankRole).toLongLong(), event.toUInt());
    };
    connect(m_view, &QTableView::clicked, this, activate);
    connect(m_view, &QTableView::activated, this, activate);
    setCollective(nullptr, -1, 0, {});
}

void CollectiveRanksPanel::setCollective(std::shared_ptr<const JobData> job, qint64 index, int64_t originNs,
                                         const std::string &chakraKind)
{
    m_model->setCollective(std::move(job), index, originNs, chakraKind);
    m_title->setText(m_model->collective() < 0 ? tr("Select a collective to see its ranks.") : m_model->title());
    m_title->setToolTip(m_title->text());
}

} // namespace syncscope::ui
