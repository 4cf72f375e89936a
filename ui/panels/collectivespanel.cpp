// SPDX-License-Identifier: MIT
#include "collectivespanel.h"
#include "tableviewsetup.h"

#include "job/jobdata.h"
#include "panels/criticalpathmodel.h"
#include "panels/ranktablemodel.h"
#include "timeline/timeformat.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QTableWidget>
#include <QVBoxLayout>

namespace syncscope::ui {

namespace {

enum CauseColumn { CauseRank, CauseOp, CauseWhere, CauseStart, CauseDuration, CauseExcess, CauseColumns };

QString panelDuration(double us)
{
    return QString::fromStdString(formatDuration(us * 1000));
}

} // namespace

CollectivesPanel::CollectivesPanel(QWidget *parent)
    : QWidget(parent)
    , m_model(new CollectivesModel(this))
    , m_sorted(new QSortFilterProxyModel(this))
    , m_filter(new QLineEdit(this))
    , m_count(new QLabel(this))
    , m_view(new QTableView(this))
    , m_causesLabel(new QLabel(this))
    , m_causes(new QTableWidget(this))
    , m_ranks(new CollectiveRanksPanel(this))
    , m_instance(new QSplitter(Qt::Horizontal, this))
{
    m_filter->setPlaceholderText(tr("Filter by collective name, process group or .et type"));
    m_filter->setClearButtonEnabled(true);
    auto *bar = new QHBoxLayout;
    bar->setContentsMargins(4, 4, 4, 0);
    bar->addWidget(m_filter, 1);
    bar->addWidget(m_count);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    auto *causesBox = new QWidget(this);
    auto *causesLayout = new QVBoxLayout(causesBox);
    causesLayout->setContentsMargins(4, 2, 4, 0);
    m_causesLabel->setWordWrap(true);
    causesLayout->addWidget(m_causesLabel);
    causesLayout->addWidget(m_causes, 1);
    m_causes->setColumnCount(CauseColumns);
    m_causes->setHorizontalHeaderLabels(
        {tr("Rank"), tr("Root-cause op"), tr("Where"), tr("Start"), tr("Duration"), tr("Excess")});
    m_causes->horizontalHeaderItem(CauseStart)
        ->setToolTip(tr("Job time: aligned clock, from the job timeline's origin (its axis' 0)"));
    m_causes->horizontalHeaderItem(CauseExcess)
        ->setToolTip(tr("Own work minus the median own work of the same op on the other participants"));
    m_causes->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_causes->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_causes->setSelectionMode(QAbstractItemView::SingleSelection);
    m_causes->setTabKeyNavigation(false);
    m_causes->setWordWrap(false);
    m_causes->verticalHeader()->hide();
    m_causes->horizontalHeader()->setSectionResizeMode(CauseOp, QHeaderView::Stretch);
    auto *split = new QSplitter(Qt::Vertical, this);
    // The selected instance below the list: its ranks beside its root causes, both in
    // sight at once (side by side: the dock needs no more height than before).
    m_instance->addWidget(m_ranks);
    m_instance->addWidget(causesBox);
    m_instance->setStretchFactor(0, 3);
    m_instance->setStretchFactor(1, 2);
    split->addWidget(m_view);
    split->addWidget(m_instance);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);
    layout->addWidget(split, 1);
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
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) {
                const QVariant i = current.data(CollectiveIndexRole);
                showInstance(i.isValid() ? qint64(i.toUInt()) : -1);
            });
    connect(m_ranks, &CollectiveRanksPanel::rankEventActivated, this, &CollectivesPanel::rankEventActivated);
    connect(m_causes, &QTableWidget::cellClicked, this, [this](int row, int) { activateRootCause(row); });
    connect(m_causes, &QTableWidget::cellActivated, this, [this](int row, int) { activateRootCause(row); });
    clear();
}

void CollectivesPanel::setJob(std::shared_ptr<const JobData> job)
{
    m_model->setJob(std::move(job));
    m_view->resizeColumnsToContents();
    updateCount();
    showInstance(-1);
}

void CollectivesPanel::setTimeOrigin(qint64 originNs)
{
    m_model->setTimeOrigin(originNs);
    const qint64 current = m_causesOf;
    showInstance(current); // their times move too
}

void CollectivesPanel::showInstance(qint64 index)
{
    showRootCauses(index);
    m_ranks->setCollective(m_model->sharedJob(), m_causesOf, m_model->timeOriginNs(),
                           m_causesOf < 0 ? std::string() : m_model->chakraKind(quint32(m_causesOf)));
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

namespace syncscope::ui {

void CollectivesPanel::showRootCauses(qint64 index)
{
    const JobData *job = m_model->job();
    if (!job || index < 0 || index >= qint64(job->analysis.collectives.size()))
        index = -1;
    m_causesOf = index;
    m_causes->setRowCount(0);
    if (index < 0) {
        m_causesLabel->setText(tr("Select a collective to see the root causes of its waits."));
        return;
    }
    const MatchedCollective &c = job->analysis.collectives[size_t(index)];
    const QString name =
        QStringLiteral("%1 #%2").arg(collectiveDisplayName(c, m_model->chakraKind(quint32(index)))).arg(index);
    const RankLateness *late = lastArrivalLateness(c);
    if (c.lastArrivalRank < 0 || !late)
        m_causesLabel->setText(tr("%1: no last arriver.").arg(name));
    else if (c.windowEdge)
        m_causesLabel->setText(tr("%1: rank %2 came %3 late, %4 of it start skew at the window edge: it started the "
                                  "recorded step later (often the profiler starting later on that rank), not slower work.")
                                   .arg(name)
                                   .arg(c.lastArrivalRank)
                                   .arg(panelDuration(late->lateUs), panelDuration(late->startSkewUs)));
    else if (c.skewFrom >= 0 && late->startSkewUs >= 0.5 * late->lateUs)
        m_causesLabel->setText(tr("%1: rank %2 came %3 late, %4 of it start skew carried on from %5 #%6, which ended "
                                  "late for it: the causes there are charged this wait too (propagated delay cost).")
                                   .arg(name)
                                   .arg(c.lastArrivalRank)
                                   .arg(panelDuration(late->lateUs), panelDuration(late->startSkewUs))
                                   .arg(QString::fromStdString(job->analysis.collectives[size_t(c.skewFrom)].name))
                                   .arg(c.skewFrom));
    else if (c.rootCauses.empty())
        m_causesLabel->setText(tr("%1: rank %2 came %3 late (work excess %4); none of its ops ran longer than on the "
                                  "other ranks.")
                                   .arg(name)
                                   .arg(c.lastArrivalRank)
                                   .arg(panelDuration(late->lateUs), panelDuration(late->workExcessUs)));
    else
        m_causesLabel->setText(tr("%1: rank %2 came %3 late (work excess %4). Its ops that ran longest over the same "
                                  "ops on the other ranks (click one to show it):")
                                   .arg(name)
                                   .arg(c.lastArrivalRank)
                                   .arg(panelDuration(late->lateUs), panelDuration(late->workExcessUs)));
    // Job time, as the Start column and the timeline's axis.
    const double origin = double(m_model->timeOriginNs()) / 1e3;
    m_causes->setSortingEnabled(false);
    m_causes->setRowCount(int(c.rootCauses.size()));
    for (int row = 0; row < int(c.rootCauses.size()); ++row) {
        const RootCauseOp &op = c.rootCauses[size_t(row)];
        auto item = [&](int column, const QString &text, bool right = true) {
            auto *it = new QTableWidgetItem(text);
            it->setData(RankRole, qint64(op.rank));
            if (right)
                it->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            m_causes->setItem(row, column, it);
            return it;
        };
        item(CauseRank, QString::number(op.rank));
        item(CauseOp, QString::fromStdString(op.op), false)
            ->setToolTip(QString::fromStdString(op.context.empty() ? op.op : op.context + " > " + op.op));
        item(CauseWhere, op.gpu ? tr("GPU") : tr("CPU"), false);
        item(CauseStart, panelDuration(op.startUs - origin));
        item(CauseDuration, panelDuration(op.durUs));
        item(CauseExcess, QStringLiteral("+") + panelDuration(op.selfExcessUs))
            ->setToolTip(tr("Its own time: +%1 (with what it called: +%2)")
                             .arg(panelDuration(op.selfExcessUs), panelDuration(op.excessUs)));
    }
    m_causes->resizeColumnsToContents();
}

void CollectivesPanel::activateRootCause(int row)
{
    const JobData *job = m_model->job();
    if (!job || m_causesOf < 0)
        return;
    const MatchedCollective &c = job->analysis.collectives[size_t(m_causesOf)];
    if (row < 0 || row >= int(c.rootCauses.size()))
        return;
    const RootCauseOp &op = c.rootCauses[size_t(row)];
    const int64_t event = rootCauseEvent(*job, op);
    if (event >= 0)
        Q_EMIT rootCauseActivated(qint64(op.rank), quint32(event));
}

} // namespace syncscope::ui
