// SPDX-License-Identifier: MIT
// MainWindow's analysis settings: the request every open starts from, and the
// HTA-exact switch (docs/critical_path.md), which analyses the open pair or job again.
#include "mainwindow.h"

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
    m_lastRequest.cpa.htaExact = on;
    syncHtaExactAction();
    if (htaExact() == was)
        return;
    // Sync edges, the critical path and everything drawn from them change: analyse the open
    // job or pair again (a load under way starts over with the new setting).
    if (!m_lastJobDir.isEmpty())
        openJob(m_lastJobDir);
    else if (m_haveLastRequest)
        openRequest(m_lastRequest);
}

} // namespace syncscope::ui
