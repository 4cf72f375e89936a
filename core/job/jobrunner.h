// SPDX-License-Identifier: MIT
// Runs the ranks of a job through the per-rank pipeline (runRankPipeline, the
// code path of single-pair --batch), several at once, keeping only each rank's
// small RankSummary: a rank's traces are freed as soon as its files are written
// and its summary extracted, so peak memory is about workers x one rank.
#pragma once

#include "discovery.h"
#include "analysis/ranksummary.h"
#include "session/rankpipeline.h"

#include <functional>
#include <string>
#include <vector>

namespace syncscope {

struct JobOutputOptions {
    std::string dir;                // --output-dir; empty: no per-rank files
    std::string prefix = "trace";   // OUT/<prefix>.<rank>.json, .et, ...
    bool chakraEt = false;          // OUT/<prefix>.<rank>.et
    bool criticalPath = false;      // OUT/<prefix>.<rank>.critical_path.json
    bool overlay = false;           // OUT/<prefix>.<rank>.overlay.json
    bool overlayAllEvents = false;
};

struct JobRunOptions {
    AnalysisRequest request;        // linking and critical-path options; paths and rank are set per rank
    JobOutputOptions outputs;
    unsigned workers = 0;           // ranks at once (0: one per core)
    // Each rank's whole-trace breakdowns into RankSummary::breakdown (addRankBreakdown),
    // while its analysis is alive: asked for by --report or --step all, as for one rank.
    bool breakdowns = false;
    // Each rank's GPU ops and their dependencies into RankSummary::gpu (addRankGpuTimeline),
    // for the straggler what-if.
    bool gpuTimelines = false;
    // Called from the worker with a rank's finished analysis and summary, before its
    // traces are freed (the job's SQLite database takes its rows here); concurrent
    // calls for different ranks: must be thread-safe, must not throw.
    std::function<void(const Analysis &, const RankSummary &)> rankAnalysed;
    // Called after each rank, from the worker that ran it (calls are serialised).
    std::function<void(size_t done, size_t total, const RankSummary &)> rankDone;
};

// The files one rank gets under --output-dir (empty paths: not written).
RankOutputPaths jobRankOutputPaths(const JobOutputOptions &outputs, const JobRank &rank);

// One file a job run writes, and what it is ("rank 3's ET+").
struct JobOutputFile {
    std::string path;
    std::string role;
};

// Every file a job run writes: each rank's files under outputs.dir (empty
// paths are not written), the output list there (kOutputManifestName) and the
// report (`reportPath`, when not empty).
std::vector<JobOutputFile> jobOutputFiles(const std::vector<JobRank> &ranks, const JobOutputOptions &outputs,
                                          const std::string &reportPath);

// The rule of a job run, checked before anything is written: no output names
// an input (any file discovery read, any --job path; own outputs it skipped
// excepted) or another output of the run, compared as the files they write to
// (symlinks, "." and ".." resolved, then device and inode for existing files;
// character devices such as /dev/null are exempt). Returns the first clash as
// a sentence naming both roles and paths, empty when there is none.
std::string jobOutputConflict(const JobDiscovery &discovery, const std::vector<std::string> &jobInputs,
                              const std::vector<JobOutputFile> &outputs);

// One rank: pipeline, per-rank files, summary; its traces are freed on return.
// Never throws: an internal failure is the rank's exit code and diagnostic.
RankSummary runJobRank(const JobRank &rank, const JobRunOptions &options);

// The given ranks on options.workers threads; the summaries are in input order.
std::vector<RankSummary> runJobRanks(const std::vector<JobRank> &ranks, const JobRunOptions &options);

} // namespace syncscope
