// SPDX-License-Identifier: MIT
// What the main window can show: one kind of document (a pair, a job) at a time.
// The shell (MainWindow) owns the menus, docks and status bar; a document owns its
// loader, data, step and exports, and drives the shared parts (the timeline and the
// panels of Workspace) without knowing the window. It talks back through signals,
// so the shell never branches on the kind of document.
#pragma once

#include "model/diagnostics.h"
#include "recentpairs.h"

#include <QObject>
#include <QString>

#include <vector>

namespace syncscope::ui {

class AggregatePanel;
class CriticalPathPanel;
class DetailsPanel;
class SearchPanel;
class SyncWaitsPanel;
class TimelineView;
class WhatIfPanel;

// The widgets every document shows its data in (owned by the shell).
struct Workspace {
    TimelineView *timeline = nullptr;
    DetailsPanel *details = nullptr;
    SearchPanel *search = nullptr;
    CriticalPathPanel *criticalPath = nullptr;
    WhatIfPanel *whatIf = nullptr;
    SyncWaitsPanel *syncWaits = nullptr;
    AggregatePanel *area = nullptr;
};

class Document : public QObject
{
    Q_OBJECT
public:
    Document(const Workspace &workspace, QObject *parent) : QObject(parent), m_ws(workspace) {}

    virtual bool busy() const = 0;
    // Whether it has something on the timeline (or is loading it).
    virtual bool isOpen() const = 0;
    virtual void cancel() = 0;
    // Another document is opened: stop loading, report nothing more, drop the data.
    virtual void close() = 0;
    virtual bool canReload() const = 0;
    virtual void reload() = 0;
    // The status bar's summary of what is shown ("" while nothing is).
    virtual QString statusSummary() const = 0;
    // The timeline's selection changed (the details panel follows).
    virtual void selectionChanged(qint64 event) = 0;
    // An event id of the details panel as a timeline event id.
    virtual qint64 detailsEventToTimeline(qint64 event) const { return event; }
    // --select: the earliest op with exactly this name, else whose name contains it.
    virtual bool selectByName(const QString &name) = 0;
    // The Analysis ▸ HTA-exact switch changed: analyse the open data again.
    virtual void setHtaExact(bool on) = 0;
    // Whether the shell may pop up dialogs (tests and screenshots: no).
    void setInteractive(bool on) { m_interactive = on; }
    bool interactive() const { return m_interactive; }

Q_SIGNALS:
    void loadStarted(const QString &progressFormat, const QString &status);
    void progress(const QString &stage, double fraction);
    void loadEnded();
    void statusChanged(const QString &text);
    void diagnosticsChanged(const std::vector<syncscope::Diagnostic> &items);
    void diagnosticsWanted();       // errors to look at: raise the Diagnostics dock
    void timelineShown(const QString &title);
    void startPageWanted();         // nothing to show (a failed or cancelled first load)
    void loadFinished(bool ok);
    void opened(const syncscope::ui::RecentPair &recent); // for File > Open Recent
    void criticalPathChanged();
    void exportFinished(bool ok, const QString &message);
    void exportsChanged();          // what can be exported changed

protected:
    Workspace m_ws;
    bool m_interactive = true;
};

// The diagnostics as the GUI shows them: a cancel the user asked for is news, not an
// error (it would read "1 errors" in the status bar).
inline std::vector<Diagnostic> shownDiagnostics(std::vector<Diagnostic> items)
{
    for (Diagnostic &d : items)
        if (d.code == "load.cancelled")
            d.severity = Severity::Info;
    return items;
}

} // namespace syncscope::ui
