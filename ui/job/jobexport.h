// SPDX-License-Identifier: MIT
// Exports every loaded rank of an opened job into one folder, with the names and
// writers of batch job mode (`--job --output-dir DIR --prefix P`): DIR/P.RANK.et
// (Chakra protobuf), DIR/P.RANK.json (ET+), DIR/P.RANK.overlay.json,
// DIR/P.RANK.critical_path.json. Each file is written atomically and never over
// one of the job's inputs (core/io/outputfile.h); one that fails does not stop
// the others. exportJob() is display-free and blocking; JobExporter runs it on a
// worker thread and reports when it is done.
#pragma once

#include "job/jobdata.h"
#include "job/jobrunner.h"
#include "report/batchreport.h"

#include <QObject>

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

class QThread;

namespace syncscope::ui {

struct JobExportOptions {
    // dir, prefix and which per-rank files (chakraEt, criticalPath, overlay, overlayAllEvents).
    JobOutputOptions outputs;
    bool etPlus = false; // also DIR/P.RANK.json (batch job mode always writes it)
    unsigned workers = 1; // ranks at once
};

struct JobExportRank {
    int64_t rank = -1;
    std::vector<OutputRecord> outputs; // one per requested file: written, failed or skipped
    std::vector<std::string> errors;   // why a file failed
    int exitCode = 0;                  // 0, 4 (an output failed: 5) or 6
};

struct JobExportResult {
    std::string error;               // the export could not start (bad prefix, folder not creatable)
    std::vector<JobExportRank> ranks; // every rank of the job, ascending
    size_t written = 0, failed = 0, skipped = 0;
    int exitCode = 0;                // worst over the ranks (README "Exit codes")
    bool cancelled = false;

    bool ok() const { return error.empty() && failed == 0 && !cancelled; }
    // "Job export to DIR: 8 file(s) written for 8 rank(s), 0 failed" and the first problems.
    std::string summary(const std::string &dir) const;
};

// Why these options cannot be used ("" when they can): an empty folder, a prefix
// that is empty or holds '/', nothing to write.
std::string jobExportProblem(const JobExportOptions &options);

// Writes the files (blocking; thread-safe for a const, finished job). Creates the
// folder when needed. `progress` is called after each rank (serialised); `cancel`
// stops before the next rank.
JobExportResult exportJob(const JobData &job, const JobExportOptions &options,
                          const std::function<void(size_t done, size_t total)> &progress = {},
                          const std::atomic<bool> *cancel = nullptr);

// Runs exportJob off the GUI thread; one export at a time.
class JobExporter : public QObject
{
    Q_OBJECT
public:
    explicit JobExporter(QObject *parent = nullptr);
    ~JobExporter() override; // cancels a running export and waits for it

    // False when an export is already running or the options are unusable (then
    // finished() is not emitted; lastError() says why).
    bool start(std::shared_ptr<const JobData> job, const JobExportOptions &options);
    bool isRunning() const { return m_thread != nullptr; }
    void cancel() { m_cancel = true; }
    // The last finished export's result (valid after finished()).
    const JobExportResult &result() const { return m_result; }
    QString lastError() const { return m_lastError; }

Q_SIGNALS:
    void progress(int done, int total); // ranks
    // ok: every requested file was written; message: for the status bar / a dialog.
    void finished(bool ok, const QString &message);

private:
    QThread *m_thread = nullptr;
    std::atomic<bool> m_cancel{false};
    JobExportResult m_result;
    QString m_lastError;
};

} // namespace syncscope::ui
