// SPDX-License-Identifier: MIT
// MainWindow's analysis settings: the request every open starts from, and the
// HTA-exact switch (docs/critical_path.md), which analyses the open pair or job again.
#include "mainwindow.h"

#include "document/document.h"

#include <QAction>
#include <QSignalBlocker>

namespace syncscope::ui {

void MainWindow::setRequestTemplate(const AnalysisRequest &request)
{
    m_template = request;
    syncHtaExactAction();
}

bool MainWindow::htaExact() const
{
    return isHtaExact(m_template.cpa);
}

void MainWindow::syncHtaExactAction()
{
    if (!m_htaExactAction)
        return;
    const QSignalBlocker block(m_htaExactAction);
    m_htaExactAction->setChecked(htaExact());
    // d731cc2e has no default mode to go back to.
    m_htaExactAction->setEnabled(m_template.cpa.htaVersion != HtaVersion::D731cc2e);
}

void MainWindow::setHtaExact(bool on)
{
    const bool was = htaExact();
    m_template.cpa.htaExact = on;
    syncHtaExactAction();
    // Sync edges, the critical path and everything drawn from them change: the open
    // document analyses its data again (a load under way starts over).
    if (htaExact() != was && m_active)
        m_active->setHtaExact(on);
}

} // namespace syncscope::ui
