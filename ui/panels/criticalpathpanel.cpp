// SPDX-License-Identifier: MIT
#include "criticalpathpanel.h"

#include "analysis/criticalpath.h"
#include "panels/treemodel.h"
#include "timeline/timeformat.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

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
{
    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::PlainText);
    auto *top = new QVBoxLayout;
    top->setContentsMargins(4, 4, 4, 0);
    top->addWidget(m_summary);
    top->addWidget(m_steps);
    m_summary->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(top);
    layout->addWidget(m_breakdownView);
    layout->addWidget(m_opsView, 1);
    m_breakdownView->setModel(m_breakdown);
    m_opsView->setModel(m_ops);
    setupTable(m_breakdownView);
    setupTable(m_opsView);
    m_breakdownView->horizontalHeader()->setSectionResizeMode(BreakdownModel::BoundByColumn, QHeaderView::Stretch);
    m_breakdownView->setMaximumHeight(m_breakdownView->verticalHeader()->defaultSectionSize() * 7 + 4);
    m_opsView->horizontalHeader()->setSectionResizeMode(CriticalOpsModel::OpColumn, QHeaderView::Stretch);
    m_opsView->horizontalHeader()->setSectionResizeMode(CriticalOpsModel::IndexColumn, QHeaderView::ResizeToContents);
    m_steps->setToolTip(tr("Which ProfilerStep the critical path covers"));
    m_steps->hide();
    connect(m_steps, qOverload<int>(&QComboBox::currentIndexChanged), this, [this](int i) {
        if (m_updating || i < 0)
            return;
        const QPoint range = m_steps->itemData(i).toPoint();
        Q_EMIT stepRequested(range.x(), range.y());
    });
    auto jump = [this](const QModelIndex &index) {
        const QVariant t = index.data(TargetEventRole);
        if (t.isValid())
            Q_EMIT eventRequested(t.toLongLong());
    };
    connect(m_opsView, &QTableView::clicked, this, jump);
    connect(m_opsView, &QTableView::activated, this, jump);
    clear();
}

void CriticalPathPanel::clear()
{
    m_ops->setPath(nullptr, nullptr);
    m_breakdown->setPath(nullptr);
    m_summary->setText(tr("No critical path yet."));
    m_steps->hide();
}

void CriticalPathPanel::setBusy(const QString &text)
{
    m_summary->setText(text);
}

void CriticalPathPanel::setPath(std::shared_ptr<const CriticalPathResult> cp,
                                std::shared_ptr<const TimelineModel> model, const QStringList &steps, int first,
                                int last)
{
    m_ops->setPath(cp, model);
    m_breakdown->setPath(cp);
    if (!cp) {
        m_summary->setText(tr("The critical path was not computed."));
    } else if (!cp->success) {
        m_summary->setText(tr("No critical path: %1").arg(QString::fromStdString(cp->reason)));
    } else {
        QString window = cp->window.wholeTrace ? tr("whole trace")
                         : cp->window.instanceFirst == cp->window.instanceLast
                             ? tr("step %1").arg(cp->window.instanceFirst)
                             : tr("steps %1\u2013%2").arg(cp->window.instanceFirst).arg(cp->window.instanceLast);
        m_summary->setText(tr("Critical path %1 (%2): %3 critical ops, %4 path edges")
                               .arg(QString::fromStdString(formatDuration(cp->weightUs * 1000)), window)
                               .arg(cp->criticalEvents.size())
                               .arg(cp->pathEdges.size()));
    }
    m_updating = true;
    m_steps->clear();
    if (steps.size() > 1) {
        for (int i = 0; i < steps.size(); ++i)
            m_steps->addItem(steps[i], QPoint(i, i));
        m_steps->addItem(tr("All %1 steps").arg(steps.size()), QPoint(0, int(steps.size()) - 1));
        int current = 0;
        for (int i = 0; i < m_steps->count(); ++i)
            if (m_steps->itemData(i).toPoint() == QPoint(first, last))
                current = i;
        m_steps->setCurrentIndex(current);
        m_steps->show();
    } else {
        m_steps->hide();
    }
    m_updating = false;
    m_opsView->resizeColumnToContents(CriticalOpsModel::TimeColumn);
    m_opsView->resizeColumnToContents(CriticalOpsModel::ShareColumn);
}

} // namespace syncscope::ui
