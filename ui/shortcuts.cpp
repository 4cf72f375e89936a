// SPDX-License-Identifier: MIT
#include "shortcuts.h"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QTableWidget>
#include <QVBoxLayout>

namespace syncscope::ui {

const std::vector<ShortcutEntry> &shortcutTable()
{
    static const std::vector<ShortcutEntry> table = {
        // As Perfetto and Nsight Systems; View > Wheel zooms (old mapping) swaps the wheel back.
        {"W / S, Ctrl + wheel", "Zoom in / out (at the mouse pointer)"},
        {"A / D, \u2190 / \u2192, Shift + wheel, drag", "Pan earlier / later (a sideways wheel or swipe too)"},
        {"Mouse wheel, \u2191 / \u2193, PgUp / PgDn", "Scroll the lanes"},
        {"View \u25b8 Wheel zooms (old mapping)", "The wheel zooms and Shift + wheel scrolls the lanes instead"},
        {"0", "Fit where the events are (again: the whole trace)"},
        {"Home", "The same as 0"},
        {"F", "Fit the measured span, or the selected op"},
        {"Double-click an op", "Select it and fit it"},
        {"Shift + drag", "Measure a span (its duration is shown)"},
        {"Alt + \u2190 / Backspace", "Zoom back"},
        {"Alt + \u2192", "Zoom forward"},
        {"Click an op", "Select it (details, edges)"},
        {"Click a lane label", "Collapse / expand the lane"},
        {"Esc", "Clear the selection and the measurement"},
        {"Ctrl + F", "Search ops"},
        {"Enter / F3", "Next match"},
        {"Shift + Enter / Shift + F3", "Previous match"},
        {"Ctrl + O", "Open a trace pair"},
        {"Ctrl + Shift + O", "Open a job (a folder of ranks)"},
        {"Ctrl + E", "Export the ET+ JSON"},
        {"Ctrl + Q", "Quit"},
        {"F1", "This list"},
    };
    return table;
}

ShortcutsDialog::ShortcutsDialog(QWidget *parent)
    : QDialog(parent)
{
    setWindowTitle(tr("Keyboard shortcuts"));
    const auto &table = shortcutTable();
    auto *view = new QTableWidget(static_cast<int>(table.size()), 2, this);
    view->setHorizontalHeaderLabels({tr("Keys"), tr("Action")});
    for (int i = 0; i < static_cast<int>(table.size()); ++i) {
        view->setItem(i, 0, new QTableWidgetItem(QString::fromUtf8(table[static_cast<size_t>(i)].keys)));
        view->setItem(i, 1, new QTableWidgetItem(QString::fromUtf8(table[static_cast<size_t>(i)].action)));
    }
    view->verticalHeader()->hide();
    view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    view->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    view->horizontalHeader()->setStretchLastSection(true);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(view);
    layout->addWidget(buttons);
    resize(560, 560);
}

} // namespace syncscope::ui
