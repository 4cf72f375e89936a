// SPDX-License-Identifier: MIT
#include "selection.h"

namespace syncscope::ui {

void Selection::setEvent(qint64 event)
{
    if (event < 0)
        event = -1;
    if (event == m_event)
        return;
    m_event = event;
    Q_EMIT changed(event);
}

} // namespace syncscope::ui
