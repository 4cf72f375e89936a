// SPDX-License-Identifier: MIT
// JobDocument's view of the job: its panels, the details of the selected op's
// rank, going to a rank / collective / op, raw clocks, rank order and the step.
#include "jobdocument.h"

#include "job/jobanalysis.h"
#include "job/jobdocument.h"
#include "util/parallel.h"
#include "job/joboverview.h"
#include "panels/collectivespanel.h"
#include "panels/criticalpathpanel.h"
#include "panels/detailspanel.h"
#include "panels/jobsearchpanel.h"
#include "panels/ranktablepanel.h"
#include "panels/stragglerpanel.h"
#include "panels/whatifpanel.h"
#include "timeline/timelineview.h"

#include <QPointer>
#include <QCoreApplication>
#include <QThreadPool>

#include <algorithm>

namespace syncscope::ui {

void JobDocument::connectPanels()
{
    connect(m_rankTable, &RankTablePanel::rankActivated, this, &JobDocument::showRank);
    // A dp rank or stage of the straggler what-if: its (first) rank's lanes.
    connect(m_stragglers, &StragglerPanel::rankActivated, this, &JobDocument::showRank);
    connect(m_collectives, &CollectivesPanel::collectiveActivated, this, &JobDocument::selectCollective);
    // A root cause of the selected collective: that op on the late rank.
    connect(m_collectives, &CollectivesPanel::rootCauseActivated, this,
            [this](qint64 rank, quint32 event) { selectRankEvent(rank, event); });
    // A rank's row of the selected collective's per-rank table: that rank's kernel.
    connect(m_collectives, &CollectivesPanel::rankEventActivated, this,
            [this](qint64 rank, quint32 event) { selectRankEvent(rank, event); });
    connect(m_rankTable, &RankTablePanel::delayCostActivated, this,
            [this](qint64 rank, quint32 event) { selectRankEvent(rank, event); });
    // The dense overview: a click opens that rank (and selects the collective of a heatmap cell);
    // it frames the timeline's view and follows the selection.
    // A click moves the view to that time and scrolls to the rank, folded as it is; a double
    // click (or Enter) unfolds it; a drag along the strip zooms to that range (issue 41).
    connect(m_overview, &JobOverview::rankActivated, this, &JobDocument::revealRank);
    connect(m_overview, &JobOverview::rankOpened, this, &JobDocument::showRank);
    connect(m_overview, &JobOverview::timeActivated, m_ws.timeline->plot(), &TimelinePlot::centreOn);
    connect(m_overview, &JobOverview::rangeActivated, this,
            [this](double t0, double t1) { m_ws.timeline->plot()->setRange({t0, t1}); });
    connect(m_overview, &JobOverview::collectiveActivated, this, &JobDocument::selectCollective);
    TimelinePlot *plot = m_ws.timeline->plot();
    connect(plot, &TimelinePlot::rangeChanged, m_overview, [this, plot] {
        if (m_model && plot->sharedModel() == m_model)
            m_overview->setViewRange(plot->range().t0, plot->range().t1);
    });
    connect(m_search, &JobSearchPanel::eventRequested, this, [this](qint64 rank, qint64 event) {
        if (event >= 0 && event <= qint64(UINT32_MAX))
            selectRankEvent(rank, quint32(event));
    });
}

void JobDocument::updatePanels()
{
    const auto job = m_job;
    m_ws.whatIf->setJob(job); // the job's what-if: rules over every rank, the job critical path again
    m_stragglers->setJob(job); // the straggler what-if (computed on demand)
    if (!job) {
        m_rankTable->clear();
        m_collectives->clear();
        m_search->clear();
        return;
    }
    m_rankTable->setJob(job);
    m_collectives->setJob(job);
    m_search->setJob(job);
}

void JobDocument::selectionChanged(qint64 event)
{
    if (!m_model || !m_model->isJob()) {
        m_ws.details->model()->setEvent(-1);
        return;
    }
    // The details of the op's rank (its own analysis and lanes).
    const int part = event >= 0 ? m_model->partOf(uint32_t(event)) : -1;
    if (part < 0) {
        m_ws.details->model()->setEvent(-1);
        return;
    }
    const TimelineRankPart &p = m_model->parts[size_t(part)];
    if (part != m_detailsPart) {
        std::shared_ptr<const Analysis> analysis;
        if (m_job)
            if (const int i = m_job->indexOfRank(p.rank); i >= 0)
                analysis = m_job->ranks[size_t(i)].analysis;
        m_ws.details->model()->setSources(analysis, p.model);
        // Times in the job's time base, as the axis reads them.
        m_ws.details->model()->setTimeBase(double(p.shiftNs), QString::fromStdString(m_model->timeBaseShort));
        m_detailsPart = part;
    }
    m_ws.details->model()->setEvent(event - p.base);
    if (m_job)
        m_rankTable->selectRank(p.rank); // without emitting: no jump back
    m_overview->setCurrentRank(p.rank);
}

qint64 JobDocument::detailsEventToTimeline(qint64 event) const
{
    // The details show one rank's analysis: its events are that rank's.
    if (m_model && m_detailsPart >= 0 && size_t(m_detailsPart) < m_model->parts.size())
        return event + m_model->parts[size_t(m_detailsPart)].base;
    return event;
}

qint64 JobDocument::selectedRank() const
{
    const qint64 ev = m_ws.timeline->plot()->selection()->event();
    if (!m_model || !m_model->isJob() || ev < 0)
        return -1;
    const int part = m_model->partOf(uint32_t(ev));
    return part < 0 ? -1 : m_model->parts[size_t(part)].rank;
}

void JobDocument::showRank(qint64 rank)
{
    TimelinePlot *plot = m_ws.timeline->plot();
    if (!m_model || !m_model->isJob())
        return;
    plot->setRankExpanded(rank, true);
    const int y = plot->rankHeaderY(rank);
    if (y >= 0)
        plot->setScrollY(y);
}

void JobDocument::revealRank(qint64 rank)
{
    TimelinePlot *plot = m_ws.timeline->plot();
    if (!m_model || !m_model->isJob())
        return;
    const int y = plot->rankHeaderY(rank);
    if (y >= 0)
        plot->setScrollY(y);
}

void JobDocument::selectCollective(quint32 index)
{
    if (!m_model || index >= m_model->collectiveEvents.size() || m_model->collectiveEvents[index].empty())
        return;
    const auto &events = m_model->collectiveEvents[index];
    qint64 pick = events.front();
    for (uint32_t ev : events)
        if (const CollectiveMark *m = m_model->collectiveMark(ev); m && m->lastArrival)
            pick = ev;
    m_ws.timeline->plot()->selection()->setEvent(pick);
    m_ws.timeline->plot()->revealEvent(uint32_t(pick));
}

bool JobDocument::selectRankEvent(qint64 rank, quint32 event)
{
    if (!m_model)
        return false;
    const int64_t ev = jobEventId(*m_model, rank, event);
    if (ev < 0)
        return false;
    m_ws.timeline->plot()->selection()->setEvent(ev);
    m_ws.timeline->plot()->revealEvent(uint32_t(ev));
    return true;
}

bool JobDocument::selectByName(const QString &name)
{
    if (!m_model || !m_model->isJob() || name.isEmpty())
        return false;
    const std::string wanted = name.toStdString();
    qint64 exact = -1, partial = -1; // the earliest match over the ranks
    for (const TimelineRankPart &part : m_model->parts)
        for (uint32_t i = 0; i < part.events; ++i) {
            const uint32_t ev = part.base + i;
            if (m_model->layout.pos(ev).row < 0)
                continue;
            const std::string_view n = m_model->name(ev);
            auto earlier = [&](qint64 cur) { return cur < 0 || m_model->startNs(ev) < m_model->startNs(uint32_t(cur)); };
            if (n == wanted) {
                if (earlier(exact))
                    exact = ev;
            } else if (n.find(wanted) != std::string_view::npos && earlier(partial)) {
                partial = ev;
            }
        }
    const qint64 ev = exact >= 0 ? exact : partial;
    if (ev < 0)
        return false;
    m_ws.timeline->plot()->selection()->setEvent(ev);
    m_ws.timeline->plot()->revealEvent(uint32_t(ev));
    return true;
}

void JobDocument::setRawClocks(bool raw)
{
    if (m_rawClocks == raw)
        return;
    m_rawClocks = raw;
    if (!m_job || !m_result || !m_model || !m_model->isJob())
        return;
    // The job model is rebuilt off the GUI thread (it copies every rank's lanes).
    const quint64 generation = ++m_generation;
    auto job = m_job;
    auto rankModels = m_result->rankModels;
    QPointer<JobDocument> self(this);
    QThreadPool::globalInstance()->start([self, generation, job, rankModels, raw] {
        auto model = buildJobModel(*job, rankModels, raw);
        // `self` is read on the GUI thread only (from here it may be mid-destruction).
        QMetaObject::invokeMethod(
            qApp,
            [self, generation, model, job] {
                if (!self || generation != self->m_generation || self->m_job != job)
                    return;
                self->showModel(model);
                self->applyRankOrder();
                self->m_detailsPart = -1;
                self->selectionChanged(self->m_ws.timeline->plot()->selection()->event());
                Q_EMIT self->statusChanged(self->statusSummary());
                Q_EMIT self->jobTimelineChanged();
            },
            Qt::QueuedConnection);
    });
}

void JobDocument::setRankOrder(RankOrder order)
{
    m_rankOrder = order;
    applyRankOrder();
}

void JobDocument::applyRankOrder()
{
    if (!m_job || !m_model || !m_model->isJob())
        return;
    std::vector<double> step, caused;
    rankOrderKeys(*m_job, *m_model, step, caused);
    std::vector<uint32_t> order = rankDisplayOrder(*m_model, m_rankOrder, step, caused);
    m_overview->setRankOrder(order);
    m_ws.timeline->plot()->setPartOrder(std::move(order));
}

std::vector<qint64> JobDocument::steps() const
{
    std::vector<qint64> out;
    if (!m_job)
        return out;
    for (const JobRankData &r : m_job->ranks)
        if (r.analysis) {
            for (const RankStep &s : r.summary.steps)
                out.push_back(s.number);
            break;
        }
    return out;
}

qint64 JobDocument::currentStep() const
{
    for (const JobRankData &r : m_job ? m_job->ranks : std::vector<JobRankData>{})
        if (r.analysis)
            return r.summary.criticalPath.windowStep;
    return -1;
}

// The view on the step: from its earliest start to its latest end over the ranks.
void JobDocument::showStepRange(const JobData &job, const TimelineModel &model, qint64 stepNumber)
{
    double t0 = 1e300, t1 = -1e300;
    for (const TimelineRankPart &p : model.parts) {
        const int i = job.indexOfRank(p.rank);
        if (i < 0)
            continue;
        for (const RankStep &st : job.ranks[size_t(i)].summary.steps)
            if (st.number == stepNumber) {
                const double shift = double(p.model->originNs - p.shiftNs);
                t0 = std::min(t0, double(st.startNs) - shift);
                t1 = std::max(t1, double(st.endNs) - shift);
            }
    }
    if (t1 > t0)
        m_ws.timeline->plot()->setRange({t0 - (t1 - t0) * 0.02, t1 + (t1 - t0) * 0.02});
}

void JobDocument::showStep(qint64 stepNumber)
{
    if (!m_job || !m_result)
        return;
    m_ws.criticalPath->setBusy(tr("Computing ProfilerStep#%1 on every rank\u2026").arg(stepNumber));
    showStepRange(*m_job, *m_model, stepNumber); // the view moves at once; the analysis follows
    const quint64 generation = ++m_generation;
    auto before = m_job;
    auto rankModels = m_result->rankModels;
    const bool raw = m_rawClocks;
    QPointer<JobDocument> self(this);
    QThreadPool::globalInstance()->start([self, generation, before, rankModels, raw, stepNumber] {
        auto job = std::make_shared<JobData>(*before);
        int windowIndex = -1;
        parallelFor(job->ranks.size(), std::min(4u, defaultWorkers()), [&](size_t i) {
            JobRankData &r = job->ranks[i];
            if (!r.analysis || !r.analysis->device)
                return;
            int index = -1;
            for (size_t k = 0; k < r.summary.steps.size(); ++k)
                if (r.summary.steps[k].number == stepNumber)
                    index = int(k);
            if (index < 0)
                return; // the rank has no such step: its summary stays as it was
            // The same code as the single-rank step selector; the summary as batch extracts it.
            Diagnostics diag;
            Analysis copy = *r.analysis;
            copy.criticalPath = analyzeSteps(*copy.device, copy.request.cpa, index, index, diag);
            RankSummary s = extractRankSummary(copy, r.summary.exitCode);
            s.rank = r.rank;
            s.exitCode = r.summary.exitCode;
            s.breakdown = std::move(r.summary.breakdown); // of the whole trace: the step does not change it
            r.summary = std::move(s);
        });
        for (const JobRankData &r : job->ranks)
            for (size_t k = 0; windowIndex < 0 && r.analysis && k < r.summary.steps.size(); ++k)
                if (r.summary.steps[k].number == stepNumber)
                    windowIndex = int(k);
        job->window.instanceFirst = job->window.instanceLast = std::max(0, windowIndex);
        std::vector<RankSummary> summaries;
        for (const JobRankData &r : job->ranks)
            summaries.push_back(r.summary);
        job->analysis = analyzeJob(analysableRanks(summaries), JobOptions{});
        auto model = buildJobModel(*job, rankModels, raw);
        // `self` is read on the GUI thread only (from here it may be mid-destruction).
        QMetaObject::invokeMethod(
            qApp,
            [self, generation, job, model, stepNumber] {
                if (!self || generation != self->m_generation || !self->m_result)
                    return;
                self->m_job = job;
                self->showModel(model);
                self->applyRankOrder();
                self->showStepRange(*job, *model, stepNumber);
                self->showPath(stepNumber);
                self->updatePanels();
                Q_EMIT self->statusChanged(self->statusSummary());
                Q_EMIT self->jobChanged();
                Q_EMIT self->jobTimelineChanged();
                Q_EMIT self->criticalPathChanged();
            },
            Qt::QueuedConnection);
    });
}

} // namespace syncscope::ui
