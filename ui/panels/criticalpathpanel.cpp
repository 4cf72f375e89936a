// SPDX-License-Identifier: MIT
#include "criticalpathpanel.h"

#include "analysis/criticalpath.h"
#include "panels/tableviewsetup.h"
#include "panels/treemodel.h"
#include "timeline/timeformat.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QItemSelectionModel>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace syncscope::ui {

namespace {

void setupTable(QTableView *view)
{
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setSelectionMode(QAbstractItemView::SingleSelection);
    view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    view->verticalHeader()->hide();
    view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 4);
    view->setWordWrap(false);
    view->setTextElideMode(Qt::ElideMiddle);
    view->setAlternatingRowColors(true);
}

} // namespace

CriticalPathPanel::CriticalPathPanel(QWidget *parent)
    : QWidget(parent)
    , m_ops(new CriticalOpsModel(this))
    , m_breakdown(new BreakdownModel(this))
    , m_summary(new QLabel(this))
    , m_steps(new QComboBox(this))
    , m_breakdownView(new QTableView(this))
    , m_opsView(new QTableView(this))
    , m_sorted(new QSortFilterProxyModel(this))
    , m_group(new QCheckBox(tr("Group by name"), this))
    , m_zero(new QCheckBox(tr("0 ns rows"), this))
{
    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::PlainText);
    auto *top = new QVBoxLayout;
    top->setContentsMargins(4, 4, 4, 0);
    top->addWidget(m_summary);
    m_summary->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(top);
    // The step and the ops table's options on one row: on a 1280x720 screen the table
    // needs the height (issue 41).
    auto *options = new QHBoxLayout;
    options->setContentsMargins(4, 0, 4, 0);
    options->addWidget(m_steps, 1);
    options->addWidget(m_group);
    options->addWidget(m_zero);
    layout->addLayout(options);
    layout->addWidget(m_breakdownView);
    layout->addWidget(m_opsView, 1);
    m_breakdownView->setModel(m_breakdown);
    m_sorted->setSourceModel(m_ops);
    m_sorted->setSortRole(SortRole);
    m_opsView->setModel(m_sorted);
    m_opsView->setSortingEnabled(true);
    m_opsView->sortByColumn(CriticalOpsModel::IndexColumn, Qt::AscendingOrder);
    m_group->setToolTip(tr("Group by op name: one row per name, how often it is on the path, its total and share"));
    m_zero->setToolTip(tr("Show the path's zero-length (0 ns) dependency rows (hidden: they take no time)"));
    // The summary counts the ops on the path; the table lists them with the dependency (wait)
    // rows between them, or by name: it says which, so the two counts do not disagree (issue 41).
    connect(m_ops, &QAbstractItemModel::modelReset, this, &CriticalPathPanel::describeTable);
    connect(m_group, &QCheckBox::toggled, m_ops, &CriticalOpsModel::setGrouped);
    connect(m_zero, &QCheckBox::toggled, m_ops, &CriticalOpsModel::setShowZeroRows);
    // A bound-by row highlights its parts of the path; a second click on it shows the whole path.
    connect(m_breakdownView, &QTableView::clicked, this, [this](const QModelIndex &index) {
        const QString b = QString::fromStdString(m_breakdown->boundBy(index.row()));
        const bool again = m_breakdownView->property("highlighted").toString() == b &&
                           m_breakdownView->property("highlightOn").toBool();
        m_breakdownView->setProperty("highlighted", b);
        m_breakdownView->setProperty("highlightOn", !again);
        if (again)
            m_breakdownView->clearSelection();
        Q_EMIT boundByRequested(again ? QString() : b.isEmpty() ? QStringLiteral("dependency") : b);
    });
    setupTable(m_breakdownView);
    setupTable(m_opsView);
    m_breakdownView->horizontalHeader()->setSectionResizeMode(BreakdownModel::BoundByColumn, QHeaderView::Stretch);
    // As tall as its rows (at most 7): the space it does not need goes to the path's ops.
    auto fitBreakdown = [this] {
        const int rows = std::clamp(m_breakdown->rowCount(), 1, 7);
        const int h = m_breakdownView->horizontalHeader()->sizeHint().height() +
                      m_breakdownView->verticalHeader()->defaultSectionSize() * rows + 2 * m_breakdownView->frameWidth();
        m_breakdownView->setMinimumHeight(h);
        m_breakdownView->setMaximumHeight(h);
    };
    connect(m_breakdown, &QAbstractItemModel::modelReset, this, fitBreakdown);
    fitBreakdown();
    // Op names elided to what tells them apart (three GEMMs are not three "sm90…"); the rest sized to content.
    setNameColumn(m_opsView, CriticalOpsModel::OpColumn);
    fitColumnsToContents(m_opsView);
    // The lane (also in Details) gets a fixed, elided width: sized to its content it took the
    // whole dock, the op names shrank to two letters and a scroll bar took a row's height.
    m_opsView->horizontalHeader()->setSectionResizeMode(CriticalOpsModel::LaneColumn, QHeaderView::Interactive);
    m_opsView->setColumnWidth(CriticalOpsModel::LaneColumn, m_opsView->fontMetrics().averageCharWidth() * 14);
    m_opsView->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff); // a narrow dock cuts the last column
    fitColumnsToContents(m_breakdownView);
    m_steps->setToolTip(tr("Which ProfilerStep the critical path covers"));
    m_steps->hide();
    connect(m_steps, qOverload<int>(&QComboBox::currentIndexChanged), this, [this](int i) {
        if (m_updating || i < 0)
            return;
        const QPoint range = m_steps->itemData(i).toPoint();
        if (range.x() < 0)
            return;
        Q_EMIT stepRequested(range.x(), range.y());
    });
    auto jump = [this](const QModelIndex &index) {
        const QVariant t = index.data(TargetEventRole);
        if (t.isValid())
            Q_EMIT eventRequested(t.toLongLong());
    };
    connect(m_opsView, &QTableView::clicked, this, jump);
    connect(m_opsView, &QTableView::activated, this, jump);
    // Arrow keys move the selection with the row highlight (Details and the timeline follow).
    connect(m_opsView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this, jump](const QModelIndex &current) {
                if (current.isValid() && !m_updating)
                    jump(current);
            });
    clear();
}

QModelIndex CriticalPathPanel::viewIndex(int row, int column) const
{
    return m_sorted->mapFromSource(m_ops->index(row, column));
}

void CriticalPathPanel::stepAlongPath(int delta)
{
    const int n = m_sorted->rowCount();
    if (n == 0)
        return;
    const int cur = m_opsView->currentIndex().isValid() ? m_opsView->currentIndex().row() : (delta > 0 ? -1 : n);
    const int next = std::clamp(cur + delta, 0, n - 1);
    const QModelIndex idx = m_sorted->index(next, CriticalOpsModel::OpColumn);
    m_opsView->setCurrentIndex(idx); // selects the op (currentRowChanged)
    m_opsView->scrollTo(idx);
}

void CriticalPathPanel::clear()
{
    m_ops->setPath(nullptr, nullptr);
    m_breakdown->setPath(nullptr);
    m_summaryBase.clear();
    m_summary->setText(tr("No critical path yet."));
    m_steps->hide();
}

void CriticalPathPanel::setGraphCapture(std::shared_ptr<const GraphCaptureLink> capture)
{
    m_ops->setGraphCapture(std::move(capture));
}

void CriticalPathPanel::setBusy(const QString &text)
{
    m_summaryBase.clear();
    m_summary->setText(text);
}

void CriticalPathPanel::setPath(std::shared_ptr<const CriticalPathResult> cp,
                                std::shared_ptr<const TimelineModel> model, const QStringList &steps, int first,
                                int last)
{
    m_breakdownView->setProperty("highlightOn", false);
    m_ops->setPath(cp, model);
    m_breakdown->setPath(cp);
    if (!cp) {
        m_summaryBase.clear();
        m_summary->setText(tr("The critical path was not computed."));
    } else if (!cp->success) {
        m_summaryBase.clear();
        m_summary->setText(tr("No critical path: %1").arg(QString::fromStdString(cp->reason)));
    } else {
        // One notion of step: ProfilerStep#N as the selector lists them; an HTA instance
        // (--instance) that is not one step is labelled as such.
        QString window;
        if (cp->window.wholeTrace)
            window = tr("whole trace");
        else if (first >= 0 && first < steps.size() && last < steps.size())
            window = first == last ? steps[first] : tr("%1 \u2013 %2").arg(steps[first], steps[last]);
        else
            window = cp->window.instanceFirst == cp->window.instanceLast
                         ? tr("HTA instance %1").arg(cp->window.instanceFirst)
                         : tr("HTA instances %1\u2013%2").arg(cp->window.instanceFirst).arg(cp->window.instanceLast);
        QString text = tr("Critical path %1 (%2): %3 ops, %4 graph edges on the path")
                           .arg(QString::fromStdString(formatDuration(cp->weightUs * 1000)), window)
                           .arg(cp->criticalEvents.size())
                           .arg(cp->pathEdges.size());
        if (!cp->window.profilerSteps && !cp->window.wholeTrace && first >= 0 && last + 1 == steps.size())
            text += tr(" \u2014 as HTA computes it, without the last step's events (so it is short)");
        m_summaryBase = text;
        describeTable();
    }
    m_updating = true;
    m_steps->clear();
    if (!steps.isEmpty() && cp && !cp->window.wholeTrace) {
        if (first < 0)
            m_steps->addItem(tr("HTA instance %1").arg(cp->window.instanceFirst), QPoint(-1, -1));
        for (int i = 0; i < steps.size(); ++i)
            m_steps->addItem(steps[i], QPoint(i, i));
        if (steps.size() > 1)
            m_steps->addItem(tr("All %1 steps").arg(steps.size()), QPoint(0, int(steps.size()) - 1));
        int current = 0;
        for (int i = 0; i < m_steps->count(); ++i)
            if (m_steps->itemData(i).toPoint() == QPoint(first, last))
                current = i;
        m_steps->setCurrentIndex(current);
        m_steps->setVisible(m_steps->count() > 1);
    } else {
        m_steps->hide();
    }
    m_updating = false;
}

} // namespace syncscope::ui

namespace syncscope::ui {

void CriticalPathPanel::describeTable()
{
    if (m_summaryBase.isEmpty())
        return;
    const int rows = m_ops->rowCount();
    int ops = 0;
    for (int r = 0; r < rows; ++r)
        ops += m_ops->row(r).event >= 0 ? 1 : 0;
    // A row is a stretch of the path through one op (the path can pass through an op more
    // than once: before and after its children), or a dependency between ops.
    QString table;
    if (m_ops->grouped())
        table = tr("table: %n op name(s)", nullptr, rows);
    else
        table = tr("table: %1 stretches").arg(rows) +
                (rows > ops ? tr(", %1 dependencies").arg(rows - ops) : QString());
    m_summary->setToolTip(tr("A table row is a stretch of the path through one op (an op has a row per pass of "
                             "the path through it: before and after its children) or a dependency between two ops; "
                             "0 ns dependencies are hidden unless \"0 ns rows\" is ticked; \"Group by name\" "
                             "gives one row per op name."));
    m_summary->setText(m_summaryBase + QStringLiteral("; ") + table);
}

} // namespace syncscope::ui
