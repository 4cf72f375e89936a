// SPDX-License-Identifier: MIT
#include "comparewindow.h"

#include "difftablemodel.h"
#include "panels/elidedname.h"
#include "panels/tableviewsetup.h"
#include "timeline/timelineplot.h"

#include <QApplication>
#include <QComboBox>
#include <QEvent>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMouseEvent>
#include <QPointer>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStatusBar>
#include <QTableView>
#include <QThread>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace syncscope::ui {

namespace {

const QColor kSlower(229, 57, 53), kFaster(67, 160, 71), kAdded(251, 140, 0), kRemoved(150, 150, 150);

// Red when slower, green when faster by more than 5 % and 0.5 µs; invalid otherwise.
QColor deltaColor(double baseUs, double candUs)
{
    const double d = candUs - baseUs;
    if (std::fabs(d) < 0.5 || std::fabs(d) < 0.05 * std::max(baseUs, candUs))
        return {};
    return d > 0 ? kSlower : kFaster;
}

// A step by the name every other view gives it ("ProfilerStep#10"), both when the runs
// number it differently; "step N" (its ordinal) when the trace names none.
QString stepName(const StepDiff &s)
{
    const QString b = QString::fromStdString(s.baselineName), c = QString::fromStdString(s.candidateName);
    if (b.isEmpty() && c.isEmpty())
        return QObject::tr("step %1").arg(s.index);
    if (b.isEmpty() || c.isEmpty() || b == c)
        return b.isEmpty() ? c : b;
    return QStringLiteral("%1 / %2").arg(b, c);
}

QString us(double v)
{
    return QString::number(v, 'f', 1) + QStringLiteral(" \u00b5s");
}

// "baseline 12.0 µs → candidate 36.1 µs (+24.1 µs, +200.8 %)": both sides, never one alone.
QString bothSides(double base, double cand)
{
    const double d = cand - base;
    const QString pct = base > 0 ? QString::asprintf(", %+.1f %%", 100.0 * d / base) : QString();
    return QCoreApplication::translate("CompareWindow", "baseline %1 \u2192 candidate %2 (%3%4%5)")
        .arg(us(base), us(cand), d > 0 ? QStringLiteral("+") : QString(), us(d), pct);
}

} // namespace

std::shared_ptr<TimelineModel> compareTimelineModel(const Analysis &a)
{
    auto model = buildTimelineModel(a.device);
    const CriticalPathResult *cp = a.criticalPath && a.criticalPath->success ? &*a.criticalPath : nullptr;
    model->edges = buildEdgeIndex(*model, a, cp);
    if (cp) {
        model->criticalEvents = cp->criticalEvents;
        model->layout.setCritical(model->criticalEvents);
    }
    return model;
}

CompareWindow::CompareWindow(QWidget *parent)
    : QMainWindow(parent)
    , m_alive(std::make_shared<std::atomic<bool>>(true))
{
    setWindowTitle(tr("Syncscope \u2014 compare runs"));
    setAttribute(Qt::WA_DeleteOnClose, false);
    auto *top = new QWidget;
    auto *v = new QVBoxLayout(top);
    v->setContentsMargins(4, 4, 4, 0);
    auto *bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Align on step:")));
    m_stepBox = new QComboBox;
    m_stepBox->setMinimumContentsLength(24);
    m_stepBox->setSizeAdjustPolicy(QComboBox::AdjustToContents); // "ProfilerStep#10: 1.2 ms → 1.7 ms (+…)" whole
    bar->addWidget(m_stepBox);
    m_summary = new QLabel;
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    bar->addWidget(m_summary, 1);
    v->addLayout(bar);
    // What the tints mean (issue 41: the window had no legend).
    auto swatch = [](const QColor &c, const QString &text) {
        return QStringLiteral("<span style=\"color:%1\">■</span>&nbsp;%2").arg(c.name(), text.toHtmlEscaped());
    };
    m_legend = new QLabel(QStringList{swatch(kSlower, tr("slower in the candidate")),
                                      swatch(kFaster, tr("faster")), swatch(kAdded, tr("only in the candidate")),
                                      swatch(kRemoved, tr("only in the baseline"))}
                              .join(QStringLiteral("&nbsp;&nbsp;&nbsp;")) +
                          tr("&nbsp;&nbsp;&nbsp;untinted: within 5 % or 0.5 µs"));
    m_legend->setObjectName(QStringLiteral("compareLegend"));
    m_legend->setTextFormat(Qt::RichText);
    m_legend->setToolTip(tr("Ops are tinted by their duration against their match in the other run; GPU work by "
                            "the mean of its kernel (or copy) under the same launching op"));
    v->addWidget(m_legend);
    for (int k = 0; k < 2; ++k) {
        m_titles[k] = new QLabel(k ? tr("Candidate") : tr("Baseline"));
        m_titles[k]->setStyleSheet(QStringLiteral("font-weight: bold"));
        m_plots[k] = new TimelinePlot;
        m_plots[k]->setMinimumHeight(160);
        m_plots[k]->setMouseTracking(true);
        m_plots[k]->installEventFilter(this);
        v->addWidget(m_titles[k]);
        v->addWidget(m_plots[k], 1);
        connect(m_plots[k], &TimelinePlot::rangeChanged, this, [this, k] { syncRange(k); });
        connect(m_plots[k]->selection(), &Selection::changed, this, [this, k](qint64 ev) { linkSelection(k, ev); });
        connect(m_plots[k], &TimelinePlot::eventHovered, this, [this, k](qint64 ev) { hovered(k, ev); });
    }
    m_tableModel = new DiffTableModel(this);
    m_sorted = new QSortFilterProxyModel(this);
    m_sorted->setSourceModel(m_tableModel);
    m_sorted->setSortRole(Qt::UserRole);
    m_table = new QTableView;
    setupSortedTable(m_table, m_sorted, DiffTableModel::Delta, Qt::DescendingOrder);
    m_table->setAlternatingRowColors(false);
    // Names elided to what tells kernels apart; numbers sized to content; Where (a path) elided in the middle.
    setNameColumn(m_table, DiffTableModel::Name);
    fitColumnsToContents(m_table);
    m_table->horizontalHeader()->setSectionResizeMode(DiffTableModel::Where, QHeaderView::Interactive);
    // A click, Enter or the arrow keys on a row zoom both timelines to its op.
    auto show = [this](const QModelIndex &index) { showTableRow(m_sorted->mapToSource(index).row()); };
    connect(m_table, &QTableView::clicked, this, show);
    connect(m_table, &QTableView::activated, this, show);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this, show](const QModelIndex &current) {
                if (current.isValid() && QApplication::mouseButtons() == Qt::NoButton) // a click shows it on release
                    show(current);
            });
    auto *split = new QSplitter(Qt::Vertical);
    split->addWidget(top);
    split->addWidget(m_table);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    setCentralWidget(split);
    m_status = new QLabel;
    statusBar()->addWidget(m_status, 1);
    connect(m_stepBox, &QComboBox::activated, this, [this](int i) { showStep(i); });
    resize(1400, 900);
}

CompareWindow::~CompareWindow()
{
    *m_alive = false;
}

void CompareWindow::setStatus(const QString &text)
{
    m_status->setText(text);
}

QString CompareWindow::statusText() const
{
    return m_status->text();
}

void CompareWindow::compare(const AnalysisRequest &baseline, const AnalysisRequest &candidate)
{
    setStatus(tr("Analysing both runs\u2026"));
    for (int k = 0; k < 2; ++k)
        m_titles[k]->setText((k ? tr("Candidate: %1") : tr("Baseline: %1"))
                                 .arg(QFileInfo(QString::fromStdString(k ? candidate.devicePath : baseline.devicePath))
                                          .fileName()));
    QPointer<CompareWindow> self(this);
    std::shared_ptr<std::atomic<bool>> alive = m_alive;
    QThread *worker = QThread::create([self, alive, baseline, candidate] {
        std::shared_ptr<const Analysis> runs[2] = {runAnalysis(baseline), runAnalysis(candidate)};
        QString error;
        for (int k = 0; k < 2; ++k)
            if (!runs[k]->inputsOk) {
                for (const auto &d : runs[k]->diagnostics.items())
                    if (d.severity == Severity::Error)
                        error += (k ? tr("candidate: ") : tr("baseline: ")) + QString::fromStdString(d.message) + '\n';
            }
        std::shared_ptr<const TraceDiff> diff;
        std::array<std::shared_ptr<TimelineModel>, 2> models;
        if (error.isEmpty()) {
            DiffOptions o;
            o.baselineWindow = windowOf(*runs[0]);
            o.candidateWindow = windowOf(*runs[1]);
            diff = diffRuns(runs[0], runs[1], o);
            for (int k = 0; k < 2; ++k)
                models[k] = compareTimelineModel(*runs[k]);
        }
        if (!*alive)
            return;
        QMetaObject::invokeMethod(
            qApp, // always there; `self` is checked on the GUI thread
            [self, diff, models, error] {
                if (!self)
                    return;
                if (!diff) {
                    self->setStatus(tr("The runs could not be compared: %1").arg(error.trimmed()));
                    Q_EMIT self->loadFinished(false);
                    return;
                }
                self->apply(diff, models);
                Q_EMIT self->loadFinished(true);
            },
            Qt::QueuedConnection);
    });
    connect(worker, &QThread::finished, worker, &QObject::deleteLater);
    worker->start();
}

void CompareWindow::setDiff(std::shared_ptr<const TraceDiff> diff)
{
    std::array<std::shared_ptr<TimelineModel>, 2> models = {compareTimelineModel(*diff->baseline),
                                                            compareTimelineModel(*diff->candidate)};
    apply(std::move(diff), models);
}

void CompareWindow::apply(std::shared_ptr<const TraceDiff> diff, std::array<std::shared_ptr<TimelineModel>, 2> models)
{
    m_diff = std::move(diff);
    m_models = models;
    const OpForest *ops[2] = {&m_diff->baselineOps, &m_diff->candidateOps};
    const Analysis *runs[2] = {m_diff->baseline.get(), m_diff->candidate.get()};
    for (int k = 0; k < 2; ++k) {
        m_titles[k]->setText((k ? tr("Candidate: %1") : tr("Baseline: %1"))
                                 .arg(QFileInfo(QString::fromStdString(runs[k]->devicePath)).fileName()));
        m_titles[k]->setToolTip(QString::fromStdString(runs[k]->devicePath));
        m_nodeOf[k].clear();
        m_nodeOf[k].reserve(ops[k]->size());
        for (uint32_t n = 0; n < ops[k]->size(); ++n)
            m_nodeOf[k].emplace(ops[k]->event[n], n);
        m_stepStart[k].clear();
        for (uint32_t s : ops[k]->stepEvents)
            m_stepStart[k].push_back(double(runs[k]->device->events[s].tsNs - m_models[k]->originNs));
    }
    buildTints();
    m_syncing = true;
    for (int k = 0; k < 2; ++k) {
        m_plots[k]->setModel(m_models[k]);
        m_plots[k]->setEventTints(m_tints[k]);
    }
    m_syncing = false;
    m_tableModel->setDiff(m_diff);
    m_table->sortByColumn(DiffTableModel::Delta, Qt::DescendingOrder);
    m_table->resizeColumnToContents(DiffTableModel::Where);
    m_table->setColumnWidth(DiffTableModel::Where, std::min(m_table->columnWidth(DiffTableModel::Where), 360));
    m_stepBox->clear();
    for (const StepDiff &s : m_diff->steps)
        m_stepBox->addItem(s.inBaseline && s.inCandidate
                               ? tr("%1: %2 \u2192 %3 (%4%5)")
                                     .arg(stepName(s), us(s.baselineUs), us(s.candidateUs),
                                          s.deltaUs() > 0 ? "+" : "", us(s.deltaUs()))
                               : tr("%1: in one run only").arg(stepName(s)));
    m_stepBox->setEnabled(!m_diff->steps.empty());
    QString summary, summaryTip;
    if (m_diff->criticalPathBoth)
        summary = tr("Critical path %1 \u2192 %2").arg(us(m_diff->baselineCpUs), us(m_diff->candidateCpUs));
    if (!m_diff->top.empty()) {
        const TopChange &t = m_diff->top.front();
        const QString name = QString::fromStdString(t.name);
        // Elided to what tells it apart (a GEMM's tile, a template's arguments), in full in the tooltip.
        summary += (summary.isEmpty() ? QString() : QStringLiteral("   \u00b7   ")) +
                   tr("Top change: %1 %2 %3%4")
                       .arg(QString::fromStdString(t.category), elideKernelName(name, 60),
                            t.deltaUs() > 0 ? "+" : "", us(t.deltaUs()));
        summaryTip = tr("Top change: %1 %2\n%3\n%4")
                         .arg(QString::fromStdString(t.category), name, QString::fromStdString(t.where),
                              bothSides(t.baselineUs, t.candidateUs));
    }
    m_summary->setText(summary);
    m_summary->setToolTip(summaryTip);
    // One scale for both: the first step aligned, or both whole traces across the longer one's span.
    if (!m_diff->steps.empty()) {
        showStep(0);
    } else {
        const double span = std::max(1.0, std::max(m_models[0]->spanNs(), m_models[1]->spanNs()));
        m_plots[0]->setRange({-0.01 * span, 1.01 * span});
        syncRange(0);
    }
    setStatus(tr("%1 changed keys. Hover an op to compare it with its match; click a table row to show both "
                 "sides.")
                  .arg(m_tableModel->rowCount()));
}

void CompareWindow::buildTints()
{
    const TraceDiff &d = *m_diff;
    const OpForest *ops[2] = {&d.baselineOps, &d.candidateOps};
    const std::vector<int32_t> *match[2] = {&d.baselineMatch, &d.candidateMatch};
    const KinetoTrace *traces[2] = {d.baseline->device.get(), d.candidate->device.get()};
    // GPU work: by the delta of its (name, launching op) key.
    std::unordered_map<std::string, QColor> gpuColor;
    for (const auto *list : {&d.kernelsByOp, &d.memcpysByOp})
        for (const GpuDiff &r : *list) {
            QColor c = r.baseline.count == 0   ? kAdded
                       : r.candidate.count == 0 ? kRemoved
                                                : deltaColor(r.baseline.meanUs(), r.candidate.meanUs());
            if (c.isValid())
                gpuColor.emplace(r.name + '\x1f' + d.pathText(r.launchPath), c);
        }
    for (int k = 0; k < 2; ++k) {
        auto tints = std::make_shared<std::unordered_map<uint32_t, QColor>>();
        const KinetoTrace &t = *traces[k];
        for (uint32_t n = 0; n < ops[k]->size(); ++n) {
            const int32_t other = (*match[k])[n];
            QColor c;
            if (other < 0)
                c = k ? kAdded : kRemoved;
            else {
                const double self = t.events[ops[k]->event[n]].dur;
                const KinetoTrace &ot = *traces[1 - k];
                const double them = ot.events[ops[1 - k]->event[static_cast<uint32_t>(other)]].dur;
                c = k ? deltaColor(them, self) : deltaColor(self, them);
            }
            if (c.isValid())
                tints->emplace(ops[k]->event[n], c);
        }
        if (!gpuColor.empty()) {
            std::unordered_map<uint64_t, QColor> byKey; // (name id, path) -> colour, looked up once
            for (uint32_t i = 0; i < t.events.size(); ++i) {
                const KinetoEvent &e = t.events[i];
                if (!isGpuActivity(e.kind))
                    continue;
                const uint32_t path = ops[k]->launchPath(t, i);
                const uint64_t key = (uint64_t(e.name) << 32) | path;
                auto it = byKey.find(key);
                if (it == byKey.end()) {
                    auto g = gpuColor.find(std::string(t.str(e.name)) + '\x1f' + d.pathText(path));
                    it = byKey.emplace(key, g == gpuColor.end() ? QColor() : g->second).first;
                }
                if (it->second.isValid())
                    tints->emplace(i, it->second);
            }
        }
        m_tints[k] = std::move(tints);
    }
}

QColor CompareWindow::tintOf(bool baseline, uint32_t event) const
{
    const auto &t = m_tints[baseline ? 0 : 1];
    if (!t)
        return {};
    auto it = t->find(event);
    return it == t->end() ? QColor() : it->second;
}

int CompareWindow::stepAt(bool baseline, double ns) const
{
    const auto &starts = m_stepStart[baseline ? 0 : 1];
    return static_cast<int>(std::upper_bound(starts.begin(), starts.end(), ns) - starts.begin()) - 1;
}

double CompareWindow::stepOffsetNs(int step) const
{
    if (step < 0 || size_t(step) >= m_stepStart[0].size() || size_t(step) >= m_stepStart[1].size())
        return 0;
    return m_stepStart[1][step] - m_stepStart[0][step];
}

void CompareWindow::showStep(int index)
{
    if (!m_diff || index < 0 || size_t(index) >= m_diff->steps.size())
        return;
    const StepDiff &s = m_diff->steps[index];
    const double spanNs = std::max(s.baselineUs, s.candidateUs) * 1000.0;
    const int from = s.inBaseline ? 0 : 1;
    const double start = m_stepStart[from][index];
    m_plots[from]->setRange({start - 0.02 * spanNs, start + 1.03 * spanNs});
    if (m_stepBox->currentIndex() != index)
        m_stepBox->setCurrentIndex(index);
}

void CompareWindow::syncRange(int from)
{
    if (m_syncing || !m_diff)
        return;
    m_syncing = true;
    const TimeRange r = m_plots[from]->range();
    const int step = stepAt(from == 0, (r.t0 + r.t1) / 2);
    const double offset = stepOffsetNs(std::max(step, 0)) * (from == 0 ? 1 : -1);
    m_plots[1 - from]->setRange({r.t0 + offset, r.t1 + offset});
    if (step >= 0 && step < m_stepBox->count() && m_stepBox->currentIndex() != step)
        m_stepBox->setCurrentIndex(step);
    m_syncing = false;
}

bool CompareWindow::eventFilter(QObject *watched, QEvent *event)
{
    for (int k = 0; k < 2; ++k) {
        if (watched != m_plots[k] || !m_diff)
            continue;
        if (event->type() == QEvent::MouseMove) {
            const auto *me = static_cast<QMouseEvent *>(event);
            const double ns = m_plots[k]->viewport().toTime(me->position().x() - m_plots[k]->plotRect().left());
            const double offset = stepOffsetNs(std::max(stepAt(k == 0, ns), 0)) * (k == 0 ? 1 : -1);
            m_plots[k]->setCursorNs(ns);
            m_plots[1 - k]->setCursorNs(ns + offset);
            // Plain hover over the events: the tooltip is this window's (both runs' durations), not
            // the plot's one-sided one, so the plot does not see the move. Drags go on to it.
            const QPoint pos = me->position().toPoint();
            if (me->buttons() == Qt::NoButton && m_plots[k]->plotRect().contains(pos)) {
                const qint64 ev = m_plots[k]->eventAt(pos);
                hovered(k, ev);
                if (ev >= 0)
                    QToolTip::showText(me->globalPosition().toPoint(), hoverText(k, ev), m_plots[k]);
                else
                    QToolTip::hideText();
                return true;
            }
        } else if (event->type() == QEvent::Leave) {
            m_plots[0]->setCursorNs(std::nan(""));
            m_plots[1]->setCursorNs(std::nan(""));
        }
    }
    return QMainWindow::eventFilter(watched, event);
}

qint64 CompareWindow::counterpart(bool fromBaseline, qint64 event) const
{
    if (!m_diff || event < 0)
        return -1;
    const int k = fromBaseline ? 0 : 1;
    auto it = m_nodeOf[k].find(static_cast<uint32_t>(event));
    if (it == m_nodeOf[k].end())
        return -1;
    const int32_t other = (fromBaseline ? m_diff->baselineMatch : m_diff->candidateMatch)[it->second];
    if (other < 0)
        return -1;
    return (fromBaseline ? m_diff->candidateOps : m_diff->baselineOps).event[static_cast<uint32_t>(other)];
}

void CompareWindow::linkSelection(int from, qint64 event)
{
    if (m_linking || !m_diff)
        return;
    m_linking = true;
    const qint64 other = counterpart(from == 0, event);
    if (other >= 0) {
        m_plots[1 - from]->selection()->setEvent(other);
        m_plots[1 - from]->revealEvent(static_cast<uint32_t>(other));
    } else if (event < 0) {
        m_plots[1 - from]->selection()->clear();
    }
    describeHover(from, event);
    m_linking = false;
}

void CompareWindow::hovered(int from, qint64 event)
{
    describeHover(from, event);
    // Hovering a matched op puts the other run's cursor on its match.
    const qint64 other = counterpart(from == 0, event);
    if (other >= 0 && m_models[1 - from])
        m_plots[1 - from]->setCursorNs(m_models[1 - from]->startNs(static_cast<uint32_t>(other)));
}

void CompareWindow::describeHover(int from, qint64 event)
{
    if (m_diff && event >= 0)
        setStatus(hoverText(from, event).replace(u'\n', QStringLiteral(": ")));
}

QString CompareWindow::hoverText(int from, qint64 event) const
{
    if (!m_diff || event < 0)
        return {};
    const KinetoTrace &t = from ? *m_diff->candidate->device : *m_diff->baseline->device;
    const KinetoEvent &e = t.events[static_cast<size_t>(event)];
    const QString name = QString::fromUtf8(t.str(e.name).data(), int(t.str(e.name).size()));
    const qint64 other = counterpart(from == 0, event);
    if (other >= 0) { // a matched op: this op and its match
        const KinetoTrace &ot = from ? *m_diff->baseline->device : *m_diff->candidate->device;
        const double them = ot.events[static_cast<size_t>(other)].dur;
        return name + u'\n' + (from ? bothSides(them, e.dur) : bothSides(e.dur, them));
    }
    if (m_nodeOf[from].count(static_cast<uint32_t>(event)))
        return tr("%1 (%2)\n%3 \u2014 no match in the %4")
            .arg(name, us(e.dur), from ? tr("added in the candidate") : tr("removed in the candidate"),
                 from ? tr("baseline") : tr("candidate"));
    if (isGpuActivity(e.kind)) { // GPU work is compared by its (name, launching op) key: the means
        const OpForest &ops = from ? m_diff->candidateOps : m_diff->baselineOps;
        const std::string key = std::string(t.str(e.name)) + '\x1f' + m_diff->pathText(ops.launchPath(t, uint32_t(event)));
        for (const auto *list : {&m_diff->kernelsByOp, &m_diff->memcpysByOp})
            for (const GpuDiff &r : *list)
                if (r.name + '\x1f' + m_diff->pathText(r.launchPath) == key)
                    return tr("%1 (%2)\nper launch by this op: %3; launches %4 \u2192 %5")
                        .arg(name, us(e.dur), bothSides(r.baseline.meanUs(), r.candidate.meanUs()))
                        .arg(r.baseline.count)
                        .arg(r.candidate.count);
    }
    return tr("%1 (%2)").arg(name, us(e.dur));
}

void CompareWindow::showTableRow(int row)
{
    if (!m_diff || row < 0 || row >= m_tableModel->rowCount())
        return;
    const DiffTableRow &r = m_tableModel->row(row);
    const OpForest *ops[2] = {&m_diff->baselineOps, &m_diff->candidateOps};
    const KinetoTrace *traces[2] = {m_diff->baseline->device.get(), m_diff->candidate->device.get()};
    qint64 found[2] = {-1, -1};
    for (int k = 0; k < 2; ++k) {
        const OpForest &f = *ops[k];
        const KinetoTrace &t = *traces[k];
        if (r.category == QLatin1String("op")) {
            for (uint32_t n = 0; n < f.size() && found[k] < 0; ++n)
                if (f.pathId[n] == r.path)
                    found[k] = f.event[n];
            continue;
        }
        const bool sync = r.category == QLatin1String("sync");
        for (uint32_t i = 0; i < t.events.size() && found[k] < 0; ++i) {
            const KinetoEvent &e = t.events[i];
            if (sync ? e.kind != EventKind::Runtime && !isGpuActivity(e.kind) : !isGpuActivity(e.kind))
                continue;
            if (t.str(e.name) != r.rawName)
                continue;
            const uint32_t path = e.kind == EventKind::Runtime ? f.callerPath(i) : f.launchPath(t, i);
            if (path == r.path)
                found[k] = i;
        }
    }
    // The baseline's first op and its own match, when it has one.
    if (r.category == QLatin1String("op") && found[0] >= 0 && counterpart(true, found[0]) >= 0)
        found[1] = counterpart(true, found[0]);
    m_linking = true;
    m_syncing = true;
    for (int k = 0; k < 2; ++k) {
        if (found[k] < 0)
            continue;
        m_plots[k]->selection()->setEvent(found[k]);
        m_plots[k]->revealEvent(static_cast<uint32_t>(found[k])); // its lane in view
        zoomTo(k, static_cast<uint32_t>(found[k]));
    }
    m_syncing = false;
    m_linking = false;
    if ((found[0] < 0) != (found[1] < 0)) // in one run only: the other follows, step-aligned
        syncRange(found[0] >= 0 ? 0 : 1);
    setStatus(tr("%1 %2: %3%4")
                  .arg(r.category, elideKernelName(r.name, 80), bothSides(r.baselineUs, r.candidateUs),
                       found[0] < 0 ? tr(" (not in the baseline)")
                                    : found[1] < 0 ? tr(" (not in the candidate)") : QString()));
}

void CompareWindow::zoomTo(int k, uint32_t event)
{
    // As the inspector's jump: the op takes about a sixth of the view, never past the trace's ends.
    const TimelineModel &m = *m_models[k];
    const double t0 = m.startNs(event), t1 = m.endNs(event);
    const double trace = std::max(1.0, m.spanNs());
    const double span = std::min(std::max((t1 - t0) * 6, 1000.0), trace);
    const double start = std::clamp((t0 + t1) / 2 - span / 2, 0.0, trace - span);
    m_plots[k]->setRange({start, start + span});
}

} // namespace syncscope::ui
