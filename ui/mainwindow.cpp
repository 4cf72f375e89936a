// SPDX-License-Identifier: MIT
#include "mainwindow.h"

#include "diff/comparewindow.h"
#include "document/jobdocument.h"
#include "document/pairdocument.h"
#include "hang/hangfolder.h"
#include "hang/hangwindow.h"
#include "openpairdialog.h"
#include "panels/aggregatepanel.h"
#include "panels/collectivespanel.h"
#include "panels/criticalpathpanel.h"
#include "panels/detailspanel.h"
#include "panels/diagnosticspanel.h"
#include "panels/jobsearchpanel.h"
#include "panels/ranktablepanel.h"
#include "panels/searchpanel.h"
#include "panels/syncwaitspanel.h"
#include "panels/whatifpanel.h"
#include "startpage.h"
#include "timeline/timelineview.h"

#include <QAction>
#include <QCloseEvent>
#include <QComboBox>
#include <QDockWidget>
#include <QFileInfo>
#include <QLabel>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QStackedWidget>
#include <QStatusBar>
#include <QScreen>
#include <QTimer>

#include <algorithm>

namespace syncscope::ui {

namespace {

bool isTraceFile(const QString &path)
{
    return path.endsWith(QLatin1String(".json")) || path.endsWith(QLatin1String(".gz"));
}

} // namespace

MainWindow::MainWindow(QWidget *parent)
    : QMainWindow(parent)
    , m_stack(new QStackedWidget(this))
    , m_start(new StartPage(this))
    , m_timeline(new TimelineView(this))
    , m_details(new DetailsPanel(this))
    , m_search(new SearchPanel(this))
    , m_cpPanel(new CriticalPathPanel(this))
    , m_diagnostics(new DiagnosticsPanel(this))
    , m_whatIf(new WhatIfPanel(this))
    , m_syncWaits(new SyncWaitsPanel(this))
    , m_area(new AggregatePanel(this))
    , m_statusLabel(new QLabel(this))
    , m_diagLabel(new QLabel(this))
    , m_progress(new QProgressBar(this))
    , m_cancel(new QPushButton(tr("Cancel"), this))
{
    setWindowTitle(QStringLiteral("Syncscope"));
    setAcceptDrops(true);
    const Workspace ws{m_timeline, m_details, m_search, m_cpPanel, m_whatIf, m_syncWaits, m_area};
    m_pair = new PairDocument(ws, this);
    m_job = new JobDocument(ws, this, this);
    m_stack->addWidget(m_start);
    m_stack->addWidget(m_timeline);
    setCentralWidget(m_stack);
    setDockNestingEnabled(true);
    createDocks();
    createActions();

    m_progress->setRange(0, 1000);
    m_progress->setMaximumWidth(220);
    m_progress->setTextVisible(true);
    m_progress->hide();
    m_cancel->hide();
    m_statusLabel->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    statusBar()->addWidget(m_statusLabel, 1);
    statusBar()->addPermanentWidget(m_diagLabel);
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_cancel);
    m_statusLabel->setText(tr("Open a trace pair to start."));
    connect(m_cancel, &QPushButton::clicked, this, [this] {
        if (m_active)
            m_active->cancel();
    });

    connectDocument(m_pair);
    connectDocument(m_job);
    connect(m_job, &JobDocument::jobChanged, this, &MainWindow::updateJobWidgets);
    connect(m_pair, &PairDocument::exportsChanged, this, &MainWindow::updateExportActions);

    connect(m_start, &StartPage::openPairRequested, this, &MainWindow::showOpenDialog);
    connect(m_start, &StartPage::sampleRequested, this, &MainWindow::openSample);
    connect(m_start, &StartPage::openFolderRequested, this, &MainWindow::showOpenJobDialog);
    connect(m_start, &StartPage::recentRequested, this,
            [this](const RecentPair &p) { openFiles(p.host.isEmpty() ? p.device : p.host, p.host.isEmpty() ? QString() : p.device); });

    TimelinePlot *plot = m_timeline->plot();
    connect(plot->selection(), &Selection::changed, this, [this](qint64 event) {
        if (m_active)
            m_active->selectionChanged(event);
    });
    connect(m_details, &DetailsPanel::eventRequested, this, [this](qint64 event) {
        jumpTo(m_active ? m_active->detailsEventToTimeline(event) : event);
    });
    connect(m_search, &SearchPanel::eventRequested, this, &MainWindow::jumpTo);
    connect(m_cpPanel, &CriticalPathPanel::eventRequested, this, &MainWindow::jumpTo);
    connect(m_syncWaits, &SyncWaitsPanel::eventRequested, this, &MainWindow::jumpTo);
    connect(m_area, &AggregatePanel::eventRequested, this, &MainWindow::jumpTo);
    connect(m_whatIf, &WhatIfPanel::eventRequested, this, &MainWindow::jumpTo);
    // Shift-drag = area selection: aggregate what ran there (after the drag settles).
    auto *areaTimer = new QTimer(this);
    areaTimer->setSingleShot(true);
    areaTimer->setInterval(80);
    connect(plot, &TimelinePlot::measurementChanged, areaTimer, qOverload<>(&QTimer::start));
    connect(areaTimer, &QTimer::timeout, this, [this, plot] {
        const auto m = plot->measurement();
        m_area->setArea(plot->model(), m ? m->t0 : 0, m ? m->t1 : 0, plot->measuredRows(), plot->measuredLanes());
        if (m)
            showDock(m_areaDock);
    });
    connect(m_cpPanel, &CriticalPathPanel::stepRequested, m_pair, &PairDocument::showStep);
    connect(m_cpPanel, &CriticalPathPanel::boundByRequested, m_pair, &PairDocument::highlightBoundBy);
    connect(m_whatIf, &WhatIfPanel::projectionChanged, plot, &TimelinePlot::setProjection);
    connect(plot->selection(), &Selection::changed, m_whatIf, &WhatIfPanel::setSelectedEvent);
    connect(plot, &TimelinePlot::rangeChanged, this, [this, plot] { m_search->setAnchorTime(plot->range().t0); });

    setSamplePair({}, {});
    updateExportActions();
    // The minimum size from the polished widgets (the toolbar folds into its extension
    // button), so resize() before show() is not held at a stale, wider minimum.
    ensurePolished();
    for (QWidget *w : findChildren<QWidget *>())
        w->ensurePolished();
    layout()->activate();
    // 1500x900, or what the screen has room for (a 1280x720 laptop, or 1920x1080 at 1.5x).
    const QSize room = screen() ? screen()->availableGeometry().size() * 0.94 : QSize(1500, 900);
    resize(QSize(1500, 900).boundedTo(room));
}

MainWindow::~MainWindow()
{
    // The hang view, a child, goes with this window: its "closed, show the main window again"
    // must not reach a window being destroyed.
    for (HangWindow *h : findChildren<HangWindow *>(QString(), Qt::FindDirectChildrenOnly))
        h->disconnect(this);
}

// A document's news goes to the shell's parts (status bar, progress, Diagnostics,
// the start page, recent files), but only while it is the one shown.
void MainWindow::connectDocument(Document *doc)
{
    auto shown = [this, doc] { return m_active == doc; };
    connect(doc, &Document::loadStarted, this, [this, doc](const QString &format, const QString &status) {
        activate(doc);
        m_reloadAction->setEnabled(false);
        m_progress->setValue(0);
        m_progress->setFormat(format);
        m_progress->show();
        m_cancel->show();
        m_statusLabel->setText(status);
    });
    connect(doc, &Document::progress, this, [this, shown](const QString &stage, double fraction) {
        if (!shown())
            return;
        m_progress->setValue(int(fraction * 1000));
        m_progress->setFormat(stage + QStringLiteral(" %p%"));
    });
    connect(doc, &Document::loadEnded, this, [this, doc, shown] {
        if (!shown())
            return;
        m_progress->hide();
        m_cancel->hide();
        m_reloadAction->setEnabled(doc->canReload());
    });
    connect(doc, &Document::statusChanged, this, [this, shown](const QString &text) {
        if (shown())
            m_statusLabel->setText(text);
    });
    connect(doc, &Document::diagnosticsChanged, this, [this, shown](const std::vector<Diagnostic> &items) {
        if (shown())
            setDiagnostics(items);
    });
    connect(doc, &Document::diagnosticsWanted, this, [this, shown] {
        if (shown())
            showDock(m_diagDock);
    });
    connect(doc, &Document::timelineShown, this, [this, shown](const QString &title) {
        if (!shown())
            return;
        m_stack->setCurrentWidget(m_timeline);
        m_timeline->plot()->setFocus();
        setWindowTitle(title + QStringLiteral(" \u2014 Syncscope"));
        updateExportActions();
        Q_EMIT timelineShown();
    });
    connect(doc, &Document::startPageWanted, this, [this, shown] {
        if (shown())
            m_stack->setCurrentWidget(m_start);
    });
    connect(doc, &Document::opened, this, [this](const RecentPair &recent) {
        if (!m_recordRecent)
            return;
        addRecentPair(recent);
        rebuildRecentMenu();
        m_start->refresh();
    });
    connect(doc, &Document::loadFinished, this, &MainWindow::loadFinished);
    connect(doc, &Document::criticalPathChanged, this, &MainWindow::criticalPathChanged);
    connect(doc, &Document::exportFinished, this, &MainWindow::finishExport);
}

// `doc` is the one shown from now on; the other lets go of its data.
void MainWindow::activate(Document *doc)
{
    if (m_active && m_active != doc)
        m_active->close();
    m_active = doc;
    updateJobWidgets();
}

void MainWindow::setInteractive(bool on)
{
    m_interactive = on;
    m_pair->setInteractive(on);
    m_job->setInteractive(on);
}

void MainWindow::setDiagnostics(const std::vector<Diagnostic> &items)
{
    m_diagnostics->model()->setDiagnostics(items);
    int errors = 0, warnings = 0;
    for (const Diagnostic &d : items) {
        errors += d.severity == Severity::Error;
        warnings += d.severity == Severity::Warning;
    }
    m_diagLabel->setText(errors || warnings ? tr("%1 errors, %2 warnings").arg(errors).arg(warnings) : QString());
}

void MainWindow::showDock(QDockWidget *dock)
{
    dock->show();
    dock->raise();
}

void MainWindow::setSamplePair(const QString &host, const QString &device)
{
    m_sampleHost = host;
    m_sampleDevice = device;
    m_start->setSampleAvailable(!device.isEmpty());
}

void MainWindow::openSample()
{
    if (m_sampleDevice.isEmpty()) {
        m_statusLabel->setText(tr("The bundled sample pair was not found."));
        return;
    }
    AnalysisRequest r = m_template;
    r.hostPath = m_sampleHost.toStdString();
    r.devicePath = m_sampleDevice.toStdString();
    r.rolesGiven = true;
    openRequest(r);
}

QWidget *MainWindow::compareWith(const QString &first, const QString &second)
{
    const auto analysis = m_pair->analysis();
    if (m_active != m_pair || !analysis || !analysis->inputsOk) {
        if (m_interactive)
            QMessageBox::information(this, tr("Compare with"), tr("Open the baseline run first."));
        return nullptr;
    }
    auto *window = new CompareWindow(this);
    window->setAttribute(Qt::WA_DeleteOnClose);
    window->compare(diffRunRequest(m_template, analysis->devicePath, analysis->hostPath, false),
                    diffRunRequest(m_template, first.toStdString(), second.toStdString(), false));
    window->show();
    return window;
}

void MainWindow::openFiles(const QString &first, const QString &second)
{
    if (second.isEmpty() && QFileInfo(first).isDir()) { // a folder of ranks
        openJob(first);
        return;
    }
    AnalysisRequest r = m_template;
    if (second.isEmpty()) {
        r.hostPath.clear();
        r.devicePath = first.toStdString();
    } else {
        r.hostPath = first.toStdString();
        r.devicePath = second.toStdString();
    }
    r.rolesGiven = false;
    openRequest(r);
}

void MainWindow::openRequest(AnalysisRequest request)
{
    m_pair->open(std::move(request));
}

void MainWindow::openJob(const QString &dir)
{
    // Reads a few bytes per file until the first dump; a folder of traces only opens as before.
    if (QFileInfo(dir).isDir() && folderHasFlightRecorderDumps(dir.toStdString())) {
        openHang(dir);
        return;
    }
    m_job->open(dir, m_template);
}

HangWindow *MainWindow::openHang(const QString &dir)
{
    auto *window = new HangWindow(this);
    window->setWindowFlag(Qt::Window);
    window->setAttribute(Qt::WA_DeleteOnClose);
    connect(window, &HangWindow::timelineRequested, this, &MainWindow::openJobTimeline);
    m_hang = window;
    m_statusLabel->setText(tr("%1 holds flight recorder dumps: opened in the hang view.").arg(dir));
    // A dump folder read is in Recent like a job folder (issue 41): the entry reopens it here.
    connect(window, &HangWindow::loadFinished, this, [this, dir](bool ok) {
        if (!ok || !m_recordRecent)
            return;
        addRecentPair({QString(), dir});
        rebuildRecentMenu();
        m_start->refresh();
    });
    // With nothing open here, the hang view takes this window's place instead of opening in
    // front of an empty one (issue 41); this window comes back when it closes, or for the
    // job's timeline.
    if (m_stack->currentWidget() == m_start && isVisible()) {
        window->setGeometry(geometry());
        hide();
        connect(window, &QObject::destroyed, this, [this] {
            if (!isVisible())
                show();
        });
    }
    window->open(dir);
    window->show();
    return window;
}

HangWindow *MainWindow::hangWindow() const
{
    return m_hang;
}

void MainWindow::openJobTimeline(const QString &dir)
{
    if (!isVisible())
        show(); // it gave its place to the hang view
    m_job->open(dir, m_template); // not openJob: the folder holds dumps too
    // Once the job is analysed, its last step (the one the hang cut short, or the last recorded).
    auto *once = new QObject(this);
    connect(m_job, &JobDocument::jobChanged, once, [this, once] {
        if (!m_job->data() || once->property("done").toBool())
            return;
        once->setProperty("done", true);
        once->deleteLater();
        const auto steps = m_job->steps();
        if (!steps.empty())
            showJobStep(steps.back());
    });
    connect(m_job, &Document::loadFinished, once, [once](bool ok) {
        if (!ok)
            once->deleteLater();
    });
    raise();
    activateWindow();
}

void MainWindow::reload()
{
    if (m_active && !isLoading())
        m_active->reload();
}

bool MainWindow::isLoading() const
{
    return m_pair->busy() || m_job->busy();
}

void MainWindow::showOpenDialog()
{
    OpenPairDialog dialog(this);
    if (dialog.exec() != QDialog::Accepted)
        return;
    QString a = dialog.firstFile(), b = dialog.secondFile();
    if (a.isEmpty())
        std::swap(a, b);
    AnalysisRequest r = m_template;
    if (auto rank = dialog.rank())
        r.rank = *rank;
    r.hostPath = b.isEmpty() ? std::string() : a.toStdString();
    r.devicePath = b.isEmpty() ? a.toStdString() : b.toStdString();
    r.rolesGiven = false;
    openRequest(r);
}

QString MainWindow::statusSummary() const
{
    return m_active ? m_active->statusSummary() : QString();
}

void MainWindow::jumpTo(qint64 event)
{
    if (!m_timeline->plot()->model() || event < 0)
        return;
    m_timeline->plot()->selection()->setEvent(event);
    m_timeline->plot()->revealEvent(static_cast<uint32_t>(event));
}

bool MainWindow::selectByName(const QString &name)
{
    return m_active && m_active->selectByName(name);
}

void MainWindow::dragEnterEvent(QDragEnterEvent *event)
{
    const auto urls = event->mimeData()->urls();
    if (!urls.isEmpty() && urls.size() <= 2 &&
        std::all_of(urls.begin(), urls.end(), [](const QUrl &u) { return u.isLocalFile(); }))
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent *event)
{
    const auto urls = event->mimeData()->urls();
    if (urls.isEmpty() || urls.size() > 2)
        return;
    if (urls.size() == 1 && QFileInfo(urls[0].toLocalFile()).isDir()) { // a folder of ranks: a job
        openJob(urls[0].toLocalFile());
        event->acceptProposedAction();
        return;
    }
    const QString a = urls[0].toLocalFile();
    const QString b = urls.size() > 1 ? urls[1].toLocalFile() : QString();
    if (!isTraceFile(a) || (!b.isEmpty() && !isTraceFile(b)))
        m_statusLabel->setText(tr("Opening files that do not end in .json or .gz; they are read by content."));
    openFiles(a, b);
    event->acceptProposedAction();
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    m_pair->cancel();
    m_job->cancel();
    if (!m_interactive) {
        QMainWindow::closeEvent(event);
        return;
    }
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    QMainWindow::closeEvent(event);
}

} // namespace syncscope::ui
