// SPDX-License-Identifier: MIT
// A trace pair (or a device trace alone) in the main window: its loader, the
// analysis and timeline model, the critical path of the chosen step, and the
// pair's exports. Drives the shared panels of Workspace.
#pragma once

#include "document.h"
#include "exporter.h"
#include "loader.h"

#include <memory>
#include <vector>

namespace syncscope::ui {

class PairDocument : public Document
{
    Q_OBJECT
public:
    PairDocument(const Workspace &workspace, QObject *parent);
    ~PairDocument() override;

    void open(AnalysisRequest request);
    const AnalysisRequest &lastRequest() const { return m_lastRequest; }

    bool busy() const override { return m_loader->busy(); }
    bool isOpen() const override { return m_model != nullptr || m_loader->busy(); }
    void cancel() override { m_loader->cancel(); }
    void close() override;
    bool canReload() const override { return m_haveLastRequest; }
    void reload() override;
    QString statusSummary() const override;
    void selectionChanged(qint64 event) override;
    bool selectByName(const QString &name) override;
    void setHtaExact(bool on) override;

    Loader *loader() const { return m_loader; }
    std::shared_ptr<const Analysis> analysis() const { return m_analysis; }
    std::shared_ptr<const CriticalPathResult> criticalPath() const { return m_cp; }
    std::shared_ptr<const TimelineModel> model() const { return m_model; }

    // Recomputes the critical path for ProfilerSteps [first, last] (the steps as
    // profilerStepEvents() numbers them, the last step's events kept) and moves the
    // view onto them.
    void showStep(int first, int last);
    // The ProfilerStep#N annotation events of the loaded trace, in ts order.
    const std::vector<uint32_t> &steps() const { return m_steps; }
    // Highlights the parts of the critical path in one bound-by bucket ("" = the whole path).
    void highlightBoundBy(const QString &boundBy);
    QString highlightedBoundBy() const { return m_highlight; }

    // Exports (File > Export): whether one can be made now (`why` when not), the save
    // dialog's start (the last export's folder, else the trace's), and the write off
    // the GUI thread; exportFinished reports the outcome.
    bool canExport(ExportKind kind, QString *why) const;
    QString exportStartPath(ExportKind kind) const;
    void exportTo(ExportKind kind, const QString &path);

Q_SIGNALS:
    // analysis() changed: a load finished, or the data was dropped (close, reload, failure).
    void analysisChanged();
    // showStep() was called: the step selector now shows steps [first, last].
    void stepShown(int first, int last);

private:
    void onTimelineReady(std::shared_ptr<TimelineModel> model);
    void onFinished(std::shared_ptr<LoadResult> result);
    void applyCriticalPath(std::shared_ptr<const CriticalPathResult> cp, EdgeIndex edges);
    void reportFailure(const Analysis &a);
    QStringList stepNames() const;
    int stepOfWindow() const;
    void showStepRange(int first, int last);

    Loader *m_loader;
    std::shared_ptr<const Analysis> m_analysis;
    std::shared_ptr<TimelineModel> m_model;
    std::shared_ptr<const CriticalPathResult> m_cp;
    int m_cpFirst = 0, m_cpLast = 0;
    quint64 m_stepGeneration = 0;
    RecentPair m_loading;
    AnalysisRequest m_lastRequest;
    bool m_haveLastRequest = false;
    std::vector<uint32_t> m_steps;
    QString m_highlight;
};

} // namespace syncscope::ui
