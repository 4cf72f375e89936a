// SPDX-License-Identifier: MIT
#include "edgetoggles.h"

namespace syncscope::ui {

void EdgeToggles::setShown(EdgeKind k, bool on)
{
    bool &s = m_shown[static_cast<int>(k)];
    if (s == on)
        return;
    s = on;
    Q_EMIT changed();
}

} // namespace syncscope::ui
