// SPDX-License-Identifier: MIT
// MainWindow's exports of the loaded pair (File > Export): which kinds the
// analysis allows, the save dialog's start, the write off the GUI thread.
#include "mainwindow.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QPointer>
#include <QProgressDialog>
#include <QSettings>
#include <QThreadPool>

namespace syncscope::ui {

void MainWindow::updateExportActions()
{
    for (auto &[kind, action] : m_exportActions) {
        QString why;
        const bool ok = m_analysis && canExport(*m_analysis, m_cp.get(), kind, &why);
        action->setEnabled(ok);
        action->setToolTip(ok ? exportTitle(kind) : why);
    }
}

QAction *MainWindow::exportAction(ExportKind kind) const
{
    auto it = m_exportActions.find(kind);
    return it == m_exportActions.end() ? nullptr : it->second;
}

void MainWindow::askExport(ExportKind kind)
{
    if (!m_analysis)
        return;
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Export %1").arg(exportTitle(kind)), exportStartPath(kind), exportFilter(kind));
    if (!path.isEmpty())
        exportTo(kind, path);
}

QString MainWindow::exportStartPath(ExportKind kind) const
{
    const QString suggested = exportSuggestedName(kind, m_analysis ? QString::fromStdString(m_analysis->devicePath) : QString());
    const QString dir = QSettings().value(QStringLiteral("export/lastFolder")).toString();
    if (dir.isEmpty() || !QFileInfo(dir).isDir())
        return suggested;
    return QDir(dir).filePath(QFileInfo(suggested).fileName());
}

void MainWindow::exportTo(ExportKind kind, const QString &path)
{
    if (!m_analysis) {
        Q_EMIT exportFinished(false, tr("Nothing is loaded."));
        return;
    }
    QPointer<QProgressDialog> progress;
    if (m_interactive) {
        progress = new QProgressDialog(tr("Writing %1\u2026").arg(QFileInfo(path).fileName()), QString(), 0, 0, this);
        progress->setWindowTitle(tr("Export"));
        progress->setMinimumDuration(300);
        progress->setAttribute(Qt::WA_DeleteOnClose);
    }
    m_statusLabel->setText(tr("Writing %1\u2026").arg(path));
    QSettings().setValue(QStringLiteral("export/lastFolder"), QFileInfo(path).absolutePath());
    auto analysis = m_analysis;
    auto cp = m_cp;
    QPointer<MainWindow> self(this);
    const std::string target = path.toStdString();
    QThreadPool::globalInstance()->start([self, analysis, cp, kind, target, progress] {
        const ExportOutcome outcome = runExport(*analysis, cp.get(), kind, target);
        if (!self)
            return;
        QMetaObject::invokeMethod(
            self.data(),
            [self, outcome, progress] {
                if (progress)
                    progress->close();
                if (self)
                    self->finishExport(outcome.ok, outcome.message);
            },
            Qt::QueuedConnection);
    });
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
