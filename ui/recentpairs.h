// SPDX-License-Identifier: MIT
// The list behind File > Open Recent and the start page (QSettings).
#pragma once

#include <QString>
#include <QStringList>

#include <vector>

namespace syncscope::ui {

struct RecentPair {
    QString host;   // may be empty (device trace alone)
    QString device; // a folder: a job (File > Open job...)
    bool operator==(const RecentPair &o) const { return host == o.host && device == o.device; }
    QString label() const; // "sample.et.json.gz + sample.kineto.json.gz"
};

std::vector<RecentPair> recentPairs();
void addRecentPair(const RecentPair &pair); // most recent first, at most 10
void clearRecentPairs();

} // namespace syncscope::ui
