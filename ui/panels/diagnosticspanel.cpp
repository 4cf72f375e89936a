// SPDX-License-Identifier: MIT
#include "diagnosticspanel.h"

#include <QHeaderView>
#include <QTableView>
#include <QVBoxLayout>

namespace syncscope::ui {

DiagnosticsPanel::DiagnosticsPanel(QWidget *parent)
    : QWidget(parent)
    , m_model(new DiagnosticsModel(this))
    , m_view(new QTableView(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_view);
    m_view->setModel(m_model);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->verticalHeader()->hide();
    m_view->setWordWrap(false);
    m_view->horizontalHeader()->setSectionResizeMode(DiagnosticsModel::MessageColumn, QHeaderView::Stretch);
    m_view->horizontalHeader()->setSectionResizeMode(DiagnosticsModel::SeverityColumn, QHeaderView::ResizeToContents);
}

} // namespace syncscope::ui
