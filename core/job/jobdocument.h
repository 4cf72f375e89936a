// SPDX-License-Identifier: MIT
// The job report (--report in job mode) and the job's text summary, built from
// discovery, the per-rank summaries and the cross-rank analysis. Shared by
// `syncscope --batch --job` and `syncscope-mpi`, so both write the same document
// (apart from "timing").
#pragma once

#include "discovery.h"
#include "jobanalysis.h"
#include "analysis/ranksummary.h"
#include "report/batchreport.h"
#include "session/analysis.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace syncscope {

struct JobTiming {
    double discoverySeconds = 0;
    double ranksSeconds = 0;    // the per-rank pipelines, wall clock
    double analysisSeconds = 0; // the cross-rank analysis
    double totalSeconds = 0;
    unsigned workers = 1;       // ranks at once per process
    int processes = 1;          // MPI processes (1 without MPI)
};

struct JobReportInput {
    const JobDiscovery *discovery = nullptr;
    const std::vector<RankSummary> *ranks = nullptr; // one per discovery rank, same order
    const JobAnalysis *analysis = nullptr;
    const CriticalPathOptions *window = nullptr;     // which step the per-rank step time is taken from
    const AnalysisRequest *request = nullptr;        // the ranks' request: which window rule (job.window)
    int exitCode = 0;
    JobTiming timing;
    std::vector<OutputRecord> outputs;               // job-wide files (--sqlite): the report's "outputs"
};

// Which summaries go to the cross-rank analysis: the ranks whose traces loaded.
std::vector<RankSummary> analysableRanks(const std::vector<RankSummary> &ranks);

// The worst exit code of the job: discovery errors count as bad input.
int jobExitCode(const JobDiscovery &discovery, const std::vector<RankSummary> &ranks);

// The step (or window) time of a rank in µs, -1 when unknown: the ProfilerStep#N
// its critical path covers, else the steps `window`'s instances index, else the trace.
double rankStepTimeUs(const RankSummary &rank, const CriticalPathOptions &window);

// The report's job.window: the window rule the ranks followed and the step most covered.
nlohmann::ordered_json jobWindowJson(const JobReportInput &in);

// Keys: job, ranks, collectives, stragglers, job_critical_path, timing (README "Job report").
std::string buildJobReportJson(const JobReportInput &in);

// Per-rank table, top stragglers and the collectives they delayed most, problems.
std::string formatJobSummary(const JobReportInput &in);

} // namespace syncscope
