// SPDX-License-Identifier: MIT
// QCustomPlot ticker for the time axis: ns from the trace start, labelled in the
// unit that fits the tick spacing (ns, µs, ms, s).
#pragma once

#include <qcustomplot.h>

namespace syncscope::ui {

class TimeAxisTicker : public QCPAxisTicker
{
public:
    TimeAxisTicker() { setTickCount(8); }

protected:
    double getTickStep(const QCPRange &range) override;
    QString getTickLabel(double tick, const QLocale &locale, QChar formatChar, int precision) override;

private:
    double m_step = 1;
};

} // namespace syncscope::ui
