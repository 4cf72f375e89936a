// SPDX-License-Identifier: MIT
// Shows the selected op's details; clicking a row that names another op jumps there.
#pragma once

#include "detailsmodel.h"

#include <QWidget>

class QLabel;
class QTreeView;

namespace syncscope::ui {

class DetailsPanel : public QWidget
{
    Q_OBJECT
public:
    explicit DetailsPanel(QWidget *parent = nullptr);
    DetailsModel *model() const { return m_model; }
    QTreeView *view() const { return m_view; }
    QLabel *hint() const { return m_hint; } // shown while nothing is selected

Q_SIGNALS:
    void eventRequested(qint64 event);

private:
    DetailsModel *m_model;
    QTreeView *m_view;
    QLabel *m_hint;
};

} // namespace syncscope::ui
