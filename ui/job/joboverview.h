// SPDX-License-Identifier: MIT
// A dense overview of a job for 8 to 1,024 ranks (issue 23, item 4): one thin row
// per rank, in two modes (the toggle on its bar):
//   Activity  rank x job time: what the rank's GPU streams did, NCCL/communication
//             streams only by default ("All GPU streams" adds the compute
//             streams). Busy in the communication / kernel colour, collective
//             waits (a kernel's start to the last arrival, what the timeline
//             hatches) in the wait colour: a late rank is the row without waits
//             while the others wait. The main timeline's visible range is framed.
//   Waits     rank x matched collective (aligned time order): each cell the
//             rank's wait there over that collective's longest wait, so every
//             column's early ranks are strong and its last arriver is the red cell.
// Rows fill the height up to 24 px each; with more ranks than pixel rows, each
// pixel row is several ranks (their colours averaged). Bins are computed once per
// (job, size, mode, filter) change (joboverviewbins.h); a paint is O(pixels).
// Colours: TimelineColors (theme.h) of the widget's palette, dark or light.
//
// Integration (the host owns the job): when a job (or its raw-clocks model) is
// shown, setJob(result->job, model) with the same model the timeline shows; when
// the timeline's visible range changes, setViewRange(lower, upper) in that model's
// time (ns from model->originNs); when the rank order changes, setRankOrder(the
// rankDisplayOrder vector the timeline uses); when a rank is selected elsewhere,
// setCurrentRank(rank). Connect rankActivated (show that rank) and
// collectiveActivated (select that JobAnalysis::collectives instance). clear()
// when a pair is opened.
#pragma once

#include "job/jobdata.h"
#include "job/joboverviewbins.h"

#include <QImage>
#include <QWidget>

#include <memory>
#include <vector>

class QButtonGroup;
class QCheckBox;
class QLabel;

namespace syncscope::ui {

class JobOverviewCanvas;

class JobOverview : public QWidget
{
    Q_OBJECT
public:
    enum class Mode { Activity, Waits };

    explicit JobOverview(QWidget *parent = nullptr);
    ~JobOverview() override;

    // `jobModel`: the job timeline model (JobLoadResult::model or a rebuild of it);
    // its parts are the rows. `job` gives the collectives (names, waits, last
    // arrivers) for the heatmap and tooltips; null while the ranks are still
    // loading (activity without waits). Keeps the mode, filter, view range and the
    // current rank; the order too when it still fits the parts.
    void setJob(std::shared_ptr<const JobData> job, std::shared_ptr<const TimelineModel> jobModel);
    void clear();
    std::shared_ptr<const TimelineModel> jobModel() const { return m_model; }

    // Rows top to bottom as indices into jobModel->parts (rankDisplayOrder's
    // result); empty or not a permutation of the parts: by rank.
    void setRankOrder(std::vector<uint32_t> partOrder);
    const std::vector<uint32_t> &rankOrder() const { return m_order; }

    // The main timeline's visible range (job time, ns from jobModel->originNs),
    // framed; end <= start: no frame.
    void setViewRange(double startNs, double endNs);

    void setMode(Mode mode);
    Mode mode() const { return m_mode; }
    void setAllStreams(bool all); // false (default): NCCL/communication streams only
    bool allStreams() const { return m_allStreams; }

    // The keyboard's row (outlined); -1 none. Does not emit rankActivated.
    void setCurrentRank(qint64 rank);
    qint64 currentRank() const;

    // Geometry of the plot (canvas() coordinates), for hosts and tests.
    QWidget *canvas() const;
    int rowHeight() const;   // pixel rows per rank (>= 1)
    int ranksPerRow() const; // ranks averaged into one pixel row (>= 1)
    int rowTop(qint64 rank) const; // y of the rank's first pixel row, -1 not shown
    qint64 rankAt(int y) const;    // -1 below the rows
    int columnOf(quint32 collective) const; // Waits: first x of its column, -1 none
    double timeAt(int x) const;    // Activity: job time (ns) at x
    // The last composed plot (before the frame and outline overlays), canvas size.
    const QImage &image() const { return m_image; }
    const ActivityBins &activityBins() const { return m_activity; }
    const HeatmapBins &heatmapBins() const { return m_heat; }

    struct Stats {
        double binMs = 0;     // the last bins build
        double composeMs = 0; // the last image composition
        int paints = 0;       // canvas paint events so far
        int rankLabels = 0;   // rank numbers drawn down the left edge at the last paint
        int lastArrivalMarks = 0; // Waits, rows under 3 px: last arrivals drawn 3 px tall
    };
    const Stats &stats() const { return m_stats; }

Q_SIGNALS:
    // A click on a rank's row (or Enter): that rank, shown without unfolding it.
    void rankActivated(qint64 rank);
    // A double click or Enter: that rank unfolded on the timeline.
    void rankOpened(qint64 rank);
    // Activity: a click moves the timeline's view to that time (its zoom kept), a drag along
    // the strip zooms it to that range (issue 41: a click opened the rank instead).
    void timeActivated(double ns);
    void rangeActivated(double startNs, double endNs);
    void collectiveActivated(quint32 index); // into JobAnalysis::collectives

protected:
    void changeEvent(QEvent *event) override;

private:
    friend class JobOverviewCanvas;
    void invalidate(bool bins);
    void ensureImage();
    void buildBins();
    void compose();
    void paintCanvas(QPainter &p);
    QString toolTipAt(const QPoint &pos) const;
    void click(const QPoint &pos);
    void drag(int x0, int x1);
    void key(int key);
    void activate(bool open);
    int partAtRow(int displayIndex) const;
    int displayIndexOfRank(qint64 rank) const;
    int collectiveAt(int x, int part) const;
    void updateSummary();

    std::shared_ptr<const JobData> m_job;
    std::shared_ptr<const TimelineModel> m_model;
    std::vector<OverviewPartRows> m_rows;
    std::vector<uint32_t> m_order;
    Mode m_mode = Mode::Activity;
    bool m_allStreams = false;
    double m_viewStart = 0, m_viewEnd = 0;
    int m_current = -1;           // display index of the keyboard's row
    int64_t m_currentCollective = -1;
    ActivityBins m_activity;
    HeatmapBins m_heat;
    QImage m_image;
    bool m_binsDirty = true, m_imageDirty = true;
    Stats m_stats;

    JobOverviewCanvas *m_canvas = nullptr;
    QButtonGroup *m_modes = nullptr;
    QCheckBox *m_allBox = nullptr;
    QLabel *m_summary = nullptr;
};

} // namespace syncscope::ui
