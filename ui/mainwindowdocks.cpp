// SPDX-License-Identifier: MIT
// MainWindow's docks: their homes, the default layout for the window's size (the
// timeline gets most of the width; the less used docks are tabs) and resetting it.
#include "mainwindow.h"

#include "document/jobdocument.h"
#include "job/joboverview.h"
#include "panels/aggregatepanel.h"
#include "panels/breakdownpanel.h"
#include "panels/collectivespanel.h"
#include "panels/criticalpathpanel.h"
#include "panels/detailspanel.h"
#include "panels/diagnosticspanel.h"
#include "panels/jobsearchpanel.h"
#include "panels/ranktablepanel.h"
#include "panels/searchpanel.h"
#include "panels/stragglerpanel.h"
#include "panels/syncwaitspanel.h"
#include "panels/whatifpanel.h"

#include <QDockWidget>
#include <QTreeView>
#include <QSettings>

#include <algorithm>

namespace syncscope::ui {

void MainWindow::createDocks()
{
    auto dock = [this](const QString &title, const QString &name, QWidget *w, Qt::DockWidgetArea area) {
        auto *d = new QDockWidget(title, this);
        d->setObjectName(name);
        d->setWidget(w);
        addDockWidget(area, d);
        return d;
    };
    // Right: what is about the selection and the path, the whole height of the window (on
    // a 1280x720 screen there is no room for Details and the path's tables above the
    // bottom tabs). Bottom: the tables (tabs), under the timeline.
    setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
    setCorner(Qt::TopRightCorner, Qt::RightDockWidgetArea);
    m_detailsDock = dock(tr("Details"), QStringLiteral("details"), m_details, Qt::RightDockWidgetArea);
    m_cpDock = dock(tr("Critical path"), QStringLiteral("criticalpath"), m_cpPanel, Qt::RightDockWidgetArea);
    m_whatIfDock = dock(tr("What-if"), QStringLiteral("whatif"), m_whatIf, Qt::RightDockWidgetArea);
    m_searchDock = dock(tr("Search"), QStringLiteral("search"), m_search, Qt::BottomDockWidgetArea);
    m_syncDock = dock(tr("Sync waits"), QStringLiteral("syncwaits"), m_syncWaits, Qt::BottomDockWidgetArea);
    m_areaDock = dock(tr("Area selection"), QStringLiteral("area"), m_area, Qt::BottomDockWidgetArea);
    m_diagDock = dock(tr("Diagnostics"), QStringLiteral("diagnostics"), m_diagnostics, Qt::BottomDockWidgetArea);
    // The pair's GPU time breakdowns (issue 25): the panel follows the pair document itself.
    QDockWidget *breakdown = dock(tr("Breakdown"), QStringLiteral("breakdown"), new BreakdownPanel(m_pair, this),
                                  Qt::BottomDockWidgetArea);
    m_ranksDock = dock(tr("Ranks"), QStringLiteral("ranks"), m_job->rankTable(), Qt::BottomDockWidgetArea);
    m_collectivesDock = dock(tr("Collectives"), QStringLiteral("collectives"), m_job->collectivesPanel(),
                             Qt::BottomDockWidgetArea);
    m_jobSearchDock = dock(tr("Search all ranks"), QStringLiteral("jobsearch"), m_job->search(), Qt::BottomDockWidgetArea);
    // Above the timeline: every rank in one pixel row (or a waits heatmap), 8 to 1,024 ranks.
    m_overviewDock = dock(tr("Job overview"), QStringLiteral("joboverview"), m_job->overview(), Qt::TopDockWidgetArea);
    m_stragglersDock = dock(tr("Stragglers"), QStringLiteral("stragglers"), m_job->stragglerPanel(),
                            Qt::RightDockWidgetArea);
    tabifyDockWidget(m_cpDock, m_whatIfDock);
    tabifyDockWidget(m_whatIfDock, m_stragglersDock);
    // Its tab raised: the straggler what-if of the job is computed (once per job).
    connect(m_stragglersDock, &QDockWidget::visibilityChanged, m_job->stragglerPanel(), [this](bool visible) {
        if (visible)
            m_job->stragglerPanel()->autoCompute();
    });
    for (QDockWidget *d : {m_syncDock, m_areaDock, breakdown, m_diagDock, m_ranksDock, m_collectivesDock, m_jobSearchDock})
        tabifyDockWidget(m_searchDock, d);
    for (QDockWidget *d : {m_ranksDock, m_collectivesDock, m_jobSearchDock, m_overviewDock, m_stragglersDock})
        d->hide(); // shown while a job is open
    m_cpDock->raise();
    m_syncDock->raise(); // it holds the trace's waits; Search is empty until asked (Ctrl+F raises it)
}

QDockWidget *MainWindow::dock(const QString &objectName) const
{
    return findChild<QDockWidget *>(objectName, Qt::FindDirectChildrenOnly);
}

void MainWindow::applyDefaultLayout()
{
    // The right column: a quarter of the width (never under 320 px, at most 520), Details
    // (a quarter, but 12 rows at least) above the critical path (the rest: its ops 6+ rows at
    // 1280x720). The bottom tabs: about a quarter of the height but 6 table rows at least;
    // a job's ranks need the height, so less there.
    const int right = std::clamp(width() * 26 / 100, 320, 520);
    resizeDocks({m_detailsDock}, {right}, Qt::Horizontal);
    const int font = m_details->view()->fontMetrics().height();
    const int details = std::max(height() * 25 / 100, 12 * (font + 2) + 2 * (font + 8) + 8); // 12 rows, header, title
    resizeDocks({m_detailsDock, m_cpDock}, {details, std::max(1, height() - details)}, Qt::Vertical);
    const bool job = m_active == m_job && m_job->isOpen();
    // 6 table rows, the table's header, a search field, the dock's title and the tab bar.
    const int f = fontMetrics().height();
    const int bottom = std::max(6 * (f + 4) + 4 * (f + 10) + 16, height() * (job ? 22 : 28) / 100);
    resizeDocks({m_searchDock}, {bottom}, Qt::Vertical);
}

void MainWindow::resetLayout()
{
    const QSize keep = size(); // re-adding every dock must not grow the window
    for (QDockWidget *d : findChildren<QDockWidget *>(QString(), Qt::FindDirectChildrenOnly)) {
        d->setFloating(false);
        removeDockWidget(d);
    }
    const std::pair<QDockWidget *, Qt::DockWidgetArea> homes[] = {
        {m_detailsDock, Qt::RightDockWidgetArea}, {m_cpDock, Qt::RightDockWidgetArea},
        {m_whatIfDock, Qt::RightDockWidgetArea},  {m_searchDock, Qt::BottomDockWidgetArea},
        {m_syncDock, Qt::BottomDockWidgetArea},   {m_areaDock, Qt::BottomDockWidgetArea},
        {dock(QStringLiteral("breakdown")), Qt::BottomDockWidgetArea},
        {m_diagDock, Qt::BottomDockWidgetArea},   {m_ranksDock, Qt::BottomDockWidgetArea},
        {m_collectivesDock, Qt::BottomDockWidgetArea}, {m_jobSearchDock, Qt::BottomDockWidgetArea},
        {m_overviewDock, Qt::TopDockWidgetArea},  {m_stragglersDock, Qt::RightDockWidgetArea}};
    for (const auto &[d, area] : homes) {
        addDockWidget(area, d);
        d->show();
    }
    tabifyDockWidget(m_cpDock, m_whatIfDock);
    tabifyDockWidget(m_whatIfDock, m_stragglersDock);
    for (QDockWidget *d : {m_syncDock, m_areaDock, dock(QStringLiteral("breakdown")), m_diagDock, m_ranksDock,
                           m_collectivesDock, m_jobSearchDock})
        tabifyDockWidget(m_searchDock, d);
    m_cpDock->raise();
    updateJobWidgets(); // the job docks only while a job is open
    m_syncDock->raise(); // it holds the trace's waits; Search is empty until asked (Ctrl+F raises it)
    if (m_job->data())
        m_ranksDock->raise();
    layout()->activate();
    resize(keep);
    applyDefaultLayout();
}

void MainWindow::restoreLayout()
{
    if (!QSettings().contains(QStringLiteral("window/state"))) {
        applyDefaultLayout();
        return;
    }
    QSettings settings;
    restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    updateJobWidgets(); // the job docks only while a job is open
}

// The job's docks and toolbar widgets are there while a job is shown.
void MainWindow::updateJobWidgets()
{
    const bool job = m_active == m_job && m_job->isOpen();
    for (QAction *a : m_jobActions)
        a->setVisible(job);
    const bool loaded = job && m_job->data() != nullptr;
    if (m_exportJobAction)
        m_exportJobAction->setEnabled(loaded);
    updateExportActions();
    const bool first = m_ranksDock->isHidden();
    // Stragglers appearing takes its tab group's front: What-if or the critical path stays there.
    // (A dock behind a tab is "visible", moved off the window: its visible region is empty.)
    QDockWidget *front = m_whatIfDock->isVisible() && !m_whatIfDock->visibleRegion().isEmpty() ? m_whatIfDock : m_cpDock;
    const bool stragglersAppear = loaded && m_stragglersDock->isHidden();
    for (QDockWidget *d : {m_ranksDock, m_collectivesDock, m_jobSearchDock, m_overviewDock, m_stragglersDock})
        d->setVisible(loaded);
    if (stragglersAppear && !m_stragglersDock->isFloating())
        front->raise();
    if (loaded && first) {
        m_ranksDock->raise();
        // A job's ranks need the height; the bottom docks shrink, the overview takes a strip.
        resizeDocks({m_searchDock, m_overviewDock}, {std::max(120, height() * 22 / 100), std::max(96, height() * 16 / 100)},
                    Qt::Vertical);
    }
    if (!loaded)
        return;
    const int order = m_rankOrderBox->findData(static_cast<int>(m_job->rankOrder()));
    if (order >= 0)
        m_rankOrderBox->setCurrentIndex(order);
    for (QAction *a : m_rankOrderActions)
        a->setChecked(a->data().toInt() == static_cast<int>(m_job->rankOrder()));
    m_jobStepBox->clear();
    const qint64 current = m_job->currentStep();
    for (qint64 n : m_job->steps()) {
        m_jobStepBox->addItem(tr("ProfilerStep#%1").arg(n), n);
        if (n == current)
            m_jobStepBox->setCurrentIndex(m_jobStepBox->count() - 1);
    }
    m_jobStepBox->setEnabled(m_jobStepBox->count() > 0);
}

} // namespace syncscope::ui
