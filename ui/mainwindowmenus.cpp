// SPDX-License-Identifier: MIT
// MainWindow's menus and toolbar. Perfetto's keys work wherever the focus is
// (text fields keep their letters), and the toolbar's drop-downs hand the focus
// back to the timeline, so W/A/S/D and Home keep acting on it.
#include "mainwindow.h"

#include "document/jobdocument.h"
#include "document/pairdocument.h"
#include "panels/criticalpathpanel.h"
#include "panels/jobsearchpanel.h"
#include "panels/searchpanel.h"
#include "shortcuts.h"
#include "startpage.h"
#include "theme.h"
#include "timeline/timelineview.h"

#include <QAction>
#include <QActionGroup>
#include <QComboBox>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QStackedWidget>
#include <QToolBar>
#include <QToolButton>

namespace syncscope::ui {

void MainWindow::createActions()
{
    createFileMenu();
    createViewMenu();

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
    QAction *find = search->addAction(tr("&Find ops\u2026"), this, [this] {
        if (m_active == m_job && m_job->data()) { // a job: the search over every rank
            showDock(m_jobSearchDock);
            m_job->search()->focusQuery();
            return;
        }
        showDock(m_searchDock);
        m_search->focusQuery();
    });
    find->setShortcut(QKeySequence::Find);
    search->addAction(tr("Find &next"), QKeySequence(Qt::Key_F3), this, [this] { m_search->next(); });
    search->addAction(tr("Find &previous"), QKeySequence(Qt::SHIFT | Qt::Key_F3), this, [this] { m_search->previous(); });

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&Keyboard shortcuts"), QKeySequence(Qt::Key_F1), this, [this] {
        auto *d = new ShortcutsDialog(this);
        d->setAttribute(Qt::WA_DeleteOnClose);
        d->show();
    });
    help->addAction(tr("&About Syncscope"), this, [this] {
        QMessageBox::about(this, tr("About Syncscope"),
                           tr("<b>Syncscope %1</b><p>Links PyTorch host execution traces with Kineto traces "
                              "(Chakra's rules), infers sync edges and the critical path (HTA's rules), and shows "
                              "them on a timeline.</p>")
                               .arg(QStringLiteral(SYNCSCOPE_VERSION)));
    });
    createToolBar();
    for (QAction *a : m_jobActions)
        a->setVisible(false);
}

void MainWindow::createFileMenu()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    QAction *open = file->addAction(tr("&Open pair\u2026"), this, &MainWindow::showOpenDialog);
    open->setObjectName(QStringLiteral("openPair"));
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
    m_reloadAction->setToolTip(tr("Load the pair or job again (resumes a cancelled load)"));
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
    m_exportMenu = file->addMenu(tr("&Export"));
    for (ExportKind kind : availableExportKinds()) {
        QAction *a = m_exportMenu->addAction(exportTitle(kind) + QStringLiteral("\u2026"), this,
                                             [this, kind] { askExport(kind); });
        if (kind == ExportKind::EtPlusJson)
            a->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
        m_exportActions[kind] = a;
    }
    m_exportMenu->addSeparator();
    m_exportJobAction = m_exportMenu->addAction(tr("&Job (every rank)\u2026"), this, &MainWindow::askExportJob);
    m_exportJobAction->setObjectName(QStringLiteral("exportJob"));
    m_exportJobAction->setToolTip(tr("Every rank's Chakra .et and ET+ JSON into one folder, as --job --output-dir writes them"));
    m_exportJobAction->setEnabled(false);
    file->addSeparator();
    QAction *quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);
    rebuildRecentMenu();
}

void MainWindow::createViewMenu()
{
    TimelinePlot *plot = m_timeline->plot();
    QMenu *view = menuBar()->addMenu(tr("&View"));
    // Perfetto's keys, wherever the focus is (text fields keep their letters).
    const std::pair<QString, int> keys[] = {
        {tr("Zoom in"), Qt::Key_W},   {tr("Zoom out"), Qt::Key_S},           {tr("Pan left"), Qt::Key_A},
        {tr("Pan right"), Qt::Key_D}, {tr("Fit all"), Qt::Key_0},            {tr("Fit all (Home)"), Qt::Key_Home},
        {tr("Fit selection"), Qt::Key_F}, {tr("Clear selection"), Qt::Key_Escape},
    };
    for (const auto &[text, key] : keys) {
        const int k = key == Qt::Key_Home ? Qt::Key_0 : key;
        QAction *a = view->addAction(text, QKeySequence(key), this, [this, plot, k] {
            if (m_stack->currentWidget() == m_timeline)
                plot->handleKey(k);
        });
        a->setShortcutContext(Qt::WindowShortcut);
    }
    QAction *back = view->addAction(tr("Zoom back"), QKeySequence(Qt::ALT | Qt::Key_Left), plot, &TimelinePlot::zoomBack);
    QAction *fwd = view->addAction(tr("Zoom forward"), QKeySequence(Qt::ALT | Qt::Key_Right), plot, &TimelinePlot::zoomForward);
    back->setObjectName(QStringLiteral("zoomBack"));
    fwd->setObjectName(QStringLiteral("zoomForward"));
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
    // Perfetto's and Nsight's wheel by default (scroll; Ctrl+wheel zooms); the old one as a setting.
    QAction *wheelZooms = view->addAction(tr("&Wheel zooms (old mapping)"));
    wheelZooms->setObjectName(QStringLiteral("wheelZooms"));
    wheelZooms->setCheckable(true);
    wheelZooms->setChecked(TimelinePlot::wheelZooms());
    wheelZooms->setToolTip(tr("The plain wheel zooms and Shift+wheel scrolls the lanes (off: the wheel scrolls, Ctrl+wheel zooms)"));
    connect(wheelZooms, &QAction::toggled, this, [](bool on) { TimelinePlot::setWheelZooms(on); });
    // Breakdown overlays (docs/breakdowns.md, "On the timeline"), saved in the settings.
    // Idle gaps fill every GPU lane, so they are off until asked for; exposed communication
    // only marks NCCL kernels (nothing on a single-GPU trace), so it is on.
    const struct {
        TimelinePlot::Overlay which;
        const char *name, *key;
        bool byDefault;
        QString text, tip;
    } overlays[] = {
        {TimelinePlot::Overlay::IdleGaps, "idleGaps", "view/idleGaps", false, tr("&Idle gaps by cause"),
         tr("GPU lanes: the idle time between kernels, coloured by HTA's cause (host wait, kernel wait, other)")},
        {TimelinePlot::Overlay::ExposedComm, "exposedComm", "view/exposedComm", true, tr("E&xposed communication"),
         tr("Communication lanes: the time no computation kernel of the GPU overlaps (TraceLens' exposed "
            "communication), hatched orange")},
    };
    for (const auto &o : overlays) {
        QAction *a = view->addAction(o.text);
        a->setObjectName(QLatin1String(o.name));
        a->setCheckable(true);
        a->setToolTip(o.tip);
        a->setChecked(QSettings().value(QLatin1String(o.key), o.byDefault).toBool());
        plot->setOverlayShown(o.which, a->isChecked());
        const TimelinePlot::Overlay which = o.which;
        const QString key = QLatin1String(o.key);
        connect(a, &QAction::toggled, this, [plot, which, key](bool on) {
            plot->setOverlayShown(which, on);
            QSettings().setValue(key, on);
        });
    }
    QMenu *theme = view->addMenu(tr("&Theme"));
    auto *themeGroup = new QActionGroup(this);
    const std::pair<QString, ThemeChoice> themes[] = {
        {tr("Follow the desktop"), ThemeChoice::System}, {tr("Light"), ThemeChoice::Light}, {tr("Dark"), ThemeChoice::Dark}};
    for (const auto &[text, choice] : themes) {
        QAction *a = theme->addAction(text);
        a->setObjectName(QStringLiteral("theme%1").arg(int(choice)));
        a->setCheckable(true);
        a->setChecked(currentTheme() == choice);
        themeGroup->addAction(a);
        const ThemeChoice c = choice;
        connect(a, &QAction::triggered, this, [c] { applyTheme(c, true); });
    }
    view->addSeparator();
    // Step along the critical path (the panel's table order), wherever the focus is.
    QAction *next = view->addAction(tr("Next op on the critical path"), QKeySequence(Qt::Key_BracketRight), this,
                                    [this] { m_cpPanel->stepAlongPath(1); });
    QAction *prev = view->addAction(tr("Previous op on the critical path"), QKeySequence(Qt::Key_BracketLeft), this,
                                    [this] { m_cpPanel->stepAlongPath(-1); });
    next->setShortcutContext(Qt::WindowShortcut);
    prev->setShortcutContext(Qt::WindowShortcut);
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
                                                    {tr("By waits their extra work caused (stragglers first)"), RankOrder::ByWaitsCaused}};
    m_rankOrderBox = new QComboBox(this);
    m_rankOrderBox->setObjectName(QStringLiteral("rankOrder"));
    m_rankOrderBox->setToolTip(tr("Order of the ranks on the job timeline"));
    for (const auto &[text, order] : orders) {
        QAction *a = orderMenu->addAction(text);
        a->setCheckable(true);
        a->setChecked(order == RankOrder::ByRank);
        a->setData(static_cast<int>(order));
        orderGroup->addAction(a);
        m_rankOrderActions << a;
        const RankOrder o = order;
        connect(a, &QAction::triggered, this, [this, o] { setRankOrder(o); });
        m_rankOrderBox->addItem(order == RankOrder::ByWaitsCaused ? tr("Ranks: stragglers first")
                                                                  : tr("Ranks %1").arg(text.section(QLatin1Char(' '), 0, 2).toLower()),
                                static_cast<int>(order));
    }
    connect(m_rankOrderBox, &QComboBox::activated, this, [this](int i) {
        setRankOrder(static_cast<RankOrder>(m_rankOrderBox->itemData(i).toInt()));
        returnFocusToTimeline();
    });
    QAction *foldAll = view->addAction(tr("Fold every rank"), this, [plot] { plot->setAllRanksExpanded(false); });
    QAction *expandAll = view->addAction(tr("Expand every rank"), this, [plot] { plot->setAllRanksExpanded(true); });
    for (QAction *a : {m_rawClocksAction, orderMenu->menuAction(), foldAll, expandAll})
        m_jobActions << a;
    view->addSeparator();
    QAction *reset = view->addAction(tr("Reset &layout"), this, &MainWindow::resetLayout);
    reset->setObjectName(QStringLiteral("resetLayout"));
    reset->setToolTip(tr("Every dock back in its place, at the default sizes for this window"));
    QMenu *docks = view->addMenu(tr("&Docks"));
    for (QDockWidget *d : {m_detailsDock, m_cpDock, m_whatIfDock, m_searchDock, m_syncDock, m_areaDock,
                           dock(QStringLiteral("breakdown")), m_diagDock, m_overviewDock, m_ranksDock, m_collectivesDock,
                           m_jobSearchDock, m_stragglersDock})
        docks->addAction(d->toggleViewAction());
}

void MainWindow::createToolBar()
{
    TimelinePlot *plot = m_timeline->plot();
    QToolBar *bar = addToolBar(tr("Main"));
    bar->setObjectName(QStringLiteral("maintoolbar"));
    bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    bar->addAction(findChild<QAction *>(QStringLiteral("openPair")));
    bar->addAction(findChild<QAction *>(QStringLiteral("openJob")));
    bar->addAction(m_reloadAction);
    m_exportButton = new QToolButton(bar);
    m_exportButton->setObjectName(QStringLiteral("exportButton"));
    m_exportButton->setText(tr("Export"));
    m_exportButton->setIcon(style()->standardIcon(QStyle::SP_DialogSaveButton));
    m_exportButton->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_exportButton->setPopupMode(QToolButton::InstantPopup);
    m_exportButton->setMenu(m_exportMenu);
    bar->addWidget(m_exportButton);
    bar->addSeparator();
    bar->addAction(findChild<QAction *>(QStringLiteral("zoomBack")));
    bar->addAction(findChild<QAction *>(QStringLiteral("zoomForward")));
    QAction *fit = bar->addAction(tr("Fit all"), plot, &TimelinePlot::fitAll);
    fit->setToolTip(tr("Fit to where the events are (0 or Home); again: the whole trace"));
    bar->addSeparator();
    m_jobActions << bar->addWidget(m_rankOrderBox);
    m_jobStepBox = new QComboBox(this);
    m_jobStepBox->setObjectName(QStringLiteral("jobStep"));
    m_jobStepBox->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_jobStepBox->setMinimumContentsLength(16);
    m_jobStepBox->setToolTip(tr("The step every rank's critical path and the job's analysis are computed for"));
    connect(m_jobStepBox, &QComboBox::activated, this, [this](int i) {
        showJobStep(m_jobStepBox->itemData(i).toLongLong());
        returnFocusToTimeline();
    });
    m_jobActions << bar->addWidget(m_jobStepBox);
    QAction *raw = bar->addAction(tr("Raw clocks"));
    raw->setCheckable(true);
    raw->setToolTip(m_rawClocksAction->toolTip());
    connect(raw, &QAction::toggled, m_rawClocksAction, &QAction::setChecked);
    connect(m_rawClocksAction, &QAction::toggled, raw, &QAction::setChecked);
    m_jobActions << raw << bar->addSeparator();
    bar->addWidget(m_timeline->edgeBar()); // the edges' toggles and legend
}

// After a toolbar drop-down, keys go to the timeline again (Home would otherwise
// pick the drop-down's first entry).
void MainWindow::returnFocusToTimeline()
{
    if (m_stack->currentWidget() == m_timeline)
        m_timeline->plot()->setFocus(Qt::OtherFocusReason);
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
    if (pairs.empty()) {
        m_recentMenu->addAction(tr("(none)"))->setEnabled(false);
        return;
    }
    m_recentMenu->addSeparator();
    m_recentMenu->addAction(tr("Clear"), this, [this] {
        clearRecentPairs();
        rebuildRecentMenu();
        m_start->refresh();
    });
}

void MainWindow::showOpenJobDialog()
{
    const QString last = m_job->lastDir();
    const QString start = last.isEmpty() ? QString() : QFileInfo(last).absolutePath();
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Open a job (a folder of ranks) or a folder of flight recorder dumps"), start);
    if (!dir.isEmpty())
        openJob(dir);
}

void MainWindow::setRankOrder(RankOrder order)
{
    m_job->setRankOrder(order);
    const int i = m_rankOrderBox->findData(static_cast<int>(order));
    if (i >= 0 && m_rankOrderBox->currentIndex() != i)
        m_rankOrderBox->setCurrentIndex(i);
    for (QAction *a : m_rankOrderActions)
        a->setChecked(a->data().toInt() == static_cast<int>(order));
}

void MainWindow::setRawClocks(bool raw)
{
    if (m_rawClocksAction->isChecked() != raw)
        m_rawClocksAction->setChecked(raw); // comes back here
    m_job->setRawClocks(raw);
}

void MainWindow::showJobStep(qint64 stepNumber)
{
    const int box = m_jobStepBox->findData(stepNumber);
    if (box >= 0)
        m_jobStepBox->setCurrentIndex(box);
    m_job->showStep(stepNumber);
}

} // namespace syncscope::ui
