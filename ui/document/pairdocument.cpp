// SPDX-License-Identifier: MIT
#include "pairdocument.h"

#include "panels/aggregatepanel.h"
#include "panels/criticalpathpanel.h"
#include "panels/detailspanel.h"
#include "panels/searchpanel.h"
#include "panels/syncwaitspanel.h"
#include "panels/whatifpanel.h"
#include "timeline/timelineview.h"

#include <QLabel>
#include <QMessageBox>
#include <QPointer>
#include <QCoreApplication>
#include <QThreadPool>

#include <algorithm>

namespace syncscope::ui {

PairDocument::PairDocument(const Workspace &workspace, QObject *parent)
    : Document(workspace, parent)
    , m_loader(new Loader(this))
{
    connect(m_loader, &Loader::progress, this, &PairDocument::progress);
    connect(m_loader, &Loader::timelineReady, this, &PairDocument::onTimelineReady);
    connect(m_loader, &Loader::finished, this, &PairDocument::onFinished);
}

PairDocument::~PairDocument() = default;

void PairDocument::open(AnalysisRequest request)
{
    m_loading = {QString::fromStdString(request.hostPath), QString::fromStdString(request.devicePath)};
    m_lastRequest = request;
    m_haveLastRequest = true;
    m_stepGeneration++;
    Q_EMIT loadStarted(tr("loading %p%"), tr("Loading %1\u2026").arg(m_loading.label()));
    m_loader->start(std::move(request));
}

void PairDocument::close()
{
    m_loader->abandon();
    m_stepGeneration++;
    m_analysis.reset();
    m_model.reset();
    m_cp.reset();
    m_steps.clear();
    m_highlight.clear();
    m_haveLastRequest = false;
    Q_EMIT analysisChanged();
}

void PairDocument::reload()
{
    if (m_haveLastRequest && !busy())
        open(m_lastRequest);
}

void PairDocument::setHtaExact(bool on)
{
    m_lastRequest.cpa.htaExact = on;
    if (m_haveLastRequest)
        open(m_lastRequest); // a load under way starts over with the new setting
}

void PairDocument::onTimelineReady(std::shared_ptr<TimelineModel> model)
{
    m_model = model;
    m_analysis.reset();
    m_cp.reset();
    m_ws.timeline->setModel(model);
    m_ws.search->setTimeline(model);
    m_ws.details->model()->setSources(nullptr, model);
    m_ws.criticalPath->clear();
    m_ws.criticalPath->setBusy(tr("Computing the critical path\u2026"));
    m_ws.syncWaits->setSources(nullptr, nullptr);
    m_ws.whatIf->setContext(nullptr, nullptr);
    Q_EMIT analysisChanged();
    Q_EMIT timelineShown(m_loading.label());
    Q_EMIT statusChanged(tr("%1 ops on the timeline; analysing\u2026").arg(QLocale().toString(qint64(model->layout.itemCount))));
    Q_EMIT exportsChanged();
}

void PairDocument::reportFailure(const Analysis &a)
{
    const bool cancelled = a.diagnostics.find("load.cancelled") != nullptr;
    m_analysis.reset();
    Q_EMIT analysisChanged();
    if (cancelled) {
        const QString resume = QKeySequence(QKeySequence::Refresh).toString(QKeySequence::NativeText);
        Q_EMIT statusChanged(tr("Loading was cancelled. File \u25b8 Reload (%1) loads the pair again.").arg(resume));
        // The timeline (when it was shown) stays; every panel says what it has.
        m_ws.criticalPath->clear();
        m_ws.criticalPath->setBusy(m_model ? tr("Loading was cancelled before the critical path was computed. "
                                                "File \u25b8 Reload (%1) runs the analysis again.")
                                                 .arg(resume)
                                           : tr("Loading was cancelled."));
        m_ws.syncWaits->totalsLabel()->setText(tr("Loading was cancelled before the sync waits were computed."));
    } else {
        Q_EMIT statusChanged(tr("Could not open %1 (see Diagnostics).").arg(m_loading.label()));
        Q_EMIT diagnosticsWanted();
        if (m_interactive) {
            QStringList lines;
            for (const Diagnostic &d : a.diagnostics.items())
                if (d.severity == Severity::Error)
                    lines << QString::fromStdString(d.message);
            QMessageBox::critical(m_ws.timeline->window(), tr("Could not open the traces"), lines.join(QLatin1Char('\n')));
        }
    }
    if (!m_model)
        Q_EMIT startPageWanted();
    Q_EMIT exportsChanged();
    Q_EMIT loadEnded();
    Q_EMIT loadFinished(false);
}

void PairDocument::onFinished(std::shared_ptr<LoadResult> result)
{
    const Analysis &a = *result->analysis;
    Q_EMIT diagnosticsChanged(shownDiagnostics(a.diagnostics.items()));
    if (!a.inputsOk) {
        reportFailure(a);
        return;
    }
    Q_EMIT loadEnded();
    m_analysis = result->analysis;
    m_model = result->model;
    if (m_model != m_ws.timeline->plot()->sharedModel()) { // timelineReady was superseded: show this one
        m_ws.timeline->setModel(m_model);
        m_ws.search->setTimeline(m_model);
        Q_EMIT timelineShown(m_loading.label());
    }
    m_ws.details->model()->setSources(m_analysis, m_model);
    m_ws.syncWaits->setSources(m_analysis, m_model);
    m_steps = a.device ? profilerStepEvents(*a.device) : std::vector<uint32_t>{};
    std::shared_ptr<const CriticalPathResult> cp;
    if (a.criticalPath)
        cp = std::shared_ptr<const CriticalPathResult>(m_analysis, &*a.criticalPath);
    applyCriticalPath(cp, std::move(result->edges));
    // HTA's loader drops the last step's events, which cuts that step's path short;
    // outside --compat chakra the last step is computed with its events.
    const int step = stepOfWindow();
    if (step >= 0 && step + 1 == static_cast<int>(m_steps.size()) && a.request.mode != LinkMode::Chakra && cp &&
        !cp->window.profilerSteps)
        showStep(step, step);
    Q_EMIT analysisChanged(); // after the automatic last-step path: the breakdowns start on the whole trace
    Q_EMIT opened({QString::fromStdString(a.hostPath), QString::fromStdString(a.devicePath)});
    if (a.diagnostics.count(Severity::Error) > 0)
        Q_EMIT diagnosticsWanted();
    Q_EMIT loadFinished(true);
}

void PairDocument::applyCriticalPath(std::shared_ptr<const CriticalPathResult> cp, EdgeIndex edges)
{
    m_cp = cp;
    m_highlight.clear();
    if (m_model) {
        m_model->edges = std::move(edges);
        m_model->criticalEvents = cp && cp->success ? cp->criticalEvents : std::vector<uint32_t>{};
        m_model->criticalPart = cp ? criticalParts(*cp) : std::unordered_map<uint32_t, std::pair<float, float>>{};
        m_model->layout.setCritical(m_model->criticalEvents);
        m_ws.timeline->modelChanged();
        m_ws.details->model()->setEvent(m_ws.timeline->plot()->selection()->event());
    }
    const int step = stepOfWindow();
    if (cp && cp->window.profilerSteps) {
        m_cpFirst = cp->window.instanceFirst;
        m_cpLast = cp->window.instanceLast;
    } else {
        m_cpFirst = m_cpLast = step; // -1: an HTA window that is not one step
    }
    m_ws.criticalPath->setGraphCapture(m_analysis ? m_analysis->graphCapture : nullptr);
    m_ws.criticalPath->setPath(cp, m_model, stepNames(), m_cpFirst, m_cpLast);
    m_ws.whatIf->setContext(m_model ? m_model->trace : nullptr, cp);
    Q_EMIT statusChanged(statusSummary());
    Q_EMIT exportsChanged();
    Q_EMIT criticalPathChanged();
}

void PairDocument::showStepRange(int first, int last)
{
    if (!m_model || first < 0 || last < first || size_t(last) >= m_steps.size())
        return;
    const double t0 = m_model->startNs(m_steps[size_t(first)]);
    const double t1 = m_model->endNs(m_steps[size_t(last)]);
    if (t1 > t0)
        m_ws.timeline->plot()->setRange({t0 - (t1 - t0) * 0.02, t1 + (t1 - t0) * 0.02});
}

QStringList PairDocument::stepNames() const
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

int PairDocument::stepOfWindow() const
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

void PairDocument::highlightBoundBy(const QString &boundBy)
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
    m_ws.timeline->modelChanged();
}

void PairDocument::showStep(int first, int last)
{
    if (!m_analysis || !m_model)
        return;
    m_cpFirst = first;
    m_cpLast = last;
    showStepRange(first, last); // the view moves at once; the path follows
    Q_EMIT stepShown(first, last);
    m_ws.criticalPath->setBusy(tr("Computing the critical path\u2026"));
    const quint64 generation = ++m_stepGeneration;
    auto analysis = m_analysis;
    auto model = m_model;
    QPointer<PairDocument> self(this);
    QThreadPool::globalInstance()->start([self, generation, analysis, model, first, last] {
        Diagnostics diag;
        auto cp = std::make_shared<CriticalPathResult>(
            analyzeSteps(*analysis->device, analysis->request.cpa, first, last, diag));
        auto edges = std::make_shared<EdgeIndex>(buildEdgeIndex(*model, *analysis, cp->success ? cp.get() : nullptr));
        // `self` is read on the GUI thread only (from here it may be mid-destruction).
        QMetaObject::invokeMethod(
            qApp,
            [self, generation, cp, edges] {
                if (!self || generation != self->m_stepGeneration)
                    return;
                self->applyCriticalPath(cp, std::move(*edges));
            },
            Qt::QueuedConnection);
    });
}

void PairDocument::selectionChanged(qint64 event)
{
    m_ws.details->model()->setEvent(event);
}

bool PairDocument::selectByName(const QString &name)
{
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
    m_ws.search->setQueryText(name); // the other matches are one F3 away
    m_ws.search->markCurrent(ev);
    m_ws.timeline->plot()->selection()->setEvent(ev);
    m_ws.timeline->plot()->revealEvent(static_cast<uint32_t>(ev));
    return true;
}

} // namespace syncscope::ui
