// SPDX-License-Identifier: MIT
// Every keyboard and mouse binding, in one table: Help > Keyboard shortcuts shows it.
#pragma once

#include <QDialog>
#include <QString>

#include <vector>

namespace syncscope::ui {

struct ShortcutEntry {
    const char *keys;
    const char *action;
};
const std::vector<ShortcutEntry> &shortcutTable();

class ShortcutsDialog : public QDialog
{
    Q_OBJECT
public:
    explicit ShortcutsDialog(QWidget *parent = nullptr);
};

} // namespace syncscope::ui
