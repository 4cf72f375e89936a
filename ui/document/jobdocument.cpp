// SPDX-License-Identifier: MIT
// JobDocument's life: opening a folder of ranks, the first ranks' snapshot on the
// timeline, the finished job, closing; and the status summary.
#include "jobdocument.h"
#include "job/jobtexts.h"

#include "job/jobanalysis.h"
#include "job/jobexport.h"
#include "job/joboverview.h"
#include "panels/collectivespanel.h"
#include "panels/criticalpathpanel.h"
#include "panels/detailspanel.h"
#include "panels/jobsearchpanel.h"
#include "panels/ranktablepanel.h"
#include "panels/searchpanel.h"
#include "panels/stragglerpanel.h"
#include "panels/syncwaitspanel.h"
#include "panels/whatifpanel.h"
#include "timeline/timeformat.h"
#include "timeline/timelineview.h"

#include <QDir>
#include <QFileInfo>
#include <QSettings>

namespace syncscope::ui {

JobDocument::JobDocument(const Workspace &workspace, QWidget *panelParent, QObject *parent)
    : Document(workspace, parent)
    , m_loader(new JobLoader(this))
    , m_rankTable(new RankTablePanel(panelParent))
    , m_collectives(new CollectivesPanel(panelParent))
    , m_search(new JobSearchPanel(panelParent))
    , m_overview(new JobOverview(panelParent))
    , m_stragglers(new StragglerPanel(panelParent))
    , m_exporter(new JobExporter(this))
{
    connect(m_loader, &JobLoader::progress, this, &JobDocument::progress);
    connect(m_loader, &JobLoader::timelineReady, this, &JobDocument::onTimelineReady);
    connect(m_loader, &JobLoader::finished, this, &JobDocument::onFinished);
    connect(m_exporter, &JobExporter::progress, this, [this](int done, int total) {
        Q_EMIT statusChanged(tr("Exporting the job: %1 of %2 rank(s)\u2026").arg(done).arg(total));
    });
    connect(m_exporter, &JobExporter::finished, this, &JobDocument::exportFinished);
    connectPanels();
}

JobDocument::~JobDocument() = default;

void JobDocument::open(const QString &dir, AnalysisRequest request)
{
    close();
    m_dir = m_lastDir = dir;
    request.hostPath.clear();
    request.devicePath.clear();
    m_request = request;
    Q_EMIT loadStarted(tr("discovering ranks %p%"), tr("Opening the job in %1\u2026").arg(dir));
    m_loader->start({dir.toStdString()}, std::move(request));
}

void JobDocument::reload()
{
    if (!m_lastDir.isEmpty() && !busy())
        open(m_lastDir, m_request);
}

void JobDocument::setHtaExact(bool on)
{
    m_request.cpa.htaExact = on;
    if (!m_lastDir.isEmpty())
        open(m_lastDir, m_request);
}

void JobDocument::close()
{
    m_loader->abandon();
    ++m_generation;
    const bool had = m_job != nullptr;
    m_shown = false;
    m_job.reset();
    m_result.reset();
    m_model.reset();
    m_overview->clear();
    m_detailsPart = -1;
    if (had) {
        updatePanels();
        Q_EMIT jobChanged();
    }
}

void JobDocument::showModel(std::shared_ptr<TimelineModel> model)
{
    const bool fresh = !m_shown;
    m_shown = true;
    m_model = model;
    if (fresh)
        m_ws.timeline->setModel(model);
    else
        m_ws.timeline->replaceModel(model);
    m_ws.search->setTimeline(model);
    m_overview->setJob(m_job, model); // before the analysis: activity without waits
}

// The shared panels at the start of a job: nothing of a pair is left in them.
void JobDocument::startPanels()
{
    m_ws.details->model()->setSources(nullptr, nullptr);
    m_ws.syncWaits->setSources(nullptr, nullptr);
    m_ws.whatIf->setContext(nullptr, nullptr);
    m_ws.criticalPath->clear();
}

void JobDocument::onTimelineReady(std::shared_ptr<TimelineModel> model)
{
    if (!model || model->parts.empty())
        return;
    const bool first = !m_shown;
    showModel(model);
    if (first) {
        startPanels();
        m_ws.criticalPath->setBusy(tr("Analysing the ranks\u2026"));
        Q_EMIT timelineShown(m_dir);
    }
    Q_EMIT statusChanged(tr("%n rank(s) on the timeline (own clocks); analysing\u2026", nullptr, int(model->parts.size())));
}

void JobDocument::onFinished(std::shared_ptr<JobLoadResult> result)
{
    Q_EMIT loadEnded();
    const JobData &job = *result->job;
    const std::vector<Diagnostic> diagnostics = shownDiagnostics(jobDiagnostics(job));
    Q_EMIT diagnosticsChanged(diagnostics);
    const bool errors = std::any_of(diagnostics.begin(), diagnostics.end(),
                                    [](const Diagnostic &d) { return d.severity == Severity::Error; });
    if (result->cancelled) {
        const QString resume = QKeySequence(QKeySequence::Refresh).toString(QKeySequence::NativeText);
        Q_EMIT statusChanged(tr("Loading the job was cancelled. File \u25b8 Reload (%1) loads it again.").arg(resume));
        m_ws.criticalPath->clear();
        m_ws.criticalPath->setBusy(tr("Loading was cancelled."));
        if (!m_shown)
            Q_EMIT startPageWanted();
        Q_EMIT loadFinished(false);
        return;
    }
    const bool ok = result->model && !result->model->parts.empty();
    m_job = result->job;
    m_result = result;
    if (!ok) {
        Q_EMIT statusChanged(job.ranks.empty() ? tr("No ranks were found in %1 (see Diagnostics).").arg(m_dir)
                                               : tr("No rank of %1 could be loaded (see Diagnostics).").arg(m_dir));
        Q_EMIT diagnosticsWanted();
        if (!m_shown)
            Q_EMIT startPageWanted();
        updatePanels();
        Q_EMIT jobChanged();
        Q_EMIT loadFinished(false);
        return;
    }
    const bool first = !m_shown;
    if (first)
        startPanels();
    showModel(m_rawClocks ? buildJobModel(job, result->rankModels, true) : result->model);
    if (first)
        Q_EMIT timelineShown(m_dir);
    applyRankOrder();
    showPath(-1);
    updatePanels();
    Q_EMIT statusChanged(statusSummary());
    Q_EMIT opened({QString(), QFileInfo(m_dir).absoluteFilePath()});
    if (errors)
        Q_EMIT diagnosticsWanted();
    Q_EMIT jobChanged();
    Q_EMIT loadFinished(true);
}

// The job critical path in the critical-path panel: its bound-by table, as a pair's
// (the cross-rank path's buckets, JobCriticalPath::summaryPct), and its line.
void JobDocument::showPath(qint64 stepNumber)
{
    const JobCriticalPath &path = m_job->analysis.criticalPath;
    auto cp = std::make_shared<CriticalPathResult>();
    cp->success = path.valid;
    cp->reason = path.reason;
    cp->weightUs = path.weightUs;
    for (const auto &[bound, pct] : path.summaryPct)
        cp->summary.push_back({bound, pct, path.weightUs * pct / 100.0});
    m_ws.criticalPath->setPath(cp, nullptr, {}, -1, -1);
    m_ws.criticalPath->setBusy(pathText(stepNumber));
}

// The critical-path panel's line for the job's path (of ProfilerStep#N when stepNumber >= 0).
QString JobDocument::pathText(qint64 stepNumber) const
{
    const JobCriticalPath &path = m_job->analysis.criticalPath;
    const QString step = stepNumber >= 0 ? tr("ProfilerStep#%1: ").arg(stepNumber) : QString();
    if (!path.valid)
        return step + tr("No job critical path: %1").arg(QString::fromStdString(path.reason));
    QStringList ranks;
    for (int64_t k : path.ranksOnPath)
        ranks << QString::number(k);
    return step + tr("Job critical path: %1 through rank(s) %2 (marked on the timeline). "
                     "Select an op for its rank's details.")
                      .arg(QString::fromStdString(formatDuration(path.weightUs * 1000)), ranks.join(QStringLiteral(", ")));
}

QString JobDocument::statusSummary() const
{
    if (!m_job || !m_model)
        return {};
    const JobData &job = *m_job;
    QStringList parts;
    size_t loaded = 0;
    for (const JobRankData &r : job.ranks)
        loaded += r.analysis != nullptr;
    parts << tr("Job: %1 of %2 ranks loaded").arg(loaded).arg(job.ranks.size());
    parts << tr("%1 ops on the timeline").arg(QLocale().toString(qint64(m_model->layout.itemCount)));
    parts << tr("%1 matched collectives").arg(QLocale().toString(qint64(job.analysis.collectives.size())));
    if (job.analysis.criticalPath.valid)
        parts << tr("job critical path %1").arg(QString::fromStdString(formatDuration(job.analysis.criticalPath.weightUs * 1000))) +
                     jobPathSkewText(job.analysis);
    if (const QString top = topStragglerText(job.analysis); !top.isEmpty())
        parts << top;
    if (m_rawClocks)
        parts << tr("raw clocks");
    if (isHtaExact(m_request.cpa))
        parts << tr("HTA-exact");
    return parts.join(QStringLiteral("  \u00b7  "));
}

bool JobDocument::exportTo(const QString &dir, const QString &prefix)
{
    if (!m_job) {
        Q_EMIT exportFinished(false, tr("No job is open."));
        return false;
    }
    JobExportOptions options;
    options.outputs.dir = dir.toStdString();
    options.outputs.prefix = prefix.toStdString();
    options.outputs.chakraEt = true;
    options.etPlus = true;
    options.workers = 2;
    if (!m_exporter->start(m_job, options)) {
        const QString why = tr("Job export to %1 not started: %2").arg(dir, m_exporter->lastError());
        Q_EMIT statusChanged(why);
        Q_EMIT exportFinished(false, why);
        return false;
    }
    QSettings().setValue(QStringLiteral("export/lastFolder"), QDir(dir).absolutePath());
    Q_EMIT statusChanged(tr("Exporting the job to %1\u2026").arg(dir));
    return true;
}

} // namespace syncscope::ui
