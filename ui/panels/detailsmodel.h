// SPDX-License-Identifier: MIT
// The details of the selected op as a tree: the Kineto event (name, category,
// times, ids, every arg), the linked host ET node (id, name, parent, inputs and
// outputs with shapes and types, attributes), its GPU activities (or, for a GPU
// op, the CPU op and runtime call that launched it: the graph launch of a
// replayed kernel), and its incoming and outgoing edges. Rows that name another event carry it in
// TargetEventRole so a click jumps there.
#pragma once

#include "treemodel.h"

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

namespace syncscope {
struct Analysis;
}

namespace syncscope::ui {

struct TimelineModel;

class DetailsModel : public TreeItemModel
{
    Q_OBJECT
public:
    explicit DetailsModel(QObject *parent = nullptr);

    // `analysis` may be null while the analysis is still running (only the event is shown then).
    void setSources(std::shared_ptr<const Analysis> analysis, std::shared_ptr<const TimelineModel> model);
    void setEvent(qint64 event); // -1: empty
    // The view's time base (one per view, the axis' own): a time of `model` + shiftNs is a
    // time of the view, `label` follows it ("from the trace start", "job time"). Reset by
    // setSources to the model's own base.
    void setTimeBase(double shiftNs, const QString &label);
    qint64 event() const { return m_event; }

    // Section titles, also used by tests.
    static QString eventSection() { return tr("Event"); }
    static QString argsSection() { return tr("Arguments"); }
    static QString hostSection() { return tr("Host ET node"); }
    static QString gpuSection() { return tr("GPU activities"); }
    static QString incomingSection() { return tr("Incoming edges"); }
    static QString outgoingSection() { return tr("Outgoing edges"); }
    static QString launchedFromSection() { return tr("Launched from"); }
    // The row of a GPU op replayed by a CUDA/HIP graph (in launchedFromSection), and of
    // the graph launch call itself (in eventSection).
    static QString graphLaunchKey() { return tr("Graph launch"); }

private:
    void rebuild();
    void addHostNode(TreeNode *root, uint32_t event);
    void addGpuActivities(TreeNode *root, uint32_t event);
    void addEdges(TreeNode *root, uint32_t event);
    // The runtime call that launched GPU op `event` (the linker's, else the launch edge's), -1 if none.
    int64_t launcherOf(uint32_t event) const;
    void addCapturedOrigin(TreeNode *sec, uint32_t event);
    // The GPU ops launched by runtime call `launch` (its launch edges), in start order.
    std::vector<uint32_t> launchedBy(uint32_t launch) const;
    QString eventLabel(uint32_t event) const;

    std::shared_ptr<const Analysis> m_analysis;
    std::shared_ptr<const TimelineModel> m_model;
    qint64 m_event = -1;
    double m_shiftNs = 0;
    QString m_timeBase;
    std::unordered_map<int64_t, uint32_t> m_hostIndex; // ET node id -> index (built on first use)
};

} // namespace syncscope::ui
