// SPDX-License-Identifier: MIT
// What the window shows before a trace is open: Open pair, the sample, recent pairs.
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

Q_SIGNALS:
    void openPairRequested();
    void sampleRequested();
    void recentRequested(const RecentPair &pair);

private:
    QListWidget *m_recent;
    QPushButton *m_sample;
    std::vector<RecentPair> m_pairs;
};

} // namespace syncscope::ui
