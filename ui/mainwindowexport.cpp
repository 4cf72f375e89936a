// SPDX-License-Identifier: MIT
// MainWindow's File > Export: the pair's exports (PairDocument writes them) and
// the job's (JobDocument), and what the Export toolbar button offers.
#include "mainwindow.h"

#include "document/jobdocument.h"
#include "document/pairdocument.h"

#include <QAction>
#include <QApplication>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QSettings>
#include <QToolButton>

namespace syncscope::ui {

void MainWindow::updateExportActions()
{
    bool any = false;
    const bool pair = m_active == m_pair;
    for (auto &[kind, action] : m_exportActions) {
        QString why = tr("Open a trace pair first (File \u25b8 Export \u25b8 Job exports a job)");
        const bool ok = pair && m_pair->canExport(kind, &why);
        action->setEnabled(ok);
        action->setToolTip(ok ? exportTitle(kind) : why);
        any |= ok;
    }
    any |= m_exportJobAction && m_exportJobAction->isEnabled();
    // A button whose every entry is greyed out is greyed out too.
    if (m_exportButton) {
        m_exportButton->setEnabled(any);
        m_exportButton->setToolTip(any ? tr("Export the open pair or job") : tr("Nothing to export yet: open a pair or a job"));
    }
}

QAction *MainWindow::exportAction(ExportKind kind) const
{
    auto it = m_exportActions.find(kind);
    return it == m_exportActions.end() ? nullptr : it->second;
}

void MainWindow::askExport(ExportKind kind)
{
    if (!m_pair->analysis())
        return;
    const QString path = QFileDialog::getSaveFileName(this, tr("Export %1").arg(exportTitle(kind)),
                                                      m_pair->exportStartPath(kind), exportFilter(kind));
    if (!path.isEmpty())
        m_pair->exportTo(kind, path);
}

void MainWindow::askExportJob()
{
    if (!m_job->data())
        return;
    const QString last = m_job->lastDir();
    const QString start = QSettings().value(QStringLiteral("export/lastFolder"), last).toString();
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Export the job into a folder"), start);
    if (dir.isEmpty())
        return;
    const QString name = QFileInfo(last).fileName();
    m_job->exportTo(dir, name.isEmpty() ? QStringLiteral("trace") : name);
}

void MainWindow::finishExport(bool ok, const QString &message)
{
    // No modal box: the status bar says it, and the window asks for attention.
    m_statusLabel->setText(message);
    if (m_interactive)
        QApplication::alert(this);
    Q_EMIT exportFinished(ok, message);
}

} // namespace syncscope::ui
