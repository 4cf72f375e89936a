// SPDX-License-Identifier: MIT
#include "jobsearchpanel.h"

#include "panels/tableviewsetup.h"
#include "panels/criticalpathmodel.h"
#include "panels/ranktablemodel.h"
#include "panels/treemodel.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

namespace syncscope::ui {

JobSearchPanel::JobSearchPanel(QWidget *parent)
    : QWidget(parent)
    , m_model(new JobSearchModel(this))
    , m_sorted(new QSortFilterProxyModel(this))
    , m_query(new QLineEdit(this))
    , m_regex(new QCheckBox(tr("Regex"), this))
    , m_case(new QCheckBox(tr("Aa"), this))
    , m_count(new QLabel(this))
    , m_view(new QTableView(this))
{
    m_query->setPlaceholderText(tr("Find ops on every rank by name (substring), regex, or an id"));
    m_query->setClearButtonEnabled(true);
    m_case->setToolTip(tr("Case sensitive"));
    m_count->setMinimumWidth(150);
    auto *bar = new QHBoxLayout;
    bar->setContentsMargins(4, 4, 4, 0);
    bar->addWidget(m_query, 1);
    bar->addWidget(m_regex);
    bar->addWidget(m_case);
    bar->addWidget(m_count);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(m_view, 1);
    m_sorted->setSourceModel(m_model);
    m_sorted->setSortRole(SortRole);
    m_view->setModel(m_sorted);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(JobSearchModel::StartColumn, Qt::AscendingOrder);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->setTabKeyNavigation(false);
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 4);
    m_view->setTextElideMode(Qt::ElideMiddle);
    setNameColumn(m_view, JobSearchModel::NameColumn);
    fitColumnsToContents(m_view);
    m_view->setWordWrap(false);

    // Type-ahead with a short delay: every rank's events are rescanned per query.
    auto *debounce = new QTimer(this);
    debounce->setSingleShot(true);
    debounce->setInterval(200);
    connect(debounce, &QTimer::timeout, this, &JobSearchPanel::runQuery);
    connect(m_query, &QLineEdit::textEdited, debounce, qOverload<>(&QTimer::start));
    connect(m_query, &QLineEdit::returnPressed, this, [this, debounce] {
        debounce->stop();
        runQuery();
        if (m_sorted->rowCount() > 0) {
            m_view->setFocus(Qt::ShortcutFocusReason);
            m_view->setCurrentIndex(m_sorted->index(0, 0));
        }
    });
    connect(m_regex, &QCheckBox::toggled, this, &JobSearchPanel::runQuery);
    connect(m_case, &QCheckBox::toggled, this, &JobSearchPanel::runQuery);
    auto go = [this](const QModelIndex &index) {
        const QVariant rank = index.data(RankRole);
        const QVariant event = index.data(TargetEventRole);
        if (rank.isValid() && event.isValid())
            Q_EMIT eventRequested(rank.toLongLong(), event.toLongLong());
    };
    connect(m_view, &QTableView::clicked, this, go);
    connect(m_view, &QTableView::activated, this, go);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [go](const QModelIndex &current) {
                if (current.isValid())
                    go(current);
            });
    clear();
}

void JobSearchPanel::setJob(std::shared_ptr<const JobData> job)
{
    m_model->setJob(std::move(job));
    if (!m_query->text().isEmpty())
        runQuery();
    updateCount();
}

void JobSearchPanel::clear()
{
    setJob(nullptr);
}

void JobSearchPanel::focusQuery()
{
    m_query->setFocus(Qt::ShortcutFocusReason);
    m_query->selectAll();
}

void JobSearchPanel::setQueryText(const QString &text)
{
    m_query->setText(text);
    m_regex->setChecked(false);
    runQuery();
}

void JobSearchPanel::runQuery()
{
    const bool ok = m_model->setQuery(m_query->text(), m_regex->isChecked(), m_case->isChecked());
    QPalette pal = m_query->palette();
    pal.setColor(QPalette::Text, ok ? palette().color(QPalette::Text) : QColor(0xd0, 0x20, 0x20));
    m_query->setPalette(pal);
    m_query->setToolTip(ok ? QString() : m_model->error());
    m_view->resizeColumnToContents(JobSearchModel::RankColumn);
    m_view->resizeColumnToContents(JobSearchModel::KindColumn);
    updateCount();
}

void JobSearchPanel::updateCount()
{
    const int n = m_model->matchCount();
    if (!m_model->error().isEmpty())
        m_count->setText(tr("invalid regex"));
    else if (m_query->text().isEmpty())
        m_count->setText(QString());
    else if (n == 0)
        m_count->setText(tr("no matches"));
    else
        m_count->setText(tr("%n match(es)", nullptr, n) + tr(" on %n rank(s)", nullptr, m_model->rankCount()));
}

} // namespace syncscope::ui
