// SPDX-License-Identifier: MIT
#include "detailspanel.h"

#include "copyrows.h"

#include <QHeaderView>
#include <QLabel>
#include <QTreeView>
#include <QVBoxLayout>

namespace syncscope::ui {

DetailsPanel::DetailsPanel(QWidget *parent)
    : QWidget(parent)
    , m_model(new DetailsModel(this))
    , m_view(new QTreeView(this))
    , m_hint(new QLabel(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_view);
    // What goes here, while nothing is selected (issue 41: an empty table said nothing).
    m_hint->setObjectName(QStringLiteral("detailsHint"));
    m_hint->setWordWrap(true);
    m_hint->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_hint->setMargin(8);
    m_hint->setForegroundRole(QPalette::PlaceholderText);
    m_hint->setText(tr("Click an op, a kernel or a sync on the timeline, or a row of a table, to see it here: its "
                       "times, ids and arguments, what launched it or what it waited for, and whether it is on "
                       "the critical path."));
    layout->addWidget(m_hint, 1);
    auto showHint = [this] {
        const bool empty = m_model->rowCount() == 0;
        m_hint->setVisible(empty);
        m_view->setVisible(!empty);
    };
    connect(m_model, &QAbstractItemModel::modelReset, this, showHint);
    showHint();
    m_view->setModel(m_model);
    installCopyRows(m_view);
    m_view->setUniformRowHeights(true);
    m_view->setAlternatingRowColors(true);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->header()->setSectionResizeMode(0, QHeaderView::Interactive);
    m_view->header()->resizeSection(0, fontMetrics().horizontalAdvance(QStringLiteral("Record function id")) + 48);
    m_view->header()->setStretchLastSection(true);
    m_view->setMouseTracking(true);
    connect(m_model, &QAbstractItemModel::modelReset, this, [this] {
        // Everything open except long lists (attributes, many GPU activities).
        for (int r = 0; r < m_model->rowCount(); ++r) {
            const QModelIndex sec = m_model->index(r, 0);
            m_view->setExpanded(sec, true);
            for (int c = 0; c < m_model->rowCount(sec); ++c) {
                const QModelIndex sub = m_model->index(c, 0, sec);
                m_view->setExpanded(sub, m_model->rowCount(sub) <= 8);
            }
        }
    });
    auto jump = [this](const QModelIndex &index) {
        const QVariant t = index.siblingAtColumn(0).data(TargetEventRole);
        if (t.isValid())
            Q_EMIT eventRequested(t.toLongLong());
    };
    connect(m_view, &QTreeView::clicked, this, jump);
    connect(m_view, &QTreeView::activated, this, jump);
}

} // namespace syncscope::ui
