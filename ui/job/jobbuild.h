// SPDX-License-Identifier: MIT
// Builds the inspector's JobData for a job folder synchronously: discovery,
// every rank through the per-rank pipeline of batch job mode (same request,
// same exit codes) keeping each rank's full analysis, the rank summaries and
// the cross-rank analysis. Display-free; call it from a worker thread.
#pragma once

#include "job/jobdata.h"

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace syncscope::ui {

struct JobBuildOptions {
    unsigned workers = 0;                          // ranks at once (0: one per core)
    JobOptions job;                                // the cross-rank analysis
    const std::atomic<bool> *cancel = nullptr;     // set: ranks not started yet are skipped (null result)
    // After each rank, from the worker that ran it (calls are serialised).
    std::function<void(size_t done, size_t total, const JobRankData &)> rankDone;
};

// `inputs` as for `--job` (folders, trace files, list files); `request` is the
// template every rank's AnalysisRequest is made from (its paths and rank are set
// per rank), as app/batchjob.cpp does. Never throws for bad input: discovery
// problems are in discovery.diagnostics, a rank that fails has exitCode != 0
// and a null analysis when its traces did not load. Returns null when cancelled.
std::shared_ptr<JobData> buildJobData(const std::vector<std::string> &inputs, const AnalysisRequest &request,
                                      const JobBuildOptions &options = {});

// One rank of a discovered job: the pipeline batch job mode runs (no files
// written), the full analysis kept. Never throws.
JobRankData buildJobRank(const JobRank &rank, const AnalysisRequest &request);

// The rank summaries of `job` in rank order (for jobreport's functions).
std::vector<RankSummary> jobRankSummaries(const JobData &job);

// Every input file of the job (what no export may overwrite).
std::vector<std::string> jobInputFiles(const JobData &job);

} // namespace syncscope::ui
