// SPDX-License-Identifier: MIT
#include "stragglerpanel.h"

#include "job/jobanalysis.h"
#include "job/jobbuild.h"
#include "job/jobdata.h"
#include "job/jobdocument.h"
#include "panels/criticalpathmodel.h" // SortRole
#include "panels/tableviewsetup.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPointer>
#include <QPushButton>
#include <QTabWidget>
#include <QThreadPool>
#include <QTimer>
#include <QVBoxLayout>

namespace syncscope::ui {

namespace {

// The what-if over the job's loaded ranks, as batch --straggler-whatif runs it. A
// summary without its GPU timeline (a job whose step was changed re-extracts the
// summaries) gets one from the rank's kept analysis.
std::shared_ptr<StragglerPanelResult> runStragglerWhatIf(const JobData &job, const ParallelismSpec &spec,
                                                         const QString &text)
{
    QElapsedTimer clock;
    clock.start();
    auto out = std::make_shared<StragglerPanelResult>();
    out->parallelism = text.toStdString();
    std::vector<RankSummary> summaries = jobRankSummaries(job);
    for (size_t i = 0; i < summaries.size(); ++i)
        if (!summaries[i].gpu.present && job.ranks[i].analysis && summaries[i].exitCode == 0) {
            addRankGpuTimeline(*job.ranks[i].analysis, summaries[i]);
            ++out->gpuTimelinesBuilt;
        }
    const std::vector<RankSummary> ranks = analysableRanks(summaries);
    JobOptions options;
    options.stragglerWhatIf = true;
    options.straggler.parallelism = spec;
    JobAnalysis analysis = analyzeJob(ranks, options);
    if (analysis.straggler) {
        out->whatIf = std::move(*analysis.straggler);
    } else {
        out->whatIf.ok = false;
        out->whatIf.error = "the straggler what-if was not computed";
    }
    const ParallelLayout &layout = out->whatIf.layout;
    for (size_t i = 0; i < ranks.size(); ++i) {
        if (i < layout.dpRank.size() && layout.dpRank[i] >= 0)
            out->ranksOfDp[layout.dpRank[i]].push_back(ranks[i].rank);
        if (i < layout.stage.size() && layout.stage[i] >= 0)
            out->ranksOfStage[layout.stage[i]].push_back(ranks[i].rank);
    }
    for (auto *of : {&out->ranksOfDp, &out->ranksOfStage})
        for (auto &[key, list] : *of)
            std::sort(list.begin(), list.end());
    out->seconds = double(clock.nsecsElapsed()) / 1e9;
    return out;
}

QString optionalPct(const std::optional<double> &v)
{
    return v ? QString::number(*v * 100, 'f', 1) + QStringLiteral(" %") : QStringLiteral("\u2013");
}

} // namespace

StragglerPanel::StragglerPanel(QWidget *parent)
    : QWidget(parent)
    , m_parallelism(new QLineEdit(this))
    , m_compute(new QPushButton(tr("Compute"), this))
    , m_error(new QLabel(this))
    , m_summary(new QLabel(this))
    , m_tabs(new QTabWidget(this))
{
    m_parallelism->setPlaceholderText(tr("Parallelism, e.g. dp=4,pp=2,tp=1 (empty: from the traces)"));
    m_parallelism->setClearButtonEnabled(true);
    m_parallelism->setToolTip(tr("--parallelism: the data-parallel, pipeline and tensor-parallel sizes (any subset; "
                                 "the rest inferred). Ranks in Megatron order: rank = t + T\u00b7(d + D\u00b7p). Empty: "
                                 "the traces' pg_config, else inferred from the collectives."));
    m_compute->setToolTip(tr("Re-simulate every rank's GPU ops of every step with ideal durations (off the GUI thread)"));
    m_compute->setEnabled(false);
    auto *bar = new QHBoxLayout;
    bar->setContentsMargins(4, 4, 4, 0);
    bar->addWidget(m_parallelism, 1);
    bar->addWidget(m_compute);
    m_error->setWordWrap(true);
    m_error->setStyleSheet(QStringLiteral("color: #c0392b;"));
    m_error->hide();
    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::RichText);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setContentsMargins(4, 2, 4, 2);
    m_summary->setText(tr("Open a job to see its straggler what-if."));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(m_error);
    layout->addWidget(m_summary);
    layout->addWidget(m_tabs, 1);

    const QString names[] = {tr("Steps"), tr("Op types"), tr("DP ranks"), tr("Stages")};
    for (int t = 0; t < 4; ++t) {
        const auto table = StragglerTableModel::Table(t);
        m_models[t] = new StragglerTableModel(table, this);
        m_sorted[t] = new QSortFilterProxyModel(this);
        m_sorted[t]->setSourceModel(m_models[t]);
        m_sorted[t]->setSortRole(SortRole);
        m_views[t] = new QTableView(this);
        // Steps in step order; the others by slowdown, the worst first.
        setupSortedTable(m_views[t], m_sorted[t], table == StragglerTableModel::Steps ? 0 : m_models[t]->slowdownColumn(),
                         table == StragglerTableModel::Steps ? Qt::AscendingOrder : Qt::DescendingOrder);
        m_views[t]->setTabKeyNavigation(false);
        if (table == StragglerTableModel::OpTypes)
            setNameColumn(m_views[t], 0);
        else
            m_views[t]->horizontalHeader()->setStretchLastSection(true);
        fitColumnsToContents(m_views[t]);
        m_tabs->addTab(m_views[t], names[t]);
        if (table == StragglerTableModel::DpRanks || table == StragglerTableModel::Stages) {
            auto activate = [this](const QModelIndex &index) {
                const QVariant rank = index.data(StragglerRankRole);
                if (rank.isValid() && rank.toLongLong() >= 0)
                    Q_EMIT rankActivated(rank.toLongLong());
            };
            connect(m_views[t], &QTableView::clicked, this, activate);
            connect(m_views[t], &QTableView::activated, this, activate);
        }
    }
    connect(m_compute, &QPushButton::clicked, this, [this] { compute(); });
    connect(m_parallelism, &QLineEdit::returnPressed, this, [this] { compute(); });
    connect(m_parallelism, &QLineEdit::textChanged, this, [this] { checkParallelism(nullptr); });
}

StragglerPanel::~StragglerPanel() = default;

void StragglerPanel::setJob(std::shared_ptr<const JobData> job)
{
    ++m_generation; // a computation of the previous job is dropped when it ends
    m_job = std::move(job);
    m_busy = false;
    m_computedOnce = false;
    m_result.reset();
    for (StragglerTableModel *m : m_models)
        m->setResult(nullptr);
    m_compute->setEnabled(m_job != nullptr);
    m_summary->setText(m_job ? tr("Compute re-simulates every rank's GPU ops of every step with ideal durations "
                                  "(ByteDance's straggler what-if): S, S per step, op type, dp rank and stage.")
                             : tr("Open a job to see its straggler what-if."));
    Q_EMIT resultChanged();
    if (m_job && isVisible())
        autoCompute();
}

void StragglerPanel::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    autoCompute();
}

// After the events in flight, and only when on screen: a dock behind another tab is
// "visible" (moved off the window), and one shown and at once put behind another tab
// (the job docks appearing) computes nothing.
void StragglerPanel::autoCompute()
{
    QTimer::singleShot(0, this, [this] {
        if (m_job && isVisible() && !visibleRegion().isEmpty() && !m_computedOnce && !m_busy)
            compute();
    });
}

bool StragglerPanel::checkParallelism(ParallelismSpec *spec)
{
    ParallelismSpec parsed;
    std::string error;
    const QString text = m_parallelism->text().trimmed();
    const bool ok = text.isEmpty() || parseParallelism(text.toStdString(), parsed, error);
    m_error->setVisible(!ok);
    m_error->setText(ok ? QString() : tr("Parallelism: %1").arg(QString::fromStdString(error)));
    if (ok && spec)
        *spec = parsed;
    return ok;
}

bool StragglerPanel::compute()
{
    ParallelismSpec spec;
    if (!m_job || !checkParallelism(&spec))
        return false;
    m_computedOnce = true;
    m_busy = true;
    const quint64 generation = ++m_generation;
    m_summary->setText(tr("Computing the straggler what-if\u2026"));
    QPointer<StragglerPanel> self(this);
    std::shared_ptr<const JobData> job = m_job;
    const QString text = m_parallelism->text().trimmed();
    QThreadPool::globalInstance()->start([self, job, spec, text, generation] {
        std::shared_ptr<const StragglerPanelResult> result = runStragglerWhatIf(*job, spec, text);
        QMetaObject::invokeMethod(
            qApp, [self, result, generation] {
                if (self)
                    self->showResult(generation, result);
            },
            Qt::QueuedConnection);
    });
    return true;
}

QString StragglerPanel::summaryText(const StragglerPanelResult &r) const
{
    const StragglerWhatIf &w = r.whatIf;
    if (!w.ok)
        return tr("The straggler what-if could not run: %1").arg(QString::fromStdString(w.error).toHtmlEscaped());
    const ParallelLayout &l = w.layout;
    // S compares the step without launch delays to the ideal, as the study does.
    QString text = tr("<b>S = %1</b> \u2014 mean step %2 ms measured, %3 ms without launch delays, %4 ms ideal "
                      "(%n step(s))",
                      nullptr, int(w.steps.size()))
                       .arg(QString::number(w.slowdown, 'f', 3), QString::number(w.measuredStepUs / 1e3, 'f', 3),
                            QString::number(w.noDelayStepUs / 1e3, 'f', 3), QString::number(w.idealStepUs / 1e3, 'f', 3));
    // What S says here, beside a Ranks dock that may name a straggler (issue 41).
    if (w.slowdown > 1.001)
        text += QStringLiteral("<br>") + tr("S > 1: with every op at its ideal duration the step would be %1 % shorter.")
                                             .arg(QString::number(100.0 * (1.0 - 1.0 / w.slowdown), 'f', 1));
    else if (w.slowdown < 0.999)
        text += QStringLiteral("<br>") +
                tr("S < 1: replayed without launch delays, the measured ops already beat the ideal (each op at its "
                   "type's mean): the spread of op durations costs this job no step time. Waits the Ranks dock "
                   "charges to a straggler come from its launch delays (launch slowdown %1) or start skew, which "
                   "S leaves out.")
                    .arg(QString::number(w.launchSlowdown, 'f', 3));
    else
        text += QStringLiteral("<br>") + tr("S = 1: op durations do not slow the step; waits come from launch delays "
                                            "(launch slowdown %1) or start skew.")
                                             .arg(QString::number(w.launchSlowdown, 'f', 3));
    text += QStringLiteral("<br>") + tr("Layout %1: dp %2, pp %3, tp %4")
                                         .arg(QString::fromStdString(l.source))
                                         .arg(l.dpSize)
                                         .arg(l.ppSize)
                                         .arg(l.tpSize);
    QStringList worst;
    for (int64_t rank : w.worstRanks)
        worst << QString::number(rank);
    text += QStringLiteral("<br>") + tr("M_W %1 (worst ranks set to ideal: %2) \u00b7 M_S %3")
                                         .arg(optionalPct(w.mW), worst.isEmpty() ? QStringLiteral("\u2013") : worst.join(QStringLiteral(", ")),
                                              optionalPct(w.mS));
    text += QStringLiteral("<br><small>") +
            tr("launch slowdown %1, replay error %2 %, %3 GPU ops (%4 joined across ranks), %5 simulations, %6 s")
                .arg(QString::number(w.launchSlowdown, 'f', 3), QString::number(w.replayErrorPct, 'f', 2))
                .arg(w.ops)
                .arg(w.commOps)
                .arg(w.simulations)
                .arg(QString::number(r.seconds, 'f', 2)) +
            QStringLiteral("</small>");
    return text;
}

void StragglerPanel::showResult(quint64 generation, std::shared_ptr<const StragglerPanelResult> result)
{
    if (generation != m_generation || !m_job)
        return; // another job, or a newer computation is on its way
    m_busy = false;
    m_result = result;
    m_summary->setText(summaryText(*result));
    for (StragglerTableModel *m : m_models)
        m->setResult(result);
    m_tabs->setTabEnabled(StragglerTableModel::Stages, result->whatIf.ok && !result->whatIf.byStage.empty());
    Q_EMIT resultChanged();
}

} // namespace syncscope::ui
