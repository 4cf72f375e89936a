// SPDX-License-Identifier: MIT
#include "mainwindow.h"

#include "diff/comparewindow.h"

#include "openpairdialog.h"
#include "panels/aggregatepanel.h"
#include "panels/criticalpathpanel.h"
#include "panels/detailspanel.h"
#include "panels/diagnosticspanel.h"
#include "panels/jobsearchpanel.h"
#include "panels/searchpanel.h"
#include "panels/whatifpanel.h"
#include "panels/syncwaitspanel.h"
#include "shortcuts.h"
#include "startpage.h"
#include "timeline/timeformat.h"
#include "timeline/timelineview.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QCloseEvent>
#include <QComboBox>
#include <QActionGroup>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPointer>
#include <QProgressBar>
#include <QProgressDialog>
#include <QPushButton>
#include <QSettings>
#include <QStackedWidget>
#include <QStatusBar>
#include <QThreadPool>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>

#include <algorithm>

namespace syncscope::ui {

namespace {

QString number(qint64 n)
{
    return QLocale().toString(n);
}

bool isTraceFile(const QString &path)
{
    return path.endsWith(QLatin1String(".json")) || path.endsWith(QLatin1String(".gz"));
}

} // namespace

MainWindow::MainWindow(QWidget *parent)
    : QMainWindow(parent)
    , m_loader(new Loader(this))
    , m_jobLoader(new JobLoader(this))
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

    connect(m_cancel, &QPushButton::clicked, m_loader, &Loader::cancel);
    connect(m_cancel, &QPushButton::clicked, m_jobLoader, &JobLoader::cancel);
    connect(m_jobLoader, &JobLoader::progress, this, &MainWindow::onProgress);
    connect(m_jobLoader, &JobLoader::timelineReady, this, &MainWindow::onJobTimelineReady);
    connect(m_jobLoader, &JobLoader::finished, this, &MainWindow::onJobFinished);
    connect(m_loader, &Loader::progress, this, &MainWindow::onProgress);
    connect(m_loader, &Loader::timelineReady, this, &MainWindow::onTimelineReady);
    connect(m_loader, &Loader::finished, this, &MainWindow::onFinished);

    connect(m_start, &StartPage::openPairRequested, this, &MainWindow::showOpenDialog);
    connect(m_start, &StartPage::sampleRequested, this, &MainWindow::openSample);
    connect(m_start, &StartPage::recentRequested, this,
            [this](const RecentPair &p) { openFiles(p.host.isEmpty() ? p.device : p.host, p.host.isEmpty() ? QString() : p.device); });

    TimelinePlot *plot = m_timeline->plot();
    connect(plot->selection(), &Selection::changed, this, &MainWindow::onSelectionChanged);
    connect(m_details, &DetailsPanel::eventRequested, this, [this](qint64 event) {
        // In a job the details show one rank's analysis: its events are that rank's.
        if (m_model && m_model->isJob() && m_detailsPart >= 0 && size_t(m_detailsPart) < m_model->parts.size())
            event += m_model->parts[size_t(m_detailsPart)].base;
        jumpTo(event);
    });
    connect(m_search, &SearchPanel::eventRequested, this, &MainWindow::jumpTo);
    connect(m_cpPanel, &CriticalPathPanel::eventRequested, this, &MainWindow::jumpTo);
    connect(m_syncWaits, &SyncWaitsPanel::eventRequested, this, &MainWindow::jumpTo);
    connect(m_area, &AggregatePanel::eventRequested, this, &MainWindow::jumpTo);
    // Shift-drag = area selection: aggregate what ran there (after the drag settles).
    auto *areaTimer = new QTimer(this);
    areaTimer->setSingleShot(true);
    areaTimer->setInterval(80);
    connect(plot, &TimelinePlot::measurementChanged, areaTimer, qOverload<>(&QTimer::start));
    connect(areaTimer, &QTimer::timeout, this, [this, plot] {
        const auto m = plot->measurement();
        m_area->setArea(plot->model(), m ? m->t0 : 0, m ? m->t1 : 0, plot->measuredRows(), plot->measuredLanes());
        if (m) {
            m_areaDock->show();
            m_areaDock->raise();
        }
    });
    connect(m_cpPanel, &CriticalPathPanel::stepRequested, this, &MainWindow::showStep);
    connect(m_whatIf, &WhatIfPanel::eventRequested, this, &MainWindow::jumpTo);
    connect(m_whatIf, &WhatIfPanel::projectionChanged, plot, &TimelinePlot::setProjection);
    connect(plot->selection(), &Selection::changed, m_whatIf, &WhatIfPanel::setSelectedEvent);
    connect(m_cpPanel, &CriticalPathPanel::boundByRequested, this, &MainWindow::highlightBoundBy);
    connect(plot, &TimelinePlot::rangeChanged, this, [this, plot] { m_search->setAnchorTime(plot->range().t0); });

    setSamplePair({}, {});
    resize(1500, 900);
    updateExportActions();
}

void MainWindow::applyDefaultLayout()
{
    const int right = std::max(360, width() * 30 / 100);
    resizeDocks({m_detailsDock}, {right}, Qt::Horizontal);
    resizeDocks({m_detailsDock, m_cpDock}, {height() * 55 / 100, height() * 45 / 100}, Qt::Vertical);
    resizeDocks({m_searchDock}, {std::max(140, height() * 16 / 100)}, Qt::Vertical);
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
    updateJobDocks(); // the job docks only while a job is open
}

MainWindow::~MainWindow() = default;

void MainWindow::createDocks()
{
    auto dock = [this](const QString &title, const QString &name, QWidget *w, Qt::DockWidgetArea area) {
        auto *d = new QDockWidget(title, this);
        d->setObjectName(name);
        d->setWidget(w);
        addDockWidget(area, d);
        return d;
    };
    m_detailsDock = dock(tr("Details"), QStringLiteral("details"), m_details, Qt::RightDockWidgetArea);
    m_cpDock = dock(tr("Critical path"), QStringLiteral("criticalpath"), m_cpPanel, Qt::RightDockWidgetArea);
    m_searchDock = dock(tr("Search"), QStringLiteral("search"), m_search, Qt::BottomDockWidgetArea);
    m_diagDock = dock(tr("Diagnostics"), QStringLiteral("diagnostics"), m_diagnostics, Qt::BottomDockWidgetArea);
    m_whatIfDock = dock(tr("What-if"), QStringLiteral("whatif"), m_whatIf, Qt::BottomDockWidgetArea);
    m_syncDock = dock(tr("Sync waits"), QStringLiteral("syncwaits"), m_syncWaits, Qt::BottomDockWidgetArea);
    m_areaDock = dock(tr("Area selection"), QStringLiteral("area"), m_area, Qt::BottomDockWidgetArea);
    tabifyDockWidget(m_searchDock, m_syncDock);
    tabifyDockWidget(m_searchDock, m_areaDock);
    tabifyDockWidget(m_searchDock, m_diagDock);
    tabifyDockWidget(m_searchDock, m_whatIfDock);
    createJobDocks();
    m_searchDock->raise();
}

void MainWindow::createActions()
{
    TimelinePlot *plot = m_timeline->plot();
    QMenu *file = menuBar()->addMenu(tr("&File"));
    QAction *open = file->addAction(tr("&Open pair\u2026"), this, &MainWindow::showOpenDialog);
    open->setShortcut(QKeySequence::Open);
    open->setIcon(style()->standardIcon(QStyle::SP_DialogOpenButton));
    QAction *openJobAction = file->addAction(tr("Open &job\u2026"), this, &MainWindow::showOpenJobDialog);
    openJobAction->setObjectName(QStringLiteral("openJob"));
    openJobAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    openJobAction->setToolTip(tr("Open a folder of ranks (every rank's host and device traces) on one timeline"));
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    QAction *sample = file->addAction(tr("Open the &sample pair"), this, &MainWindow::openSample);
    sample->setObjectName(QStringLiteral("openSample"));
    m_reloadAction = file->addAction(tr("&Reload"), this, &MainWindow::reload);
    m_reloadAction->setObjectName(QStringLiteral("reload"));
    m_reloadAction->setShortcut(QKeySequence::Refresh);
    m_reloadAction->setIcon(style()->standardIcon(QStyle::SP_BrowserReload));
    m_reloadAction->setToolTip(tr("Load the pair again (resumes a cancelled load)"));
    m_reloadAction->setEnabled(false);
    QAction *compare = file->addAction(tr("&Compare with\u2026"), this, [this] {
        const QStringList files = QFileDialog::getOpenFileNames(
            this, tr("Compare with: the other run's device trace (and its host trace)"), QString(),
            tr("Traces (*.json *.json.gz);;All files (*)"));
        if (!files.isEmpty())
            compareWith(files[0], files.size() > 1 ? files[1] : QString());
    });
    compare->setObjectName(QStringLiteral("compareWith"));
    file->addSeparator();
    QMenu *exportMenu = file->addMenu(tr("&Export"));
    for (ExportKind kind : availableExportKinds()) {
        QAction *a = exportMenu->addAction(exportTitle(kind) + QStringLiteral("\u2026"), this,
                                           [this, kind] { askExport(kind); });
        if (kind == ExportKind::EtPlusJson)
            a->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
        m_exportActions[kind] = a;
    }
    exportMenu->addSeparator();
    m_exportJobAction = exportMenu->addAction(tr("&Job (every rank)\u2026"), this, &MainWindow::askExportJob);
    m_exportJobAction->setObjectName(QStringLiteral("exportJob"));
    m_exportJobAction->setToolTip(tr("Every rank's Chakra .et and ET+ JSON into one folder, as --job --output-dir writes them"));
    m_exportJobAction->setEnabled(false);
    file->addSeparator();
    QAction *quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);
    rebuildRecentMenu();

    QMenu *view = menuBar()->addMenu(tr("&View"));
    auto add = [&](QMenu *menu, const QString &text, const QKeySequence &key, auto slot) {
        QAction *a = menu->addAction(text, this, slot);
        if (!key.isEmpty())
            a->setShortcut(key);
        return a;
    };
    // Perfetto's keys, wherever the focus is (text fields keep their letters).
    const std::pair<QString, int> keys[] = {
        {tr("Zoom in"), Qt::Key_W},      {tr("Zoom out"), Qt::Key_S},        {tr("Pan left"), Qt::Key_A},
        {tr("Pan right"), Qt::Key_D},    {tr("Fit all"), Qt::Key_0},         {tr("Fit selection"), Qt::Key_F},
        {tr("Clear selection"), Qt::Key_Escape},
    };
    for (const auto &[text, key] : keys) {
        const int k = key;
        QAction *a = add(view, text, QKeySequence(key), [this, plot, k] {
            if (m_stack->currentWidget() == m_timeline)
                plot->handleKey(k);
        });
        a->setShortcutContext(Qt::WindowShortcut);
    }
    QAction *back = add(view, tr("Zoom back"), QKeySequence(Qt::ALT | Qt::Key_Left), [plot] { plot->zoomBack(); });
    QAction *fwd = add(view, tr("Zoom forward"), QKeySequence(Qt::ALT | Qt::Key_Right), [plot] { plot->zoomForward(); });
    back->setIcon(style()->standardIcon(QStyle::SP_ArrowBack));
    fwd->setIcon(style()->standardIcon(QStyle::SP_ArrowForward));
    auto updateHistory = [plot, back, fwd] {
        back->setEnabled(plot->zoomHistory()->canGoBack());
        fwd->setEnabled(plot->zoomHistory()->canGoForward());
    };
    connect(plot->zoomHistory(), &ZoomHistory::changed, this, updateHistory);
    updateHistory();
    view->addSeparator();
    QMenu *edges = view->addMenu(tr("&Edges"));
    for (int k = 0; k < kEdgeKindCount; ++k) {
        const EdgeKind kind = static_cast<EdgeKind>(k);
        QAction *a = edges->addAction(QLatin1String(edgeKindName(kind)));
        a->setCheckable(true);
        a->setChecked(plot->edgeToggles()->shown(kind));
        connect(a, &QAction::toggled, plot->edgeToggles(), [plot, kind](bool on) { plot->edgeToggles()->setShown(kind, on); });
        connect(plot->edgeToggles(), &EdgeToggles::changed, a, [a, plot, kind] { a->setChecked(plot->edgeToggles()->shown(kind)); });
    }
    view->addSeparator();
    // Step along the critical path (the panel's table order), wherever the focus is.
    QAction *nextOnPath = add(view, tr("Next op on the critical path"), QKeySequence(Qt::Key_BracketRight),
                              [this] { m_cpPanel->stepAlongPath(1); });
    QAction *prevOnPath = add(view, tr("Previous op on the critical path"), QKeySequence(Qt::Key_BracketLeft),
                              [this] { m_cpPanel->stepAlongPath(-1); });
    nextOnPath->setShortcutContext(Qt::WindowShortcut);
    prevOnPath->setShortcutContext(Qt::WindowShortcut);
    view->addSeparator();
    // Jobs: the ranks' clocks and order.
    m_rawClocksAction = view->addAction(tr("&Raw clocks (each rank on its own)"));
    m_rawClocksAction->setObjectName(QStringLiteral("rawClocks"));
    m_rawClocksAction->setCheckable(true);
    m_rawClocksAction->setToolTip(tr("Job: show each rank on its own clock instead of aligned on the reference rank"));
    connect(m_rawClocksAction, &QAction::toggled, this, &MainWindow::setRawClocks);
    QMenu *orderMenu = view->addMenu(tr("Rank &order"));
    auto *orderGroup = new QActionGroup(this);
    const std::pair<QString, RankOrder> orders[] = {{tr("By rank"), RankOrder::ByRank},
                                                    {tr("By step time (slowest first)"), RankOrder::ByStepTime},
                                                    {tr("By waits caused (stragglers first)"), RankOrder::ByWaitsCaused}};
    m_rankOrderBox = new QComboBox(this);
    m_rankOrderBox->setObjectName(QStringLiteral("rankOrder"));
    m_rankOrderBox->setToolTip(tr("Order of the ranks on the job timeline"));
    for (const auto &[text, order] : orders) {
        QAction *a = orderMenu->addAction(text);
        a->setCheckable(true);
        a->setChecked(order == RankOrder::ByRank);
        orderGroup->addAction(a);
        const RankOrder o = order;
        connect(a, &QAction::triggered, this, [this, o] { setRankOrder(o); });
        m_rankOrderBox->addItem(tr("Ranks %1").arg(text.section(QLatin1Char(' '), 0, 2).toLower()), static_cast<int>(order));
        connect(this, &MainWindow::jobChanged, a, [this, a, o] { a->setChecked(m_rankOrder == o); });
    }
    connect(m_rankOrderBox, &QComboBox::activated, this,
            [this](int i) { setRankOrder(static_cast<RankOrder>(m_rankOrderBox->itemData(i).toInt())); });
    QAction *foldAll = view->addAction(tr("Fold every rank"), this, [plot] { plot->setAllRanksExpanded(false); });
    QAction *expandAll = view->addAction(tr("Expand every rank"), this, [plot] { plot->setAllRanksExpanded(true); });
    for (QAction *a : {m_rawClocksAction, orderMenu->menuAction(), foldAll, expandAll})
        m_jobActions << a;
    view->addSeparator();
    for (QDockWidget *d : {m_detailsDock, m_cpDock, m_searchDock, m_syncDock, m_areaDock, m_diagDock, m_ranksDock,
                           m_collectivesDock, m_jobSearchDock})
        view->addAction(d->toggleViewAction());

    QMenu *analysisMenu = menuBar()->addMenu(tr("&Analysis"));
    m_htaExactAction = analysisMenu->addAction(tr("&HTA-exact critical path"));
    m_htaExactAction->setObjectName(QStringLiteral("htaExact"));
    m_htaExactAction->setCheckable(true);
    m_htaExactAction->setToolTip(tr("As --hta-exact: only the cuda_sync rows' sync edges, no inferred waits and no "
                                    "graph replays, so the numbers are HTA f4d0062's (analyses the open trace again)"));
    analysisMenu->setToolTipsVisible(true);
    connect(m_htaExactAction, &QAction::toggled, this, &MainWindow::setHtaExact);
    syncHtaExactAction();

    QMenu *search = menuBar()->addMenu(tr("&Search"));
    add(search, tr("&Find ops\u2026"), QKeySequence::Find, [this] {
        if (m_job) { // a job: the search over every rank
            m_jobSearchDock->show();
            m_jobSearchDock->raise();
            m_jobSearch->focusQuery();
            return;
        }
        m_searchDock->show();
        m_searchDock->raise();
        m_search->focusQuery();
    });
    add(search, tr("Find &next"), QKeySequence(Qt::Key_F3), [this] { m_search->next(); });
    add(search, tr("Find &previous"), QKeySequence(Qt::SHIFT | Qt::Key_F3), [this] { m_search->previous(); });

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    add(help, tr("&Keyboard shortcuts"), QKeySequence(Qt::Key_F1), [this] {
        auto *d = new ShortcutsDialog(this);
        d->setAttribute(Qt::WA_DeleteOnClose);
        d->show();
    });
    add(help, tr("&About Syncscope"), {}, [this] {
        QMessageBox::about(this, tr("About Syncscope"),
                           tr("<b>Syncscope %1</b><p>Links PyTorch host execution traces with Kineto traces "
                              "(Chakra's rules), infers sync edges and the critical path (HTA's rules), and shows "
                              "them on a timeline.</p>")
                               .arg(QStringLiteral(SYNCSCOPE_VERSION)));
    });

    QToolBar *bar = addToolBar(tr("Main"));
    bar->setObjectName(QStringLiteral("maintoolbar"));
    bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    bar->addAction(open);
    bar->addAction(openJobAction);
    bar->addAction(m_reloadAction);
    auto *exportButton = new QToolButton(bar);
    exportButton->setText(tr("Export"));
    exportButton->setIcon(style()->standardIcon(QStyle::SP_DialogSaveButton));
    exportButton->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    exportButton->setPopupMode(QToolButton::InstantPopup);
    exportButton->setMenu(exportMenu);
    bar->addWidget(exportButton);
    bar->addSeparator();
    bar->addAction(back);
    bar->addAction(fwd);
    QAction *fit = bar->addAction(tr("Fit all"), plot, &TimelinePlot::fitAll);
    fit->setToolTip(tr("Fit to where the events are (0); again: the whole trace"));
    bar->addSeparator();
    m_jobActions << bar->addWidget(m_rankOrderBox);
    m_jobStepBox = new QComboBox(this);
    m_jobStepBox->setObjectName(QStringLiteral("jobStep"));
    m_jobStepBox->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_jobStepBox->setMinimumContentsLength(16);
    m_jobStepBox->setToolTip(tr("The step every rank's critical path and the job's analysis are computed for"));
    connect(m_jobStepBox, &QComboBox::activated, this,
            [this](int i) { showJobStep(m_jobStepBox->itemData(i).toLongLong()); });
    m_jobActions << bar->addWidget(m_jobStepBox);
    QAction *raw = bar->addAction(tr("Raw clocks"));
    raw->setCheckable(true);
    raw->setToolTip(m_rawClocksAction->toolTip());
    connect(raw, &QAction::toggled, m_rawClocksAction, &QAction::setChecked);
    connect(m_rawClocksAction, &QAction::toggled, raw, &QAction::setChecked);
    m_jobActions << raw << bar->addSeparator();
    bar->addWidget(m_timeline->edgeBar()); // the edges' toggles and legend
    for (QAction *a : m_jobActions)
        a->setVisible(false);
}

void MainWindow::rebuildRecentMenu()
{
    m_recentMenu->clear();
    const auto pairs = recentPairs();
    for (const RecentPair &p : pairs) {
        QAction *a = m_recentMenu->addAction(p.label(), this, [this, p] {
            openFiles(p.host.isEmpty() ? p.device : p.host, p.host.isEmpty() ? QString() : p.device);
        });
        a->setToolTip(p.host + QLatin1Char('\n') + p.device);
    }
    if (pairs.empty())
        m_recentMenu->addAction(tr("(none)"))->setEnabled(false);
    else {
        m_recentMenu->addSeparator();
        m_recentMenu->addAction(tr("Clear"), this, [this] {
            clearRecentPairs();
            rebuildRecentMenu();
            m_start->refresh();
        });
    }
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
    if (!m_analysis || !m_analysis->inputsOk) {
        if (m_interactive)
            QMessageBox::information(this, tr("Compare with"), tr("Open the baseline run first."));
        return nullptr;
    }
    auto *window = new CompareWindow(this);
    window->setAttribute(Qt::WA_DeleteOnClose);
    window->compare(diffRunRequest(m_template, m_analysis->devicePath, m_analysis->hostPath, false),
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
    closeJob();
    m_lastJobDir.clear();
    m_loading = {QString::fromStdString(request.hostPath), QString::fromStdString(request.devicePath)};
    m_lastRequest = request;
    m_haveLastRequest = true;
    m_reloadAction->setEnabled(false);
    m_progress->setValue(0);
    m_progress->setFormat(tr("loading %p%"));
    m_progress->show();
    m_cancel->show();
    m_statusLabel->setText(tr("Loading %1\u2026").arg(m_loading.label()));
    m_stepGeneration++;
    m_loader->start(std::move(request));
}

void MainWindow::reload()
{
    if (!m_lastJobDir.isEmpty() && !isLoading()) {
        openJob(m_lastJobDir);
        return;
    }
    if (m_haveLastRequest && !isLoading())
        openRequest(m_lastRequest);
}

bool MainWindow::isLoading() const
{
    return m_loader->busy() || m_jobLoader->busy();
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

void MainWindow::onProgress(const QString &stage, double fraction)
{
    m_progress->setValue(int(fraction * 1000));
    m_progress->setFormat(stage + QStringLiteral(" %p%"));
}

void MainWindow::onTimelineReady(std::shared_ptr<TimelineModel> model)
{
    m_model = model;
    m_analysis.reset();
    m_cp.reset();
    m_timeline->setModel(model);
    m_search->setTimeline(model);
    m_details->model()->setSources(nullptr, model);
    m_cpPanel->clear();
    m_cpPanel->setBusy(tr("Computing the critical path\u2026"));
    m_syncWaits->setSources(nullptr, nullptr);
    m_stack->setCurrentWidget(m_timeline);
    m_timeline->plot()->setFocus();
    const QString name = m_loading.label();
    setWindowTitle(name + QStringLiteral(" \u2014 Syncscope"));
    m_statusLabel->setText(tr("%1 ops on the timeline; analysing\u2026").arg(number(qint64(model->layout.itemCount))));
    updateExportActions();
    Q_EMIT timelineShown();
}

void MainWindow::onFinished(std::shared_ptr<LoadResult> result)
{
    m_progress->hide();
    m_cancel->hide();
    m_reloadAction->setEnabled(m_haveLastRequest);
    const Analysis &a = *result->analysis;
    m_diagnostics->model()->setDiagnostics(a.diagnostics.items());
    const int errors = a.diagnostics.count(Severity::Error), warnings = a.diagnostics.count(Severity::Warning);
    m_diagLabel->setText(errors || warnings ? tr("%1 errors, %2 warnings").arg(errors).arg(warnings) : QString());
    if (!a.inputsOk) {
        const bool cancelled = a.diagnostics.find("load.cancelled") != nullptr;
        m_analysis.reset();
        if (cancelled) {
            const QString resume = m_reloadAction->shortcut().toString(QKeySequence::NativeText);
            m_statusLabel->setText(tr("Loading was cancelled. File \u25b8 Reload (%1) loads the pair again.").arg(resume));
            // The timeline (when it was shown) stays; every panel says what it has.
            m_cpPanel->clear();
            m_cpPanel->setBusy(m_model ? tr("Loading was cancelled before the critical path was computed. "
                                            "File \u25b8 Reload (%1) runs the analysis again.")
                                             .arg(resume)
                                       : tr("Loading was cancelled."));
            m_syncWaits->totalsLabel()->setText(tr("Loading was cancelled before the sync waits were computed."));
        } else {
            m_statusLabel->setText(tr("Could not open %1 (see Diagnostics).").arg(m_loading.label()));
            m_diagDock->show();
            m_diagDock->raise();
            if (m_interactive) {
                QStringList lines;
                for (const Diagnostic &d : a.diagnostics.items())
                    if (d.severity == Severity::Error)
                        lines << QString::fromStdString(d.message);
                QMessageBox::critical(this, tr("Could not open the traces"), lines.join(QLatin1Char('\n')));
            }
        }
        if (!m_model)
            m_stack->setCurrentWidget(m_start);
        updateExportActions();
        Q_EMIT loadFinished(false);
        return;
    }
    m_analysis = result->analysis;
    m_model = result->model;
    if (m_model != m_timeline->plot()->sharedModel()) { // timelineReady was superseded: show this one
        m_timeline->setModel(m_model);
        m_search->setTimeline(m_model);
        m_stack->setCurrentWidget(m_timeline);
    }
    m_details->model()->setSources(m_analysis, m_model);
    m_syncWaits->setSources(m_analysis, m_model);
    m_steps = a.device ? profilerStepEvents(*a.device) : std::vector<uint32_t>{};
    std::shared_ptr<const CriticalPathResult> cp;
    if (a.criticalPath)
        cp = std::shared_ptr<const CriticalPathResult>(m_analysis, &*a.criticalPath);
    applyCriticalPath(cp, std::move(result->edges));
    // HTA's loader drops the last step's events, which cuts that step's path short;
    // outside --compat chakra the last step is computed with its events.
    const int step = stepOfWindow();
    if (step >= 0 && step + 1 == static_cast<int>(m_steps.size()) && a.request.mode != LinkMode::Chakra &&
        cp && !cp->window.profilerSteps)
        showStep(step, step);
    if (m_recordRecent) {
        addRecentPair({QString::fromStdString(a.hostPath), QString::fromStdString(a.devicePath)});
        rebuildRecentMenu();
        m_start->refresh();
    }
    if (errors) {
        m_diagDock->show();
        m_diagDock->raise();
    }
    Q_EMIT loadFinished(true);
}

void MainWindow::applyCriticalPath(std::shared_ptr<const CriticalPathResult> cp, EdgeIndex edges)
{
    m_cp = cp;
    m_highlight.clear();
    if (m_model) {
        m_model->edges = std::move(edges);
        m_model->criticalEvents = cp && cp->success ? cp->criticalEvents : std::vector<uint32_t>{};
        m_model->layout.setCritical(m_model->criticalEvents);
        m_timeline->modelChanged();
        m_details->model()->setEvent(m_timeline->plot()->selection()->event());
    }
    const int step = stepOfWindow();
    if (cp && cp->window.profilerSteps) {
        m_cpFirst = cp->window.instanceFirst;
        m_cpLast = cp->window.instanceLast;
    } else {
        m_cpFirst = m_cpLast = step; // -1: an HTA window that is not one step
    }
    m_cpPanel->setPath(cp, m_model, stepNames(), m_cpFirst, m_cpLast);
    m_whatIf->setContext(m_model ? m_model->trace : nullptr, cp);
    updateStatus();
    updateExportActions();
    Q_EMIT criticalPathChanged();
}

QStringList MainWindow::stepNames() const
{
    QStringList names;
    if (!m_model || !m_model->trace)
        return names;
    const KinetoTrace &t = *m_model->trace;
    for (uint32_t ev : m_steps) {
        const auto n = t.str(t.events[ev].name);
        names << QString::fromUtf8(n.data(), static_cast<qsizetype>(n.size()));
    }
    return names;
}

int MainWindow::stepOfWindow() const
{
    if (!m_cp || m_cp->window.wholeTrace || m_cp->window.firstEvent < 0)
        return -1;
    if (m_cp->window.profilerSteps)
        return m_cp->window.instanceFirst;
    if (m_cp->window.instanceFirst != m_cp->window.instanceLast)
        return -1;
    const auto it = std::find(m_steps.begin(), m_steps.end(), static_cast<uint32_t>(m_cp->window.firstEvent));
    return it == m_steps.end() ? -1 : static_cast<int>(it - m_steps.begin());
}

void MainWindow::highlightBoundBy(const QString &boundBy)
{
    if (!m_model)
        return;
    m_highlight = m_cp && m_cp->success ? boundBy : QString();
    if (m_highlight.isEmpty()) {
        m_model->layout.setCritical(m_model->criticalEvents);
    } else {
        const std::string wanted = m_highlight == QLatin1String("dependency") ? std::string() : m_highlight.toStdString();
        std::vector<uint32_t> events;
        for (const CpBreakdownRow &b : m_cp->breakdown)
            if (b.event >= 0 && cpBoundName(b.bound) == wanted)
                events.push_back(static_cast<uint32_t>(b.event));
        std::sort(events.begin(), events.end());
        events.erase(std::unique(events.begin(), events.end()), events.end());
        m_model->layout.setCritical(events);
    }
    m_timeline->modelChanged();
}

void MainWindow::showStep(int first, int last)
{
    if (!m_analysis || !m_model)
        return;
    m_cpFirst = first;
    m_cpLast = last;
    m_cpPanel->setBusy(tr("Computing the critical path\u2026"));
    const quint64 generation = ++m_stepGeneration;
    auto analysis = m_analysis;
    auto model = m_model;
    QPointer<MainWindow> self(this);
    QThreadPool::globalInstance()->start([self, generation, analysis, model, first, last] {
        Diagnostics diag;
        auto cp = std::make_shared<CriticalPathResult>(
            analyzeSteps(*analysis->device, analysis->request.cpa, first, last, diag));
        auto edges = std::make_shared<EdgeIndex>(buildEdgeIndex(*model, *analysis, cp->success ? cp.get() : nullptr));
        if (!self)
            return;
        QMetaObject::invokeMethod(
            self.data(),
            [self, generation, cp, edges] {
                if (!self || generation != self->m_stepGeneration)
                    return;
                self->applyCriticalPath(cp, std::move(*edges));
            },
            Qt::QueuedConnection);
    });
}

void MainWindow::updateStatus()
{
    m_statusLabel->setText(statusSummary());
}

QString MainWindow::statusSummary() const
{
    if (m_job && m_model)
        return jobSummary();
    if (!m_analysis || !m_model)
        return {};
    const Analysis &a = *m_analysis;
    QStringList parts;
    if (a.link) {
        const LinkCounts &c = a.link->counts;
        // As batch prints it: linked of all host ops, coverage of those with a Kineto twin.
        parts << tr("%1 / %2 host ops linked (%3 % of %4 with a Kineto twin)")
                     .arg(number(c.hostOpsLinked), number(c.hostOps))
                     .arg(100.0 * a.link->coverage(), 0, 'f', 1)
                     .arg(number(c.hostOpsWithTwin));
    } else {
        parts << tr("Device trace only (no host links)");
    }
    size_t gpu = 0;
    for (const KinetoEvent &e : a.device->events)
        gpu += isGpuActivity(e.kind);
    parts << tr("%1 events, %2 on the timeline, %3 GPU ops")
                 .arg(number(qint64(a.device->events.size())), number(qint64(m_model->layout.itemCount)),
                      number(qint64(gpu)));
    size_t inferred = 0;
    for (const SyncEdge &e : a.syncEdges)
        inferred += e.inferred;
    const bool exact = isHtaExact(a.request.cpa);
    QString sync = tr("%1 %2").arg(number(qint64(a.syncEdges.size())),
                                   a.syncEdges.size() == 1 ? tr("sync edge") : tr("sync edges"));
    if (exact)
        sync += tr(" (HTA-exact: cuda_sync rows only)");
    else if (inferred > 0)
        sync += tr(" (%1 inferred)").arg(number(qint64(inferred)));
    parts << sync;
    if (m_cp && m_cp->success)
        parts << tr("Critical path %1 (%2 ops)")
                     .arg(QString::fromStdString(formatDuration(m_cp->weightUs * 1000)))
                     .arg(m_cp->criticalEvents.size());
    else if (m_cp)
        parts << tr("No critical path");
    return parts.join(QStringLiteral("  \u00b7  "));
}

void MainWindow::jumpTo(qint64 event)
{
    if (!m_model || event < 0)
        return;
    m_timeline->plot()->selection()->setEvent(event);
    m_timeline->plot()->revealEvent(static_cast<uint32_t>(event));
}

bool MainWindow::selectByName(const QString &name)
{
    if (m_model && m_model->isJob() && !name.isEmpty()) { // the earliest match over the ranks
        const std::string wanted = name.toStdString();
        qint64 exact = -1, partial = -1;
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
        if (ev >= 0)
            jumpTo(ev);
        return ev >= 0;
    }
    if (!m_model || !m_model->trace || name.isEmpty())
        return false;
    const KinetoTrace &t = *m_model->trace;
    const std::string wanted = name.toStdString();
    qint64 exact = -1, partial = -1;
    for (uint32_t i = 0; i < t.events.size(); ++i) {
        if (m_model->layout.pos(i).row < 0)
            continue;
        const std::string_view n = t.str(t.events[i].name);
        auto earlier = [&](qint64 cur) {
            return cur < 0 || m_model->startNs(i) < m_model->startNs(static_cast<uint32_t>(cur));
        };
        if (n == wanted) {
            if (earlier(exact))
                exact = i;
        } else if (n.find(wanted) != std::string_view::npos && earlier(partial)) {
            partial = i;
        }
    }
    const qint64 ev = exact >= 0 ? exact : partial;
    if (ev < 0)
        return false;
    m_search->setQueryText(name); // the other matches are one F3 away
    m_search->markCurrent(ev);
    jumpTo(ev);
    return true;
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
    m_loader->cancel();
    m_jobLoader->cancel();
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
