// SPDX-License-Identifier: MIT
#include "ranktablepanel.h"
#include "job/jobtexts.h"
#include "tableviewsetup.h"

#include "job/jobdata.h"
#include "panels/collectivesmodel.h"
#include "panels/criticalpathmodel.h"
#include "timeline/timeformat.h"

#include <QSplitter>
#include <QTableWidget>

#include <algorithm>

#include <QHeaderView>

#include <QItemSelectionModel>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

namespace syncscope::ui {

QString jobSummaryLine(const JobData &job)
{
    QStringList parts;
    QString ranks = QObject::tr("%n rank(s)", nullptr, int(job.ranks.size()));
    if (job.discovery.worldSize)
        ranks += QObject::tr(" of world_size %1").arg(*job.discovery.worldSize);
    if (job.analysis.clockReferenceRank >= 0)
        ranks += QObject::tr(", clocks aligned on rank %1").arg(job.analysis.clockReferenceRank);
    parts << ranks;
    if (job.discovery.missingRankCount > 0)
        parts << QObject::tr("%n rank(s) missing", nullptr, int(job.discovery.missingRankCount));
    parts << QObject::tr("%n collective(s) matched", nullptr, int(job.analysis.collectives.size()));
    if (const QString top = topStragglerText(job.analysis); !top.isEmpty())
        parts << top;
    const JobCriticalPath &cp = job.analysis.criticalPath;
    if (cp.valid) {
        QStringList through;
        for (auto r : cp.ranksOnPath)
            through << QString::number(r);
        parts << QObject::tr("job critical path %1 through rank(s) %2")
                         .arg(QString::fromStdString(formatDuration(cp.weightUs * 1000)), through.join(QStringLiteral(", "))) +
                     jobPathSkewText(job.analysis);
    }
    return parts.join(QStringLiteral(" \u00b7 "));
}

RankTablePanel::RankTablePanel(QWidget *parent)
    : QWidget(parent)
    , m_model(new RankTableModel(this))
    , m_sorted(new QSortFilterProxyModel(this))
    , m_summary(new QLabel(this))
    , m_view(new QTableView(this))
{
    m_costs = new QTableWidget(this);
    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::PlainText);
    m_summary->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_summary);
    auto *split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_view);
    split->addWidget(m_costs);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    layout->addWidget(split, 1);
    m_costs->setColumnCount(6);
    m_costs->setHorizontalHeaderLabels(
        {tr("Rank"), tr("Op that delayed others"), tr("Where"), tr("Direct"), tr("Propagated"), tr("Total")});
    m_costs->horizontalHeaderItem(3)->setToolTip(tr("Waits its extra work caused at the collective it delayed"));
    m_costs->horizontalHeaderItem(4)->setToolTip(
        tr("Later waits: ranks that waited (or came last) then started late for their next collective"));
    m_costs->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_costs->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_costs->setSelectionMode(QAbstractItemView::SingleSelection);
    m_costs->setTabKeyNavigation(false);
    m_costs->setWordWrap(false);
    m_costs->verticalHeader()->hide();
    setNameColumn(m_costs, 1); // the op that delayed others
    m_costs->setTextElideMode(Qt::ElideMiddle); // its Where path
    connect(m_costs, &QTableWidget::cellClicked, this, [this](int row, int) { activateDelayCost(row); });
    connect(m_costs, &QTableWidget::cellActivated, this, [this](int row, int) { activateDelayCost(row); });
    m_sorted->setSourceModel(m_model);
    m_sorted->setSortRole(SortRole);
    setupSortedTable(m_view, m_sorted, RankTableModel::RankColumn, Qt::AscendingOrder);
    m_view->setTabKeyNavigation(false);
    m_view->setWordWrap(false);
    // "gpu_communication_bound 85%" in full: the column a reader compares ranks by.
    m_view->horizontalHeader()->setSectionResizeMode(RankTableModel::BoundByColumn, QHeaderView::ResizeToContents);
    auto activate = [this](const QModelIndex &index) {
        const QVariant rank = index.data(RankRole);
        if (rank.isValid())
            Q_EMIT rankActivated(rank.toLongLong());
    };
    connect(m_view, &QTableView::clicked, this, activate);
    connect(m_view, &QTableView::activated, this, activate);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) {
                if (current.isValid() && !m_selecting)
                    Q_EMIT currentRankChanged(current.data(RankRole).toLongLong());
            });
    clear();
}

void RankTablePanel::setJob(std::shared_ptr<const JobData> job)
{
    m_summary->setText(job ? jobSummaryLine(*job) : tr("No job is open."));
    m_model->setJob(std::move(job));
    m_view->resizeColumnsToContents();
    showDelayCosts();
}

void RankTablePanel::showDelayCosts()
{
    const JobData *job = m_model->job();
    const std::vector<DelayCost> none;
    const std::vector<DelayCost> &costs = job ? job->analysis.delayCosts : none;
    const int rows = int(std::min<size_t>(costs.size(), 50));
    m_costs->setRowCount(rows);
    auto duration = [](double us) { return QString::fromStdString(formatDuration(us * 1000)); };
    for (int row = 0; row < rows; ++row) {
        const DelayCost &d = costs[size_t(row)];
        auto item = [&](int column, const QString &text, bool right = true) {
            auto *it = new QTableWidgetItem(text);
            if (right)
                it->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            m_costs->setItem(row, column, it);
            return it;
        };
        item(0, QString::number(d.rank));
        item(1, QString::fromStdString(d.op), false)->setToolTip(QString::fromStdString(d.op));
        item(2, d.gpu ? tr("GPU") : tr("CPU"), false);
        item(3, duration(d.directUs));
        item(4, duration(d.propagatedUs));
        item(5, duration(d.directUs + d.propagatedUs));
    }
    m_costs->resizeColumnsToContents();
}

void RankTablePanel::activateDelayCost(int row)
{
    const JobData *job = m_model->job();
    if (!job || row < 0 || row >= int(job->analysis.delayCosts.size()))
        return;
    const DelayCost &d = job->analysis.delayCosts[size_t(row)];
    RootCauseOp op;
    op.rank = d.rank;
    op.op = d.op;
    op.gpu = d.gpu;
    op.startUs = d.firstStartUs;
    const int64_t event = rootCauseEvent(*job, op);
    if (event >= 0)
        Q_EMIT delayCostActivated(qint64(d.rank), quint32(event));
}

void RankTablePanel::clear()
{
    setJob(nullptr);
}

void RankTablePanel::selectRank(qint64 rank)
{
    const int row = m_model->rowOfRank(rank);
    if (row < 0)
        return;
    const QModelIndex index = m_sorted->mapFromSource(m_model->index(row, 0));
    m_selecting = true;
    m_view->setCurrentIndex(index);
    m_view->scrollTo(index);
    m_selecting = false;
}

} // namespace syncscope::ui
