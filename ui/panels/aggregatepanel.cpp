// SPDX-License-Identifier: MIT
#include "aggregatepanel.h"
#include "tableviewsetup.h"

#include "panels/criticalpathmodel.h"
#include "panels/treemodel.h"
#include "timeline/timeformat.h"

#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

namespace syncscope::ui {

AggregatePanel::AggregatePanel(QWidget *parent)
    : QWidget(parent)
    , m_model(new AggregateModel(this))
    , m_sorted(new QSortFilterProxyModel(this))
    , m_summary(new QLabel(tr("Shift-drag on the timeline to select an area."), this))
    , m_view(new QTableView(this))
{
    m_summary->setWordWrap(true);
    m_summary->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_summary);
    layout->addWidget(m_view, 1);
    m_sorted->setSourceModel(m_model);
    m_sorted->setSortRole(SortRole);
    setupSortedTable(m_view, m_sorted, AggregateModel::TotalColumn, Qt::DescendingOrder);
    setNameColumn(m_view, AggregateModel::NameColumn);
    fitColumnsToContents(m_view);
    auto jump = [this](const QModelIndex &index) {
        const QVariant t = index.data(TargetEventRole);
        if (t.isValid())
            Q_EMIT eventRequested(t.toLongLong());
    };
    connect(m_view, &QTableView::clicked, this, jump);
    connect(m_view, &QTableView::activated, this, jump);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this, jump);
}

void AggregatePanel::setArea(const TimelineModel *model, double t0, double t1, const std::vector<uint32_t> &rows,
                             int lanes)
{
    if (!model || !(t1 > t0)) {
        m_model->setRows({});
        m_summary->setText(tr("Shift-drag on the timeline to select an area."));
        return;
    }
    m_model->setRows(aggregateRange(*model, t0, t1, rows));
    size_t ops = 0;
    for (int r = 0; r < m_model->rowCount(); ++r)
        ops += m_model->row(r).count;
    m_summary->setText(tr("%1 over %2: %3 ops, %4 names")
                           .arg(QString::fromStdString(formatDuration(t1 - t0)),
                                lanes > 0 ? tr("%n lane(s)", nullptr, lanes) : tr("all lanes"))
                           .arg(ops)
                           .arg(m_model->rowCount()));
    m_view->resizeColumnsToContents();
}

} // namespace syncscope::ui
