// SPDX-License-Identifier: MIT
#include "timeaxisticker.h"

#include "timeformat.h"

namespace syncscope::ui {

double TimeAxisTicker::getTickStep(const QCPRange &range)
{
    m_step = QCPAxisTicker::getTickStep(range);
    return m_step;
}

QString TimeAxisTicker::getTickLabel(double tick, const QLocale &, QChar, int)
{
    return QString::fromStdString(formatTick(tick, m_step));
}

} // namespace syncscope::ui
