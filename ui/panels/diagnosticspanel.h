// SPDX-License-Identifier: MIT
// Errors, warnings and notes from loading and analysing, with batch mode's texts.
#pragma once

#include "diagnosticsmodel.h"

#include <QWidget>

class QTableView;

namespace syncscope::ui {

class DiagnosticsPanel : public QWidget
{
    Q_OBJECT
public:
    explicit DiagnosticsPanel(QWidget *parent = nullptr);
    DiagnosticsModel *model() const { return m_model; }

private:
    DiagnosticsModel *m_model;
    QTableView *m_view;
};

} // namespace syncscope::ui
