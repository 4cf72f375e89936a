// SPDX-License-Identifier: MIT
// The job panels (rank table, collectives table, cross-rank search) and the job
// export, on the real 8-rank DLRM job and on generated jobs whose straggler is
// known. The figures are checked against the batch job summary of the same job.
#include "export/chakrareader.h"
#include "job/jobbuild.h"
#include "job/jobdocument.h"
#include "job/jobexport.h"
#include "model/kinetotrace.h"
#include "panels/collectivespanel.h"
#include "panels/criticalpathmodel.h"
#include "panels/jobsearchpanel.h"
#include "panels/ranktablepanel.h"
#include "panels/treemodel.h"
#include "session/exitcodes.h"
#include "testutil.h"
#include "timeline/timeformat.h"
#include "tracegen.h"

#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTableWidget>
#include <QtTest>

#include <cmath>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

using namespace syncscope;
using namespace syncscope::ui;
namespace fs = std::filesystem;

class TestJobPanels : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void rankTableMatchesBatchSummary();
    void rankTableFacts();
    void rankTableSortsNumerically();
    void rankTableActivation();
    void collectivesTable();
    void collectivesActivationAndFilter();
    void collectivesLatenessColumns();
    void rankTableDelayCosts();
    void rootCausesOfTheSelectedCollective();
    void propagatedLatenessSaidAsSuch();
    void crossRankSearch();
    void crossRankSearchEmitsRankAndEvent();
    void generatedJobStragglerAndFailedRank();
    void exportEveryRank();
    void exportNeverOverAnInput();
    void exportRejectsBadOptions();

private:
    std::shared_ptr<const JobData> m_dlrm;
};

namespace {

struct SummaryRow {
    QString exit, step, crit, bound, wait, caused, link;
};

// The per-rank table of formatJobSummary, by rank (split on blanks: the bound-by
// column holds one, the link column ends in " %").
std::map<int64_t, SummaryRow> batchTable(const JobData &job)
{
    const std::vector<RankSummary> ranks = jobRankSummaries(job);
    JobReportInput in;
    in.discovery = &job.discovery;
    in.ranks = &ranks;
    in.analysis = &job.analysis;
    in.window = &job.window;
    const QStringList lines = QString::fromStdString(formatJobSummary(in)).split(QLatin1Char('\n'));
    std::map<int64_t, SummaryRow> rows;
    bool inTable = false;
    for (const QString &line : lines) {
        if (line.contains(QLatin1String("crit path ms"))) {
            inTable = true;
            continue;
        }
        if (!inTable)
            continue;
        if (!line.startsWith(QLatin1Char(' ')))
            break;
        QStringList t = line.split(QLatin1Char(' '), Qt::SkipEmptyParts);
        bool isRank = false;
        const int64_t rank = t.value(0).toLongLong(&isRank);
        if (!isRank || t.size() < 8)
            break;
        SummaryRow r;
        r.exit = t[1];
        r.step = t[2];
        r.crit = t[3];
        if (t.last() == QLatin1String("%")) {
            t.removeLast();
            r.link = t.takeLast();
        } else {
            r.link = t.takeLast();
        }
        r.caused = t.takeLast();
        r.wait = t.takeLast();
        r.bound = t.mid(4).join(QLatin1Char(' '));
        rows[rank] = r;
    }
    return rows;
}

// A µs figure as formatJobSummary prints it: ms with two decimals, "-" when unknown.
QString ms(const QVariant &us)
{
    return us.toDouble() < 0 ? QStringLiteral("-") : QString::number(us.toDouble() / 1e3, 'f', 2);
}

// The batch summary prints ms with printf (half to even on the binary value), Qt rounds
// half up: 11.125 is "11.12" there and "11.13" here. Equal within the last digit's half.
bool sameMs(const QVariant &us, const QString &batchText)
{
    return us.toDouble() < 0 ? batchText == QStringLiteral("-")
                             : std::abs(us.toDouble() / 1e3 - batchText.toDouble()) <= 0.005 + 1e-9;
}

QVariant cell(const QAbstractItemModel *m, int row, int column, int role = Qt::DisplayRole)
{
    return m->data(m->index(row, column), role);
}

void clickRow(QTableView *view, int row)
{
    const QRect rect = view->visualRect(view->model()->index(row, 0));
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, rect.center());
}

std::shared_ptr<const JobData> buildGenerated(const std::string &dir, int ranks, int straggler)
{
    tracegen::JobOptions o;
    o.dir = dir;
    o.ranks = ranks;
    o.steps = 2;
    o.layers = 2;
    o.straggler = straggler;
    tracegen::generateJob(o);
    return buildJobData({dir}, AnalysisRequest{});
}

} // namespace

void TestJobPanels::initTestCase()
{
    REQUIRE_SHARED_DATA();
    m_dlrm = buildJobData({testutil::sharedData("pairs/param_dlrm_8rank")}, AnalysisRequest{});
    QVERIFY(m_dlrm);
    QCOMPARE(m_dlrm->ranks.size(), size_t(8));
    for (const auto &r : m_dlrm->ranks) {
        QVERIFY2(r.analysis, qPrintable(QStringLiteral("rank %1 did not load").arg(r.rank)));
        QCOMPARE(r.summary.exitCode, 0);
    }
    QVERIFY(!m_dlrm->analysis.collectives.empty());
}

void TestJobPanels::rankTableMatchesBatchSummary()
{
    RankTablePanel panel;
    panel.setJob(m_dlrm);
    const RankTableModel *m = panel.model();
    QCOMPARE(m->rowCount(), 8);
    const auto batch = batchTable(*m_dlrm);
    QCOMPARE(batch.size(), size_t(8));
    for (int row = 0; row < m->rowCount(); ++row) {
        const int64_t rank = cell(m, row, 0, RankRole).toLongLong();
        QCOMPARE(rank, int64_t(row)); // ascending rank
        const auto it = batch.find(rank);
        QVERIFY(it != batch.end());
        const SummaryRow &b = it->second;
        QCOMPARE(cell(m, row, RankTableModel::StatusColumn, SortRole).toString(), b.exit);
        QCOMPARE(ms(cell(m, row, RankTableModel::StepColumn, SortRole)), b.step);
        QCOMPARE(ms(cell(m, row, RankTableModel::CriticalPathColumn, SortRole)), b.crit);
        QCOMPARE(cell(m, row, RankTableModel::BoundByColumn).toString(), b.bound);
        QVERIFY2(sameMs(cell(m, row, RankTableModel::WaitsColumn, SortRole), b.wait), qPrintable(b.wait));
        QVERIFY2(sameMs(cell(m, row, RankTableModel::CausedColumn, SortRole), b.caused), qPrintable(b.caused));
        QCOMPARE(QString::number(cell(m, row, RankTableModel::LinkColumn, SortRole).toDouble(), 'f', 1), b.link);
        // Shown with the panels' duration format.
        QVERIFY(cell(m, row, RankTableModel::StepColumn).toString().endsWith(QLatin1String("ms")));
    }
    QVERIFY(panel.summaryLabel()->text().contains(QLatin1String("8 rank(s)")));
}

void TestJobPanels::rankTableFacts()
{
    RankTableModel m;
    m.setJob(m_dlrm);
    // Times last: the sum over the ranks is the number of collectives with a last arriver.
    int64_t lastSum = 0;
    int64_t mostLast = -1, mostCaused = -1;
    double bestLast = -1, bestCaused = -1;
    for (int row = 0; row < m.rowCount(); ++row) {
        const auto &r = m.row(row);
        lastSum += r.lastArrivals;
        if (r.lastArrivals > bestLast)
            bestLast = double(r.lastArrivals), mostLast = r.rank;
        if (r.causedUs > bestCaused)
            bestCaused = r.causedUs, mostCaused = r.rank;
        // Critical paths of this job are 4.5 to 12.3 ms with the sync waits inferred from
        // its runtime calls (it has no cuda_sync rows; HTA-exact paths are 4.5 to 9.0 ms),
        // always within the 12.5 to 20 ms steps.
        QVERIFY2(r.criticalPathUs > 4000 && r.criticalPathUs < 13000, qPrintable(QString::number(r.criticalPathUs)));
    }
    size_t withLast = 0;
    for (const auto &c : m_dlrm->analysis.collectives)
        withLast += c.lastArrivalRank >= 0;
    QCOMPARE(lastSum, int64_t(withLast));
    QCOMPARE(mostLast, int64_t(7));
    QCOMPARE(mostCaused, int64_t(7));
    QCOMPARE(m_dlrm->analysis.stragglers.front(), int64_t(7));
    // The top straggler's row is bold.
    QVERIFY(cell(&m, m.rowOfRank(7), RankTableModel::RankColumn, Qt::FontRole).value<QFont>().bold());
    QVERIFY(!cell(&m, m.rowOfRank(0), RankTableModel::RankColumn, Qt::FontRole).isValid());
    // Ranks 1, 3, 4, 5 wait in collectives (comm bound), 0, 2, 6, 7 compute (CPU bound).
    for (int64_t rank : {1, 3, 4, 5})
        QVERIFY2(m.row(m.rowOfRank(rank)).boundBy.find("cpu") == std::string::npos,
                 m.row(m.rowOfRank(rank)).boundBy.c_str());
    for (int64_t rank : {0, 2, 6, 7})
        QVERIFY2(m.row(m.rowOfRank(rank)).boundBy.rfind("cpu_bound", 0) == 0, m.row(m.rowOfRank(rank)).boundBy.c_str());
}

void TestJobPanels::rankTableSortsNumerically()
{
    RankTablePanel panel;
    panel.setJob(m_dlrm);
    QAbstractItemModel *sorted = panel.sortedModel();
    for (int column : {RankTableModel::RankColumn, RankTableModel::StepColumn, RankTableModel::CriticalPathColumn,
                       RankTableModel::WaitsColumn, RankTableModel::CausedColumn, RankTableModel::LastColumn,
                       RankTableModel::LinkColumn}) {
        for (Qt::SortOrder order : {Qt::AscendingOrder, Qt::DescendingOrder}) {
            panel.view()->sortByColumn(column, order);
            std::vector<double> values;
            for (int row = 0; row < sorted->rowCount(); ++row)
                values.push_back(cell(sorted, row, column, SortRole).toDouble());
            std::vector<double> expected = values;
            std::sort(expected.begin(), expected.end());
            if (order == Qt::DescendingOrder)
                std::reverse(expected.begin(), expected.end());
            QVERIFY2(values == expected, qPrintable(QStringLiteral("column %1").arg(column)));
            // The values differ between ranks, so the order is a real check.
            if (column != RankTableModel::LastColumn && column != RankTableModel::LinkColumn)
                QVERIFY(expected.front() != expected.back());
        }
    }
    // Sorting by the text of the step times would put "10.x ms" before "9.x ms"; the
    // critical paths range from about 4.5 to 9 ms, so check the first row is the least.
    panel.view()->sortByColumn(RankTableModel::CriticalPathColumn, Qt::AscendingOrder);
    double least = 1e300;
    for (int row = 0; row < panel.model()->rowCount(); ++row)
        least = std::min(least, panel.model()->row(row).criticalPathUs);
    QCOMPARE(cell(sorted, 0, RankTableModel::CriticalPathColumn, SortRole).toDouble(), least);
}

void TestJobPanels::rankTableActivation()
{
    RankTablePanel panel;
    panel.resize(900, 400);
    panel.setJob(m_dlrm);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.view()->sortByColumn(RankTableModel::CausedColumn, Qt::DescendingOrder);
    QSignalSpy activated(&panel, &RankTablePanel::rankActivated);
    QSignalSpy current(&panel, &RankTablePanel::currentRankChanged);
    clickRow(panel.view(), 0); // the top straggler after the sort
    QCOMPARE(activated.count(), 1);
    QCOMPARE(activated.at(0).at(0).toLongLong(), qint64(7));
    // Arrow down moves the current rank; Enter activates it.
    QTest::keyClick(panel.view(), Qt::Key_Down);
    const qint64 second = cell(panel.sortedModel(), 1, 0, RankRole).toLongLong();
    QVERIFY(current.count() >= 1);
    QCOMPARE(current.last().at(0).toLongLong(), second);
    QTest::keyClick(panel.view(), Qt::Key_Return);
    QCOMPARE(activated.count(), 2);
    QCOMPARE(activated.at(1).at(0).toLongLong(), second);
    // selectRank() from outside does not echo a signal.
    const int before = current.count();
    panel.selectRank(3);
    QCOMPARE(current.count(), before);
    QCOMPARE(panel.view()->currentIndex().data(RankRole).toLongLong(), qint64(3));
    panel.clear();
    QCOMPARE(panel.model()->rowCount(), 0);
}

void TestJobPanels::collectivesTable()
{
    CollectivesPanel panel;
    panel.setJob(m_dlrm);
    const CollectivesModel *m = panel.model();
    const auto &all = m_dlrm->analysis.collectives;
    QCOMPARE(m->rowCount(), int(all.size()));
    QVERIFY(panel.countLabel()->text().contains(QString::number(all.size())));
    for (int row = 0; row < m->rowCount(); ++row) {
        const MatchedCollective &c = all[size_t(row)];
        QCOMPARE(cell(m, row, 0, CollectiveIndexRole).toUInt(), quint32(row));
        QCOMPARE(cell(m, row, CollectivesModel::NameColumn).toString(), QString::fromStdString(c.name));
        QCOMPARE(cell(m, row, CollectivesModel::LastRankColumn, SortRole).toLongLong(), c.lastArrivalRank);
        QCOMPARE(cell(m, row, CollectivesModel::ParticipantsColumn, SortRole).toLongLong(), qint64(c.ranks.size()));
        QCOMPARE(cell(m, row, CollectivesModel::SpreadColumn, SortRole).toDouble(), c.spreadUs);
        QCOMPARE(cell(m, row, CollectivesModel::CausedColumn, SortRole).toDouble(), waitCausedUs(c));
        QCOMPARE(cell(m, row, CollectivesModel::MatchedByColumn).toString(), QString::fromStdString(c.matchedBy));
        double maxWait = 0;
        for (const auto &[rank, w] : c.waitUs)
            maxWait = std::max(maxWait, w);
        QCOMPARE(cell(m, row, CollectivesModel::MaxWaitColumn, SortRole).toDouble(), maxWait);
        QVERIFY(cell(m, row, CollectivesModel::StartColumn, SortRole).toDouble() >= 0);
    }
    // The first collective: all 8 ranks, rank 7 about 7.6 ms late.
    QCOMPARE(cell(m, 0, CollectivesModel::LastRankColumn).toString(), QStringLiteral("7"));
    QCOMPARE(cell(m, 0, CollectivesModel::ParticipantsColumn).toString(), QStringLiteral("8"));
    const double spread = cell(m, 0, CollectivesModel::SpreadColumn, SortRole).toDouble();
    QVERIFY2(spread > 7000 && spread < 8200, qPrintable(QString::number(spread)));
    QVERIFY(cell(m, 0, CollectivesModel::SpreadColumn).toString().endsWith(QLatin1String("ms")));
}

void TestJobPanels::collectivesActivationAndFilter()
{
    CollectivesPanel panel;
    panel.resize(1000, 500);
    panel.setJob(m_dlrm);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    const auto &all = m_dlrm->analysis.collectives;
    // Sorted by waits caused, descending: the first row is the collective that caused most.
    panel.view()->sortByColumn(CollectivesModel::CausedColumn, Qt::DescendingOrder);
    size_t worst = 0;
    for (size_t i = 0; i < all.size(); ++i)
        if (waitCausedUs(all[i]) > waitCausedUs(all[worst]))
            worst = i;
    QSignalSpy spy(&panel, &CollectivesPanel::collectiveActivated);
    clickRow(panel.view(), 0);
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.at(0).at(0).toUInt(), quint32(worst));
    QTest::keyClick(panel.view(), Qt::Key_Down);
    QTest::keyClick(panel.view(), Qt::Key_Return);
    QCOMPARE(spy.count(), 2);
    QCOMPARE(spy.at(1).at(0).toUInt(), panel.view()->currentIndex().data(CollectiveIndexRole).toUInt());

    // The filter: substring of the name or the process group, case-insensitive.
    const QString name = QString::fromStdString(all.front().name);
    int expected = 0;
    for (const auto &c : all)
        expected += QString::fromStdString(c.name).contains(name, Qt::CaseInsensitive) ||
                    QString::fromStdString(c.processGroup).contains(name, Qt::CaseInsensitive);
    QTest::keyClicks(panel.filterEdit(), name.toUpper());
    QCOMPARE(panel.sortedModel()->rowCount(), expected);
    QVERIFY(expected > 0);
    panel.setFilterText(QStringLiteral("no-such-collective"));
    QCOMPARE(panel.sortedModel()->rowCount(), 0);
    QVERIFY(panel.countLabel()->text().startsWith(QLatin1String("0 of")));
    // Selecting a hidden collective clears the filter.
    panel.selectCollective(0);
    QCOMPARE(panel.sortedModel()->rowCount(), int(all.size()));
    QCOMPARE(panel.view()->currentIndex().data(CollectiveIndexRole).toUInt(), quint32(0));
}

void TestJobPanels::collectivesLatenessColumns()
{
    CollectivesPanel panel;
    panel.setJob(m_dlrm);
    const CollectivesModel *m = panel.model();
    const auto &all = m_dlrm->analysis.collectives;
    QCOMPARE(m->columnCount(), int(CollectivesModel::ColumnCount));
    QCOMPARE(m->headerData(CollectivesModel::LateColumn, Qt::Horizontal).toString(), QStringLiteral("Late"));
    QCOMPARE(m->headerData(CollectivesModel::StartSkewColumn, Qt::Horizontal).toString(), QStringLiteral("Start skew"));
    QCOMPARE(m->headerData(CollectivesModel::WorkExcessColumn, Qt::Horizontal).toString(), QStringLiteral("Work excess"));
    QCOMPARE(m->headerData(CollectivesModel::WindowEdgeColumn, Qt::Horizontal).toString(), QStringLiteral("Window edge"));
    int edges = 0;
    for (int row = 0; row < m->rowCount(); ++row) {
        const MatchedCollective &c = all[size_t(row)];
        QVERIFY(c.lastArrivalRank >= 0);
        const RankLateness &l = c.lateness.at(c.lastArrivalRank);
        QCOMPARE(cell(m, row, CollectivesModel::LateColumn, SortRole).toDouble(), l.lateUs);
        QCOMPARE(cell(m, row, CollectivesModel::StartSkewColumn, SortRole).toDouble(), l.startSkewUs);
        QCOMPARE(cell(m, row, CollectivesModel::WorkExcessColumn, SortRole).toDouble(), l.workExcessUs);
        QCOMPARE(cell(m, row, CollectivesModel::WindowEdgeColumn, SortRole).toInt(), int(c.windowEdge));
        QCOMPARE(cell(m, row, CollectivesModel::WindowEdgeColumn).toString(),
                 c.windowEdge ? QStringLiteral("edge") : QString());
        edges += c.windowEdge;
    }
    // sendrecv #0: rank 7 came 7.62 ms late, 7.51 ms of it start skew: a window edge
    // (docs/job_analysis.md, "Lateness"); sendrecv #1: 1.10 ms of work excess, no edge.
    QCOMPARE(cell(m, 0, CollectivesModel::LastRankColumn).toString(), QStringLiteral("7"));
    const double skew = cell(m, 0, CollectivesModel::StartSkewColumn, SortRole).toDouble();
    QVERIFY2(skew > 7000 && skew < 8000, qPrintable(QString::number(skew)));
    QVERIFY(cell(m, 0, CollectivesModel::WorkExcessColumn, SortRole).toDouble() < 500);
    QCOMPARE(cell(m, 0, CollectivesModel::WindowEdgeColumn).toString(), QStringLiteral("edge"));
    QVERIFY(cell(m, 0, CollectivesModel::StartSkewColumn).toString().endsWith(QLatin1String("ms")));
    QVERIFY(cell(m, 0, CollectivesModel::WindowEdgeColumn, Qt::ToolTipRole).toString().contains(QLatin1String("profiler")));
    QVERIFY(cell(m, 0, CollectivesModel::WindowEdgeColumn, Qt::ToolTipRole).toString().contains(QLatin1String("not slower work")));
    QCOMPARE(cell(m, 1, CollectivesModel::WindowEdgeColumn).toString(), QString());
    QVERIFY(!cell(m, 1, CollectivesModel::WindowEdgeColumn, Qt::ToolTipRole).toString().contains(QLatin1String("profiler")));
    const double work = cell(m, 1, CollectivesModel::WorkExcessColumn, SortRole).toDouble();
    QVERIFY2(work > 900 && work < 1300, qPrintable(QString::number(work)));
    QVERIFY(edges >= 1 && edges < m->rowCount());
    // Sorting is numeric: descending start skew puts sendrecv #0 first.
    QAbstractItemModel *sorted = panel.sortedModel();
    for (int column : {int(CollectivesModel::LateColumn), int(CollectivesModel::StartSkewColumn),
                       int(CollectivesModel::WorkExcessColumn)}) {
        panel.view()->sortByColumn(column, Qt::DescendingOrder);
        for (int row = 1; row < sorted->rowCount(); ++row)
            QVERIFY(cell(sorted, row - 1, column, SortRole).toDouble() >= cell(sorted, row, column, SortRole).toDouble());
    }
    panel.view()->sortByColumn(CollectivesModel::StartSkewColumn, Qt::DescendingOrder);
    QCOMPARE(cell(sorted, 0, 0, CollectiveIndexRole).toUInt(), 0u);
    panel.view()->sortByColumn(CollectivesModel::WindowEdgeColumn, Qt::DescendingOrder);
    QCOMPARE(cell(sorted, 0, CollectivesModel::WindowEdgeColumn).toString(), QStringLiteral("edge"));
}

void TestJobPanels::rankTableDelayCosts()
{
    RankTablePanel panel;
    panel.setJob(m_dlrm);
    const RankTableModel *m = panel.model();
    QCOMPARE(m->headerData(RankTableModel::WorkDelayCostColumn, Qt::Horizontal).toString(),
             QStringLiteral("Work delay cost"));
    QCOMPARE(m->headerData(RankTableModel::StartSkewCostColumn, Qt::Horizontal).toString(),
             QStringLiteral("Start skew cost"));
    QCOMPARE(m_dlrm->analysis.ranks.size(), size_t(8));
    double skewSum = 0, workSum = 0;
    for (const RankJobStats &s : m_dlrm->analysis.ranks) {
        const int row = m->rowOfRank(s.rank);
        QVERIFY(row >= 0);
        QCOMPARE(cell(m, row, RankTableModel::WorkDelayCostColumn, SortRole).toDouble(), s.workDelayCostUs);
        QCOMPARE(cell(m, row, RankTableModel::StartSkewCostColumn, SortRole).toDouble(), s.startSkewCostUs);
        QVERIFY(!cell(m, row, RankTableModel::WorkDelayCostColumn).toString().isEmpty());
        skewSum += s.startSkewCostUs;
        workSum += s.workDelayCostUs;
    }
    QVERIFY(skewSum > 0 && workSum > 0);
    // Rank 7's start skew at sendrecv #0 made 7 ranks wait: tens of ms of start skew cost.
    const double skew7 = cell(m, m->rowOfRank(7), RankTableModel::StartSkewCostColumn, SortRole).toDouble();
    QVERIFY2(skew7 > 20000, qPrintable(QString::number(skew7)));
    // The bold row is the top straggler by work delay cost.
    const int64_t top = m_dlrm->analysis.stragglers.front();
    for (const RankJobStats &s : m_dlrm->analysis.ranks)
        QVERIFY(s.rank == top || s.workDelayCostUs <= m->row(m->rowOfRank(top)).workDelayCostUs);
    QVERIFY(cell(m, m->rowOfRank(top), RankTableModel::RankColumn, Qt::FontRole).value<QFont>().bold());
    QVERIFY(cell(m, m->rowOfRank(top), RankTableModel::RankColumn, Qt::ToolTipRole).toString().contains(QLatin1String("work")));
    // Numeric sorting.
    QAbstractItemModel *sorted = panel.sortedModel();
    for (int column : {int(RankTableModel::WorkDelayCostColumn), int(RankTableModel::StartSkewCostColumn)}) {
        panel.view()->sortByColumn(column, Qt::DescendingOrder);
        for (int row = 1; row < sorted->rowCount(); ++row)
            QVERIFY(cell(sorted, row - 1, column, SortRole).toDouble() >= cell(sorted, row, column, SortRole).toDouble());
    }
    // Below the table, the ops by delay cost; a click selects the op's earliest charged
    // occurrence on its rank.
    panel.resize(1000, 800);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QTableWidget *costs = panel.delayCostView();
    const auto &all = m_dlrm->analysis.delayCosts;
    QVERIFY(!all.empty());
    QCOMPARE(costs->rowCount(), int(std::min<size_t>(all.size(), 50)));
    QSignalSpy spy(&panel, &RankTablePanel::delayCostActivated);
    for (int row = 0; row < std::min(costs->rowCount(), 5); ++row) {
        const DelayCost &d = all[size_t(row)];
        QCOMPARE(costs->item(row, 0)->text(), QString::number(d.rank));
        QCOMPARE(costs->item(row, 1)->text(), QString::fromStdString(d.op));
        QCOMPARE(costs->item(row, 5)->text(), QString::fromStdString(formatDuration((d.directUs + d.propagatedUs) * 1000)));
        const QRect rect = costs->visualRect(costs->model()->index(row, 1));
        QTest::mouseClick(costs->viewport(), Qt::LeftButton, {}, rect.center());
        QVERIFY(spy.count() > 0);
        QCOMPARE(spy.last().at(0).toLongLong(), qint64(d.rank));
        const JobRankData &r = m_dlrm->ranks[size_t(m_dlrm->indexOfRank(d.rank))];
        const KinetoTrace &trace = *r.analysis->device;
        const quint32 ev = spy.last().at(1).toUInt();
        QVERIFY(ev < trace.events.size());
        QCOMPARE(std::string(trace.str(trace.events[ev].name)), d.op);
    }
    if (all.size() > 1) // sorted by total
        QVERIFY(all[0].directUs + all[0].propagatedUs >= all[1].directUs + all[1].propagatedUs);
}

void TestJobPanels::rootCausesOfTheSelectedCollective()
{
    CollectivesPanel panel;
    panel.resize(1000, 700);
    panel.setJob(m_dlrm);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    const auto &all = m_dlrm->analysis.collectives;
    QTableWidget *causes = panel.rootCauseView();
    QCOMPARE(panel.rootCauseCollective(), qint64(-1));
    QCOMPARE(causes->rowCount(), 0);
    // sendrecv #0 is a window edge: the label says so.
    panel.selectCollective(0);
    QCOMPARE(panel.rootCauseCollective(), qint64(0));
    QVERIFY2(panel.rootCauseLabel()->text().contains(QLatin1String("window edge")), qPrintable(panel.rootCauseLabel()->text()));
    QCOMPARE(causes->rowCount(), int(all[0].rootCauses.size()));
    // An instance with root causes: one row per op, the late rank's.
    QVERIFY(all.size() > 1 && !all[1].rootCauses.empty());
    const MatchedCollective &c = all[1];
    clickRow(panel.view(), 1); // sorted by index: row 1 is #1
    QCOMPARE(panel.rootCauseCollective(), qint64(1));
    QCOMPARE(causes->rowCount(), int(c.rootCauses.size()));
    for (int row = 0; row < causes->rowCount(); ++row) {
        const RootCauseOp &op = c.rootCauses[size_t(row)];
        QCOMPARE(causes->item(row, 0)->text(), QString::number(op.rank));
        QCOMPARE(causes->item(row, 1)->text(), QString::fromStdString(op.op));
        QVERIFY(causes->item(row, 5)->text().startsWith(QLatin1Char('+')));
        QCOMPARE(op.rank, c.lastArrivalRank);
    }
    // Activating a root cause asks for that op's event on the late rank: same name, its
    // own-clock start the aligned start less the rank's clock offset.
    QSignalSpy spy(&panel, &CollectivesPanel::rootCauseActivated);
    for (int row = 0; row < causes->rowCount(); ++row) {
        const RootCauseOp &op = c.rootCauses[size_t(row)];
        const QRect rect = causes->visualRect(causes->model()->index(row, 1));
        QTest::mouseClick(causes->viewport(), Qt::LeftButton, {}, rect.center());
        QCOMPARE(spy.count(), row + 1);
        QCOMPARE(spy.last().at(0).toLongLong(), qint64(op.rank));
        const quint32 ev = spy.last().at(1).toUInt();
        const JobRankData &r = m_dlrm->ranks[size_t(m_dlrm->indexOfRank(op.rank))];
        const KinetoTrace &trace = *r.analysis->device;
        QVERIFY(ev < trace.events.size());
        QCOMPARE(std::string(trace.str(trace.events[ev].name)), op.op);
        double offset = 0;
        for (const auto &s : m_dlrm->analysis.ranks)
            if (s.rank == op.rank)
                offset = s.clockOffsetUs;
        QVERIFY(std::abs(double(trace.events[ev].tsNs) / 1e3 + offset - op.startUs) < 1.0);
        QVERIFY(std::abs(double(trace.events[ev].durNs) / 1e3 - op.durUs) < 1.0);
        QCOMPARE(rootCauseEvent(*m_dlrm, op), qint64(ev));
    }
    // An op that is not there is not found.
    RootCauseOp missing = c.rootCauses.front();
    missing.startUs += 5000;
    QCOMPARE(rootCauseEvent(*m_dlrm, missing), int64_t(-1));
    panel.clear();
    QCOMPARE(causes->rowCount(), 0);
    QCOMPARE(panel.rootCauseCollective(), qint64(-1));
}

void TestJobPanels::propagatedLatenessSaidAsSuch()
{
    // Pairs: rank 1's slowed loss kernel makes rank 0 wait; rank 0 then comes late to its
    // next pair. That collective's label says the skew was carried on, naming where from.
    tracegen::JobOptions o;
    o.dir = testutil::tempDir() + "/pairsjob";
    o.ranks = 4;
    o.steps = 1;
    o.layers = 4;
    o.pairs = true;
    o.slowRank = 1;
    o.slowKernel = "MeanOps";
    o.slowKernelScale = 400;
    tracegen::generateJob(o);
    const auto job = buildJobData({o.dir}, AnalysisRequest{});
    QVERIFY(job);
    CollectivesPanel panel;
    panel.setJob(job);
    qint64 carried = -1;
    for (size_t k = 0; k < job->analysis.collectives.size() && carried < 0; ++k)
        if (job->analysis.collectives[k].skewFrom >= 0)
            carried = qint64(k);
    QVERIFY(carried >= 0);
    panel.selectCollective(quint32(carried));
    const int64_t from = job->analysis.collectives[size_t(carried)].skewFrom;
    const QString text = panel.rootCauseLabel()->text();
    QVERIFY2(text.contains(QStringLiteral("carried on from allreduce #%1").arg(from)), qPrintable(text));
}

void TestJobPanels::crossRankSearch()
{
    // An op every rank runs: the name of rank 0's first collective kernel.
    const RankSummary &r0 = m_dlrm->ranks[0].summary;
    QVERIFY(!r0.collectives.empty());
    const QString kernel = QString::fromStdString(r0.collectives.front().kernelName);
    const QString query = kernel.left(kernel.indexOf(QLatin1Char('_')) > 0 ? kernel.indexOf(QLatin1Char('_')) : kernel.size());
    JobSearchModel m;
    m.setJob(m_dlrm);
    QVERIFY(m.setQuery(query.toLower(), false));
    // Independently: the complete events of each rank whose name holds the query.
    std::map<int64_t, int> perRank;
    for (const auto &r : m_dlrm->ranks)
        for (const auto &e : r.analysis->device->events)
            if (e.ph == 'X' && e.kind != EventKind::TraceSpan &&
                QString::fromUtf8(r.analysis->device->str(e.name)).contains(query, Qt::CaseInsensitive))
                perRank[r.rank]++;
    int total = 0;
    for (const auto &[rank, n] : perRank)
        total += n;
    QCOMPARE(m.matchCount(), total);
    QCOMPARE(m.rankCount(), 8);
    std::map<int64_t, int> seen;
    double previous = -1;
    for (int row = 0; row < m.rowCount(); ++row) {
        const qint64 rank = cell(&m, row, JobSearchModel::RankColumn, RankRole).toLongLong();
        QCOMPARE(cell(&m, row, JobSearchModel::RankColumn).toString(), QString::number(rank));
        seen[rank]++;
        const qint64 event = cell(&m, row, 0, TargetEventRole).toLongLong();
        const auto &trace = *m_dlrm->ranks[size_t(m_dlrm->indexOfRank(rank))].analysis->device;
        QCOMPARE(cell(&m, row, JobSearchModel::NameColumn).toString(),
                 QString::fromUtf8(trace.str(trace.events[size_t(event)].name)));
        const double start = cell(&m, row, JobSearchModel::StartColumn, SortRole).toDouble();
        QVERIFY(start >= previous); // aligned time order
        QVERIFY(start >= 0);
        previous = start;
    }
    QCOMPARE(seen.size(), size_t(8));
    QVERIFY(seen == perRank);
    // Case sensitivity, regular expressions and their errors as in the single-rank search.
    QVERIFY(m.setQuery(query.toLower(), false, true));
    QCOMPARE(m.matchCount(), query == query.toLower() ? total : 0);
    QVERIFY(!m.setQuery(QStringLiteral("(unclosed"), true));
    QVERIFY(!m.error().isEmpty());
    QCOMPARE(m.matchCount(), 0);
    QVERIFY(m.setQuery(QStringLiteral("^") + query, true));
    QVERIFY(m.matchCount() > 0 && m.matchCount() <= total);
}

void TestJobPanels::crossRankSearchEmitsRankAndEvent()
{
    JobSearchPanel panel;
    panel.resize(900, 400);
    panel.setJob(m_dlrm);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.setQueryText(QStringLiteral("ProfilerStep"));
    QVERIFY(panel.model()->matchCount() >= 8);
    QVERIFY2(panel.countLabel()->text().contains(QLatin1String("on 8 rank(s)")), qPrintable(panel.countLabel()->text()));
    // Sorted by rank, descending: the first row is on rank 7.
    panel.view()->sortByColumn(JobSearchModel::RankColumn, Qt::DescendingOrder);
    QSignalSpy spy(&panel, &JobSearchPanel::eventRequested);
    clickRow(panel.view(), 0);
    QVERIFY(spy.count() >= 1);
    QCOMPARE(spy.last().at(0).toLongLong(), qint64(7));
    const qint64 event = spy.last().at(1).toLongLong();
    const auto &trace = *m_dlrm->ranks[7].analysis->device;
    QVERIFY(QString::fromUtf8(trace.str(trace.events[size_t(event)].name)).startsWith(QLatin1String("ProfilerStep")));
    panel.clear();
    QCOMPARE(panel.model()->matchCount(), 0);
}

void TestJobPanels::generatedJobStragglerAndFailedRank()
{
    const std::string dir = testutil::tempDir() + "/job";
    tracegen::JobOptions o;
    o.dir = dir;
    o.ranks = 4;
    o.steps = 2;
    o.layers = 2;
    o.straggler = 2;
    tracegen::generateJob(o);
    // Rank 1's device trace cut off mid-write: the rank fails, and the cross-rank
    // stats (over the ranks that loaded) no longer line up with the rows by index.
    const std::string whole = testutil::readText(dir + "/rank1.kineto.json.gz");
    const std::string gz = testutil::gzipped(whole);
    testutil::writeText(dir + "/rank1.kineto.json.gz", gz.substr(0, gz.size() / 2));
    const auto job = buildJobData({dir}, AnalysisRequest{});
    QVERIFY(job);
    QCOMPARE(job->ranks.size(), size_t(4));
    QCOMPARE(job->analysis.ranks.size(), size_t(3));
    RankTableModel m;
    m.setJob(job);
    QCOMPARE(m.rowCount(), 4);
    const auto batch = batchTable(*job);
    QCOMPARE(batch.size(), size_t(4));
    for (int row = 0; row < 4; ++row) {
        const auto &r = m.row(row);
        const SummaryRow &b = batch.at(r.rank);
        QCOMPARE(cell(&m, row, RankTableModel::StatusColumn, SortRole).toString(), b.exit);
        QCOMPARE(ms(cell(&m, row, RankTableModel::WaitsColumn, SortRole)), b.wait);
        QCOMPARE(ms(cell(&m, row, RankTableModel::CausedColumn, SortRole)), b.caused);
        QCOMPARE(ms(cell(&m, row, RankTableModel::StepColumn, SortRole)), b.step);
    }
    // The straggler caused the most waits and arrived last most often.
    int64_t mostCaused = -1;
    double best = -1;
    for (int row = 0; row < m.rowCount(); ++row)
        if (m.row(row).causedUs > best)
            best = m.row(row).causedUs, mostCaused = m.row(row).rank;
    QCOMPARE(mostCaused, int64_t(2));
    QVERIFY(m.row(m.rowOfRank(2)).lastArrivals > 0);
    // The broken rank: its exit code, the error as tooltip, no figures.
    const int broken = m.rowOfRank(1);
    QVERIFY(broken >= 0);
    QCOMPARE(cell(&m, broken, RankTableModel::StatusColumn).toString(), QStringLiteral("exit %1").arg(ExitBadInput));
    QVERIFY(cell(&m, broken, RankTableModel::StatusColumn, Qt::ToolTipRole)
                .toString()
                .contains(QLatin1String("rank1.kineto.json.gz")));
    QCOMPARE(cell(&m, broken, RankTableModel::WaitsColumn).toString(), QStringLiteral("-"));
    QCOMPARE(cell(&m, broken, RankTableModel::CriticalPathColumn).toString(), QStringLiteral("-"));
    QVERIFY(!job->ranks[size_t(job->indexOfRank(1))].analysis);

    // Its export: every healthy rank written, the broken one skipped.
    JobExportOptions x;
    x.outputs.dir = testutil::tempDir() + "/out";
    x.outputs.chakraEt = true;
    const JobExportResult res = exportJob(*job, x);
    QVERIFY2(res.error.empty(), res.error.c_str());
    QCOMPARE(res.written, size_t(3));
    QCOMPARE(res.skipped, size_t(1));
    QCOMPARE(res.failed, size_t(0));
    QVERIFY(!fs::exists(x.outputs.dir + "/trace.1.et"));
    QVERIFY(fs::exists(x.outputs.dir + "/trace.3.et"));
    QVERIFY(QString::fromStdString(res.summary(x.outputs.dir)).contains(QLatin1String("did not load")));
}

void TestJobPanels::exportEveryRank()
{
    const std::string out = testutil::tempDir() + "/export";
    JobExportOptions o;
    o.outputs.dir = out;
    o.outputs.prefix = "dlrm";
    o.outputs.chakraEt = true;
    o.etPlus = true;
    o.workers = 2;
    JobExporter exporter;
    QSignalSpy progress(&exporter, &JobExporter::progress);
    QSignalSpy finished(&exporter, &JobExporter::finished);
    QVERIFY(exporter.start(m_dlrm, o));
    QVERIFY(exporter.isRunning());
    QVERIFY(!exporter.start(m_dlrm, o)); // one at a time
    QVERIFY(finished.wait(120000));
    QVERIFY(!exporter.isRunning());
    QVERIFY2(finished.at(0).at(0).toBool(), qPrintable(finished.at(0).at(1).toString()));
    QVERIFY(finished.at(0).at(1).toString().contains(QLatin1String("16 file(s) written for 8 rank(s)")));
    QCOMPARE(progress.count(), 8);
    QCOMPARE(exporter.result().written, size_t(16));
    std::set<std::string> names;
    for (const auto &entry : fs::directory_iterator(out))
        names.insert(entry.path().filename().string());
    QCOMPARE(names.size(), size_t(17)); // no temporary leftovers: 16 files and the folder's output list
    QVERIFY(names.count(".syncscope-outputs"));
    // ...so a --job over the folder does not take the exported ET+ for traces (issue 22).
    const JobDiscovery again = discoverJob({out});
    QVERIFY(again.ranks.empty());
    QVERIFY(again.diagnostics.find("job.own_output"));
    for (int rank = 0; rank < 8; ++rank) {
        const std::string et = out + "/dlrm." + std::to_string(rank) + ".et";
        QVERIFY2(names.count("dlrm." + std::to_string(rank) + ".et"), et.c_str());
        QVERIFY(names.count("dlrm." + std::to_string(rank) + ".json"));
        const ChakraEtFile file = readChakraEt(et);
        QVERIFY(!file.nodes.empty());
        // The same file as batch job mode writes for this rank (--chakra-et --output-dir).
        const auto &rec = exporter.result().ranks[size_t(rank)].outputs;
        QVERIFY(std::any_of(rec.begin(), rec.end(),
                            [&](const OutputRecord &r) { return r.kind == "chakra_et" && r.status == "written"; }));
    }
}

void TestJobPanels::exportNeverOverAnInput()
{
    const std::string dir = testutil::tempDir() + "/job";
    const auto job = buildGenerated(dir, 3, -1);
    QVERIFY(job);
    QCOMPARE(job->ranks.size(), size_t(3));
    const std::string input = job->ranks[0].summary.hostPath;
    const std::string before = testutil::readText(input);
    // An output name that resolves to rank 0's host trace (a symlink in the export folder)...
    const std::string out = testutil::tempDir() + "/out";
    fs::create_directories(out);
    fs::create_symlink(input, out + "/trace.0.json");
    JobExportOptions o;
    o.outputs.dir = out;
    o.etPlus = true;
    const JobExportResult res = exportJob(*job, o);
    // ...is refused; the other ranks are written, the input is unchanged.
    QCOMPARE(res.failed, size_t(1));
    QCOMPARE(res.written, size_t(2));
    QCOMPARE(res.exitCode, int(ExitOutput));
    QVERIFY(!res.ok());
    QCOMPARE(res.ranks[0].outputs.size(), size_t(1));
    QCOMPARE(res.ranks[0].outputs[0].status, std::string("failed"));
    QVERIFY2(res.ranks[0].outputs[0].reason.find("input") != std::string::npos, res.ranks[0].outputs[0].reason.c_str());
    QCOMPARE(testutil::readText(input), before);
    QVERIFY(fs::exists(out + "/trace.1.json") && fs::exists(out + "/trace.2.json"));
    // Exporting into the job's own folder is allowed; its inputs stay as they were.
    JobExportOptions same;
    same.outputs.dir = dir;
    same.outputs.prefix = "rank0";
    same.outputs.overlay = true;
    const JobExportResult res2 = exportJob(*job, same);
    QVERIFY(res2.error.empty());
    QCOMPARE(res2.written, size_t(3));
    QVERIFY(fs::exists(dir + "/rank0.2.overlay.json"));
    QCOMPARE(testutil::readText(input), before);
}

void TestJobPanels::exportRejectsBadOptions()
{
    JobExportOptions o;
    QVERIFY(!jobExportProblem(o).empty()); // no folder
    o.outputs.dir = testutil::tempDir();
    QVERIFY(!jobExportProblem(o).empty()); // nothing chosen
    o.outputs.chakraEt = true;
    QVERIFY(jobExportProblem(o).empty());
    o.outputs.prefix = "a/b";
    QVERIFY(!jobExportProblem(o).empty());
    JobExporter exporter;
    QSignalSpy finished(&exporter, &JobExporter::finished);
    QVERIFY(!exporter.start(m_dlrm, o));
    QVERIFY(exporter.lastError().contains(QLatin1String("prefix")));
    QVERIFY(!exporter.start(nullptr, JobExportOptions{}));
    QCOMPARE(finished.count(), 0);
    // A folder that cannot be created (a file is in the way).
    const std::string file = testutil::tempDir() + "/file";
    testutil::writeText(file, "x");
    o.outputs.prefix = "trace";
    o.outputs.dir = file + "/sub";
    const JobExportResult res = exportJob(*m_dlrm, o);
    QVERIFY(res.error.find("cannot be created") != std::string::npos);
    QCOMPARE(res.exitCode, int(ExitOutput));
}

QTEST_MAIN(TestJobPanels)
#include "tst_jobpanels.moc"
