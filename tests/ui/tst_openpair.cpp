// SPDX-License-Identifier: MIT
// The folder + rank picker of File > Open pair.
#include "openpairdialog.h"
#include "testutil.h"

#include <QComboBox>
#include <QFile>
#include <QLineEdit>
#include <QTest>

using namespace syncscope::ui;

class TestOpenPair : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void tracesByRankGroupsFiles();
    void folderFieldCanBeTyped();
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

// Issue 13: the folder field was read-only; typing a folder and pressing Return lists its ranks.
void TestOpenPair::folderFieldCanBeTyped()
{
    const QString dir = QString::fromStdString(testutil::tempDir());
    for (const char *name : {"et_rank0.json", "kineto_rank0.json"}) {
        QFile f(dir + QLatin1Char('/') + QLatin1String(name));
        QVERIFY(f.open(QIODevice::WriteOnly));
    }
    OpenPairDialog dialog;
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    QLineEdit *folder = dialog.folderEdit();
    QVERIFY(!folder->isReadOnly());
    folder->setFocus();
    QTest::keyClicks(folder, dir);
    QCOMPARE(folder->text(), dir);
    QTest::keyClick(folder, Qt::Key_Return);
    QVERIFY(dialog.rankBox()->isEnabled());
    QCOMPARE(dialog.rankBox()->count(), 1);
    QCOMPARE(dialog.rank(), std::optional<int>(0));
    QCOMPARE(dialog.firstFile(), dir + QStringLiteral("/et_rank0.json"));
    QCOMPARE(dialog.secondFile(), dir + QStringLiteral("/kineto_rank0.json"));
}

QTEST_MAIN(TestOpenPair)
#include "tst_openpair.moc"
