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
    std::array<bool, kEdgeKindCount> m_shown{true, true, true, true};
};

} // namespace syncscope::ui
