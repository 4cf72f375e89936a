// SPDX-License-Identifier: MIT
#include "hangwindow.h"

#include "theme.h"

#include <algorithm>

#include "hanggrid.h"
#include "hangmodels.h"
#include "job/discovery.h"

#include <QApplication>
#include <QCheckBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QListWidget>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QThread>
#include <QVBoxLayout>

namespace syncscope::ui {

// What the reading thread hands back.
struct HangWindow::Load {
    std::shared_ptr<HangFolder> folder = std::make_shared<HangFolder>();
    std::shared_ptr<HangAnalysis> analysis;
    std::shared_ptr<HangGrid> grid;
    std::unordered_map<int64_t, size_t> dumpOfRank;
    int traceRanks = 0;
    QString error;
};

namespace {

QTableView *makeTable(QWidget *parent)
{
    auto *t = new QTableView(parent);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->setSelectionMode(QAbstractItemView::SingleSelection);
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->verticalHeader()->hide();
    t->verticalHeader()->setDefaultSectionSize(t->fontMetrics().height() + 4);
    t->horizontalHeader()->setStretchLastSection(true);
    t->setWordWrap(false);
    return t;
}

QWidget *legend(QWidget *parent)
{
    auto *w = new QWidget(parent);
    auto *l = new QHBoxLayout(w);
    l->setContentsMargins(0, 0, 0, 0);
    for (int i = int(HangCellState::Count) - 1; i >= 0; --i) {
        auto *swatch = new QLabel(w);
        swatch->setFixedSize(12, 12);
        swatch->setStyleSheet(QStringLiteral("background:%1;border:1px solid #777").arg(hangCellColor(HangCellState(i), isDarkPalette(w->palette())).name()));
        l->addWidget(swatch);
        l->addWidget(new QLabel(hangCellName(HangCellState(i)), w));
        l->addSpacing(6);
    }
    l->addStretch();
    // The outlines and the mouse, on a line of their own so the window can stay narrow.
    auto *help = new QLabel(QObject::tr("Outlined: the cells of each finding (missing, mismatched and waiting ranks in its "
                                        "group): black for the root cause, dashed purple for a consequence. Wheel zooms "
                                        "(Shift: ranks only, Ctrl: groups only), drag pans, click selects."), parent);
    help->setWordWrap(true);
    auto *box = new QWidget(parent);
    auto *v = new QVBoxLayout(box);
    v->setContentsMargins(0, 0, 0, 0);
    v->addWidget(w);
    v->addWidget(help);
    return box;
}

} // namespace

HangWindow::HangWindow(QWidget *parent)
    : QMainWindow(parent)
    , m_summary(new QLabel(this))
    , m_status(new QLabel(this))
    , m_progress(new QProgressBar(this))
    , m_cancel(new QPushButton(tr("Cancel"), this))
    , m_reload(new QPushButton(tr("Reload"), this))
    , m_timeline(new QPushButton(tr("Open the job timeline (last recorded step)"), this))
    , m_fit(new QPushButton(tr("Fit"), this))
    , m_onlyFindings(new QCheckBox(tr("Only groups with a finding"), this))
    , m_grid(new HangGridView(this))
    , m_suspects(makeTable(this))
    , m_suspectsModel(new HangSuspectsModel(this))
    , m_entriesLabel(new QLabel(this))
    , m_entries(makeTable(this))
    , m_entriesModel(new HangEntriesModel(this))
    , m_frames(new QListWidget(this))
    , m_diags(new QListWidget(this))
    , m_tabs(new QTabWidget(this))
{
    setWindowTitle(tr("Syncscope \u2013 why the job hung"));
    resize(1400, 900);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont bold = m_summary->font();
    bold.setBold(true);
    m_summary->setFont(bold);
    m_suspects->setModel(m_suspectsModel);
    m_entries->setModel(m_entriesModel);
    m_grid->setToolTipProvider([this](int row, int64_t rank) { return cellToolTip(row, rank); });

    auto *central = new QWidget(this);
    auto *v = new QVBoxLayout(central);
    v->addWidget(m_summary);
    auto *bar = new QHBoxLayout;
    bar->addWidget(m_onlyFindings);
    bar->addWidget(m_fit);
    bar->addWidget(m_timeline);
    bar->addStretch();
    bar->addWidget(m_reload);
    v->addLayout(bar);
    v->addWidget(legend(this));
    auto *split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_grid);
    split->addWidget(m_suspects);
    auto *entries = new QWidget(this);
    auto *ev = new QVBoxLayout(entries);
    ev->setContentsMargins(0, 0, 0, 0);
    ev->addWidget(m_entriesLabel);
    auto *entrySplit = new QSplitter(Qt::Vertical, entries);
    entrySplit->addWidget(m_entries);
    entrySplit->addWidget(m_frames);
    entrySplit->setStretchFactor(0, 3);
    entrySplit->setStretchFactor(1, 1);
    ev->addWidget(entrySplit);
    m_tabs->addTab(entries, tr("Rank entries"));
    m_tabs->addTab(m_diags, tr("Diagnostics"));
    split->addWidget(m_tabs);
    split->setSizes({450, 150, 300});
    v->addWidget(split, 1);
    setCentralWidget(central);
    statusBar()->addWidget(m_status, 1);
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_cancel);
    m_progress->setRange(0, 1000);
    m_progress->setMaximumWidth(220);
    setBusy(false);
    m_timeline->setEnabled(false);
    m_reload->setEnabled(false);

    connect(m_cancel, &QPushButton::clicked, this, &HangWindow::cancel);
    connect(m_reload, &QPushButton::clicked, this, &HangWindow::reload);
    connect(m_fit, &QPushButton::clicked, m_grid, &HangGridView::fitAll);
    connect(m_onlyFindings, &QCheckBox::toggled, this, &HangWindow::setOnlyFindings);
    connect(m_timeline, &QPushButton::clicked, this, [this] { Q_EMIT timelineRequested(m_dir); });
    connect(m_grid, &HangGridView::cellClicked, this, [this](int row, qint64 rank) { selectCell(row, rank); });
    connect(m_suspects->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex &i) {
        if (!m_selecting && i.isValid())
            selectSuspect(i.row());
    });
    connect(m_entries->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &HangWindow::showFrames);
}

HangWindow::~HangWindow()
{
    if (m_cancelFlag)
        *m_cancelFlag = true;
}

void HangWindow::setBusy(bool busy)
{
    m_busy = busy;
    m_progress->setVisible(busy);
    m_cancel->setVisible(busy);
    m_reload->setEnabled(!busy && !m_dir.isEmpty());
}

void HangWindow::open(const QString &dir)
{
    if (m_cancelFlag)
        *m_cancelFlag = true; // a read still running is dropped
    m_dir = dir;
    const quint64 gen = ++m_generation;
    m_cancelFlag = std::make_shared<std::atomic<bool>>(false);
    setWindowTitle(tr("Syncscope \u2013 why the job hung: %1").arg(QFileInfo(dir).fileName()));
    m_summary->setText(tr("Reading the flight recorder dumps in %1\u2026").arg(dir));
    m_status->setText(m_summary->text());
    m_progress->setValue(0);
    setBusy(true);
    QPointer<HangWindow> self(this);
    auto cancel = m_cancelFlag;
    auto permille = std::make_shared<std::atomic<int>>(-1);
    QThread *worker = QThread::create([self, gen, cancel, permille, path = dir.toStdString()] {
        auto load = std::make_shared<Load>();
        HangFolderOptions o;
        o.cancel = cancel.get();
        o.frames = false; // most of the memory at scale: the selected rank's are read again (showFrames)
        o.progress = [self, gen, permille](size_t done, size_t total) {
            const int p = total ? int(done * 1000 / total) : 1000;
            if (permille->exchange(p) == p)
                return; // only when the bar moves: 10,000 files make 1,000 updates at most
            QMetaObject::invokeMethod(qApp, [self, gen, p, done, total] {
                if (self && self->m_generation == gen) {
                    self->m_progress->setValue(p);
                    self->m_status->setText(tr("Reading dumps: %1 of %2 files\u2026").arg(done).arg(total));
                }
            }, Qt::QueuedConnection);
        };
        std::string error;
        if (!readHangFolder(path, *load->folder, error, o))
            load->error = QString::fromStdString(error);
        else if (!*cancel) {
            const HangFolder &f = *load->folder;
            load->analysis = std::make_shared<HangAnalysis>(analyzeHang(f.dumps, f.missing, f.worldSize));
            for (size_t i = 0; i < f.dumps.size(); ++i)
                if (f.dumps[i].rank)
                    load->dumpOfRank.emplace(*f.dumps[i].rank, i);
            load->grid = buildHangGrid(*load->analysis, f.worldSize, false);
            if (!*cancel) // the job timeline needs device traces of the same job
                for (const JobRank &r : discoverJob({path}).ranks)
                    load->traceRanks += r.devicePath.empty() ? 0 : 1;
        }
        QMetaObject::invokeMethod(qApp, [self, gen, load] {
            if (self && self->m_generation == gen)
                self->apply(load);
        }, Qt::QueuedConnection);
    });
    connect(worker, &QThread::finished, worker, &QObject::deleteLater);
    worker->start();
}

void HangWindow::cancel()
{
    if (!m_busy)
        return;
    *m_cancelFlag = true;
    ++m_generation; // whatever the thread still delivers is dropped
    setBusy(false);
    m_summary->setText(tr("Cancelled: the dumps in %1 were not analysed (Reload reads them again).").arg(m_dir));
    m_status->setText(tr("Cancelled."));
    Q_EMIT loadFinished(false);
}

void HangWindow::reload()
{
    if (!m_dir.isEmpty())
        open(m_dir);
}

void HangWindow::apply(std::shared_ptr<Load> load)
{
    setBusy(false);
    m_diags->clear();
    if (!load->analysis) {
        m_summary->setText(load->error.isEmpty() ? tr("Cancelled.") : tr("Could not read %1: %2").arg(m_dir, load->error));
        m_status->setText(m_summary->text());
        Q_EMIT loadFinished(false);
        return;
    }
    m_folder = load->folder;
    m_framesDump.reset();
    m_analysis = load->analysis;
    m_allGrid = load->grid;
    m_dumpOfRank = std::move(load->dumpOfRank);
    m_traceRanks = load->traceRanks;
    m_suspectsModel->setAnalysis(m_analysis);
    m_suspects->resizeColumnsToContents();
    m_entriesModel->setDump(nullptr, -1);
    m_entriesLabel->setText(tr("Click a suspect or a cell to see that rank's entries."));
    m_frames->clear();
    // Many groups (a 16-rank Megatron job has ~100) make rows too thin to label: open on the
    // groups with a finding, the box says so and shows the rest.
    if (!m_analysis->suspects.empty() && m_analysis->groups.size() > kOnlyFindingsAbove)
        m_onlyFindings->setChecked(true);
    setOnlyFindings(m_onlyFindings->isChecked());

    const QString summary = QString::fromStdString(hangSummaryText(*m_analysis));
    const HangFolder &f = *m_folder;
    m_summary->setText(tr("%1\n%2 dump(s) read, %3 rank(s) without a dump%4, %5 file(s) refused; %6 suspect(s), %7 root(s)")
                           .arg(summary.section(QLatin1Char('\n'), 0, 0))
                           .arg(f.dumps.size())
                           .arg(f.missing.size())
                           .arg(f.missing.empty() ? QString() : QStringLiteral(" (%1)").arg(hangRankRanges(f.missing)))
                           .arg(f.refused.size())
                           .arg(m_analysis->suspects.size())
                           .arg(m_analysis->roots()));
    m_summary->setToolTip(summary);
    for (const auto &d : f.diags)
        m_diags->addItem(QStringLiteral("%1 %2: %3").arg(QString::fromStdString(d.severity), QString::fromStdString(d.code),
                                                          QString::fromStdString(d.message)));
    for (const auto &w : m_analysis->warnings)
        m_diags->addItem(tr("warning hang.analysis: %1").arg(QString::fromStdString(w)));
    m_tabs->setTabText(1, tr("Diagnostics (%1)").arg(m_diags->count()));
    m_timeline->setEnabled(m_traceRanks > 0);
    m_timeline->setToolTip(m_traceRanks > 0
                               ? tr("Opens %1 as a job (%2 rank(s) with Kineto traces) on its last ProfilerStep").arg(m_dir).arg(m_traceRanks)
                               : tr("No Kineto device trace of this job in %1: there is no timeline to open").arg(m_dir));
    m_status->setText(tr("Read %1 file(s) in %2 s: %3.")
                          .arg(f.files.size())
                          .arg(f.readSeconds, 0, 'f', 2)
                          .arg(QString::fromStdString(hangFormatsText(f))));
    if (!m_analysis->suspects.empty())
        selectSuspect(0);
    Q_EMIT loadFinished(true);
}

void HangWindow::setOnlyFindings(bool on)
{
    if (m_onlyFindings->isChecked() != on)
        m_onlyFindings->setChecked(on); // comes back here
    if (!m_analysis)
        return;
    const int row = m_grid->selectedRow();
    const int64_t rank = m_grid->selectedRank();
    const std::string pg = m_shownGrid && row >= 0 ? m_analysis->groups[m_shownGrid->rows[size_t(row)]].pgName : std::string();
    m_shownGrid = on ? buildHangGrid(*m_analysis, m_folder->worldSize, true) : m_allGrid;
    QStringList labels;
    for (size_t g : m_shownGrid->rows)
        labels << tr("pg %1 %2").arg(QString::fromStdString(m_analysis->groups[g].pgName),
                                     QString::fromStdString(m_analysis->groups[g].pgDesc));
    m_grid->setGrid(m_shownGrid);
    m_grid->setRowLabels(labels);
    if (!pg.empty())
        m_grid->setSelection(m_shownGrid->rowOfGroup(*m_analysis, pg), rank);
}

const FrDump *HangWindow::dumpOf(int64_t rank) const
{
    auto it = m_dumpOfRank.find(rank);
    return m_folder && it != m_dumpOfRank.end() ? &m_folder->dumps[it->second] : nullptr;
}

const HangSuspect *HangWindow::suspectOfGroup(const std::string &pgName, int *index) const
{
    for (size_t i = 0; m_analysis && i < m_analysis->suspects.size(); ++i)
        if (m_analysis->suspects[i].pgName == pgName) {
            if (index)
                *index = int(i);
            return &m_analysis->suspects[i];
        }
    return nullptr;
}

void HangWindow::selectSuspect(int index)
{
    if (!m_analysis || index < 0 || size_t(index) >= m_analysis->suspects.size())
        return;
    const HangSuspect &s = m_analysis->suspects[size_t(index)];
    const auto &ranks = !s.missingRanks.empty() ? s.missingRanks : !s.mismatchedRanks.empty() ? s.mismatchedRanks : s.waitingRanks;
    int64_t rank = ranks.empty() ? -1 : ranks.front();
    // A root: the first rank the hang starts with, not one held in another finding.
    for (int64_t r : s.root ? s.missingRanks : std::vector<int64_t>{})
        if (!std::binary_search(s.heldRanks.begin(), s.heldRanks.end(), r)) {
            rank = r;
            break;
        }
    const int row = m_shownGrid ? m_shownGrid->rowOfGroup(*m_analysis, s.pgName) : -1;
    m_selecting = true;
    m_suspects->selectRow(index);
    m_selecting = false;
    m_grid->setSelection(row, rank);
    m_grid->ensureVisible(row, rank);
    showRank(rank, s.pgName, &s);
}

void HangWindow::selectCell(int row, int64_t rank)
{
    if (!m_analysis || !m_shownGrid || row < 0 || size_t(row) >= m_shownGrid->rows.size())
        return;
    const std::string &pg = m_analysis->groups[m_shownGrid->rows[size_t(row)]].pgName;
    int index = -1;
    const HangSuspect *s = suspectOfGroup(pg, &index);
    m_selecting = true;
    if (index >= 0)
        m_suspects->selectRow(index);
    else
        m_suspects->clearSelection();
    m_selecting = false;
    m_grid->setSelection(row, rank);
    m_grid->ensureVisible(row, rank);
    showRank(rank, pg, s);
}

void HangWindow::showRank(int64_t rank, const std::string &pgName, const HangSuspect *suspect)
{
    const FrDump *d = rank >= 0 ? dumpOf(rank) : nullptr;
    m_tabs->setCurrentIndex(0);
    if (!d || d->entries.empty()) {
        m_entriesModel->setDump(nullptr, -1);
        m_frames->clear();
        m_entriesLabel->setText(rank < 0 ? tr("No rank selected.")
                                : d     ? tr("Rank %1: its dump (%2) is empty: it recorded nothing.").arg(rank).arg(QString::fromStdString(d->path))
                                        : tr("Rank %1: no dump (none was found in the folder, or it was refused).").arg(rank));
        return;
    }
    const int stuck = hangStuckEntry(*d, pgName, suspect);
    m_entriesModel->setDump(d, stuck);
    m_entriesLabel->setText(tr("Rank %1: %2 entries (%3)%4")
                                .arg(rank)
                                .arg(d->entries.size())
                                .arg(QString::fromStdString(d->path))
                                .arg(stuck >= 0 ? tr("; highlighted: its entry for pg %1's stuck op (else its last in that group)")
                                                      .arg(QString::fromStdString(pgName))
                                                : tr("; no entry in pg %1").arg(QString::fromStdString(pgName))));
    m_entries->resizeColumnsToContents();
    const QModelIndex i = m_entriesModel->index(stuck >= 0 ? stuck : int(d->entries.size()) - 1, 0);
    m_entries->setCurrentIndex(i);
    m_entries->scrollTo(i, QAbstractItemView::PositionAtCenter);
    showFrames();
}

void HangWindow::showFrames()
{
    m_frames->clear();
    const FrDump *d = m_entriesModel->dump();
    const int row = m_entries->currentIndex().row();
    if (!d || row < 0 || size_t(row) >= d->entries.size())
        return;
    if (!d->frames && (!m_framesDump || m_framesDump->path != d->path)) {
        // The folder was read without stacks: this rank's dump again, with them.
        auto full = std::make_shared<FrDump>();
        if (rereadWithFrames(*d, *full))
            m_framesDump = std::move(full);
        else
            m_framesDump.reset();
    }
    const bool reread = !d->frames && m_framesDump && m_framesDump->path == d->path;
    const FrEntry &e = reread ? m_framesDump->entries[size_t(row)] : d->entries[size_t(row)];
    if (e.frames.empty())
        m_frames->addItem(tr("(no stack recorded for record %1)").arg(e.recordId));
    for (const auto &f : e.frames)
        m_frames->addItem(QString::fromStdString(f));
}

QString HangWindow::cellToolTip(int row, int64_t rank) const
{
    if (!m_analysis || !m_shownGrid || row < 0 || size_t(row) >= m_shownGrid->rows.size())
        return {};
    const HangGroupStatus &g = m_analysis->groups[m_shownGrid->rows[size_t(row)]];
    QString text = tr("rank %1 \u00b7 pg %2 %3\n").arg(rank).arg(QString::fromStdString(g.pgName), QString::fromStdString(g.pgDesc));
    const auto m = std::find_if(g.members.begin(), g.members.end(), [rank](const HangMemberStatus &s) { return s.rank == rank; });
    if (m == g.members.end())
        return text + tr("not a member");
    text += tr("cell: %1; dump: %2; last entry: %3\nlast enqueued / started / completed seq: %4 / %5 / %6")
                .arg(hangCellName(m_shownGrid->at(row, rank)), QString::fromStdString(m->dump), QString::fromStdString(m->state))
                .arg(m->lastEnqueued)
                .arg(m->lastStarted)
                .arg(m->lastCompleted);
    for (const HangSuspect &s : m_analysis->suspects) {
        if (s.pgName != g.pgName)
            continue;
        const auto has = [rank](const std::vector<int64_t> &v) { return std::binary_search(v.begin(), v.end(), rank); };
        const QString what = has(s.missingRanks) ? tr("never entered") : has(s.mismatchedRanks) ? tr("entered differently")
                             : has(s.waitingRanks) ? tr("waits in") : QString();
        if (!what.isEmpty())
            text += tr("\n%1 %2 seq %3 (%4, %5)").arg(what, QString::fromStdString(s.op))
                        .arg(s.p2p ? s.p2pSeqId : s.collectiveSeqId)
                        .arg(QString::fromStdString(s.kind), s.root ? tr("root cause") : tr("consequence"));
    }
    return text;
}

} // namespace syncscope::ui
