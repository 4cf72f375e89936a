// SPDX-License-Identifier: MIT
// The folder + rank picker of File > Open pair.
#include "openpairdialog.h"
#include "testutil.h"

#include <QFile>
#include <QTest>

using namespace syncscope::ui;

class TestOpenPair : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void tracesByRankGroupsFiles();
};

void TestOpenPair::tracesByRankGroupsFiles()
{
    const QString dir = QString::fromStdString(testutil::tempDir());
    for (const char *name : {"et_rank0.json", "kineto_rank0.pt.trace.json.gz", "et_rank_1.json", "trace-rank-1.json",
                             "host.2.json", "dev.2.json.gz", "notes.json", "readme.txt"}) {
        QFile f(dir + QLatin1Char('/') + QLatin1String(name));
        QVERIFY(f.open(QIODevice::WriteOnly));
    }
    const auto byRank = tracesByRank(dir);
    QCOMPARE(byRank.size(), size_t(4));
    QCOMPARE(byRank.at(0).size(), 2);
    QCOMPARE(byRank.at(1).size(), 2);
    QCOMPARE(byRank.at(2).size(), 2);
    QCOMPARE(byRank.at(-1), QStringList{dir + QStringLiteral("/notes.json")});
    QVERIFY(byRank.at(1).contains(dir + QStringLiteral("/trace-rank-1.json")));
}

QTEST_MAIN(TestOpenPair)
#include "tst_openpair.moc"
