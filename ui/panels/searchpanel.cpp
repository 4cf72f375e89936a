// SPDX-License-Identifier: MIT
#include "searchpanel.h"

#include "panels/tableviewsetup.h"
#include "panels/treemodel.h"

#include <QCheckBox>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QItemSelectionModel>
#include <QTableView>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

namespace syncscope::ui {

SearchPanel::SearchPanel(QWidget *parent)
    : QWidget(parent)
    , m_model(new SearchModel(this))
    , m_query(new QLineEdit(this))
    , m_regex(new QCheckBox(tr("Regex"), this))
    , m_case(new QCheckBox(tr("Aa"), this))
    , m_count(new QLabel(this))
    , m_prev(new QToolButton(this))
    , m_next(new QToolButton(this))
    , m_view(new QTableView(this))
{
    m_query->setPlaceholderText(tr("Find ops by name (substring), regex, or an id (correlation, External id)"));
    m_query->setClearButtonEnabled(true);
    m_case->setToolTip(tr("Case sensitive"));
    m_prev->setText(tr("\u25b2"));
    m_prev->setToolTip(tr("Previous match (Shift+Enter, Shift+F3)"));
    m_next->setText(tr("\u25bc"));
    m_next->setToolTip(tr("Next match (Enter, F3)"));
    m_count->setMinimumWidth(110);
    auto *bar = new QHBoxLayout;
    bar->setContentsMargins(4, 4, 4, 0);
    bar->addWidget(m_query, 1);
    bar->addWidget(m_regex);
    bar->addWidget(m_case);
    bar->addWidget(m_count);
    bar->addWidget(m_prev);
    bar->addWidget(m_next);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(m_view);
    m_view->setModel(m_model);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 4);
    m_view->setTextElideMode(Qt::ElideMiddle);
    setNameColumn(m_view, SearchModel::NameColumn);
    fitColumnsToContents(m_view);
    m_view->setWordWrap(false);

    // Type-ahead with a short delay so a million events are not rescanned per key.
    auto *debounce = new QTimer(this);
    debounce->setSingleShot(true);
    debounce->setInterval(150);
    connect(debounce, &QTimer::timeout, this, &SearchPanel::runQuery);
    connect(m_query, &QLineEdit::textEdited, debounce, qOverload<>(&QTimer::start));
    connect(m_regex, &QCheckBox::toggled, this, &SearchPanel::runQuery);
    connect(m_case, &QCheckBox::toggled, this, &SearchPanel::runQuery);
    connect(m_query, &QLineEdit::returnPressed, this, [this, debounce] {
        if (debounce->isActive()) {
            debounce->stop();
            runQuery();
        }
        if (QGuiApplication::keyboardModifiers() & Qt::ShiftModifier)
            previous();
        else
            next();
    });
    connect(m_prev, &QToolButton::clicked, this, &SearchPanel::previous);
    connect(m_next, &QToolButton::clicked, this, &SearchPanel::next);
    connect(m_view, &QTableView::clicked, this, [this](const QModelIndex &i) { go(i.row()); });
    connect(m_view, &QTableView::activated, this, [this](const QModelIndex &i) { go(i.row()); });
    // Arrow keys in the list move the selection too, not only the row highlight.
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex &i) {
        if (i.isValid() && i.row() != m_current)
            go(i.row());
    });
    updateCount();
}

void SearchPanel::setTimeline(std::shared_ptr<const TimelineModel> model)
{
    m_model->setTimeline(std::move(model));
    m_current = -1;
    if (!m_query->text().isEmpty())
        runQuery();
    updateCount();
}

void SearchPanel::focusQuery()
{
    m_query->setFocus(Qt::ShortcutFocusReason);
    m_query->selectAll();
}

void SearchPanel::setQueryText(const QString &text)
{
    m_query->setText(text);
    m_regex->setChecked(false);
    runQuery();
}

void SearchPanel::markCurrent(qint64 event)
{
    const int row = event >= 0 ? m_model->rowOf(static_cast<uint32_t>(event)) : -1;
    if (row < 0)
        return;
    m_current = row;
    m_view->selectRow(row);
    m_view->scrollTo(m_model->index(row, 0));
    updateCount();
}

void SearchPanel::runQuery()
{
    const bool ok = m_model->setQuery(m_query->text(), m_regex->isChecked(), m_case->isChecked());
    m_current = -1;
    QPalette pal = m_query->palette();
    pal.setColor(QPalette::Text, ok ? palette().color(QPalette::Text) : QColor(0xd0, 0x20, 0x20));
    m_query->setPalette(pal);
    m_query->setToolTip(ok ? QString() : m_model->error());
    updateCount();
}

void SearchPanel::updateCount()
{
    const int n = m_model->matchCount();
    if (!m_model->error().isEmpty())
        m_count->setText(tr("invalid regex"));
    else if (m_query->text().isEmpty())
        m_count->setText(QString());
    else if (n == 0)
        m_count->setText(tr("no matches"));
    else if (m_current >= 0)
        m_count->setText(tr("%1 / %2").arg(m_current + 1).arg(n));
    else
        m_count->setText(tr("%n match(es)", nullptr, n));
    m_prev->setEnabled(n > 0);
    m_next->setEnabled(n > 0);
}

void SearchPanel::go(int row)
{
    if (row < 0 || row >= m_model->matchCount())
        return;
    m_current = row;
    m_view->selectRow(row);
    m_view->scrollTo(m_model->index(row, 0));
    updateCount();
    Q_EMIT eventRequested(m_model->eventAt(row));
}

void SearchPanel::next()
{
    const int n = m_model->matchCount();
    if (n == 0)
        return;
    go(m_current < 0 ? m_model->rowAtOrAfter(m_anchorNs) : (m_current + 1) % n);
}

void SearchPanel::previous()
{
    const int n = m_model->matchCount();
    if (n == 0)
        return;
    if (m_current < 0) {
        const int r = m_model->rowAtOrAfter(m_anchorNs);
        go((r - 1 + n) % n);
    } else {
        go((m_current - 1 + n) % n);
    }
}

} // namespace syncscope::ui
