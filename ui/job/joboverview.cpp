// SPDX-License-Identifier: MIT
#include "joboverview.h"

#include "theme.h"

#include <QButtonGroup>
#include <QCheckBox>
#include <QElapsedTimer>
#include <QEvent>
#include <QHBoxLayout>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace syncscope::ui {


// The plot: paints the composed image and forwards input to the overview.
class JobOverviewCanvas : public QWidget
{
public:
    explicit JobOverviewCanvas(JobOverview *owner)
        : QWidget(owner)
        , m_owner(owner)
    {
        setFocusPolicy(Qt::StrongFocus);
        setMouseTracking(true);
        setAttribute(Qt::WA_OpaquePaintEvent);
        setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    }
    QSize sizeHint() const override { return {480, 160}; }
    QSize minimumSizeHint() const override { return {120, 32}; }

protected:
    void paintEvent(QPaintEvent *) override
    {
        QPainter p(this);
        m_owner->paintCanvas(p);
    }
    void resizeEvent(QResizeEvent *) override { m_owner->invalidate(true); }
    void mousePressEvent(QMouseEvent *e) override
    {
        if (e->button() == Qt::LeftButton)
            m_press = e->position().toPoint();
    }
    void mouseReleaseEvent(QMouseEvent *e) override
    {
        if (e->button() != Qt::LeftButton || m_press.x() < 0)
            return;
        const QPoint at = e->position().toPoint();
        if (std::abs(at.x() - m_press.x()) > 6) // a drag along the strip: that range
            m_owner->drag(m_press.x(), at.x());
        else
            m_owner->click(m_press);
        m_press = QPoint(-1, -1);
    }
    void mouseDoubleClickEvent(QMouseEvent *e) override
    {
        if (e->button() == Qt::LeftButton) {
            m_owner->click(e->position().toPoint());
            m_owner->activate(true);
        }
    }
    void keyPressEvent(QKeyEvent *e) override
    {
        switch (e->key()) {
        case Qt::Key_Up: case Qt::Key_Down: case Qt::Key_PageUp: case Qt::Key_PageDown:
        case Qt::Key_Home: case Qt::Key_End: case Qt::Key_Left: case Qt::Key_Right:
        case Qt::Key_Return: case Qt::Key_Enter:
            m_owner->key(e->key());
            return;
        default:
            QWidget::keyPressEvent(e);
        }
    }
    bool event(QEvent *e) override
    {
        if (e->type() == QEvent::ToolTip) {
            auto *help = static_cast<QHelpEvent *>(e);
            const QString text = m_owner->toolTipAt(help->pos());
            if (text.isEmpty())
                QToolTip::hideText();
            else
                QToolTip::showText(help->globalPos(), text, this);
            return true;
        }
        return QWidget::event(e);
    }

private:
    JobOverview *m_owner;
    QPoint m_press{-1, -1}; // where the left button went down (-1: not on the canvas)
};

JobOverview::JobOverview(QWidget *parent)
    : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->setSpacing(2);
    auto *bar = new QHBoxLayout;
    bar->setSpacing(4);
    m_modes = new QButtonGroup(this);
    int id = 0;
    for (const QString &name : {tr("Activity"), tr("Waits")}) {
        auto *b = new QToolButton(this);
        b->setText(name);
        b->setCheckable(true);
        b->setAutoRaise(true);
        b->setChecked(id == 0);
        b->setToolTip(id == 0 ? tr("Rank x time: GPU work, collective waits in the wait colour")
                              : tr("Rank x matched collective: each rank's wait over the column's longest; "
                                   "red: the last arriver"));
        m_modes->addButton(b, id++);
        bar->addWidget(b);
    }
    m_allBox = new QCheckBox(tr("All GPU streams"), this);
    m_allBox->setToolTip(tr("Off: only the streams that run NCCL/communication work"));
    bar->addWidget(m_allBox);
    m_summary = new QLabel(this);
    m_summary->setTextInteractionFlags(Qt::NoTextInteraction);
    bar->addWidget(m_summary, 1);
    layout->addLayout(bar);
    m_canvas = new JobOverviewCanvas(this);
    layout->addWidget(m_canvas, 1);
    connect(m_modes, &QButtonGroup::idClicked, this, [this](int m) { setMode(m == 0 ? Mode::Activity : Mode::Waits); });
    connect(m_allBox, &QCheckBox::toggled, this, &JobOverview::setAllStreams);
    updateSummary();
}

JobOverview::~JobOverview() = default;

void JobOverview::setJob(std::shared_ptr<const JobData> job, std::shared_ptr<const TimelineModel> jobModel)
{
    const qint64 current = currentRank();
    const size_t oldParts = m_model ? m_model->parts.size() : 0;
    m_job = std::move(job);
    m_model = std::move(jobModel);
    m_rows = m_model ? overviewRows(*m_model) : std::vector<OverviewPartRows>{};
    std::vector<uint32_t> order = m_rows.size() == oldParts ? m_order : std::vector<uint32_t>{};
    setRankOrder(std::move(order));
    m_current = displayIndexOfRank(current);
    m_currentCollective = -1;
    invalidate(true);
}

void JobOverview::clear()
{
    setJob(nullptr, nullptr);
}

void JobOverview::setRankOrder(std::vector<uint32_t> partOrder)
{
    const qint64 current = currentRank();
    std::vector<uint32_t> sorted = partOrder;
    std::sort(sorted.begin(), sorted.end());
    bool permutation = sorted.size() == m_rows.size();
    for (size_t i = 0; permutation && i < sorted.size(); ++i)
        permutation = sorted[i] == i;
    if (permutation) {
        m_order = std::move(partOrder);
    } else { // by rank (parts are in ascending base order, not necessarily rank order)
        m_order.resize(m_rows.size());
        std::iota(m_order.begin(), m_order.end(), 0u);
        std::stable_sort(m_order.begin(), m_order.end(),
                         [this](uint32_t a, uint32_t b) { return m_rows[a].rank < m_rows[b].rank; });
    }
    m_current = displayIndexOfRank(current);
    invalidate(false);
}

void JobOverview::setViewRange(double startNs, double endNs)
{
    m_viewStart = startNs;
    m_viewEnd = endNs;
    m_canvas->update(); // an overlay: the image stays
}

void JobOverview::setMode(Mode mode)
{
    if (QAbstractButton *b = m_modes->button(mode == Mode::Activity ? 0 : 1))
        b->setChecked(true);
    m_allBox->setEnabled(mode == Mode::Activity);
    if (mode == m_mode)
        return;
    m_mode = mode;
    invalidate(true);
}

void JobOverview::setAllStreams(bool all)
{
    if (m_allBox->isChecked() != all)
        m_allBox->setChecked(all); // toggled() comes back here
    if (all == m_allStreams)
        return;
    m_allStreams = all;
    invalidate(true);
}

void JobOverview::setCurrentRank(qint64 rank)
{
    m_current = displayIndexOfRank(rank);
    m_canvas->update();
}

qint64 JobOverview::currentRank() const
{
    const int part = partAtRow(m_current);
    return part < 0 ? -1 : m_rows[size_t(part)].rank;
}

QWidget *JobOverview::canvas() const
{
    return m_canvas;
}

int JobOverview::rowHeight() const
{
    return overviewRowGeometry(int(m_order.size()), m_canvas->height()).rowPx;
}

int JobOverview::ranksPerRow() const
{
    return overviewRowGeometry(int(m_order.size()), m_canvas->height()).perRow;
}

int JobOverview::rowTop(qint64 rank) const
{
    const int i = displayIndexOfRank(rank);
    if (i < 0)
        return -1;
    const OverviewRowGeometry g = overviewRowGeometry(int(m_order.size()), m_canvas->height());
    return (i / g.perRow) * g.rowPx;
}

qint64 JobOverview::rankAt(int y) const
{
    if (y < 0)
        return -1;
    const OverviewRowGeometry g = overviewRowGeometry(int(m_order.size()), m_canvas->height());
    const int part = partAtRow((y / g.rowPx) * g.perRow);
    return part < 0 ? -1 : m_rows[size_t(part)].rank;
}

int JobOverview::columnOf(quint32 collective) const
{
    for (int x = 0; x < m_heat.width; ++x)
        if (m_heat.first[size_t(x)] <= collective && collective < m_heat.last[size_t(x)])
            return x;
    return -1;
}

double JobOverview::timeAt(int x) const
{
    if (m_activity.empty())
        return 0;
    const double nsPerPx = (m_activity.endNs - m_activity.startNs) / m_activity.width;
    return m_activity.startNs + (x + 0.5) * nsPerPx;
}

void JobOverview::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::StyleChange)
        invalidate(false);
    QWidget::changeEvent(event);
}

void JobOverview::invalidate(bool bins)
{
    m_binsDirty = m_binsDirty || bins;
    m_imageDirty = true;
    updateSummary();
    m_canvas->update();
}

int JobOverview::partAtRow(int displayIndex) const
{
    if (displayIndex < 0 || size_t(displayIndex) >= m_order.size() || m_order[size_t(displayIndex)] >= m_rows.size())
        return -1; // (the order may still be the previous job's while setJob swaps the rows)
    return int(m_order[size_t(displayIndex)]);
}

int JobOverview::displayIndexOfRank(qint64 rank) const
{
    if (rank < 0)
        return -1;
    for (size_t i = 0; i < m_order.size(); ++i)
        if (m_order[i] < m_rows.size() && m_rows[m_order[i]].rank == rank)
            return int(i);
    return -1;
}

void JobOverview::updateSummary()
{
    if (!m_model || m_rows.empty()) {
        m_summary->setText(tr("No job"));
        return;
    }
    const OverviewRowGeometry g = overviewRowGeometry(int(m_order.size()), m_canvas->height());
    auto count = [](size_t n, const QString &one, const QString &many) { return n == 1 ? one : many.arg(n); };
    QString text = count(m_rows.size(), tr("1 rank"), tr("%1 ranks"));
    if (m_mode == Mode::Waits)
        text += QStringLiteral(" \u00d7 ") + count(m_job ? m_job->analysis.collectives.size() : 0, tr("1 collective"),
                                                    tr("%1 collectives"));
    else
        text += m_allStreams ? tr(" \u00b7 all GPU streams") : tr(" \u00b7 NCCL streams");
    text += g.perRow > 1 ? tr(" \u00b7 %1 ranks per pixel row").arg(g.perRow) : tr(" \u00b7 %1 px per rank").arg(g.rowPx);
    m_summary->setText(text);
}

void JobOverview::buildBins()
{
    QElapsedTimer t;
    t.start();
    const int width = m_canvas->width();
    m_activity = {};
    m_heat = {};
    if (m_model && m_mode == Mode::Activity)
        m_activity = binActivity(*m_model, m_rows, m_allStreams, width, 0.0, std::max(1.0, m_model->spanNs()));
    else if (m_model && m_job && m_mode == Mode::Waits)
        m_heat = binWaits(*m_model, m_job->analysis, width);
    m_binsDirty = false;
    m_stats.binMs = double(t.nsecsElapsed()) / 1e6;
}

void JobOverview::ensureImage()
{
    if (m_binsDirty)
        buildBins();
    if (m_imageDirty)
        compose();
}

int JobOverview::collectiveAt(int x, int part) const
{
    if (m_heat.empty() || !m_job || x < 0 || x >= m_heat.width || part < 0)
        return -1;
    const uint32_t first = m_heat.first[size_t(x)], last = m_heat.last[size_t(x)];
    if (last - first == 1)
        return int(first);
    // Several in the column: where this rank waited longest, else where it came last.
    const int64_t rank = m_rows[size_t(part)].rank;
    int best = int(first);
    double bestWait = 0;
    bool bestLast = false;
    for (uint32_t c = first; c < last; ++c) {
        const MatchedCollective &mc = m_job->analysis.collectives[c];
        auto w = mc.waitUs.find(rank);
        const double wait = w == mc.waitUs.end() ? 0.0 : w->second;
        const bool lastHere = mc.lastArrivalRank == rank && mc.spreadUs > 0;
        if (wait > bestWait || (bestWait == 0 && lastHere && !bestLast)) {
            best = int(c);
            bestWait = wait;
            bestLast = lastHere;
        }
    }
    return best;
}

void JobOverview::click(const QPoint &pos)
{
    ensureImage(); // the bins a click reads (a click can come before the first paint)
    const qint64 rank = rankAt(pos.y());
    if (rank < 0)
        return;
    m_current = displayIndexOfRank(rank);
    if (m_mode == Mode::Waits)
        m_currentCollective = collectiveAt(pos.x(), partAtRow(m_current));
    m_canvas->update();
    activate(false);
    if (m_mode == Mode::Activity && !m_activity.empty())
        Q_EMIT timeActivated(timeAt(pos.x()));
}

void JobOverview::drag(int x0, int x1)
{
    ensureImage();
    if (m_mode != Mode::Activity || m_activity.empty())
        return;
    const double a = timeAt(std::min(x0, x1)), b = timeAt(std::max(x0, x1));
    if (b > a)
        Q_EMIT rangeActivated(a, b);
}

void JobOverview::activate(bool open)
{
    const qint64 rank = currentRank();
    if (rank < 0)
        return;
    Q_EMIT rankActivated(rank);
    if (open)
        Q_EMIT rankOpened(rank);
    if (m_mode == Mode::Waits && m_currentCollective >= 0)
        Q_EMIT collectiveActivated(quint32(m_currentCollective));
}

void JobOverview::key(int key)
{
    const int n = int(m_order.size());
    if (n == 0)
        return;
    const OverviewRowGeometry g = overviewRowGeometry(n, m_canvas->height());
    const int page = std::max(1, (m_canvas->height() / g.rowPx) * g.perRow / 2);
    const int at = m_current < 0 ? 0 : m_current;
    switch (key) {
    case Qt::Key_Up: m_current = std::max(0, at - 1); break;
    case Qt::Key_Down: m_current = m_current < 0 ? 0 : std::min(n - 1, at + 1); break;
    case Qt::Key_PageUp: m_current = std::max(0, at - page); break;
    case Qt::Key_PageDown: m_current = std::min(n - 1, at + page); break;
    case Qt::Key_Home: m_current = 0; break;
    case Qt::Key_End: m_current = n - 1; break;
    case Qt::Key_Left:
    case Qt::Key_Right:
        if (m_mode == Mode::Waits && m_job && !m_job->analysis.collectives.empty()) {
            const int64_t count = int64_t(m_job->analysis.collectives.size());
            m_currentCollective = m_currentCollective < 0 ? 0
                                  : std::clamp<int64_t>(m_currentCollective + (key == Qt::Key_Left ? -1 : 1), 0,
                                                        count - 1);
        }
        if (m_current < 0)
            m_current = 0;
        break;
    default: // Enter / Return: the rank unfolded
        if (m_current < 0)
            return;
        activate(true);
        return;
    }
    m_canvas->update();
}

} // namespace syncscope::ui
