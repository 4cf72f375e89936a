// SPDX-License-Identifier: MIT
// MainWindow's job part: opening a folder of ranks, the job timeline's options
// (raw clocks, rank order, step) and the hooks the job panels use.
#include "mainwindow.h"

#include "job/jobanalysis.h"
#include "job/jobdocument.h"
#include "job/parallel.h"
#include "panels/criticalpathpanel.h"
#include "panels/detailspanel.h"
#include "panels/diagnosticspanel.h"
#include "panels/searchpanel.h"
#include "panels/syncwaitspanel.h"
#include "panels/whatifpanel.h"
#include "startpage.h"
#include "timeline/timeformat.h"
#include "timeline/timelineview.h"

#include <QComboBox>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QStackedWidget>
#include <QThreadPool>

#include <algorithm>

namespace syncscope::ui {

namespace {

QString number(qint64 n)
{
    return QLocale().toString(n);
}

} // namespace

void MainWindow::showOpenJobDialog()
{
    const QString start = m_lastJobDir.isEmpty() ? QString() : QFileInfo(m_lastJobDir).absolutePath();
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Open job (a folder of ranks)"), start);
    if (!dir.isEmpty())
        openJob(dir);
}

void MainWindow::openJob(const QString &dir)
{
    m_loader->abandon();
    closeJob();
    m_jobDir = m_lastJobDir = dir;
    m_jobShown = false;
    m_loading = {QString(), dir};
    m_reloadAction->setEnabled(false);
    m_progress->setValue(0);
    m_progress->setFormat(tr("discovering ranks %p%"));
    m_progress->show();
    m_cancel->show();
    m_statusLabel->setText(tr("Opening the job in %1\u2026").arg(dir));
    m_stepGeneration++;
    AnalysisRequest request = m_template;
    request.hostPath.clear();
    request.devicePath.clear();
    m_jobLoader->start({dir.toStdString()}, std::move(request));
}

void MainWindow::giveTimelineRoom()
{
    // A job's ranks need the height; the bottom docks (per-pair search, sync waits...) shrink.
    resizeDocks({m_searchDock}, {std::max(90, height() * 9 / 100)}, Qt::Vertical);
}

void MainWindow::closeJob()
{
    m_jobLoader->abandon();
    const bool had = m_job != nullptr;
    m_jobShown = false;
    m_job.reset();
    m_jobResult.reset();
    m_detailsPart = -1;
    for (QAction *a : m_jobActions)
        a->setVisible(false);
    if (had)
        Q_EMIT jobChanged();
}

void MainWindow::showJobModel(std::shared_ptr<TimelineModel> model)
{
    const bool fresh = !m_jobShown;
    m_jobShown = true;
    m_model = model;
    if (fresh)
        m_timeline->setModel(model);
    else
        m_timeline->replaceModel(model);
    m_search->setTimeline(model);
    m_stack->setCurrentWidget(m_timeline);
    for (QAction *a : m_jobActions)
        a->setVisible(true);
}

void MainWindow::onJobTimelineReady(std::shared_ptr<TimelineModel> model)
{
    if (!model || model->parts.empty())
        return;
    const bool first = !m_jobShown;
    m_analysis.reset();
    m_cp.reset();
    m_steps.clear();
    showJobModel(model);
    if (first) {
        giveTimelineRoom();
        m_details->model()->setSources(nullptr, nullptr);
        m_cpPanel->clear();
        m_cpPanel->setBusy(tr("Analysing the ranks\u2026"));
        m_syncWaits->setSources(nullptr, nullptr);
        m_whatIf->setContext(nullptr, nullptr);
        m_timeline->plot()->setFocus();
        setWindowTitle(m_loading.label() + QStringLiteral(" \u2014 Syncscope"));
        updateExportActions();
        Q_EMIT timelineShown();
    }
    m_statusLabel->setText(tr("%n rank(s) on the timeline (own clocks); analysing\u2026", nullptr,
                              int(model->parts.size())));
}

void MainWindow::onJobFinished(std::shared_ptr<JobLoadResult> result)
{
    m_progress->hide();
    m_cancel->hide();
    m_reloadAction->setEnabled(!m_lastJobDir.isEmpty());
    const JobData &job = *result->job;
    const std::vector<Diagnostic> diagnostics = jobDiagnostics(job);
    m_diagnostics->model()->setDiagnostics(diagnostics);
    int errors = 0, warnings = 0;
    for (const Diagnostic &d : diagnostics) {
        errors += d.severity == Severity::Error;
        warnings += d.severity == Severity::Warning;
    }
    m_diagLabel->setText(errors || warnings ? tr("%1 errors, %2 warnings").arg(errors).arg(warnings) : QString());
    if (result->cancelled) {
        const QString resume = m_reloadAction->shortcut().toString(QKeySequence::NativeText);
        m_statusLabel->setText(tr("Loading the job was cancelled. File \u25b8 Reload (%1) loads it again.").arg(resume));
        m_cpPanel->clear();
        m_cpPanel->setBusy(tr("Loading was cancelled."));
        if (!m_jobShown)
            m_stack->setCurrentWidget(m_start);
        Q_EMIT loadFinished(false);
        return;
    }
    const bool ok = result->model && !result->model->parts.empty();
    m_job = result->job;
    m_jobResult = result;
    if (!ok) {
        m_statusLabel->setText(job.ranks.empty() ? tr("No ranks were found in %1 (see Diagnostics).").arg(m_jobDir)
                                                 : tr("No rank of %1 could be loaded (see Diagnostics).").arg(m_jobDir));
        m_diagDock->show();
        m_diagDock->raise();
        if (!m_jobShown)
            m_stack->setCurrentWidget(m_start);
        Q_EMIT jobChanged();
        Q_EMIT loadFinished(false);
        return;
    }
    if (!m_jobShown) { // no snapshot was shown: the panels start here
        giveTimelineRoom();
        m_details->model()->setSources(nullptr, nullptr);
        m_syncWaits->setSources(nullptr, nullptr);
        m_whatIf->setContext(nullptr, nullptr);
        m_analysis.reset();
        m_cp.reset();
        m_steps.clear();
        setWindowTitle(m_loading.label() + QStringLiteral(" \u2014 Syncscope"));
    }
    showJobModel(m_rawClocks ? buildJobModel(job, result->rankModels, true) : result->model);
    applyRankOrder();
    fillJobSteps();
    const JobCriticalPath &path = job.analysis.criticalPath;
    m_cpPanel->clear();
    m_cpPanel->setBusy(path.valid ? tr("Job critical path: %1 through rank(s) %2 (marked on the timeline). "
                                       "Select an op for its rank's details.")
                                        .arg(QString::fromStdString(formatDuration(path.weightUs * 1000)),
                                             [&] {
                                                 QStringList r;
                                                 for (int64_t k : path.ranksOnPath)
                                                     r << QString::number(k);
                                                 return r.join(QStringLiteral(", "));
                                             }())
                                  : tr("No job critical path: %1").arg(QString::fromStdString(path.reason)));
    updateStatus();
    updateExportActions();
    if (m_recordRecent) {
        addRecentPair({QString(), QFileInfo(m_jobDir).absoluteFilePath()});
        rebuildRecentMenu();
        m_start->refresh();
    }
    if (errors) {
        m_diagDock->show();
        m_diagDock->raise();
    }
    Q_EMIT jobChanged();
    Q_EMIT loadFinished(true);
}

QString MainWindow::jobSummary() const
{
    const JobData &job = *m_job;
    QStringList parts;
    size_t loaded = 0;
    for (const JobRankData &r : job.ranks)
        loaded += r.analysis != nullptr;
    parts << tr("Job: %1 of %2 ranks loaded").arg(loaded).arg(job.ranks.size());
    parts << tr("%1 ops on the timeline").arg(number(qint64(m_model->layout.itemCount)));
    parts << tr("%1 matched collectives").arg(number(qint64(job.analysis.collectives.size())));
    if (job.analysis.criticalPath.valid)
        parts << tr("job critical path %1").arg(QString::fromStdString(formatDuration(job.analysis.criticalPath.weightUs * 1000)));
    for (int64_t r : job.analysis.stragglers)
        for (const RankJobStats &s : job.analysis.ranks)
            if (s.rank == r && s.collectiveWaitCausedUs > 0 && r == job.analysis.stragglers.front())
                parts << tr("top straggler rank %1 (%2 of waits caused)")
                             .arg(r)
                             .arg(QString::fromStdString(formatDuration(s.collectiveWaitCausedUs * 1000)));
    if (m_rawClocks)
        parts << tr("raw clocks");
    if (htaExact())
        parts << tr("HTA-exact");
    return parts.join(QStringLiteral("  \u00b7  "));
}

void MainWindow::onSelectionChanged(qint64 event)
{
    if (!m_model || !m_model->isJob()) {
        m_details->model()->setEvent(event);
        return;
    }
    // A job: the details of the op's rank (its own analysis and lanes).
    const int part = event >= 0 ? m_model->partOf(uint32_t(event)) : -1;
    if (part < 0) {
        m_details->model()->setEvent(-1);
        return;
    }
    const TimelineRankPart &p = m_model->parts[size_t(part)];
    if (part != m_detailsPart || !m_details->model()) {
        std::shared_ptr<const Analysis> analysis;
        if (m_job)
            if (const int i = m_job->indexOfRank(p.rank); i >= 0)
                analysis = m_job->ranks[size_t(i)].analysis;
        m_details->model()->setSources(analysis, p.model);
        m_detailsPart = part;
    }
    m_details->model()->setEvent(event - p.base);
}

qint64 MainWindow::selectedRank() const
{
    const qint64 ev = m_timeline->plot()->selection()->event();
    if (!m_model || !m_model->isJob() || ev < 0)
        return -1;
    const int part = m_model->partOf(uint32_t(ev));
    return part < 0 ? -1 : m_model->parts[size_t(part)].rank;
}

void MainWindow::showRank(qint64 rank)
{
    TimelinePlot *plot = m_timeline->plot();
    if (!m_model || !m_model->isJob())
        return;
    plot->setRankExpanded(rank, true);
    const int y = plot->rankHeaderY(rank);
    if (y >= 0)
        plot->setScrollY(y);
}

void MainWindow::selectCollective(quint32 index)
{
    if (!m_model || index >= m_model->collectiveEvents.size() || m_model->collectiveEvents[index].empty())
        return;
    const auto &events = m_model->collectiveEvents[index];
    qint64 pick = events.front();
    for (uint32_t ev : events)
        if (const CollectiveMark *m = m_model->collectiveMark(ev); m && m->lastArrival)
            pick = ev;
    jumpTo(pick);
}

bool MainWindow::selectRankEvent(qint64 rank, quint32 event)
{
    if (!m_model)
        return false;
    const int64_t ev = jobEventId(*m_model, rank, event);
    if (ev < 0)
        return false;
    jumpTo(ev);
    return true;
}

void MainWindow::setRawClocks(bool raw)
{
    if (m_rawClocksAction->isChecked() != raw)
        m_rawClocksAction->setChecked(raw); // comes back here
    if (m_rawClocks == raw)
        return;
    m_rawClocks = raw;
    if (!m_job || !m_jobResult || !m_model || !m_model->isJob())
        return;
    // The job model is rebuilt off the GUI thread (it copies every rank's lanes).
    const quint64 generation = ++m_stepGeneration;
    auto job = m_job;
    auto rankModels = m_jobResult->rankModels;
    QPointer<MainWindow> self(this);
    QThreadPool::globalInstance()->start([self, generation, job, rankModels, raw] {
        auto model = buildJobModel(*job, rankModels, raw);
        if (!self)
            return;
        QMetaObject::invokeMethod(
            self.data(),
            [self, generation, model, job] {
                if (!self || generation != self->m_stepGeneration || self->m_job != job)
                    return;
                self->showJobModel(model);
                self->m_detailsPart = -1;
                self->onSelectionChanged(self->m_timeline->plot()->selection()->event());
                self->updateStatus();
                Q_EMIT self->jobTimelineChanged();
            },
            Qt::QueuedConnection);
    });
}

void MainWindow::setRankOrder(RankOrder order)
{
    m_rankOrder = order;
    const int i = m_rankOrderBox->findData(static_cast<int>(order));
    if (i >= 0 && m_rankOrderBox->currentIndex() != i)
        m_rankOrderBox->setCurrentIndex(i);
    applyRankOrder();
}

void MainWindow::applyRankOrder()
{
    if (!m_job || !m_model || !m_model->isJob())
        return;
    std::vector<double> step, caused;
    rankOrderKeys(*m_job, *m_model, step, caused);
    m_timeline->plot()->setPartOrder(rankDisplayOrder(*m_model, m_rankOrder, step, caused));
}

std::vector<qint64> MainWindow::jobSteps() const
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

void MainWindow::fillJobSteps()
{
    m_jobStepBox->clear();
    qint64 current = -1;
    for (const JobRankData &r : m_job ? m_job->ranks : std::vector<JobRankData>{})
        if (r.analysis) {
            current = r.summary.criticalPath.windowStep;
            break;
        }
    for (qint64 n : jobSteps()) {
        m_jobStepBox->addItem(tr("ProfilerStep#%1").arg(n), n);
        if (n == current)
            m_jobStepBox->setCurrentIndex(m_jobStepBox->count() - 1);
    }
    m_jobStepBox->setEnabled(m_jobStepBox->count() > 0);
}

void MainWindow::showJobStep(qint64 stepNumber)
{
    if (!m_job || !m_jobResult)
        return;
    const int box = m_jobStepBox->findData(stepNumber);
    if (box >= 0)
        m_jobStepBox->setCurrentIndex(box);
    m_cpPanel->setBusy(tr("Computing ProfilerStep#%1 on every rank\u2026").arg(stepNumber));
    const quint64 generation = ++m_stepGeneration;
    auto before = m_job;
    auto rankModels = m_jobResult->rankModels;
    const bool raw = m_rawClocks;
    QPointer<MainWindow> self(this);
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
        if (!self)
            return;
        QMetaObject::invokeMethod(
            self.data(),
            [self, generation, job, model, stepNumber] {
                if (!self || generation != self->m_stepGeneration || !self->m_jobResult)
                    return;
                self->m_job = job;
                self->showJobModel(model);
                self->applyRankOrder();
                // The view on the step: from its earliest start to its latest end over the ranks.
                double t0 = 1e300, t1 = -1e300;
                for (const TimelineRankPart &p : model->parts) {
                    const int i = job->indexOfRank(p.rank);
                    if (i < 0)
                        continue;
                    for (const RankStep &st : job->ranks[size_t(i)].summary.steps)
                        if (st.number == stepNumber) {
                            const double shift = double(p.model->originNs - p.shiftNs);
                            t0 = std::min(t0, double(st.startNs) - shift);
                            t1 = std::max(t1, double(st.endNs) - shift);
                        }
                }
                if (t1 > t0)
                    self->m_timeline->plot()->setRange({t0 - (t1 - t0) * 0.02, t1 + (t1 - t0) * 0.02});
                const JobCriticalPath &path = job->analysis.criticalPath;
                self->m_cpPanel->setBusy(path.valid ? tr("ProfilerStep#%1: job critical path %2 (marked on the timeline).")
                                                          .arg(stepNumber)
                                                          .arg(QString::fromStdString(formatDuration(path.weightUs * 1000)))
                                                    : tr("ProfilerStep#%1: no job critical path: %2")
                                                          .arg(stepNumber)
                                                          .arg(QString::fromStdString(path.reason)));
                self->updateStatus();
                Q_EMIT self->jobChanged();
                Q_EMIT self->jobTimelineChanged();
                Q_EMIT self->criticalPathChanged();
            },
            Qt::QueuedConnection);
    });
}

} // namespace syncscope::ui
