// SPDX-License-Identifier: MIT
// The overview strip above the timeline: the whole trace as a minimap (activity
// density per lane), the current view marked; click or drag to move the view there.
#pragma once

#include "density.h"

#include <QImage>
#include <QWidget>

namespace syncscope::ui {

class TimelinePlot;

class OverviewStrip : public QWidget
{
    Q_OBJECT
public:
    explicit OverviewStrip(TimelinePlot *plot, QWidget *parent = nullptr);
    void modelChanged(); // recomputes the density
    const LaneDensity &density() const { return m_density; }
    // Widget x of a time, and the reverse.
    double xOf(double ns) const;
    double timeAt(double x) const;
    QSize sizeHint() const override;

protected:
    void paintEvent(QPaintEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    void centreAt(double x);
    void renderImage();

    TimelinePlot *m_plot;
    LaneDensity m_density;
    QImage m_image;
    bool m_imageDark = false; // the palette m_image was drawn in
};

} // namespace syncscope::ui
