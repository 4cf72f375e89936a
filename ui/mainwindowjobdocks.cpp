// SPDX-License-Identifier: MIT
// MainWindow's job docks (rank table, collectives, search over every rank) and
// the job export: wired to the job timeline in mainwindowjob.cpp through
// jobChanged(), showRank(), selectCollective() and selectRankEvent().
#include "mainwindow.h"
#include "job/jobexport.h"
#include "panels/collectivespanel.h"
#include "panels/jobsearchpanel.h"
#include "panels/ranktablepanel.h"
#include "panels/whatifpanel.h"
#include "timeline/selection.h"
#include "timeline/timelineplot.h"
#include "timeline/timelineview.h"

#include <QAction>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QProgressBar>
#include <QSettings>

namespace syncscope::ui {

void MainWindow::createJobDocks()
{
    m_rankTable = new RankTablePanel(this);
    m_collectives = new CollectivesPanel(this);
    m_jobSearch = new JobSearchPanel(this);
    auto dock = [this](const QString &title, const QString &name, QWidget *w) {
        auto *d = new QDockWidget(title, this);
        d->setObjectName(name);
        d->setWidget(w);
        addDockWidget(Qt::BottomDockWidgetArea, d);
        tabifyDockWidget(m_searchDock, d);
        d->hide(); // shown while a job is open
        return d;
    };
    m_ranksDock = dock(tr("Ranks"), QStringLiteral("ranks"), m_rankTable);
    m_collectivesDock = dock(tr("Collectives"), QStringLiteral("collectives"), m_collectives);
    m_jobSearchDock = dock(tr("Search all ranks"), QStringLiteral("jobsearch"), m_jobSearch);

    connect(m_rankTable, &RankTablePanel::rankActivated, this, &MainWindow::showRank);
    connect(m_collectives, &CollectivesPanel::collectiveActivated, this, &MainWindow::selectCollective);
    // A root cause of the selected collective: that op on the late rank.
    connect(m_collectives, &CollectivesPanel::rootCauseActivated, this,
            [this](qint64 rank, quint32 event) { selectRankEvent(rank, event); });
    connect(m_rankTable, &RankTablePanel::delayCostActivated, this,
            [this](qint64 rank, quint32 event) { selectRankEvent(rank, event); });
    connect(m_jobSearch, &JobSearchPanel::eventRequested, this,
            [this](qint64 rank, qint64 event) {
                if (event >= 0 && event <= qint64(UINT32_MAX))
                    selectRankEvent(rank, quint32(event));
            });
    // The rank table follows the timeline's selection (without emitting: no jump back).
    connect(m_timeline->plot()->selection(), &Selection::changed, this, [this] {
        if (m_job)
            if (const qint64 rank = selectedRank(); rank >= 0)
                m_rankTable->selectRank(rank);
    });
    connect(this, &MainWindow::jobChanged, this, &MainWindow::updateJobDocks);

    m_jobExporter = new JobExporter(this);
    connect(m_jobExporter, &JobExporter::progress, this, [this](int done, int total) {
        m_statusLabel->setText(tr("Exporting the job: %1 of %2 rank(s)\u2026").arg(done).arg(total));
    });
    connect(m_jobExporter, &JobExporter::finished, this, &MainWindow::finishExport);
}

void MainWindow::updateJobDocks()
{
    const auto job = m_job;
    if (m_exportJobAction)
        m_exportJobAction->setEnabled(job != nullptr);
    m_whatIf->setJob(job); // the job's what-if: rules over every rank, the job critical path again
    if (!job) {
        m_rankTable->clear();
        m_collectives->clear();
        m_jobSearch->clear();
        for (QDockWidget *d : {m_ranksDock, m_collectivesDock, m_jobSearchDock})
            d->hide();
        return;
    }
    const bool first = m_ranksDock->isHidden();
    m_rankTable->setJob(job);
    m_collectives->setJob(job);
    m_jobSearch->setJob(job);
    for (QDockWidget *d : {m_ranksDock, m_collectivesDock, m_jobSearchDock})
        d->show();
    if (first)
        m_ranksDock->raise();
}

void MainWindow::askExportJob()
{
    if (!m_job)
        return;
    const QString start = QSettings().value(QStringLiteral("export/lastFolder"), m_lastJobDir).toString();
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Export the job into a folder"), start);
    if (dir.isEmpty())
        return;
    const QString prefix = QFileInfo(m_lastJobDir).fileName().isEmpty() ? QStringLiteral("trace")
                                                                        : QFileInfo(m_lastJobDir).fileName();
    exportJobTo(dir, prefix);
}

bool MainWindow::exportJobTo(const QString &dir, const QString &prefix)
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
    if (!m_jobExporter->start(m_job, options)) {
        const QString why = tr("Job export to %1 not started: %2").arg(dir, m_jobExporter->lastError());
        m_statusLabel->setText(why);
        Q_EMIT exportFinished(false, why);
        return false;
    }
    QSettings().setValue(QStringLiteral("export/lastFolder"), QDir(dir).absolutePath());
    m_statusLabel->setText(tr("Exporting the job to %1\u2026").arg(dir));
    return true;
}

} // namespace syncscope::ui
