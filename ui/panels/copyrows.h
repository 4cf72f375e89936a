// SPDX-License-Identifier: MIT
// Ctrl+C in a panel's table or tree: the selected rows as the view shows them
// (tab-separated, headers first), so a pasted time is in the view's time base.
#pragma once

class QAbstractItemView;
class QString;

namespace syncscope::ui {

void installCopyRows(QAbstractItemView *view);
// What Ctrl+C puts on the clipboard (tests).
QString copiedRows(const QAbstractItemView *view);

} // namespace syncscope::ui
