// SPDX-License-Identifier: MIT
#include "timelineview.h"

#include "overviewstrip.h"
#include "timelinelayers.h"

#include <QCheckBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QScrollBar>
#include <QVBoxLayout>

namespace syncscope::ui {

namespace {

QPixmap chip(const QColor &fill, int size)
{
    QPixmap pm(size, size);
    pm.fill(Qt::transparent);
    QPainter p(&pm);
    p.fillRect(QRect(0, 1, size - 1, size - 2), fill);
    return pm;
}

QIcon edgeIcon(EdgeKind k, bool inferred, const QColor &color)
{
    QPixmap pm(26, 12);
    pm.fill(Qt::transparent);
    QPainter p(&pm);
    p.setRenderHint(QPainter::Antialiasing);
    QPen pen = timelineEdgePen(k, inferred, color);
    pen.setColor(color);
    pen.setCapStyle(Qt::SquareCap);
    if (k == EdgeKind::Launch || k == EdgeKind::InterThread)
        pen.setWidthF(1.3);
    p.setPen(pen);
    p.drawLine(QPointF(1, 6), QPointF(19, 6));
    p.setPen(Qt::NoPen);
    p.setBrush(color);
    const QPointF tri[3] = {QPointF(25, 6), QPointF(18, 2.5), QPointF(18, 9.5)};
    p.drawPolygon(tri, 3);
    return QIcon(pm);
}

} // namespace

TimelineView::TimelineView(QWidget *parent)
    : QWidget(parent)
    , m_plot(new TimelinePlot(this))
    , m_overview(new OverviewStrip(m_plot, this))
    , m_vbar(new QScrollBar(Qt::Vertical, this))
    , m_legend(new QWidget(this))
    , m_edgeBar(new QWidget(this))
    , m_chips(new QHBoxLayout)
{
    auto *legendLayout = new QHBoxLayout(m_legend);
    legendLayout->setContentsMargins(6, 2, 6, 2);
    legendLayout->setSpacing(10);
    legendLayout->addLayout(m_chips);
    legendLayout->addStretch(1);
    legendLayout->addWidget(m_edgeBar);
    m_legend->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    auto *edgeLayout = new QHBoxLayout(m_edgeBar);
    edgeLayout->setContentsMargins(0, 0, 0, 0);
    edgeLayout->setSpacing(10);
    edgeLayout->addWidget(new QLabel(tr("Edges:"), m_edgeBar));
    for (int k = 0; k < kEdgeKindCount; ++k) {
        const EdgeKind kind = static_cast<EdgeKind>(k);
        auto *box = new QCheckBox(QLatin1String(edgeKindName(kind)), m_edgeBar);
        box->setChecked(m_plot->edgeToggles()->shown(kind));
        box->setToolTip(kind == EdgeKind::CriticalPath
                            ? tr("Show the critical path's arrows between different ops (its ops are highlighted "
                                 "either way; the selected op's edges are always shown)")
                        : kind == EdgeKind::Sync
                            ? tr("Show all sync arrows (the selected op's edges are always shown): solid from "
                                 "cuda_sync rows, dashed where inferred from the runtime calls and GPU timing")
                            : tr("Show all %1 arrows (the selected op's edges are always shown)")
                                  .arg(QString::fromLatin1(edgeKindName(kind)).toLower()));
        connect(box, &QCheckBox::toggled, this, [this, kind](bool on) { m_plot->edgeToggles()->setShown(kind, on); });
        connect(m_plot->edgeToggles(), &EdgeToggles::changed, box,
                [this, box, kind] { box->setChecked(m_plot->edgeToggles()->shown(kind)); });
        m_toggles[k] = box;
        edgeLayout->addWidget(box);
    }
    m_chips->setSpacing(10);

    auto *body = new QHBoxLayout;
    body->setContentsMargins(0, 0, 0, 0);
    body->setSpacing(0);
    body->addWidget(m_plot, 1);
    body->addWidget(m_vbar);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(m_legend);
    layout->addWidget(m_overview);
    layout->addLayout(body, 1);

    connect(m_vbar, &QScrollBar::valueChanged, m_plot, &TimelinePlot::setScrollY);
    connect(m_plot, &TimelinePlot::scrollChanged, m_vbar, &QScrollBar::setValue);
    connect(m_plot, &TimelinePlot::contentHeightChanged, this, &TimelineView::syncScrollBar);
    connect(m_plot, &QCustomPlot::afterLayout, this, &TimelineView::syncScrollBar);
    rebuildLegend();
}

void TimelineView::setModel(std::shared_ptr<TimelineModel> model)
{
    m_plot->setModel(std::move(model));
    m_overview->modelChanged();
    rebuildLegend();
    syncScrollBar();
}

void TimelineView::replaceModel(std::shared_ptr<TimelineModel> model)
{
    m_plot->replaceModel(std::move(model));
    m_overview->modelChanged();
    rebuildLegend();
    syncScrollBar();
}

void TimelineView::modelChanged()
{
    m_plot->modelChanged();
    rebuildLegend();
}

void TimelineView::syncScrollBar()
{
    const int page = std::max(1, m_plot->visibleHeight());
    m_vbar->setPageStep(page);
    m_vbar->setSingleStep(m_plot->rowHeight());
    m_vbar->setRange(0, std::max(0, m_plot->contentHeight() - page));
    m_vbar->setValue(m_plot->scrollY());
}

void TimelineView::rebuildLegend()
{
    while (QLayoutItem *item = m_chips->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    const TimelineColors &c = m_plot->colors();
    const TimelineModel *model = m_plot->model();
    std::array<size_t, kCategoryCount> counts{};
    if (model)
        for (const LaneRow &row : model->layout.rows)
            for (Category cat : row.category)
                ++counts[static_cast<int>(cat)];
    const int size = fontMetrics().height() - 2;
    for (int i = 0; i < kCategoryCount; ++i) {
        if (model && counts[i] == 0)
            continue;
        auto *w = new QWidget(m_legend);
        auto *h = new QHBoxLayout(w);
        h->setContentsMargins(0, 0, 0, 0);
        h->setSpacing(3);
        auto *sw = new QLabel(w);
        sw->setPixmap(chip(c.category[i], size));
        h->addWidget(sw);
        h->addWidget(new QLabel(QLatin1String(categoryName(static_cast<Category>(i))), w));
        w->setToolTip(tr("%n op(s)", nullptr, int(counts[i])));
        m_chips->addWidget(w);
    }
    {
        auto *w = new QWidget(m_legend);
        auto *h = new QHBoxLayout(w);
        h->setContentsMargins(0, 0, 0, 0);
        h->setSpacing(3);
        auto *sw = new QLabel(w);
        QPixmap pm(size + 2, size);
        pm.fill(Qt::transparent);
        QPainter p(&pm);
        p.setPen(QPen(c.critical, 2));
        p.drawRect(QRect(1, 1, size - 1, size - 3));
        p.end();
        sw->setPixmap(pm);
        h->addWidget(sw);
        h->addWidget(new QLabel(tr("On critical path"), w));
        m_chips->addWidget(w);
    }
    for (int k = 0; k < kEdgeKindCount; ++k) {
        const EdgeKind kind = static_cast<EdgeKind>(k);
        const size_t n = model ? model->edges.count(kind) : 0;
        size_t inferred = 0;
        if (model && kind == EdgeKind::Sync)
            for (const TimelineEdge &e : model->edges.edges(kind))
                inferred += e.inferred;
        // Sync: solid for cuda_sync rows, dashed when every edge was inferred.
        m_toggles[k]->setIcon(edgeIcon(kind, inferred > 0 && inferred == n, c.edge[k]));
        m_toggles[k]->setIconSize(QSize(26, 12));
        const QString name = QLatin1String(edgeKindName(kind));
        // Links between two ops, so the count cannot be read against the panel's ops and graph edges.
        QString text = name;
        if (model) {
            text = QStringLiteral("%1 (%2 %3").arg(name).arg(n).arg(n == 1 ? tr("link") : tr("links"));
            if (inferred > 0)
                text += tr(", %1 inferred").arg(inferred);
            text += QLatin1Char(')');
        }
        m_toggles[k]->setText(text);
    }
}

void TimelineView::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        rebuildLegend();
}

} // namespace syncscope::ui
