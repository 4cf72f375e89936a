// SPDX-License-Identifier: MIT
// The hang view (issue 29, ui/hang): flight recorder dumps written by tracegen's hang
// cases (known answers) into a temporary folder, opened through MainWindow::openJob.
#include "document/jobdocument.h"
#include "hang/hanggrid.h"
#include "hang/hangmodels.h"
#include "hang/hangwindow.h"
#include "hang/hanganalysis.h"
#include "hang/hangfolder.h"
#include "mainwindow.h"
#include "recentpairs.h"
#include "testutil.h"
#include "theme.h"
#include "tracegen.h"

#include <QCheckBox>
#include <QElapsedTimer>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <fstream>
#include <set>

using namespace syncscope;
using namespace syncscope::ui;

class TestHangView : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();
    void openJobOnDumpsGivesHangView();
    void rootSuspectIsTheCasesRoot_data();
    void rootSuspectIsTheCasesRoot();
    void gridCellsFollowTheData();
    void clickingSelectsRankGroupAndEntries();
    void framesOfTheSelectedEntry();
    void onlyGroupsWithAFinding();
    void emptyAbsentAndRefusedDumps();
    void zoomedOutTenThousandRanksShowsTheCulprit();
    void timelineJumpNeedsTraces();
    void cancelLeavesWindowUsable();
    void kinetoOnlyFolderStillOpensJob();
    void realDumpsAgreeWithTheReport_data();
    void realDumpsAgreeWithTheReport();
    void hangFolderIsRecent();
    void darkThemeDarkensTheQuietCells();

private:
    QString writeCase(const std::string &name);
    HangWindow *openHang(const QString &dir);
    const tracegen::HangCase &hangCase(const std::string &name) const;

    QTemporaryDir m_tmp;
    std::vector<tracegen::HangCase> m_cases;
    std::unique_ptr<MainWindow> m_w;
};

const tracegen::HangCase &TestHangView::hangCase(const std::string &name) const
{
    for (const auto &c : m_cases)
        if (c.name == name)
            return c;
    qFatal("no hang case %s", name.c_str());
}

QString TestHangView::writeCase(const std::string &name)
{
    const QString dir = m_tmp.path() + QLatin1Char('/') + QString::fromStdString(name);
    if (!QDir(dir).exists()) {
        QDir().mkpath(dir);
        std::string error;
        if (!tracegen::writeHangDumps(hangCase(name), dir.toStdString(), error))
            qFatal("%s", error.c_str());
    }
    return dir;
}

HangWindow *TestHangView::openHang(const QString &dir)
{
    m_w->openJob(dir);
    HangWindow *h = m_w->hangWindow();
    if (!h)
        return nullptr;
    QSignalSpy done(h, &HangWindow::loadFinished);
    if (!done.wait(60000) || !done.first().first().toBool())
        return nullptr;
    return h;
}

void TestHangView::initTestCase()
{
    QVERIFY(m_tmp.isValid());
    m_cases = tracegen::generateHangCases();
}

void TestHangView::init()
{
    m_w = std::make_unique<MainWindow>();
    m_w->setInteractive(false);
    m_w->setRecordRecent(false);
    m_w->resize(1200, 800);
    m_w->show();
}

void TestHangView::cleanup()
{
    m_w.reset(); // closes its hang windows too (children)
}

void TestHangView::openJobOnDumpsGivesHangView()
{
    HangWindow *h = openHang(writeCase("never_enters"));
    QVERIFY(h);
    QVERIFY(h->isVisible());
    QVERIFY(!m_w->isLoading());
    QVERIFY(!m_w->job()->isOpen()); // not the job timeline
    QCOMPARE(h->folder()->dumps.size(), size_t(8));
    QVERIFY2(h->summaryLabel()->text().startsWith(QStringLiteral("hang: pg 0 ")), qPrintable(h->summaryLabel()->text()));
    QVERIFY(h->summaryLabel()->text().contains(QStringLiteral("8 dump(s) read, 0 rank(s) without a dump")));
    // Nothing was open in the main window: the hang view took its place (issue 41: it opened in
    // front of an empty window), and the main window comes back when it closes.
    QVERIFY(!m_w->isVisible());
    QCOMPARE(h->geometry().size(), m_w->geometry().size());
    QPointer<HangWindow> gone(h);
    h->close();
    QTRY_VERIFY(gone.isNull());
    QVERIFY(m_w->isVisible());
}

void TestHangView::rootSuspectIsTheCasesRoot_data()
{
    QTest::addColumn<QString>("name");
    QTest::newRow("never_enters") << QStringLiteral("never_enters");
    QTest::newRow("nested_ep") << QStringLiteral("nested_ep");
}

void TestHangView::rootSuspectIsTheCasesRoot()
{
    QFETCH(QString, name);
    HangWindow *h = openHang(writeCase(name.toStdString()));
    QVERIFY(h);
    const tracegen::HangExpected &want = hangCase(name.toStdString()).expected.front();
    const HangSuspectsModel *m = h->suspectsModel();
    QCOMPARE(m->rowCount(), int(hangCase(name.toStdString()).expected.size()));
    auto cell = [m](int col) { return m->index(0, col).data().toString(); };
    QCOMPARE(cell(HangSuspectsModel::Role), QStringLiteral("root"));
    QCOMPARE(cell(HangSuspectsModel::Pg), QString::fromStdString(want.pgName));
    QCOMPARE(cell(HangSuspectsModel::Kind), QString::fromStdString(want.kind));
    QCOMPARE(cell(HangSuspectsModel::Seq), QString::number(want.seq));
    QCOMPARE(cell(HangSuspectsModel::Missing), hangRankRanges(want.missing));
    QCOMPARE(cell(HangSuspectsModel::Waiting), hangRankRanges(want.waiting));
    QCOMPARE(hangRankRanges({0, 1, 2, 3, 4, 6, 7}), QStringLiteral("0-4,6-7"));
}

void TestHangView::gridCellsFollowTheData()
{
    HangWindow *h = openHang(writeCase("never_enters"));
    QVERIFY(h);
    const HangGrid &g = *h->grid()->grid();
    QCOMPARE(g.ranks, int64_t(8));
    const int row = g.rowOfGroup(*h->analysis(), "0");
    QCOMPARE(row, 0);
    QCOMPARE(g.at(row, 5), HangCellState::Never); // the culprit
    for (int64_t r : hangCase("never_enters").expected.front().waiting) {
        // Waiting ranks: their last entry's state, as the dump has it.
        const std::string &state = h->dumpOf(r)->entries.back().state;
        const HangCellState want = state == "started" ? HangCellState::Started : HangCellState::Scheduled;
        QVERIFY(state == "started" || state == "scheduled");
        QCOMPARE(g.at(row, r), want);
    }
    // The painted grid shows the culprit's colour (8 ranks fill the width).
    h->grid()->grab();
    const QImage &img = h->grid()->renderedImage();
    const QPoint origin = h->grid()->cellsRect().topLeft();
    const QPoint p = h->grid()->cellCenter(row, 5);
    QCOMPARE(QColor(img.pixel(p - origin)), hangCellColor(HangCellState::Never));
    QVERIFY(h->grid()->cellCenter(row, 4).x() < p.x());
    // The cells fill the width: the last rank (waiting) at the right edge.
    QCOMPARE(QColor(img.pixel(img.width() - 2, p.y() - origin.y())), hangCellColor(HangCellState::Started));
    const QString tip = h->cellToolTip(row, 5);
    QVERIFY2(tip.startsWith(QStringLiteral("rank 5 \u00b7 pg 0 default_pg")), qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("last enqueued / started / completed seq: 6 / 6 / 6")), qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("never entered nccl:all_reduce seq 7 (missing, root cause)")), qPrintable(tip));
    QVERIFY(h->cellToolTip(row, 0).contains(QStringLiteral("waits in nccl:all_reduce seq 7")));

    HangWindow *n = openHang(writeCase("nested_ep"));
    QVERIFY(n && n != h);
    const HangGrid &ng = *n->grid()->grid();
    const int ep = ng.rowOfGroup(*n->analysis(), "9");
    QCOMPARE(ep, 0); // the root's group first
    QCOMPARE(ng.at(ep, 12), HangCellState::Never);
    QCOMPARE(ng.at(ep, 8), HangCellState::Started);
    QCOMPARE(ng.at(ep, 0), HangCellState::NotMember);
    QCOMPARE(ng.at(ng.rowOfGroup(*n->analysis(), "0"), 3), HangCellState::Idle); // default_pg: nobody used it
    QVERIFY(!ng.outlines.empty() && ng.outlines.back().root && ng.outlines.back().row == ep);
}

void TestHangView::clickingSelectsRankGroupAndEntries()
{
    HangWindow *h = openHang(writeCase("nested_ep"));
    QVERIFY(h);
    QVERIFY(QTest::qWaitForWindowExposed(h));
    const auto &a = *h->analysis();
    // The root is selected on load: pg 9, its missing rank 12.
    QCOMPARE(h->grid()->selectedRank(), int64_t(12));
    // Click suspect 1 (pg 13, missing 8 and 12): its first missing rank, its group.
    QTableView *t = h->suspectsTable();
    QCOMPARE(t->model()->index(1, HangSuspectsModel::Pg).data().toString(), QStringLiteral("13"));
    QTest::mouseClick(t->viewport(), Qt::LeftButton, {}, t->visualRect(t->model()->index(1, 1)).center());
    QCOMPARE(h->grid()->selectedRank(), int64_t(8));
    QCOMPARE(h->grid()->selectedRow(), h->grid()->grid()->rowOfGroup(a, "13"));
    HangEntriesModel *em = h->entriesModel();
    QVERIFY(em->dump() && em->dump()->rank == 8);
    QVERIFY(h->entriesLabel()->text().startsWith(QStringLiteral("Rank 8:")));
    // Rank 8 never entered pg 13's seq 3: its last entry in pg 13 is highlighted.
    QVERIFY(em->highlighted() >= 0);
    const FrEntry &last13 = em->dump()->entries[size_t(em->highlighted())];
    QCOMPARE(last13.pgName, std::string("13"));
    QVERIFY(last13.collectiveSeqId < 3);
    QCOMPARE(h->entriesTable()->currentIndex().row(), em->highlighted());

    // Click the grid cell of rank 8 in pg 9 (where it waits): rank 8's entry for pg 9 seq 3.
    const int ep = h->grid()->grid()->rowOfGroup(a, "9");
    h->grid()->ensureVisible(ep, 8);
    QTest::mouseClick(h->grid(), Qt::LeftButton, {}, h->grid()->cellCenter(ep, 8));
    QCOMPARE(h->grid()->selectedRow(), ep);
    QCOMPARE(h->grid()->selectedRank(), int64_t(8));
    QCOMPARE(t->currentIndex().row(), 0); // pg 9's suspect
    const FrEntry &stuck = em->dump()->entries[size_t(em->highlighted())];
    QCOMPARE(stuck.pgName, std::string("9"));
    QCOMPARE(stuck.collectiveSeqId, int64_t(3));
    QCOMPARE(stuck.state, std::string("started"));

    // A rank without a dump says so.
    h->selectCell(ep, 99);
    QVERIFY(h->entriesLabel()->text().contains(QStringLiteral("no dump")));
    QCOMPARE(em->rowCount(), 0);
}

// The JSON form carries no stacks (dump_json); add them to rank 8's entries as torch's
// pickle has them ({name, filename, line}), except its first entry.
void TestHangView::framesOfTheSelectedEntry()
{
    const QString dir = m_tmp.path() + QStringLiteral("/frames");
    QDir().mkpath(dir);
    std::string error;
    QVERIFY(tracegen::writeHangDumps(hangCase("nested_ep"), dir.toStdString(), error));
    const std::string path = dir.toStdString() + "/rank8.json";
    nlohmann::json doc = nlohmann::json::parse(std::ifstream(path));
    auto &entries = doc["entries"];
    for (size_t i = 1; i < entries.size(); ++i)
        entries[i]["frames"] = nlohmann::json::array({{{"name", "forward"}, {"filename", "model.py"}, {"line", 42}},
                                                      {{"name", "train_step"}, {"filename", "train.py"}, {"line", 117}}});
    std::ofstream(path) << doc.dump();
    HangWindow *h = openHang(dir);
    QVERIFY(h);
    // The folder is read without stacks (most of the memory at 10,000 ranks): the shown
    // rank's dump is read again for them.
    for (const FrDump &d : h->folder()->dumps)
        QVERIFY(!d.frames && std::all_of(d.entries.begin(), d.entries.end(), [](const FrEntry &e) { return e.frames.empty(); }));
    h->selectCell(h->grid()->grid()->rowOfGroup(*h->analysis(), "9"), 8);
    QListWidget *frames = h->framesList();
    QCOMPARE(frames->count(), 2);
    QCOMPARE(frames->item(0)->text(), QStringLiteral("forward (model.py:42)"));
    QCOMPARE(frames->item(1)->text(), QStringLiteral("train_step (train.py:117)"));
    // The first entry has none: said so.
    QTableView *t = h->entriesTable();
    QTest::mouseClick(t->viewport(), Qt::LeftButton, {}, t->visualRect(t->model()->index(0, 0)).center());
    QCOMPARE(t->currentIndex().row(), 0);
    QCOMPARE(frames->count(), 1);
    QVERIFY(frames->item(0)->text().startsWith(QStringLiteral("(no stack recorded")));
}

// Rank 2's dump is empty, rank 5 has none, and a refused pickle (GLOBAL) lies beside them.
void TestHangView::emptyAbsentAndRefusedDumps()
{
    const QString dir = writeCase("empty_and_absent");
    QFile bad(dir + QStringLiteral("/evil.pkl"));
    QVERIFY(bad.open(QIODevice::WriteOnly));
    bad.write(QByteArray("\x80\x02" "cposix\nsystem\n", 16));
    bad.close();
    HangWindow *h = openHang(dir);
    QVERIFY(h);
    QVERIFY2(h->summaryLabel()->text().contains(QStringLiteral("1 file(s) refused")), qPrintable(h->summaryLabel()->text()));
    QVERIFY(!h->diagnosticsList()->findItems(QStringLiteral("hang.dump_unreadable"), Qt::MatchContains).isEmpty());
    const HangGrid &g = *h->grid()->grid();
    const int pg1 = g.rowOfGroup(*h->analysis(), "1"), pg2 = g.rowOfGroup(*h->analysis(), "2");
    QCOMPARE(g.at(pg1, 2), HangCellState::EmptyDump);
    QCOMPARE(g.at(pg2, 5), HangCellState::NoDump);
    h->selectSuspect(0); // empty_dump, rank 2
    QCOMPARE(h->grid()->selectedRank(), int64_t(2));
    QVERIFY2(h->entriesLabel()->text().contains(QStringLiteral("is empty")), qPrintable(h->entriesLabel()->text()));
    h->selectSuspect(1); // no_dump, rank 5
    QCOMPARE(h->grid()->selectedRank(), int64_t(5));
    QVERIFY(h->entriesLabel()->text().contains(QStringLiteral("no dump")));
}

void TestHangView::onlyGroupsWithAFinding()
{
    HangWindow *h = openHang(writeCase("nested_ep"));
    QVERIFY(h);
    QCOMPARE(h->grid()->grid()->rows.size(), h->analysis()->groups.size()); // 17 groups
    h->onlyFindingsBox()->setChecked(true);
    QCOMPARE(h->grid()->grid()->rows.size(), size_t(6)); // pg 9, 13, 1-4
    h->selectSuspect(0);
    QCOMPARE(h->grid()->selectedRow(), 0);
    h->onlyFindingsBox()->setChecked(false);
    QCOMPARE(h->grid()->grid()->rows.size(), size_t(17));
}

// 10,000 ranks x 1,251 groups (TP groups of 8 and the world): one rank never enters its TP
// group's last all_reduce. Fitted into ~1,000 px, each pixel covers ~10 ranks and still shows
// the culprit's "never" (the most alarming cell wins), with the root's outline around it.
void TestHangView::zoomedOutTenThousandRanksShowsTheCulprit()
{
    const tracegen::HangCase c = tracegen::generateHangScale(10000, 8);
    const HangAnalysis a = analyzeHang(c.dumps, c.missingDumps, c.worldSize);
    QElapsedTimer timer;
    timer.start();
    auto grid = buildHangGrid(a, c.worldSize, false);
    const qint64 buildMs = timer.elapsed();
    QCOMPARE(grid->rows.size(), size_t(1251));
    QCOMPARE(grid->ranks, int64_t(10000));
    const int64_t culprit = c.expected.front().missing.front();
    const int row = grid->rowOfGroup(a, c.expected.front().pgName);
    QCOMPARE(row, 0);
    QCOMPARE(grid->at(row, culprit), HangCellState::Never);
    HangGridView view;
    view.resize(1000, 600);
    view.setGrid(grid);
    QStringList names;
    for (size_t r = 0; r < grid->rows.size(); ++r)
        names << QStringLiteral("pg %1").arg(r);
    view.setRowLabels(names);
    timer.restart();
    view.grab();
    const qint64 paintMs = timer.elapsed();
    // Fitted, a row is under a pixel: every k-th group is named, the root's (row 0) always, no
    // two names closer than the small font (issue 41: no names at Fit).
    const int rowsShown = std::min<int>(int(grid->rows.size()), view.cellsRect().height());
    QVERIFY2(view.labelsDrawn() > 10 && view.labelsDrawn() <= view.cellsRect().height() / 8 + 1,
             qPrintable(QString::number(view.labelsDrawn())));
    QVERIFY(rowsShown > 0);
    qInfo("10,000 x 1,251 cells: grid built in %lld ms, painted (fitted) in %lld ms", buildMs, paintMs);
    const QImage &img = view.renderedImage();
    const QPoint origin = view.cellsRect().topLeft();
    const QPoint p = view.cellCenter(row, culprit) - origin;
    QCOMPARE(QColor(img.pixel(p.x(), 0)), hangCellColor(HangCellState::Never));
    const QRgb never = hangCellColor(HangCellState::Never).rgb();
    for (int y = 0; y < img.height(); ++y) // and nowhere else
        for (int x = 0; x < img.width(); ++x)
            if (img.pixel(x, y) == never && (std::abs(x - p.x()) > 1 || y > 1))
                QFAIL(qPrintable(QStringLiteral("never at %1,%2").arg(x).arg(y)));
    int row0 = -1;
    int64_t rank = -1;
    QVERIFY(view.cellAt(QPointF(p + origin), row0, rank));
    QCOMPARE(row0, row);
    QVERIFY(std::abs(rank - culprit) < 11);
}

void TestHangView::timelineJumpNeedsTraces()
{
    const QString dir = m_tmp.path() + QStringLiteral("/withjob");
    QDir().mkpath(dir);
    std::string error;
    QVERIFY(tracegen::writeHangDumps(hangCase("never_enters"), dir.toStdString(), error));
    HangWindow *h = openHang(dir);
    QVERIFY(h);
    QCOMPARE(h->traceRanks(), 0);
    QVERIFY(!h->timelineButton()->isEnabled());
    QVERIFY(h->timelineButton()->toolTip().contains(QStringLiteral("No Kineto")));

    tracegen::JobOptions o; // the same job's Kineto traces beside the dumps
    o.dir = dir.toStdString();
    o.ranks = 4;
    o.steps = 3;
    o.layers = 2;
    o.gzip = false;
    tracegen::generateJob(o);
    h->reload();
    QSignalSpy reloaded(h, &HangWindow::loadFinished);
    QVERIFY(reloaded.wait(60000));
    QCOMPARE(h->traceRanks(), 4);
    QVERIFY(h->timelineButton()->isEnabled());
    QCOMPARE(h->suspectsModel()->rowCount(), 1); // the traces change nothing in the analysis

    QSignalSpy jobDone(m_w.get(), &MainWindow::loadFinished);
    QTest::mouseClick(h->timelineButton(), Qt::LeftButton);
    QVERIFY(jobDone.wait(120000));
    QVERIFY(jobDone.first().first().toBool());
    QVERIFY(m_w->job()->data());
    QCOMPARE(m_w->job()->data()->ranks.size(), size_t(4));
    const auto steps = m_w->job()->steps();
    QVERIFY(!steps.empty());
    QTRY_COMPARE_WITH_TIMEOUT(m_w->job()->currentStep(), steps.back(), 60000);
}

void TestHangView::cancelLeavesWindowUsable()
{
    const QString dir = m_tmp.path() + QStringLiteral("/scale");
    QDir().mkpath(dir);
    std::string error;
    QVERIFY(tracegen::writeHangDumps(tracegen::generateHangScale(512, 40), dir.toStdString(), error));
    m_w->openJob(dir);
    HangWindow *h = m_w->hangWindow();
    QVERIFY(h);
    QVERIFY(h->busy());
    QVERIFY(h->cancelButton()->isVisible());
    QSignalSpy done(h, &HangWindow::loadFinished);
    QTest::mouseClick(h->cancelButton(), Qt::LeftButton);
    QCOMPARE(done.count(), 1);
    QCOMPARE(done.first().first().toBool(), false);
    QVERIFY(!h->busy());
    QVERIFY(h->summaryLabel()->text().startsWith(QStringLiteral("Cancelled")));
    QVERIFY(h->reloadButton()->isEnabled());
    QTest::qWait(200); // a late result of the cancelled read changes nothing
    QCOMPARE(done.count(), 1);
    QVERIFY(!h->analysis());
    // Still usable: the same window reads another folder.
    h->open(writeCase("never_enters"));
    QVERIFY(done.wait(60000));
    QCOMPARE(done.last().first().toBool(), true);
    QCOMPARE(h->suspectsModel()->rowCount(), 1);
}

void TestHangView::kinetoOnlyFolderStillOpensJob()
{
    const QString dir = m_tmp.path() + QStringLiteral("/kineto");
    tracegen::JobOptions o;
    o.dir = dir.toStdString();
    o.ranks = 2;
    o.steps = 2;
    o.layers = 2;
    tracegen::generateJob(o);
    QSignalSpy done(m_w.get(), &MainWindow::loadFinished);
    m_w->openJob(dir);
    QVERIFY(!m_w->hangWindow());
    QVERIFY(m_w->isLoading());
    QVERIFY(done.wait(120000));
    QVERIFY(done.first().first().toBool());
    QCOMPARE(m_w->job()->data()->ranks.size(), size_t(2));
}

// Real active-only dumps (tests/data/real/hang, issue 39): the headline is the batch
// report's first line, the first row is the root, the selected rank is the one that never
// arrived, and its cell has the "never" colour.
void TestHangView::realDumpsAgreeWithTheReport_data()
{
    QTest::addColumn<QString>("dir");
    QTest::addColumn<QString>("pg");
    QTest::addColumn<qint64>("rank");
    QTest::newRow("gpu_error_1st") << QStringLiteral("gpu_error_1st") << QStringLiteral("74") << qint64(12);
    QTest::newRow("lock_gil_1st") << QStringLiteral("lock_gil_1st") << QStringLiteral("72") << qint64(9);
}

void TestHangView::realDumpsAgreeWithTheReport()
{
    QFETCH(QString, dir);
    QFETCH(QString, pg);
    QFETCH(qint64, rank);
    const std::string path = testutil::fixture("real/hang/nvrx_16rank/" + dir.toStdString());
    HangWindow *h = openHang(QString::fromStdString(path));
    QVERIFY(h);
    HangFolder folder;
    std::string error;
    QVERIFY2(readHangFolder(path, folder, error), error.c_str());
    const std::string report = hangSummaryText(analyzeHang(folder.dumps, folder.missing, folder.worldSize));
    QCOMPARE(h->summaryLabel()->text().section(QLatin1Char('\n'), 0, 0),
             QString::fromStdString(report.substr(0, report.find('\n'))));
    const HangSuspectsModel *m = h->suspectsModel();
    QCOMPARE(m->index(0, HangSuspectsModel::Role).data().toString(), QStringLiteral("root"));
    QCOMPARE(m->index(0, HangSuspectsModel::Pg).data().toString(), pg);
    QCOMPARE(h->grid()->selectedRank(), int64_t(rank));
    // ~100 groups: the grid opens on the groups with a finding, one row each, labelled.
    QVERIFY(h->analysis()->groups.size() > 32);
    QVERIFY(h->onlyFindingsBox()->isChecked());
    std::set<std::string> withFinding;
    for (const HangSuspect &s : h->analysis()->suspects)
        withFinding.insert(s.pgName);
    QCOMPARE(h->grid()->grid()->rows.size(), withFinding.size());
    const HangGrid &g = *h->grid()->grid();
    const int row = g.rowOfGroup(*h->analysis(), pg.toStdString());
    QCOMPARE(row, 0); // the root's group first
    QCOMPARE(h->grid()->selectedRow(), row);
    QCOMPARE(g.at(row, rank), HangCellState::Never);
    h->grid()->grab();
    const QImage &img = h->grid()->renderedImage();
    QCOMPARE(QColor(img.pixel(h->grid()->cellCenter(row, rank) - h->grid()->cellsRect().topLeft())),
             hangCellColor(HangCellState::Never));
}

// Issue 41: a dump folder read is in Recent, and its entry opens the hang view again.
void TestHangView::hangFolderIsRecent()
{
    QStandardPaths::setTestModeEnabled(true); // the list goes to a test location
    clearRecentPairs();
    m_w->setRecordRecent(true);
    const QString dir = writeCase("never_enters");
    QVERIFY(openHang(dir));
    const auto recent = recentPairs();
    QVERIFY(!recent.empty());
    QVERIFY(recent.front().host.isEmpty());
    QCOMPARE(recent.front().device, dir);
    HangWindow *first = m_w->hangWindow();
    m_w->openFiles(recent.front().device); // what Open Recent and the start page do
    HangWindow *again = m_w->hangWindow();
    QVERIFY(again && again != first);
    QSignalSpy done(again, &HangWindow::loadFinished);
    QVERIFY(done.wait(60000) && done.first().first().toBool());
    QCOMPARE(again->analysis()->suspects.front().pgName, std::string("0"));
    m_w->setRecordRecent(false);
    clearRecentPairs();
}

// Issue 41, item 10: the grid kept its light cells in the dark palette. The quiet states (not a
// member, idle) recede into the dark background; the alarming ones keep the legend's colour.
void TestHangView::darkThemeDarkensTheQuietCells()
{
    HangWindow *n = openHang(writeCase("nested_ep"));
    QVERIFY(n);
    const HangGrid &g = *n->grid()->grid();
    const int ep = g.rowOfGroup(*n->analysis(), "9");
    QCOMPARE(g.at(ep, 0), HangCellState::NotMember);
    const QPoint origin = n->grid()->cellsRect().topLeft();
    auto cell = [&](int64_t rank) {
        n->grid()->grab();
        return QColor(n->grid()->renderedImage().pixel(n->grid()->cellCenter(ep, rank) - origin));
    };
    applyTheme(ThemeChoice::Light, false);
    QCOMPARE(cell(0), hangCellColor(HangCellState::NotMember, false));
    applyTheme(ThemeChoice::Dark, false);
    QCoreApplication::processEvents();
    const QColor dark = cell(0);
    const QColor never = cell(12);
    applyTheme(ThemeChoice::System, false);
    QCOMPARE(dark, hangCellColor(HangCellState::NotMember, true));
    QVERIFY(dark.lightness() < 80);
    QCOMPARE(never, hangCellColor(HangCellState::Never, true));
    QCOMPARE(hangCellColor(HangCellState::Never, true), hangCellColor(HangCellState::Never, false));
}

QTEST_MAIN(TestHangView)
#include "tst_hangview.moc"
