// SPDX-License-Identifier: MIT
// File > Open pair...: two file pickers (either order: the loader tells the host
// ET from the Kineto trace by content), or a folder and a rank.
#pragma once

#include <QDialog>

#include <map>
#include <optional>

class QComboBox;
class QLineEdit;

namespace syncscope::ui {

// Trace files of a folder grouped by the rank in their names (visible for testing):
// "rank3", "rank_3", "rank-3", or a ".3.json" suffix. Files without one go under -1.
std::map<int, QStringList> tracesByRank(const QString &folder);

class OpenPairDialog : public QDialog
{
    Q_OBJECT
public:
    explicit OpenPairDialog(QWidget *parent = nullptr);
    QString firstFile() const;
    QString secondFile() const;
    std::optional<int> rank() const;
    QLineEdit *folderEdit() const { return m_folder; }
    QComboBox *rankBox() const { return m_rank; }
    // Lists the folder's traces by rank and fills the two files from the first rank.
    void setFolder(const QString &dir);

private:
    void chooseFolder();
    void rankChosen(int index);

    QLineEdit *m_first;
    QLineEdit *m_second;
    QLineEdit *m_folder;
    QComboBox *m_rank;
    std::map<int, QStringList> m_byRank;
};

} // namespace syncscope::ui
