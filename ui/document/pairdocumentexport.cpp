// SPDX-License-Identifier: MIT
// PairDocument's status summary and exports (File > Export): which kinds the
// analysis allows, the save dialog's start, the write off the GUI thread.
#include "pairdocument.h"

#include "analysis/traceshape.h"
#include "timeline/timeformat.h"
#include "timeline/timelineview.h"

#include <QDir>
#include <QFileInfo>
#include <QPointer>
#include <QProgressDialog>
#include <QSettings>
#include <QCoreApplication>
#include <QThreadPool>

namespace syncscope::ui {

namespace {

QString number(qint64 n)
{
    return QLocale().toString(n);
}

} // namespace

QString PairDocument::statusSummary() const
{
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
    QString sync = tr("%1 %2").arg(number(qint64(a.syncEdges.size())),
                                   a.syncEdges.size() == 1 ? tr("sync edge") : tr("sync edges"));
    if (isHtaExact(a.request.cpa))
        sync += tr(" (HTA-exact: cuda_sync rows only)");
    else if (inferred > 0)
        sync += tr(" (%1 inferred)").arg(number(qint64(inferred)));
    parts << sync;
    // A GPU that started long after its launches: the hole is most of what the path says.
    const GpuStartHole hole = findGpuStartHole(*a.device);
    if (hole.found)
        parts << tr("GPU starts %1 after its launch (%2 % of the trace; see Diagnostics)")
                     .arg(QString::fromStdString(formatDuration(hole.lengthUs() * 1000)))
                     .arg(100.0 * hole.share(), 0, 'f', 0);
    if (m_cp && m_cp->success)
        parts << tr("Critical path %1 (%2 ops)")
                     .arg(QString::fromStdString(formatDuration(m_cp->weightUs * 1000)))
                     .arg(m_cp->criticalEvents.size());
    else if (m_cp)
        parts << tr("No critical path");
    return parts.join(QStringLiteral("  \u00b7  "));
}

bool PairDocument::canExport(ExportKind kind, QString *why) const
{
    if (!m_analysis) {
        if (why)
            *why = tr("Open a trace pair first");
        return false;
    }
    return ui::canExport(*m_analysis, m_cp.get(), kind, why);
}

QString PairDocument::exportStartPath(ExportKind kind) const
{
    const QString suggested = exportSuggestedName(kind, m_analysis ? QString::fromStdString(m_analysis->devicePath) : QString());
    const QString dir = QSettings().value(QStringLiteral("export/lastFolder")).toString();
    if (dir.isEmpty() || !QFileInfo(dir).isDir())
        return suggested;
    return QDir(dir).filePath(QFileInfo(suggested).fileName());
}

void PairDocument::exportTo(ExportKind kind, const QString &path)
{
    if (!m_analysis) {
        Q_EMIT exportFinished(false, tr("Nothing is loaded."));
        return;
    }
    QPointer<QProgressDialog> progress;
    if (m_interactive) {
        progress = new QProgressDialog(tr("Writing %1\u2026").arg(QFileInfo(path).fileName()), QString(), 0, 0,
                                       m_ws.timeline->window());
        progress->setWindowTitle(tr("Export"));
        progress->setMinimumDuration(300);
        progress->setAttribute(Qt::WA_DeleteOnClose);
    }
    Q_EMIT statusChanged(tr("Writing %1\u2026").arg(path));
    QSettings().setValue(QStringLiteral("export/lastFolder"), QFileInfo(path).absolutePath());
    auto analysis = m_analysis;
    auto cp = m_cp;
    QPointer<PairDocument> self(this);
    const std::string target = path.toStdString();
    QThreadPool::globalInstance()->start([self, analysis, cp, kind, target, progress] {
        const ExportOutcome outcome = runExport(*analysis, cp.get(), kind, target);
        // `self` is read on the GUI thread only (from here it may be mid-destruction).
        QMetaObject::invokeMethod(
            qApp,
            [self, outcome, progress] {
                if (progress)
                    progress->close();
                if (self)
                    Q_EMIT self->exportFinished(outcome.ok, outcome.message);
            },
            Qt::QueuedConnection);
    });
}

} // namespace syncscope::ui
