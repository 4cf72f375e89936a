// SPDX-License-Identifier: MIT
#include "breakdownpanel.h"

#include "breakdownchart.h"
#include "document/pairdocument.h"
#include "panels/criticalpathmodel.h"
#include "panels/tableviewsetup.h"
#include "timeline/timeformat.h"

#include "session/analysis.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPointer>
#include <QResizeEvent>
#include <QSplitter>
#include <QStackedWidget>
#include <QTabWidget>
#include <QCoreApplication>
#include <QThreadPool>
#include <QVBoxLayout>

namespace syncscope::ui {

namespace {

// The pipeline's breakdowns when the load computed them (AnalysisRequest::breakdowns);
// else the whole trace and the step selector's windows (the ProfilerStep#N annotations,
// as the pipeline takes them; Analysis::steps is empty without --step all).
std::shared_ptr<const ReportBreakdown> computeForPair(const Analysis &analysis)
{
    if (analysis.breakdown)
        return analysis.breakdown;
    auto b = std::make_shared<ReportBreakdown>();
    if (!analysis.device)
        return b;
    computeWholeBreakdown(*analysis.device, *b);
    computeStepBreakdowns(*analysis.device, profilerStepSpans(*analysis.device), *b);
    return b;
}

} // namespace

BreakdownPanel::BreakdownPanel(PairDocument *document, QWidget *parent)
    : QWidget(parent)
    , m_document(document)
    , m_summary(new QLabel(this))
    , m_scopeBox(new QComboBox(this))
    , m_stack(new QStackedWidget(this))
    , m_message(new QLabel(this))
    , m_split(new QSplitter(this))
    , m_chart(new BreakdownChart(this))
    , m_tabs(new QTabWidget(this))
{
    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::PlainText);
    m_summary->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_scopeBox->setToolTip(tr("The window the tables show: the whole trace or one ProfilerStep"));
    m_scopeBox->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    auto *top = new QHBoxLayout;
    top->setContentsMargins(4, 4, 4, 0);
    top->addWidget(m_scopeBox);
    top->addWidget(m_summary, 1);
    m_message->setWordWrap(true);
    m_message->setAlignment(Qt::AlignCenter);
    m_message->setTextFormat(Qt::PlainText);
    m_chart->setToolTip(QString()); // the bars' tooltips come from the chart itself
    m_split->addWidget(m_chart);
    m_split->addWidget(m_tabs);
    m_split->setStretchFactor(0, 2);
    m_split->setStretchFactor(1, 3);
    m_split->setChildrenCollapsible(false);
    // A short bottom dock is fine: the tables scroll (the window must fit 1000x700).
    m_tabs->setMinimumHeight(60);
    m_stack->addWidget(m_message);
    m_stack->addWidget(m_split);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(top);
    layout->addWidget(m_stack, 1);
    for (int t = 0; t < TableCount; ++t) {
        m_models[t] = makeBreakdownTable(t, this);
        m_sorted[t] = new QSortFilterProxyModel(this);
        m_sorted[t]->setSourceModel(m_models[t]);
        m_sorted[t]->setSortRole(SortRole);
        m_views[t] = new QTableView(m_tabs);
        const bool keyValue = t == TemporalTable || t == LaunchTable;
        setupSortedTable(m_views[t], m_sorted[t], t == TopKernelsTable ? 2 : -1,
                         t == TopKernelsTable ? Qt::DescendingOrder : Qt::AscendingOrder);
        if (keyValue)
            m_views[t]->setSortingEnabled(false); // a fixed list of rows, in reading order
        if (t == TopKernelsTable)
            setNameColumn(m_views[t], kTopKernelsNameColumn);
        fitColumnsToContents(m_views[t]);
        m_tabs->addTab(m_views[t], breakdownTableTitle(t));
    }
    m_tabs->setTabToolTip(TemporalTable, tr("HTA's temporal breakdown and the exposed communication"));
    m_tabs->setTabToolTip(IdleTable, tr("HTA's idle time per stream by cause: host wait, kernel wait, other"));
    m_tabs->setTabToolTip(KernelTypeTable, tr("HTA's GPU kernel breakdown by type (overlaps as their own rows)"));
    m_tabs->setTabToolTip(TopKernelsTable, tr("HTA's per-kernel breakdown (the long tail as \"others\")"));
    m_tabs->setTabToolTip(LaunchTable, tr("HTA's kernel launch statistics and outliers"));
    m_tabs->setTabToolTip(QueueTable, tr("HTA's queue length summary per stream"));
    connect(m_scopeBox, qOverload<int>(&QComboBox::currentIndexChanged), this, [this](int i) {
        if (!m_updating && i >= 0)
            setScope(i);
    });
    connect(m_chart, &BreakdownChart::scopeClicked, this, &BreakdownPanel::setScope);
    if (m_document) {
        // A (re)load drops the breakdowns at once; they come back with the new analysis.
        auto follow = [this](bool loading) {
            setAnalysis(loading ? nullptr : m_document->analysis());
            if (loading || (m_document->busy() && !m_document->analysis())) // loadStarted comes before the loader starts
                showMessage(tr("The breakdowns follow once the pair is analysed\u2026"));
        };
        connect(m_document, &PairDocument::loadStarted, this, [follow] { follow(true); });
        connect(m_document, &PairDocument::analysisChanged, this, [follow] { follow(false); });
        // The critical path's step selector: one step shows that step, "All steps" the whole trace.
        connect(m_document, &PairDocument::stepShown, this,
                [this](int first, int last) { setScope(first == last ? first + 1 : 0); });
    }
    setAnalysis(nullptr);
}

BreakdownPanel::~BreakdownPanel() = default;

void BreakdownPanel::setAnalysis(std::shared_ptr<const Analysis> analysis)
{
    const quint64 generation = ++m_generation; // a result still on its way is dropped
    m_result.reset();
    m_scope = 0;
    m_updating = true;
    m_scopeBox->clear();
    m_scopeBox->setEnabled(false);
    m_updating = false;
    m_summary->clear();
    m_chart->setBars({}, {});
    for (BreakdownTableModel *m : m_models)
        m->setRows({});
    if (!analysis || !analysis->device) {
        showMessage(tr("Open a trace pair to see where its GPU time goes."));
        return;
    }
    showMessage(tr("Computing the breakdowns\u2026"));
    QPointer<BreakdownPanel> self(this);
    QThreadPool::globalInstance()->start([self, generation, analysis] {
        std::shared_ptr<const ReportBreakdown> result = computeForPair(*analysis);
        // `self` is read on the GUI thread only: from here it may be mid-destruction (UBSan
        // caught a downcast of a panel being destroyed).
        QMetaObject::invokeMethod(
            qApp,
            [self, generation, result] {
                if (self && generation == self->m_generation)
                    self->showResult(result);
            },
            Qt::QueuedConnection);
    });
}

void BreakdownPanel::showMessage(const QString &text)
{
    m_message->setText(text);
    m_stack->setCurrentWidget(m_message);
}

void BreakdownPanel::showResult(std::shared_ptr<const ReportBreakdown> result)
{
    const int wanted = m_scope; // the step selector may have moved while it computed
    m_result = std::move(result);
    if (!m_result->computed || !m_result->whole.hta.temporal.valid) {
        showMessage(tr("No GPU events in this trace: nothing to break down."));
        Q_EMIT ready();
        return;
    }
    QStringList names{tr("Whole trace")};
    std::vector<BreakdownSplit> splits{breakdownSplit(m_result->whole)};
    for (const StepBreakdown &st : m_result->steps) {
        names << QString::fromStdString(st.name);
        splits.push_back(breakdownSplit(st.set));
    }
    m_updating = true;
    m_scopeBox->addItems(names);
    m_scopeBox->setEnabled(names.size() > 1);
    m_updating = false;
    m_chart->setBars(names, splits);
    m_stack->setCurrentWidget(m_split);
    m_scope = -1;
    setScope(wanted < names.size() ? wanted : 0);
    Q_EMIT ready();
}

const BreakdownSet *BreakdownPanel::set(int scope) const
{
    if (!m_result || !m_result->computed || scope < 0 || size_t(scope) > m_result->steps.size())
        return nullptr;
    return scope == 0 ? &m_result->whole : &m_result->steps[size_t(scope - 1)].set;
}

void BreakdownPanel::setScope(int scope)
{
    if (!isReady()) {
        m_scope = std::max(0, scope); // applied when the result comes
        return;
    }
    const BreakdownSet *s = set(scope);
    if (!s || scope == m_scope)
        return;
    m_scope = scope;
    m_updating = true;
    m_scopeBox->setCurrentIndex(scope);
    m_updating = false;
    m_chart->setCurrent(scope);
    for (int t = 0; t < TableCount; ++t) {
        fillBreakdownTable(t, m_models[t], *s);
        m_views[t]->resizeColumnsToContents();
    }
    const BreakdownSplit split = breakdownSplit(*s);
    if (!split.valid) {
        m_summary->setText(tr("%1: no GPU work in this window.").arg(m_scopeBox->itemText(scope)));
        return;
    }
    QStringList parts;
    for (int p = 0; p < BreakdownSplit::PartCount; ++p)
        parts << tr("%1 %2 %").arg(breakdownPartName(p).toLower()).arg(split.pct(p), 0, 'f', 1);
    m_summary->setText(tr("%1, GPU span %2: %3")
                           .arg(m_scopeBox->itemText(scope), QString::fromStdString(formatDuration(split.spanUs * 1000)),
                                parts.join(QStringLiteral(", "))));
}

void BreakdownPanel::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    // A bottom dock is wide and short: chart beside the tables; a side dock: above them.
    const Qt::Orientation o = event->size().width() > 2 * event->size().height() ? Qt::Horizontal : Qt::Vertical;
    if (m_split->orientation() != o)
        m_split->setOrientation(o);
}

} // namespace syncscope::ui
