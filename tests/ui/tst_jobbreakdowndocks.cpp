// SPDX-License-Identifier: MIT
// Issue 25 in the job docks (docs/breakdowns.md, "Job mode"): the Ranks dock's
// comm/comp overlap and exposed-communication columns are the rank's single-rank
// report breakdown; the Collectives dock's size, transfer, busbw and slow flag are
// the job report's (core/job/collectivebw.h) and agree with the per-rank table.
#include "job/collectivebw.h"
#include "job/jobbuild.h"
#include "panels/collectiveranksmodel.h"
#include "panels/collectivespanel.h"
#include "panels/criticalpathmodel.h"
#include "panels/ranktablemodel.h"
#include "panels/ranktablepanel.h"
#include "report/breakdownreport.h"
#include "testutil.h"
#include "tracegen.h"

#include <QHeaderView>
#include <QTableView>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <filesystem>

using namespace syncscope;
using namespace syncscope::ui;

namespace {

constexpr int kRanks = 4;
constexpr double kCollectiveUs = 200;
constexpr int64_t kBytes = 262144 * 4; // tracegen's all-reduce: 262144 Float

QVariant cell(const QAbstractItemModel *m, int row, int column, int role = Qt::DisplayRole)
{
    return m->data(m->index(row, column), role);
}

// A column shows its header and every cell's text whole (no elision).
bool fitsContents(const QTableView *view, int column)
{
    const QAbstractItemModel *m = view->model();
    int widest = view->horizontalHeader()->sectionSizeHint(column);
    for (int row = 0; row < m->rowCount(); ++row)
        widest = std::max(widest, view->fontMetrics().horizontalAdvance(cell(m, row, column).toString()));
    return view->columnWidth(column) >= widest;
}

} // namespace

class TestJobBreakdownDocks : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void ranksDockOverlapAndExposedComm();
    void collectivesDockBandwidth();
    void slowInstanceFlaggedWithTooltip();
    void columnsSizedLikeTheOthers();

private:
    std::shared_ptr<const JobData> m_job;
};

void TestJobBreakdownDocks::initTestCase()
{
    tracegen::JobOptions o;
    o.dir = (std::filesystem::path(testutil::tempDir()) / "jobbreakdowndocks").string();
    o.ranks = kRanks;
    o.steps = 2;
    o.layers = 2;
    o.collectiveUs = kCollectiveUs;
    o.gzip = false;
    tracegen::generateJob(o);
    m_job = buildJobData({o.dir}, AnalysisRequest{});
    QVERIFY(m_job);
    QCOMPARE(int(m_job->ranks.size()), kRanks);
    QVERIFY(!m_job->analysis.collectives.empty());
}

void TestJobBreakdownDocks::ranksDockOverlapAndExposedComm()
{
    RankTableModel m;
    m.setJob(m_job);
    QCOMPARE(m.headerData(RankTableModel::OverlapColumn, Qt::Horizontal).toString(), QStringLiteral("Comm/comp overlap"));
    QCOMPARE(m.headerData(RankTableModel::ExposedCommColumn, Qt::Horizontal).toString(), QStringLiteral("Exposed comm"));
    QVERIFY(m.headerData(RankTableModel::ExposedCommColumn, Qt::Horizontal, Qt::ToolTipRole).toString().contains(
        QLatin1String("not overlapped")));
    for (int row = 0; row < m.rowCount(); ++row) {
        const JobRankData &r = m_job->ranks[size_t(m_job->indexOfRank(m.row(row).rank))];
        QVERIFY(r.summary.breakdown); // the GUI computes it when it loads the job
        // The single-rank report's numbers for the same trace.
        const ReportBreakdown single = computeReportBreakdown(*r.analysis);
        const double overlap = single.whole.hta.comm_comp_overlap_pct;
        QVERIFY(std::isfinite(overlap)); // tracegen's ranks run NCCL kernels
        QCOMPARE(cell(&m, row, RankTableModel::OverlapColumn, SortRole).toDouble(), overlap);
        QCOMPARE(cell(&m, row, RankTableModel::OverlapColumn).toString(),
                 QString::number(overlap, 'f', 2) + QStringLiteral(" %"));
        const double exposed = single.whole.comm.exposed_us;
        QVERIFY(exposed > 0);
        QCOMPARE(cell(&m, row, RankTableModel::ExposedCommColumn, SortRole).toDouble(), exposed);
        const QString tip = cell(&m, row, RankTableModel::ExposedCommColumn, Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(QLatin1String("of the GPU span")), qPrintable(tip));
    }
    // Without breakdowns (a summary from elsewhere) the columns say "-".
    auto copy = std::make_shared<JobData>(*m_job);
    for (JobRankData &r : copy->ranks)
        r.summary.breakdown.reset();
    m.setJob(copy);
    QCOMPARE(cell(&m, 0, RankTableModel::OverlapColumn).toString(), QStringLiteral("-"));
    QCOMPARE(cell(&m, 0, RankTableModel::ExposedCommColumn).toString(), QStringLiteral("-"));
}

void TestJobBreakdownDocks::collectivesDockBandwidth()
{
    CollectivesModel m;
    m.setJob(m_job);
    QCOMPARE(m.rowCount(), int(m_job->analysis.collectives.size()));
    QCOMPARE(m.headerData(CollectivesModel::BusBwColumn, Qt::Horizontal).toString(), QStringLiteral("busbw"));
    for (int row = 0; row < m.rowCount(); ++row) {
        QCOMPARE(cell(&m, row, CollectivesModel::SizeColumn, SortRole).toLongLong(), qint64(kBytes));
        QCOMPARE(cell(&m, row, CollectivesModel::SizeColumn).toString(), QStringLiteral("1.00 MiB"));
        // By construction: instance k transfers for collectiveUs x (1 + 0.05 (k mod 5)) after the last arrival.
        const double transfer = cell(&m, row, CollectivesModel::TransferColumn, SortRole).toDouble();
        const double expected = kCollectiveUs * (1.0 + 0.05 * double(row % 5));
        QVERIFY2(std::fabs(transfer - expected) < 1.0, qPrintable(QString::number(transfer)));
        const double busbw = cell(&m, row, CollectivesModel::BusBwColumn, SortRole).toDouble();
        QVERIFY(std::fabs(busbw - double(kBytes) / (transfer * 1e-6) / 1e9 * 1.5) < 1e-9 * busbw);
        QCOMPARE(cell(&m, row, CollectivesModel::SlowColumn).toString(), QString());
        // The per-rank table of the same instance: its transfers average to this one, each
        // rank's busbw is over its own transfer.
        CollectiveRanksModel ranks;
        ranks.setCollective(m_job, row, 0, m.chakraKind(quint32(row)));
        QCOMPARE(ranks.rowCount(), kRanks);
        double sum = 0;
        for (const CollectiveRanksModel::Row &r : ranks.rows()) {
            sum += r.transferUs;
            QCOMPARE(r.bytes.value_or(-1), kBytes);
            QVERIFY(std::fabs(r.busBwGBps - double(kBytes) / (r.transferUs * 1e-6) / 1e9 * 1.5) < 1e-9 * r.busBwGBps);
        }
        QVERIFY(std::fabs(sum / kRanks - transfer) < 1e-9);
    }
}

void TestJobBreakdownDocks::slowInstanceFlaggedWithTooltip()
{
    // Instance 1's transfer 4x as long on every rank: only it is slow.
    auto copy = std::make_shared<JobData>(*m_job);
    MatchedCollective &c = copy->analysis.collectives[1];
    double last = -1e300;
    for (const auto &[rank, t] : c.arrivalUs)
        last = std::max(last, t);
    for (auto &[rank, end] : c.endUs)
        end = last + 4 * (end - last);
    CollectivesModel m;
    m.setJob(copy);
    for (int row = 0; row < m.rowCount(); ++row)
        QCOMPARE(cell(&m, row, CollectivesModel::SlowColumn).toString(),
                 row == 1 ? QStringLiteral("slow") : QString());
    QCOMPARE(cell(&m, 1, CollectivesModel::SlowColumn, SortRole).toInt(), 1);
    const QString tip = cell(&m, 1, CollectivesModel::SlowColumn, Qt::ToolTipRole).toString();
    QVERIFY2(tip.contains(QLatin1String("Slow: below 0.5 x that median")) && tip.contains(QLatin1String("all_reduce")),
             qPrintable(tip));
    QVERIFY(m.headerData(CollectivesModel::SlowColumn, Qt::Horizontal, Qt::ToolTipRole).toString().contains(
        QLatin1String("not a late rank")));
    // The dock flags what the job report flags.
    std::vector<const RankSummary *> summaries;
    for (const JobRankData &r : copy->ranks)
        summaries.push_back(&r.summary);
    const std::vector<CollectiveBandwidth> bw = jobCollectiveBandwidths(summaries, copy->analysis);
    for (int row = 0; row < m.rowCount(); ++row)
        QCOMPARE(cell(&m, row, CollectivesModel::SlowColumn, SortRole).toInt(), int(bw[size_t(row)].slow));
}

void TestJobBreakdownDocks::columnsSizedLikeTheOthers()
{
    // Number columns fit their contents (the panels size every column to its contents).
    RankTablePanel ranks;
    ranks.resize(1600, 400);
    ranks.setJob(m_job);
    ranks.show();
    QVERIFY(QTest::qWaitForWindowExposed(&ranks));
    for (int col : {int(RankTableModel::OverlapColumn), int(RankTableModel::ExposedCommColumn)})
        QVERIFY(fitsContents(ranks.view(), col));
    CollectivesPanel collectives;
    collectives.resize(2400, 400);
    collectives.setJob(m_job);
    collectives.show();
    QVERIFY(QTest::qWaitForWindowExposed(&collectives));
    for (int col : {int(CollectivesModel::SizeColumn), int(CollectivesModel::TransferColumn),
                    int(CollectivesModel::BusBwColumn)})
        QVERIFY(fitsContents(collectives.view(), col));
}

QTEST_MAIN(TestJobBreakdownDocks)
#include "tst_jobbreakdowndocks.moc"
