// SPDX-License-Identifier: MIT
// The exports the GUI offers, done by the same core writers as --batch (atomic
// writes that never overwrite an input), so a GUI export equals the batch output.
#pragma once

#include <QString>

class QPixmap;

#include <string>
#include <vector>

namespace syncscope {
struct Analysis;
struct CriticalPathResult;
} // namespace syncscope

namespace syncscope::ui {

// Sqlite: the trace and every analysis as one database (docs/sqlite.md), as --sqlite.
enum class ExportKind { EtPlusJson, PerfettoOverlay, ChakraProtobuf, Sqlite };

QString exportTitle(ExportKind kind);     // "Chakra ET+ JSON"
QString exportFilter(ExportKind kind);    // for the file dialog
QString exportSuggestedName(ExportKind kind, const QString &devicePath);
std::vector<ExportKind> availableExportKinds(); // Chakra protobuf only when built in

// Whether the loaded analysis can give this export; `why` says why not.
bool canExport(const Analysis &analysis, const CriticalPathResult *cp, ExportKind kind, QString *why = nullptr);

struct ExportOutcome {
    bool ok = false;
    QString path;
    QString message; // what happened, for the status bar and the dialog
    qint64 bytes = 0;
    QString replay;  // Chakra protobuf: replayed vs measured per step and overall ("ProfilerStep#0 -0.4 %, ...")
};

// Writes the export (blocking; call from a worker thread). Thread-safe for a
// const, finished analysis.
ExportOutcome runExport(const Analysis &analysis, const CriticalPathResult *cp, ExportKind kind,
                        const std::string &path);

// Saves `pixmap` as PNG to `path` with the rules of every other output (atomic,
// never over one of `inputs`, symlinks kept, FIFOs written through). Returns
// an empty string, or the error.
QString saveScreenshot(const QPixmap &pixmap, const std::string &path, const std::vector<std::string> &inputs);

} // namespace syncscope::ui
