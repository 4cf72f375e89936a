// SPDX-License-Identifier: MIT
// Shows the selected op's details; clicking a row that names another op jumps there.
#pragma once

#include "detailsmodel.h"

#include <QWidget>

class QTreeView;

namespace syncscope::ui {

class DetailsPanel : public QWidget
{
    Q_OBJECT
public:
    explicit DetailsPanel(QWidget *parent = nullptr);
    DetailsModel *model() const { return m_model; }
    QTreeView *view() const { return m_view; }

Q_SIGNALS:
    void eventRequested(qint64 event);

private:
    DetailsModel *m_model;
    QTreeView *m_view;
};

} // namespace syncscope::ui
