// SPDX-License-Identifier: MIT
// Job mode of the command line (--batch --job DIR): the options, discovery,
// the cross-rank analysis, the report and the summary. Shared by the syncscope
// executable (ranks on threads) and syncscope-mpi (ranks on MPI processes), so
// both check the same options and write the same report.
#pragma once

#include "analysis/whatif.h"
#include "cliargs.h"
#include "clirequest.h"
#include "job/discovery.h"
#include "job/jobdocument.h"
#include "job/jobrunner.h"

#include <memory>
#include <string>
#include <vector>

namespace syncscope {

struct JobCli {
    std::vector<std::string> inputs; // --job, each time given
    JobRunOptions run;
    std::string reportPath;          // --report
    bool quiet = false;
    std::vector<WhatIfRule> whatIf;  // --what-if, applied per rank, job critical path recomputed
    ClockMode clocks = ClockMode::Align; // --clocks
    bool stragglerWhatIf = false;    // --straggler-whatif
    ParallelismSpec parallelism;     // --parallelism
    std::string sqlitePath;          // --sqlite: one database for every rank
    std::shared_ptr<struct JobSqlite> sqlite; // open while the ranks run (batchjobsqlite.h)
};

// Checks the job-mode command line; false with a usage message in `error`.
bool buildJobCli(const CliArgs &args, const CliRequest &request, unsigned defaultWorkers, JobCli &out,
                 std::string &error);

// Finds the ranks (the output directory is not searched unless an input lies in it).
JobDiscovery discoverJobInputs(const JobCli &job);

// Creates --output-dir; false with a message.
bool prepareOutputDir(const JobCli &job, std::string &error);

// Before anything is written: checks that no output of the run names an input
// or another output (ExitUsage), creates --output-dir and records the files the
// run writes there in its output list (ExitOutput when either fails). Returns
// ExitOk, or the exit code with the message in `error`.
int prepareJobOutputs(const JobCli &job, const JobDiscovery &discovery, std::string &error);

// The cross-rank analysis of the finished ranks, the report (--report) and the
// summary on stderr. Returns the job's exit code.
int finishJob(const JobCli &job, const JobDiscovery &discovery, const std::vector<RankSummary> &ranks,
              JobTiming timing);

// syncscope --batch --job ...: everything on this machine, --jobs ranks at once.
int runBatchJob(const CliArgs &args, const CliRequest &request);

} // namespace syncscope
