// SPDX-License-Identifier: MIT
// The selected event, shared by the timeline and the panels.
#pragma once

#include <QObject>

namespace syncscope::ui {

class Selection : public QObject
{
    Q_OBJECT
public:
    explicit Selection(QObject *parent = nullptr)
        : QObject(parent)
    {
    }
    qint64 event() const { return m_event; } // -1: nothing selected
    bool hasEvent() const { return m_event >= 0; }
    void setEvent(qint64 event);
    void clear() { setEvent(-1); }

Q_SIGNALS:
    void changed(qint64 event);

private:
    qint64 m_event = -1;
};

} // namespace syncscope::ui
