// SPDX-License-Identifier: MIT
#include "recentpairs.h"

#include <QFileInfo>
#include <QObject>
#include <QSettings>

namespace syncscope::ui {

namespace {
const char *kKey = "recent/pairs";
constexpr int kMax = 10;
} // namespace

QString RecentPair::label() const
{
    const QString d = QFileInfo(device).fileName();
    if (host.isEmpty() && QFileInfo(device).isDir()) // a job: a folder of ranks
        return QObject::tr("%1 (job)").arg(d);
    return host.isEmpty() ? d : QFileInfo(host).fileName() + QStringLiteral(" + ") + d;
}

std::vector<RecentPair> recentPairs()
{
    std::vector<RecentPair> out;
    const QStringList list = QSettings().value(QLatin1String(kKey)).toStringList();
    for (const QString &entry : list) {
        const QStringList parts = entry.split(QLatin1Char('\t'));
        if (parts.size() == 2 && !parts[1].isEmpty())
            out.push_back({parts[0], parts[1]});
    }
    return out;
}

void addRecentPair(const RecentPair &given)
{
    const RecentPair pair{given.host.isEmpty() ? QString() : QFileInfo(given.host).absoluteFilePath(),
                          QFileInfo(given.device).absoluteFilePath()};
    std::vector<RecentPair> list = recentPairs();
    std::erase(list, pair);
    list.insert(list.begin(), pair);
    if (list.size() > kMax)
        list.resize(kMax);
    QStringList out;
    for (const auto &p : list)
        out << p.host + QLatin1Char('\t') + p.device;
    QSettings().setValue(QLatin1String(kKey), out);
}

void clearRecentPairs()
{
    QSettings().remove(QLatin1String(kKey));
}

} // namespace syncscope::ui
