// SPDX-License-Identifier: MIT
// The details of the selected op as a tree: the Kineto event (name, category,
// times, ids, every arg), the linked host ET node (id, name, parent, inputs and
// outputs with shapes and types, attributes), its GPU activities, and its
// incoming and outgoing edges. Rows that name another event carry it in
// TargetEventRole so a click jumps there.
#pragma once

#include "treemodel.h"

#include <cstdint>
#include <memory>
#include <unordered_map>

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
    qint64 event() const { return m_event; }

    // Section titles, also used by tests.
    static QString eventSection() { return tr("Event"); }
    static QString argsSection() { return tr("Arguments"); }
    static QString hostSection() { return tr("Host ET node"); }
    static QString gpuSection() { return tr("GPU activities"); }
    static QString incomingSection() { return tr("Incoming edges"); }
    static QString outgoingSection() { return tr("Outgoing edges"); }

private:
    void rebuild();
    void addHostNode(TreeNode *root, uint32_t event);
    void addGpuActivities(TreeNode *root, uint32_t event);
    void addEdges(TreeNode *root, uint32_t event);
    QString eventLabel(uint32_t event) const;

    std::shared_ptr<const Analysis> m_analysis;
    std::shared_ptr<const TimelineModel> m_model;
    qint64 m_event = -1;
    std::unordered_map<int64_t, uint32_t> m_hostIndex; // ET node id -> index (built on first use)
};

} // namespace syncscope::ui
