// SPDX-License-Identifier: MIT
#include "exporter.h"

#include "export/etpluswriter.h"
#include "export/overlaywriter.h"
#include "export/sqlitedb.h"
#include "io/outputfile.h"
#include "session/analysis.h"
#ifdef SYNCSCOPE_HAVE_CHAKRA_ET
#include "export/chakrareplay.h"
#include "export/chakrawriter.h"
#endif

#include <QBuffer>
#include <QFileInfo>
#include <QPixmap>

#include <exception>

namespace syncscope::ui {

QString exportTitle(ExportKind kind)
{
    switch (kind) {
    case ExportKind::EtPlusJson: return QObject::tr("Chakra ET+ JSON");
    case ExportKind::PerfettoOverlay: return QObject::tr("Perfetto overlay");
    case ExportKind::ChakraProtobuf: return QObject::tr("Chakra protobuf");
    case ExportKind::Sqlite: return QObject::tr("SQLite database");
    }
    return {};
}

QString exportFilter(ExportKind kind)
{
    switch (kind) {
    case ExportKind::EtPlusJson: return QObject::tr("ET+ JSON (*.json);;All files (*)");
    case ExportKind::PerfettoOverlay: return QObject::tr("Chrome trace JSON (*.json *.json.gz);;All files (*)");
    case ExportKind::ChakraProtobuf: return QObject::tr("Chakra ET (*.et);;All files (*)");
    case ExportKind::Sqlite: return QObject::tr("SQLite database (*.db *.sqlite);;All files (*)");
    }
    return {};
}

QString exportSuggestedName(ExportKind kind, const QString &devicePath)
{
    QFileInfo fi(devicePath);
    QString stem = fi.fileName();
    for (const char *suffix : {".gz", ".json", ".pt.trace", ".kineto", ".trace"})
        if (stem.endsWith(QLatin1String(suffix)))
            stem.chop(int(qstrlen(suffix)));
    const QString dir = fi.absolutePath() + QLatin1Char('/');
    switch (kind) {
    case ExportKind::EtPlusJson: return dir + stem + QStringLiteral(".et_plus.json");
    case ExportKind::PerfettoOverlay: return dir + QStringLiteral("overlaid_critical_path_") + stem + QStringLiteral(".json.gz");
    case ExportKind::ChakraProtobuf: return dir + stem + QStringLiteral(".0.et");
    case ExportKind::Sqlite: return dir + stem + QStringLiteral(".db");
    }
    return dir + stem;
}

std::vector<ExportKind> availableExportKinds()
{
    std::vector<ExportKind> kinds = {ExportKind::EtPlusJson, ExportKind::PerfettoOverlay};
#ifdef SYNCSCOPE_HAVE_CHAKRA_ET
    kinds.push_back(ExportKind::ChakraProtobuf);
#endif
    kinds.push_back(ExportKind::Sqlite);
    return kinds;
}

bool canExport(const Analysis &a, const CriticalPathResult *cp, ExportKind kind, QString *why)
{
    auto no = [why](const QString &text) {
        if (why)
            *why = text;
        return false;
    };
    if (!a.inputsOk)
        return no(QObject::tr("no trace pair is loaded"));
    switch (kind) {
    case ExportKind::EtPlusJson:
    case ExportKind::ChakraProtobuf:
        if (!a.host || !a.link)
            return no(QObject::tr("needs a host execution trace (open the pair, not the device trace alone)"));
        return true;
    case ExportKind::PerfettoOverlay:
        if (!cp || !cp->success)
            return no(QObject::tr("needs a critical path, which could not be computed"));
        return true;
    case ExportKind::Sqlite: // whatever was analysed; a device trace alone has no link tables
        return true;
    }
    return no({});
}

ExportOutcome runExport(const Analysis &a, const CriticalPathResult *cp, ExportKind kind, const std::string &path)
{
    ExportOutcome out;
    out.path = QString::fromStdString(path);
    QString why;
    if (!canExport(a, cp, kind, &why)) {
        out.message = QObject::tr("%1 was not written: %2").arg(exportTitle(kind), why);
        return out;
    }
    try {
        switch (kind) {
        case ExportKind::EtPlusJson:
            writeEtPlusFile(path, *a.host, *a.device, *a.link, {a.hostPath, a.devicePath});
            out.ok = true;
            break;
        case ExportKind::PerfettoOverlay: {
            Diagnostics diag;
            OverlayOptions options;
            options.otherInputs = {a.hostPath, a.devicePath};
            out.ok = writeOverlay(path, *a.device, *cp, options, diag);
            if (!out.ok && !diag.items().empty())
                out.message = QString::fromStdString(diag.items().back().message);
            break;
        }
        case ExportKind::Sqlite: // the analysis as loaded, as --batch --sqlite writes it
            writeSqliteDatabase(path, a, {a.hostPath, a.devicePath});
            out.ok = true;
            break;
        case ExportKind::ChakraProtobuf:
#ifdef SYNCSCOPE_HAVE_CHAKRA_ET
        {
            Diagnostics diag;
            out.ok = exportChakraEt(path, *a.host, *a.device, *a.link, {a.hostPath, a.devicePath}, diag);
            if (!out.ok)
                for (const Diagnostic &d : diag.items())
                    if (d.severity == Severity::Error)
                        out.message = QString::fromStdString(d.message);
            // The fidelity check of every export (docs/chakra_et.md, "Replay fidelity").
            if (out.ok) {
                try {
                    out.replay = QString::fromStdString(
                        formatReplayErrors(replayChakraEt(path, measuredReplayWindows(*a.device)).windows));
                } catch (const std::exception &) { // the file is written; only the check is missing
                }
            }
        }
#endif
            break;
        }
    } catch (const std::exception &e) {
        out.ok = false;
        out.message = QString::fromUtf8(e.what());
    }
    if (out.ok) {
        out.bytes = QFileInfo(out.path).size();
        out.message = QObject::tr("%1 written to %2 (%3 bytes)")
                          .arg(exportTitle(kind), out.path, QLocale().toString(out.bytes));
        if (!out.replay.isEmpty())
            out.message += QObject::tr("; replayed vs measured: %1").arg(out.replay);
    } else if (out.message.isEmpty()) {
        out.message = QObject::tr("%1 could not be written to %2").arg(exportTitle(kind), out.path);
    }
    return out;
}

QString saveScreenshot(const QPixmap &pixmap, const std::string &path, const std::vector<std::string> &inputs)
{
    QByteArray png;
    QBuffer buffer(&png);
    buffer.open(QIODevice::WriteOnly);
    if (pixmap.isNull() || !pixmap.save(&buffer, "PNG"))
        return QString::fromStdString(path) + QObject::tr(": the window could not be rendered to PNG");
    try {
        writeFileAtomically(path, std::string_view(png.constData(), static_cast<size_t>(png.size())), inputs);
    } catch (const OutputError &e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

} // namespace syncscope::ui
