// SPDX-License-Identifier: MIT
// A collective is a table (issue 23, item 3): selecting an instance in the
// Collectives dock shows one row per participating rank — arrival on the job
// timeline's axis, wait, transfer, lateness split, message size, algbw/busbw —
// sortable as numbers, rows that show the rank's kernel; and one name for a
// collective everywhere: the .et type the Chakra exporter writes for it.
#include "analysis/chakracommkind.h"
#include "export/chakraconvert.h"
#include "analysis/busbw.h"
#include "job/jobbuild.h"
#include "model/kinetotrace.h"
#include "panels/collectivespanel.h"
#include "panels/criticalpathmodel.h"
#include "panels/ranktablemodel.h"
#include "testutil.h"
#include "timeline/jobtimeline.h"
#include "tracegen.h"

#include <QLabel>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QtTest>

#include <algorithm>
#include <filesystem>
#include <set>

using namespace syncscope;
using namespace syncscope::ui;

class TestCollectiveRanks : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void timeOriginIsTheTimelines();
    void onePerParticipantWithWaits();
    void arrivalIsTheTimelinesTime();
    void sizeAndBandwidth();
    void sortsNumerically();
    void rowActivationEmitsRankAndKernel();
    void nameIsTheExportersType();
    void realJobSendRecvIsAllToAll();

private:
    std::shared_ptr<const JobData> m_job;
    std::shared_ptr<const TimelineModel> m_timeline;
};

namespace {

constexpr int kRanks = 4;
constexpr int kStraggler = 2;

// The job timeline as the main window builds it: each rank's own model, concatenated.
std::shared_ptr<const TimelineModel> jobTimeline(const JobData &job)
{
    std::vector<JobTimelineRank> ranks;
    for (const JobRankData &r : job.ranks)
        if (r.analysis && r.analysis->device)
            ranks.push_back({r.rank, buildTimelineModel(r.analysis->device), &r.summary, {}});
    return buildJobTimelineModel(ranks, &job.analysis, {});
}

QVariant cell(const QAbstractItemModel *m, int row, int column, int role = Qt::DisplayRole)
{
    return m->data(m->index(row, column), role);
}

// What the exporter writes for rank `rank`'s kernel `event`: the Chakra graph of its pair.
std::string exportedKind(const JobData &job, int64_t rank, uint32_t event)
{
    const JobRankData &r = job.ranks[size_t(job.indexOfRank(rank))];
    const Analysis &a = *r.analysis;
    if (!a.host || !a.link)
        return "no .et";
    ChakraGraph g;
    Diagnostics d;
    if (!buildChakraGraph(*a.host, *a.device, *a.link, g, d))
        return "no .et";
    for (const ChakraNode &n : g.nodes)
        if (a.link->plan.nodes[n.plan].gpuEvent == int32_t(event)) {
            ChakraCommKind k;
            k.type = ChakraNodeType(n.type);
            k.comm = ChakraCommType(n.commType);
            const std::string name = chakraCommKindName(k);
            return name.empty() ? "COMP_NODE" : name;
        }
    return "not exported";
}

// Every instance's kind in the table equals the exporter's for its first loaded participant.
void checkKindsAgainstExporter(const JobData &job, const CollectivesModel &m)
{
    for (size_t i = 0; i < job.analysis.collectives.size(); ++i) {
        const MatchedCollective &c = job.analysis.collectives[i];
        const int ri = job.indexOfRank(c.ranks.front());
        const uint32_t event = job.ranks[size_t(ri)].summary.collectives[c.index.front()].event;
        QCOMPARE(QString::fromStdString(m.chakraKind(quint32(i))),
                 QString::fromStdString(exportedKind(job, c.ranks.front(), event)));
        QCOMPARE(cell(&m, int(i), CollectivesModel::ChakraColumn).toString(),
                 QString::fromStdString(m.chakraKind(quint32(i))));
    }
}

} // namespace

void TestCollectiveRanks::initTestCase()
{
    tracegen::JobOptions o;
    o.dir = (std::filesystem::path(testutil::tempDir()) / "collectiveranks").string();
    o.ranks = kRanks;
    o.steps = 2;
    o.layers = 2;
    o.straggler = kStraggler;
    o.gzip = false;
    tracegen::generateJob(o);
    m_job = buildJobData({o.dir}, AnalysisRequest{});
    QVERIFY(m_job);
    QCOMPARE(int(m_job->ranks.size()), kRanks);
    QVERIFY(!m_job->analysis.collectives.empty());
    m_timeline = jobTimeline(*m_job);
    QVERIFY(m_timeline->isJob());
}

void TestCollectiveRanks::timeOriginIsTheTimelines()
{
    // The table's 0 is the timeline axis' 0 without the main window telling it ...
    QCOMPARE(jobTimeOriginNs(*m_job), m_timeline->originNs);
    CollectivesPanel panel;
    panel.setJob(m_job);
    QCOMPARE(panel.model()->timeOriginNs(), m_timeline->originNs);
    // ... and the Start column is the first kernel start on that axis (not "0 ns" at the
    // first collective, as before issue 23).
    const CollectivesModel *m = panel.model();
    QCOMPARE(m->headerData(CollectivesModel::StartColumn, Qt::Horizontal).toString(), QStringLiteral("Start (job time)"));
    for (int row = 0; row < m->rowCount(); ++row) {
        double first = 1e300;
        for (uint32_t ev : m_timeline->collectiveEvents[size_t(row)])
            first = std::min(first, m_timeline->startNs(ev));
        QCOMPARE(cell(m, row, CollectivesModel::StartColumn, SortRole).toDouble(), first / 1e3);
    }
    QVERIFY(cell(m, 0, CollectivesModel::StartColumn, SortRole).toDouble() > 0);
    // A given origin moves every time shown.
    panel.setTimeOrigin(m_timeline->originNs - 1000000);
    QCOMPARE(cell(m, 0, CollectivesModel::StartColumn, SortRole).toDouble(),
             [&] {
                 double first = 1e300;
                 for (uint32_t ev : m_timeline->collectiveEvents[0])
                     first = std::min(first, m_timeline->startNs(ev));
                 return first / 1e3 + 1000;
             }());
}

void TestCollectiveRanks::onePerParticipantWithWaits()
{
    CollectivesPanel panel;
    panel.setJob(m_job);
    const CollectiveRanksModel *rm = panel.ranksPanel()->model();
    QCOMPARE(rm->rowCount(), 0);
    QCOMPARE(panel.instanceSplitter()->widget(0), static_cast<QWidget *>(panel.ranksPanel()));
    for (size_t i = 0; i < m_job->analysis.collectives.size(); ++i) {
        const MatchedCollective &c = m_job->analysis.collectives[i];
        panel.selectCollective(quint32(i));
        QCOMPARE(rm->collective(), qint64(i));
        QCOMPARE(rm->rowCount(), int(c.ranks.size()));
        std::set<qint64> ranks;
        double last = -1e300;
        for (int row = 0; row < rm->rowCount(); ++row) {
            ranks.insert(cell(rm, row, CollectiveRanksModel::RankColumn, RankRole).toLongLong());
            last = std::max(last, cell(rm, row, CollectiveRanksModel::ArrivalColumn, SortRole).toDouble());
        }
        QCOMPARE(ranks, std::set<qint64>(c.ranks.begin(), c.ranks.end()));
        QVERIFY(c.lastArrivalRank >= 0);
        for (int row = 0; row < rm->rowCount(); ++row) {
            const qint64 rank = cell(rm, row, CollectiveRanksModel::RankColumn, RankRole).toLongLong();
            const double wait = cell(rm, row, CollectiveRanksModel::WaitColumn, SortRole).toDouble();
            const double arrival = cell(rm, row, CollectiveRanksModel::ArrivalColumn, SortRole).toDouble();
            QVERIFY(wait >= 0);
            if (rank == c.lastArrivalRank)
                QCOMPARE(wait, 0.0);
            // The wait is the last arrival minus its own, on the same axis (to the ns).
            QVERIFY2(std::abs(wait - (last - arrival) / 1e3) < 0.002,
                     qPrintable(QStringLiteral("rank %1: wait %2 µs, arrivals %3 / %4 ns")
                                    .arg(rank).arg(wait).arg(arrival).arg(last)));
            // Kernel = wait + transfer; the transfer is the collective's own time after the last arrival.
            const double transfer = cell(rm, row, CollectiveRanksModel::TransferColumn, SortRole).toDouble();
            const double kernel = cell(rm, row, CollectiveRanksModel::KernelColumn, SortRole).toDouble();
            QVERIFY(std::abs(kernel - wait - transfer) < 0.002);
            QVERIFY2(transfer > 100 && transfer < 140, qPrintable(QString::number(transfer))); // tracegen: 120 µs
            // The lateness split, per rank: late = start skew + work excess + unexplained.
            const double late = cell(rm, row, CollectiveRanksModel::LateColumn, SortRole).toDouble();
            const double skew = cell(rm, row, CollectiveRanksModel::StartSkewColumn, SortRole).toDouble();
            const double work = cell(rm, row, CollectiveRanksModel::WorkExcessColumn, SortRole).toDouble();
            QVERIFY(late >= 0 && skew >= 0 && work >= 0);
            QVERIFY(skew + work <= late + 1e-6);
            QCOMPARE(late, c.lateness.at(rank).lateUs);
        }
    }
    // The last arriver's row is bold; the title names the instance.
    QVERIFY(panel.ranksPanel()->titleLabel()->text().contains(QStringLiteral("allreduce (.et: ALL_REDUCE) #")));
}

void TestCollectiveRanks::arrivalIsTheTimelinesTime()
{
    CollectivesPanel panel;
    panel.setJob(m_job);
    panel.setTimeOrigin(m_timeline->originNs); // what the main window passes
    const CollectiveRanksModel *rm = panel.ranksPanel()->model();
    for (size_t i = 0; i < m_job->analysis.collectives.size(); ++i) {
        panel.selectCollective(quint32(i));
        for (int row = 0; row < rm->rowCount(); ++row) {
            const qint64 rank = cell(rm, row, CollectiveRanksModel::RankColumn, RankRole).toLongLong();
            const QVariant event = cell(rm, row, CollectiveRanksModel::RankColumn, RankEventRole);
            QVERIFY(event.isValid());
            const int64_t id = jobEventId(*m_timeline, rank, event.toUInt());
            QVERIFY(id >= 0);
            // The row's kernel is one of the instance's kernels on the timeline, at the same time.
            const auto &kernels = m_timeline->collectiveEvents[i];
            QVERIFY(std::find(kernels.begin(), kernels.end(), uint32_t(id)) != kernels.end());
            const double arrival = cell(rm, row, CollectiveRanksModel::ArrivalColumn, SortRole).toDouble();
            QCOMPARE(arrival, m_timeline->startNs(uint32_t(id)));
            QCOMPARE(cell(rm, row, CollectiveRanksModel::ArrivalColumn).toString(),
                     QStringLiteral("%1 ms").arg(arrival / 1e6, 0, 'f', 3));
        }
    }
}

void TestCollectiveRanks::sizeAndBandwidth()
{
    CollectivesPanel panel;
    panel.setJob(m_job);
    panel.selectCollective(0);
    const CollectiveRanksModel *rm = panel.ranksPanel()->model();
    QVERIFY(rm->rowCount() == kRanks);
    for (int row = 0; row < rm->rowCount(); ++row) {
        // tracegen's all-reduce: 262,144 Float elements in and out.
        QCOMPARE(cell(rm, row, CollectiveRanksModel::SizeColumn, SortRole).toLongLong(), qint64(1048576));
        QCOMPARE(cell(rm, row, CollectiveRanksModel::SizeColumn).toString(), QStringLiteral("1.00 MiB"));
        const double transferS = cell(rm, row, CollectiveRanksModel::TransferColumn, SortRole).toDouble() * 1e-6;
        const double alg = cell(rm, row, CollectiveRanksModel::AlgBwColumn, SortRole).toDouble();
        const double bus = cell(rm, row, CollectiveRanksModel::BusBwColumn, SortRole).toDouble();
        QVERIFY(std::abs(alg - 1048576 / transferS / 1e9) < 1e-9);
        QVERIFY(std::abs(bus - alg * 2.0 * (kRanks - 1) / kRanks) < 1e-9); // all-reduce: 2(n-1)/n
    }
    QVERIFY(rm->headerData(CollectiveRanksModel::BusBwColumn, Qt::Horizontal, Qt::ToolTipRole)
                .toString()
                .contains(QStringLiteral("transfer time")));
    QVERIFY(rm->headerData(CollectiveRanksModel::AlgBwColumn, Qt::Horizontal, Qt::ToolTipRole)
                .toString()
                .contains(QStringLiteral("transfer time")));
    QVERIFY(panel.ranksPanel()->titleLabel()->text().contains(QStringLiteral("factor 1.500")));
}

void TestCollectiveRanks::sortsNumerically()
{
    CollectivesPanel panel;
    panel.setJob(m_job);
    // The instance with the widest spread: waits from µs to ms, which sort wrongly as text.
    quint32 widest = 0;
    for (size_t i = 0; i < m_job->analysis.collectives.size(); ++i)
        if (m_job->analysis.collectives[i].spreadUs > m_job->analysis.collectives[widest].spreadUs)
            widest = quint32(i);
    panel.selectCollective(widest);
    QTableView *view = panel.ranksPanel()->view();
    QAbstractItemModel *sorted = view->model();
    QCOMPARE(sorted, static_cast<QAbstractItemModel *>(panel.ranksPanel()->sortedModel()));
    for (const auto order : {Qt::AscendingOrder, Qt::DescendingOrder}) {
        view->sortByColumn(CollectiveRanksModel::WaitColumn, order);
        std::vector<double> waits;
        for (int row = 0; row < sorted->rowCount(); ++row)
            waits.push_back(cell(sorted, row, CollectiveRanksModel::WaitColumn, SortRole).toDouble());
        QCOMPARE(int(waits.size()), kRanks);
        if (order == Qt::AscendingOrder)
            QVERIFY(std::is_sorted(waits.begin(), waits.end()));
        else
            QVERIFY(std::is_sorted(waits.rbegin(), waits.rend()));
        QVERIFY(waits.front() != waits.back());
    }
    QCOMPARE(cell(sorted, 0, CollectiveRanksModel::WaitColumn, SortRole).typeId(), QMetaType::Double);
}

void TestCollectiveRanks::rowActivationEmitsRankAndKernel()
{
    CollectivesPanel panel;
    panel.resize(1000, 700);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.setJob(m_job);
    const quint32 instance = 1;
    panel.selectCollective(instance);
    const MatchedCollective &c = m_job->analysis.collectives[instance];
    QTableView *view = panel.ranksPanel()->view();
    QSignalSpy spy(&panel, &CollectivesPanel::rankEventActivated);
    for (int row = 0; row < view->model()->rowCount(); ++row) {
        const QRect rect = view->visualRect(view->model()->index(row, CollectiveRanksModel::WaitColumn));
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, rect.center());
        QCOMPARE(spy.count(), row + 1);
        const qint64 rank = spy.last().at(0).toLongLong();
        const quint32 event = spy.last().at(1).toUInt();
        QCOMPARE(rank, cell(view->model(), row, 0, RankRole).toLongLong());
        // The event is that rank's kernel of this instance.
        const size_t k = size_t(std::find(c.ranks.begin(), c.ranks.end(), rank) - c.ranks.begin());
        QVERIFY(k < c.ranks.size());
        const JobRankData &r = m_job->ranks[size_t(m_job->indexOfRank(rank))];
        QCOMPARE(event, r.summary.collectives[c.index[k]].event);
        QVERIFY(r.analysis->device->str(r.analysis->device->events[event].name).find("ncclDevKernel_AllReduce") !=
                std::string::npos);
    }
    // Enter activates too.
    view->setFocus();
    view->setCurrentIndex(view->model()->index(0, 0));
    QTest::keyClick(view, Qt::Key_Return);
    QCOMPARE(spy.count(), view->model()->rowCount() + 1);
}

void TestCollectiveRanks::nameIsTheExportersType()
{
    CollectivesPanel panel;
    panel.setJob(m_job);
    const CollectivesModel *m = panel.model();
    checkKindsAgainstExporter(*m_job, *m);
    if (QTest::currentTestFailed())
        return;
    QCOMPARE(QString::fromStdString(m->chakraKind(0)), QStringLiteral("ALL_REDUCE"));
    QCOMPARE(cell(m, 0, CollectivesModel::NameColumn, Qt::ToolTipRole).toString(),
             QStringLiteral("allreduce (.et: ALL_REDUCE)"));
    QCOMPARE(m->headerData(CollectivesModel::ChakraColumn, Qt::Horizontal).toString(), QStringLiteral(".et type"));
    panel.selectCollective(0);
    QVERIFY2(panel.ranksPanel()->titleLabel()->text().startsWith(QStringLiteral("allreduce (.et: ALL_REDUCE) #0")),
             qPrintable(panel.ranksPanel()->titleLabel()->text()));
    QVERIFY(panel.rootCauseLabel()->text().contains(QStringLiteral("(.et: ALL_REDUCE)")));
    // The filter finds collectives by their .et type too.
    panel.setFilterText(QStringLiteral("all_reduce"));
    QCOMPARE(panel.sortedModel()->rowCount(), m->rowCount());
    panel.setFilterText(QStringLiteral("ALL_TO_ALL"));
    QCOMPARE(panel.sortedModel()->rowCount(), 0);
}

void TestCollectiveRanks::realJobSendRecvIsAllToAll()
{
    // DLRM's SendRecv kernels run under nccl:all_to_all: "sendrecv" in the analysis,
    // ALL_TO_ALL in the .et; the dock says both.
    REQUIRE_SHARED_DATA();
    const auto dlrm = buildJobData({testutil::sharedData("pairs/param_dlrm_8rank")}, AnalysisRequest{});
    QVERIFY(dlrm);
    CollectivesPanel panel;
    panel.setJob(dlrm);
    checkKindsAgainstExporter(*dlrm, *panel.model());
    if (QTest::currentTestFailed())
        return;
    int sendrecv = -1;
    for (size_t i = 0; i < dlrm->analysis.collectives.size() && sendrecv < 0; ++i)
        if (dlrm->analysis.collectives[i].name == "sendrecv")
            sendrecv = int(i);
    QVERIFY(sendrecv >= 0);
    QCOMPARE(QString::fromStdString(panel.model()->chakraKind(quint32(sendrecv))), QStringLiteral("ALL_TO_ALL"));
    panel.selectCollective(quint32(sendrecv));
    QVERIFY2(panel.ranksPanel()->titleLabel()->text().contains(QStringLiteral("sendrecv (.et: ALL_TO_ALL)")),
             qPrintable(panel.ranksPanel()->titleLabel()->text()));
    const CollectiveRanksModel *rm = panel.ranksPanel()->model();
    QCOMPARE(rm->rowCount(), int(dlrm->analysis.collectives[size_t(sendrecv)].ranks.size()));
    // No message args in these traces: size and bandwidths are unknown, not made up.
    QCOMPARE(cell(rm, 0, CollectiveRanksModel::SizeColumn).toString(), QStringLiteral("-"));
    QCOMPARE(cell(rm, 0, CollectiveRanksModel::BusBwColumn).toString(), QStringLiteral("-"));
}

QTEST_MAIN(TestCollectiveRanks)
#include "tst_collectiveranks.moc"
