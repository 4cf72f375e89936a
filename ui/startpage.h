// SPDX-License-Identifier: MIT
// What the window shows before a trace is open: Open pair, Open folder (a job or flight
// recorder dumps), the sample, recent pairs and folders.
#pragma once

#include "recentpairs.h"

#include <QWidget>

class QListWidget;
class QPushButton;

namespace syncscope::ui {

class StartPage : public QWidget
{
    Q_OBJECT
public:
    explicit StartPage(QWidget *parent = nullptr);
    void refresh(); // re-reads the recent pairs
    void setSampleAvailable(bool available);
    QListWidget *recentList() const { return m_recent; }
    QPushButton *openFolderButton() const { return m_folder; }

Q_SIGNALS:
    void openPairRequested();
    void openFolderRequested(); // a job's folder, or one of flight recorder dumps
    void sampleRequested();
    void recentRequested(const RecentPair &pair);

private:
    QListWidget *m_recent;
    QPushButton *m_sample;
    QPushButton *m_folder;
    std::vector<RecentPair> m_pairs;
};

} // namespace syncscope::ui
