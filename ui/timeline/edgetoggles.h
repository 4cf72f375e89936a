// SPDX-License-Identifier: MIT
// Which kinds of arrows the timeline draws (the selected op's edges are always drawn).
#pragma once

#include "edgeindex.h"

#include <QObject>

#include <array>

namespace syncscope::ui {

class EdgeToggles : public QObject
{
    Q_OBJECT
public:
    explicit EdgeToggles(QObject *parent = nullptr)
        : QObject(parent)
    {
    }
    bool shown(EdgeKind k) const { return m_shown[static_cast<int>(k)]; }
    void setShown(EdgeKind k, bool on);

Q_SIGNALS:
    void changed();

private:
    // As Perfetto: the selected op's edges and the critical path; launch, sync and
    // inter-thread arrows on request (at fit-all they are a curtain).
    std::array<bool, kEdgeKindCount> m_shown{false, false, true, false};
};

} // namespace syncscope::ui
