// SPDX-License-Identifier: MIT
#include "jobexport.h"

#include "util/parallel.h"
#include "jobbuild.h"
#include "session/exitcodes.h"
#include "session/rankpipeline.h"

#include <QThread>

#include <algorithm>
#include <filesystem>
#include <mutex>

namespace syncscope::ui {

namespace fs = std::filesystem;

std::string jobExportProblem(const JobExportOptions &o)
{
    if (o.outputs.dir.empty())
        return "no folder was given for the job export";
    if (o.outputs.prefix.empty() || o.outputs.prefix.find('/') != std::string::npos)
        return "the file name prefix must be non-empty and without '/' (got '" + o.outputs.prefix + "')";
    if (!o.etPlus && !o.outputs.chakraEt && !o.outputs.criticalPath && !o.outputs.overlay)
        return "no kind of file was chosen for the job export";
    return {};
}

std::string JobExportResult::summary(const std::string &dir) const
{
    // Appended piecewise: GCC 12 warns falsely (-Wrestrict) on long chains of std::string +.
    std::string s;
    if (!error.empty()) {
        s = "Job export failed: ";
        s += error;
        return s;
    }
    s = "Job export to ";
    s += dir;
    s += ": ";
    s += std::to_string(written);
    s += " file(s) written for ";
    s += std::to_string(ranks.size());
    s += " rank(s)";
    if (failed)
        s += ", " + std::to_string(failed) + " failed";
    if (skipped)
        s += ", " + std::to_string(skipped) + " skipped";
    if (cancelled)
        s += " (cancelled)";
    int shown = 0;
    for (const auto &r : ranks)
        for (const auto &o : r.outputs) {
            if (o.status == "written" || shown++ >= 3)
                continue;
            s += "\n  rank ";
            s += std::to_string(r.rank);
            s += ": ";
            s += o.path.empty() ? o.kind : o.path;
            s += ' ';
            s += o.status;
            if (!o.reason.empty()) {
                s += ": ";
                s += o.reason;
            }
        }
    return s;
}

JobExportResult exportJob(const JobData &job, const JobExportOptions &options,
                          const std::function<void(size_t, size_t)> &progress, const std::atomic<bool> *cancel)
{
    JobExportResult result;
    result.error = jobExportProblem(options);
    if (!result.error.empty()) {
        result.exitCode = ExitUsage;
        return result;
    }
    const std::string &dir = options.outputs.dir;
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec || !fs::is_directory(dir)) {
        result.error = dir + ": the output folder cannot be created (" +
                       (ec ? ec.message() : std::string("it exists and is not a folder")) + ")";
        result.exitCode = ExitOutput;
        return result;
    }
    // The folder's output list first: a later --job on a folder holding these files skips them.
    {
        std::vector<std::string> names;
        for (const JobRankData &r : job.ranks) {
            RankOutputPaths p = jobRankOutputPaths(options.outputs, {r.rank, "-", r.summary.devicePath});
            if (!options.etPlus)
                p.etPlus.clear();
            for (const std::string *f : {&p.etPlus, &p.chakraEt, &p.criticalPath, &p.overlay})
                if (!f->empty())
                    names.push_back(fs::path(*f).filename().string());
        }
        if (const std::string why = recordOwnOutputs(dir, names); !why.empty()) {
            result.error = why;
            result.exitCode = ExitOutput;
            return result;
        }
    }
    // No file of the job may be replaced, whichever rank it belongs to.
    const std::vector<std::string> inputs = jobInputFiles(job);
    result.ranks.resize(job.ranks.size());
    std::mutex lock;
    size_t done = 0;
    parallelFor(job.ranks.size(), std::max(1u, options.workers), [&](size_t i) {
        const JobRankData &r = job.ranks[i];
        JobExportRank &out = result.ranks[i];
        out.rank = r.rank;
        if (cancel && cancel->load())
            return;
        JobRank names{r.rank, r.summary.hostPath, r.summary.devicePath};
        RankOutputPaths paths = jobRankOutputPaths(options.outputs, names);
        if (!options.etPlus)
            paths.etPlus.clear();
        if (!r.analysis || !r.analysis->inputsOk) {
            // Every requested file is named in the result, the host-based ones too.
            const JobRank named{r.rank, std::string(1, '-'), r.summary.devicePath};
            RankOutputPaths all = jobRankOutputPaths(options.outputs, named);
            if (!options.etPlus)
                all.etPlus.clear();
            for (const std::string *p : {&all.etPlus, &all.chakraEt, &all.criticalPath, &all.overlay})
                if (!p->empty())
                    out.outputs.push_back({"", *p, 0, "skipped", "the rank's traces did not load", {}});
        } else {
            if (names.hostPath.empty() && (options.etPlus || options.outputs.chakraEt))
                out.outputs.push_back({options.outputs.chakraEt ? "chakra_et" : "et_plus", "", 0, "skipped",
                                       "the rank has no host execution trace", {}});
            Diagnostics diagnostics;
            out.exitCode = writeRankOutputs(*r.analysis, paths, inputs, diagnostics, out.outputs);
            for (const auto &d : diagnostics.items())
                if (d.severity == Severity::Error)
                    out.errors.push_back(d.message);
        }
        if (progress) {
            std::lock_guard guard(lock);
            progress(++done, job.ranks.size());
        }
    });
    result.cancelled = cancel && cancel->load();
    for (const auto &r : result.ranks) {
        result.exitCode = std::max(result.exitCode, r.exitCode);
        for (const auto &o : r.outputs)
            (o.status == "written" ? result.written : o.status == "failed" ? result.failed : result.skipped)++;
    }
    return result;
}

JobExporter::JobExporter(QObject *parent)
    : QObject(parent)
{
}

JobExporter::~JobExporter()
{
    if (m_thread) {
        m_cancel = true;
        m_thread->wait();
        delete m_thread;
    }
}

bool JobExporter::start(std::shared_ptr<const JobData> job, const JobExportOptions &options)
{
    m_lastError.clear();
    if (m_thread) {
        m_lastError = tr("A job export is already running.");
        return false;
    }
    if (!job) {
        m_lastError = tr("No job is open.");
        return false;
    }
    if (const std::string why = jobExportProblem(options); !why.empty()) {
        m_lastError = QString::fromStdString(why);
        return false;
    }
    m_cancel = false;
    auto result = std::make_shared<JobExportResult>();
    m_thread = QThread::create([this, job, options, result] {
        *result = exportJob(
            *job, options, [this](size_t done, size_t total) { Q_EMIT progress(int(done), int(total)); }, &m_cancel);
    });
    connect(m_thread, &QThread::finished, this, [this, result, dir = options.outputs.dir] {
        m_thread->deleteLater();
        m_thread = nullptr;
        m_result = *result;
        Q_EMIT finished(m_result.ok(), QString::fromStdString(m_result.summary(dir)));
    });
    m_thread->start();
    return true;
}

} // namespace syncscope::ui
