// SPDX-License-Identifier: MIT
#include "whatifpanel.h"

#include "panels/tableviewsetup.h"

#include "job/jobbuild.h"
#include "job/jobdata.h"
#include "job/jobdocument.h"
#include "timeline/timeformat.h"

#include <QApplication>
#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPointer>
#include <QPushButton>
#include <QScrollArea>
#include <QStandardItemModel>
#include <QTableView>
#include <QThreadPool>
#include <QVBoxLayout>

#include <cmath>
#include <mutex>

namespace syncscope::ui {

// What a worker needs, kept alive by the workers that use it. The engine is
// built on the first evaluation, off the GUI thread.
struct WhatIfPanel::Context {
    std::shared_ptr<const KinetoTrace> trace;
    std::shared_ptr<const CriticalPathResult> cp;
    std::once_flag built;
    std::unique_ptr<WhatIfEngine> engine;
    const WhatIfEngine &get()
    {
        std::call_once(built, [this] { engine = std::make_unique<WhatIfEngine>(*trace, *cp, trace->distributed.rank); });
        return *engine;
    }
};

namespace {

constexpr int kEventRole = Qt::UserRole + 1;

QString us(double v)
{
    return QString::fromStdString(formatDuration(v * 1000.0));
}

// "rule: N, rule: N": what each rule matched.
QString matchedText(const std::vector<WhatIfRuleCount> &rules)
{
    QStringList counts;
    for (const auto &rc : rules)
        counts << QStringLiteral("%1: %2").arg(QString::fromStdString(rc.rule)).arg(rc.matched);
    return counts.join(QStringLiteral(", "));
}

// "cpu_bound 40.0 %, ...": the named bound-by shares ("" when none).
QString boundByText(const std::vector<std::pair<std::string, double>> &shares)
{
    QStringList bound;
    for (const auto &[boundBy, percent] : shares)
        if (!boundBy.empty())
            bound << QStringLiteral("%1 %2 %").arg(QString::fromStdString(boundBy)).arg(percent, 0, 'f', 1);
    return bound.join(QStringLiteral(", "));
}

} // namespace

WhatIfPanel::WhatIfPanel(QWidget *parent)
    : QWidget(parent)
    , m_edit(new QLineEdit(this))
    , m_rules(new QListWidget(this))
    , m_factor(new QDoubleSpinBox(this))
    , m_thisOp(new QPushButton(tr("This op"), this))
    , m_allLike(new QPushButton(tr("All like it"), this))
    , m_dropWait(new QPushButton(tr("Drop its wait"), this))
    , m_showProjection(new QCheckBox(tr("Show the projected timeline"), this))
    , m_summary(new QLabel(this))
    , m_moved(new QStandardItemModel(0, 3, this))
    , m_movedView(new QTableView(this))
{
    m_edit->setPlaceholderText(tr("Rule, e.g. cat=kernel&name~gemm*0.5, comm=0, sync:cudaStreamSynchronize=drop"));
    m_edit->setClearButtonEnabled(true);
    auto *add = new QPushButton(tr("Add"), this);
    auto *entry = new QHBoxLayout;
    entry->addWidget(m_edit, 1);
    entry->addWidget(add);
    m_factor->setRange(0, 100);
    m_factor->setDecimals(2);
    m_factor->setSingleStep(0.1);
    m_factor->setValue(0.5);
    m_factor->setPrefix(QStringLiteral("\u00d7"));
    m_factor->setToolTip(tr("Factor for the rules made from the selection"));
    m_thisOp->setToolTip(tr("Scale the selected op"));
    m_allLike->setToolTip(tr("Scale every op with the selected op's name"));
    m_dropWait->setToolTip(tr("Remove the sync wait of the selected op"));
    auto *fromSelection = new QHBoxLayout;
    fromSelection->addWidget(new QLabel(tr("Selection:"), this));
    fromSelection->addWidget(m_factor);
    fromSelection->addWidget(m_thisOp);
    fromSelection->addWidget(m_allLike);
    fromSelection->addWidget(m_dropWait);
    fromSelection->addStretch(1);
    m_rules->setToolTip(tr("Rules apply in this order; Delete removes the current one"));
    m_rules->setMaximumHeight(m_rules->fontMetrics().height() * 5 + 8);
    m_rules->installEventFilter(this);
    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::PlainText);
    m_summary->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_moved->setHorizontalHeaderLabels({tr("Op"), tr("Moves by"), tr("Projected start")});
    m_movedView->setModel(m_moved);
    m_movedView->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_movedView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_movedView->setSelectionMode(QAbstractItemView::SingleSelection);
    m_movedView->verticalHeader()->hide();
    m_movedView->setWordWrap(false);
    m_movedView->setTextElideMode(Qt::ElideMiddle);
    setNameColumn(m_movedView, 0); // "ops that move most": names that tell kernels apart
    fitColumnsToContents(m_movedView);
    // In a scroll area: the panel shares a dock tab stack and must not raise its minimum height.
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    auto *scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    auto *content = new QWidget(scroll);
    scroll->setWidget(content);
    outer->addWidget(scroll);
    auto *layout = new QVBoxLayout(content);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(entry);
    layout->addLayout(fromSelection);
    layout->addWidget(m_rules);
    m_showProjection->setToolTip(tr("Draw where each moved op would run as a dashed outline on the timeline"));
    m_showProjection->setChecked(true);
    layout->addWidget(m_showProjection);
    layout->addWidget(m_summary);
    layout->addWidget(m_movedView, 1);

    auto submit = [this] {
        if (addRule(m_edit->text()))
            m_edit->clear();
    };
    connect(add, &QPushButton::clicked, this, submit);
    connect(m_edit, &QLineEdit::returnPressed, this, submit);
    connect(m_thisOp, &QPushButton::clicked, this,
            [this] { addRule(QStringLiteral("event=%1*%2").arg(m_selected).arg(factorText())); });
    connect(m_allLike, &QPushButton::clicked, this, [this] {
        if (m_context && m_selected >= 0)
            addRule(QStringLiteral("name=%1*%2")
                        .arg(QString::fromUtf8(m_context->trace->str(
                            m_context->trace->events[static_cast<size_t>(m_selected)].name)))
                        .arg(factorText()));
    });
    connect(m_dropWait, &QPushButton::clicked, this,
            [this] { addRule(QStringLiteral("sync:event=%1=drop").arg(m_selected)); });
    auto jump = [this](const QModelIndex &index) {
        const QVariant ev = m_moved->index(index.row(), 0).data(kEventRole);
        if (ev.isValid())
            Q_EMIT eventRequested(ev.toLongLong());
    };
    connect(m_showProjection, &QCheckBox::toggled, this, [this] { emitProjection(); });
    connect(m_movedView, &QTableView::clicked, this, jump);
    connect(m_movedView, &QTableView::activated, this, jump);
    setContext(nullptr, nullptr);
}

WhatIfPanel::~WhatIfPanel() = default;

void WhatIfPanel::emitProjection()
{
    if (!m_showProjection->isChecked() || !m_result || !m_result->ok || !m_context) {
        Q_EMIT projectionChanged(nullptr);
        return;
    }
    Q_EMIT projectionChanged(std::make_shared<const EventShifts>(eventShifts(*m_context->cp, *m_result)));
}

QString WhatIfPanel::factorText() const
{
    return QString::number(m_factor->value(), 'g', 6);
}

bool WhatIfPanel::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_rules && event->type() == QEvent::KeyPress) {
        const int key = static_cast<QKeyEvent *>(event)->key();
        if ((key == Qt::Key_Delete || key == Qt::Key_Backspace) && m_rules->currentRow() >= 0) {
            removeRule(m_rules->currentRow());
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

void WhatIfPanel::setJob(std::shared_ptr<const JobData> job)
{
    if (!job && !m_job)
        return; // no job before either: keep the pair's context
    m_job = std::move(job);
    m_context.reset();
    m_jobResult.reset();
    setSelectedEvent(-1); // rules from the selection name one trace's events: not in a job
    m_edit->setEnabled(m_job != nullptr);
    m_showProjection->setEnabled(m_job == nullptr);
    if (m_job)
        m_moved->setHorizontalHeaderLabels({tr("Rank"), tr("Own critical path"), tr("Projected")});
    else
        m_moved->setHorizontalHeaderLabels({tr("Op"), tr("Moves by"), tr("Projected start")});
    recompute();
}

void WhatIfPanel::setContext(std::shared_ptr<const KinetoTrace> trace, std::shared_ptr<const CriticalPathResult> cp)
{
    m_context.reset();
    if (trace && cp && m_job) { // a pair replaces the job
        m_job.reset();
        m_jobResult.reset();
        m_moved->setHorizontalHeaderLabels({tr("Op"), tr("Moves by"), tr("Projected start")});
        m_showProjection->setEnabled(true);
    }
    if (trace && cp && cp->success) {
        m_context = std::make_shared<Context>();
        m_context->trace = std::move(trace);
        m_context->cp = std::move(cp);
    }
    setSelectedEvent(m_selected);
    m_edit->setEnabled(m_context != nullptr);
    recompute();
}

void WhatIfPanel::setSelectedEvent(qint64 event)
{
    m_selected = m_context && event >= 0 && event < static_cast<qint64>(m_context->trace->events.size()) ? event : -1;
    for (QPushButton *b : {m_thisOp, m_allLike, m_dropWait})
        b->setEnabled(m_selected >= 0);
}

bool WhatIfPanel::addRule(const QString &text)
{
    WhatIfRule rule;
    std::string error;
    if (text.trimmed().isEmpty())
        return false;
    if (!parseWhatIfRule(text.trimmed().toStdString(), rule, error)) {
        m_summary->setText(QString::fromStdString(error));
        return false;
    }
    m_rules->addItem(text.trimmed());
    recompute();
    return true;
}

void WhatIfPanel::removeRule(int row)
{
    delete m_rules->takeItem(row);
    recompute();
}

QStringList WhatIfPanel::rules() const
{
    QStringList out;
    for (int i = 0; i < m_rules->count(); ++i)
        out << m_rules->item(i)->text();
    return out;
}

std::vector<WhatIfRule> WhatIfPanel::parsedRules() const
{
    std::vector<WhatIfRule> rules; // every listed rule parsed when it was added
    for (const QString &text : this->rules()) {
        WhatIfRule rule;
        std::string error;
        if (parseWhatIfRule(text.toStdString(), rule, error))
            rules.push_back(std::move(rule));
    }
    return rules;
}

void WhatIfPanel::recompute()
{
    const quint64 generation = ++m_generation;
    m_moved->removeRows(0, m_moved->rowCount());
    if (m_job) {
        recomputeJob(parsedRules(), generation);
        return;
    }
    if (!m_context) {
        m_result.reset();
        m_summary->setText(tr("The what-if needs a critical path; load a device trace."));
        Q_EMIT resultChanged();
        emitProjection();
        return;
    }
    std::vector<WhatIfRule> rules = parsedRules();
    if (rules.empty()) {
        m_result.reset();
        m_summary->setText(tr("Baseline critical path %1. Add a rule to see the projected step time.")
                               .arg(us(m_context->cp->weightUs)));
        Q_EMIT resultChanged();
        emitProjection();
        return;
    }
    m_summary->setText(tr("Computing\u2026"));
    QPointer<WhatIfPanel> self(this);
    std::shared_ptr<Context> context = m_context;
    QThreadPool::globalInstance()->start([self, context, rules = std::move(rules), generation] {
        auto result = std::make_shared<const WhatIfResult>(context->get().evaluate(rules));
        QMetaObject::invokeMethod(
            qApp, [self, result, generation] {
                if (self)
                    self->showResult(generation, result);
            },
            Qt::QueuedConnection);
    });
}

void WhatIfPanel::showResult(quint64 generation, std::shared_ptr<const WhatIfResult> result)
{
    if (generation != m_generation || !m_context)
        return; // a newer edit is on its way
    m_result = result;
    const WhatIfResult &r = *result;
    if (!r.ok) {
        m_summary->setText(QString::fromStdString(r.error));
        Q_EMIT resultChanged();
        emitProjection();
        return;
    }
    QString text = tr("Critical path %1 \u2192 %2 (%3\u00d7 faster)")
                       .arg(us(r.baselineUs), us(r.projectedUs), QString::number(r.speedup, 'f', 2));
    text += QStringLiteral("\n") + tr("Matched: %1").arg(matchedText(r.rules));
    std::vector<std::pair<std::string, double>> shares;
    for (const auto &row : r.summary)
        shares.emplace_back(row.boundBy, row.percent);
    if (const QString bound = boundByText(shares); !bound.isEmpty())
        text += QStringLiteral("\n") + tr("Projected path bound by: %1").arg(bound);
    m_summary->setText(text);
    const KinetoTrace &t = *m_context->trace;
    for (const auto &m : r.topMoved) {
        auto *name = new QStandardItem(QString::fromUtf8(t.str(t.events[m.event].name)));
        name->setData(static_cast<qint64>(m.event), kEventRole);
        name->setToolTip(name->text());
        auto *shift = new QStandardItem((m.shiftUs < 0 ? QStringLiteral("\u2212") : QStringLiteral("+")) +
                                        us(std::fabs(m.shiftUs)));
        auto *at = new QStandardItem(us(m.projectedStartUs - static_cast<double>(t.minTsNs) / 1000.0));
        m_moved->appendRow({name, shift, at});
    }
    Q_EMIT resultChanged();
    emitProjection();
}

void WhatIfPanel::recomputeJob(std::vector<WhatIfRule> rules, quint64 generation)
{
    const JobCriticalPath &path = m_job->analysis.criticalPath;
    if (rules.empty()) {
        m_jobResult.reset();
        m_summary->setText(path.valid ? tr("Baseline job critical path %1. Add a rule (rank=N restricts it to one rank) "
                                           "to see the projected job time.")
                                            .arg(us(path.weightUs))
                                      : tr("The what-if needs the job critical path: %1")
                                            .arg(QString::fromStdString(path.reason)));
        Q_EMIT resultChanged();
        return;
    }
    m_summary->setText(tr("Computing\u2026"));
    QPointer<WhatIfPanel> self(this);
    std::shared_ptr<const JobData> job = m_job;
    QThreadPool::globalInstance()->start([self, job, rules = std::move(rules), generation] {
        // The cross-rank analysis again with the rules (milliseconds: summaries only).
        JobOptions options;
        options.whatIf = rules;
        const JobAnalysis analysis = analyzeJob(analysableRanks(jobRankSummaries(*job)), options);
        auto result = std::make_shared<JobWhatIf>();
        if (analysis.whatIf)
            *result = *analysis.whatIf;
        else
            result->error = "the job has no critical path to re-weight";
        QMetaObject::invokeMethod(
            qApp, [self, result, generation] {
                if (self)
                    self->showJobResult(generation, result);
            },
            Qt::QueuedConnection);
    });
}

void WhatIfPanel::showJobResult(quint64 generation, std::shared_ptr<const JobWhatIf> result)
{
    if (generation != m_generation || !m_job)
        return;
    m_jobResult = result;
    const JobWhatIf &r = *result;
    if (!r.ok) {
        m_summary->setText(QString::fromStdString(r.error));
        Q_EMIT resultChanged();
        return;
    }
    QString text = tr("Job step %1 \u2192 %2 (%3\u00d7 faster)")
                       .arg(us(r.baselineUs), us(r.projectedUs), QString::number(r.speedup, 'f', 2));
    text += QStringLiteral("\n") + tr("Matched: %1").arg(matchedText(r.rules));
    QStringList onPath;
    for (int64_t rank : r.ranksOnPath)
        onPath << QString::number(rank);
    if (!onPath.isEmpty())
        text += QStringLiteral("\n") + tr("Projected path through ranks %1").arg(onPath.join(QStringLiteral(", ")));
    if (const QString bound = boundByText(r.summaryPct); !bound.isEmpty())
        text += QStringLiteral("\n") + tr("Bound by: %1").arg(bound);
    m_summary->setText(text);
    for (const JobWhatIfRank &rank : r.ranks) {
        auto *name = new QStandardItem(QString::number(rank.rank));
        auto *own = new QStandardItem(us(rank.baselineUs));
        auto *projected = new QStandardItem(us(rank.projectedUs));
        m_moved->appendRow({name, own, projected});
    }
    Q_EMIT resultChanged();
}

} // namespace syncscope::ui
