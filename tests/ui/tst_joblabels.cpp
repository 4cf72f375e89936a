// SPDX-License-Identifier: MIT
// Issue 41, item 4: the job's labels name the metric they rank by. On the real 8-rank DLRM
// job: the top straggler is said with the cost it is ranked by (waits its extra work
// caused), the "stragglers first" order puts it first, and the job critical path says
// the start skew the job step had before it.
#include "job/jobbuild.h"
#include "job/jobloader.h"
#include "job/jobtexts.h"
#include "panels/ranktablepanel.h"
#include "testutil.h"
#include "timeline/jobtimeline.h"
#include "timeline/timeformat.h"
#include "timeline/timelinemodel.h"

#include <QtTest>

using namespace syncscope;
using namespace syncscope::ui;

class TestJobLabels : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void topStragglerIsSaidByItsRankingCost();
    void stragglersFirstOrderAgrees();
    void jobPathSaysItsStartSkew();

private:
    std::shared_ptr<JobData> m_job;
};

void TestJobLabels::initTestCase()
{
    m_job = buildJobData({testutil::sharedData("pairs/param_dlrm_8rank")}, AnalysisRequest{});
    QVERIFY(m_job);
    QCOMPARE(m_job->ranks.size(), size_t(8));
    QVERIFY(!m_job->analysis.stragglers.empty());
}

void TestJobLabels::topStragglerIsSaidByItsRankingCost()
{
    const JobAnalysis &a = m_job->analysis;
    const int64_t top = a.stragglers.front();
    double cost = 0;
    for (const RankJobStats &s : a.ranks)
        if (s.rank == top)
            cost = s.workDelayCostUs;
    QVERIFY(cost > 0);
    const QString text = topStragglerText(a);
    QCOMPARE(text, QStringLiteral("top straggler rank %1 (its extra work caused %2 of waits)")
                       .arg(top)
                       .arg(QString::fromStdString(formatDuration(cost * 1000))));
    QVERIFY(jobSummaryLine(*m_job).contains(text));
    // No rank's extra work caused more: the label's figure is the ranking's maximum.
    for (const RankJobStats &s : a.ranks)
        QVERIFY(s.workDelayCostUs <= cost);
}

void TestJobLabels::stragglersFirstOrderAgrees()
{
    TimelineModel model;
    for (const JobRankData &r : m_job->ranks) {
        TimelineRankPart part;
        part.rank = r.rank;
        model.parts.push_back(part);
    }
    std::vector<double> step, caused;
    rankOrderKeys(*m_job, model, step, caused);
    const std::vector<uint32_t> order = rankDisplayOrder(model, RankOrder::ByWaitsCaused, step, caused);
    QVERIFY(!order.empty());
    QCOMPARE(model.parts[order.front()].rank, m_job->analysis.stragglers.front());
}

void TestJobLabels::jobPathSaysItsStartSkew()
{
    const JobAnalysis &a = m_job->analysis;
    QVERIFY(a.criticalPath.valid && a.criticalPath.stepTime.valid);
    const double skew = a.criticalPath.stepTime.outsideWindowUs;
    const QString text = jobPathSkewText(a);
    if (skew > 0) {
        QCOMPARE(text, QStringLiteral(" (+ %1 start skew before it)").arg(QString::fromStdString(formatDuration(skew * 1000))));
        QVERIFY(jobSummaryLine(*m_job).contains(text));
    } else {
        QVERIFY(text.isEmpty());
    }
    // The parts of the job step add up, the skew among them (what the label adds to the path).
    const JobStepTime &t = a.criticalPath.stepTime;
    QVERIFY(std::fabs(t.workUs + t.waitUs + t.outsideWindowUs - t.stepTimeUs) < 1.0);
}

QTEST_MAIN(TestJobLabels)
#include "tst_joblabels.moc"
