// SPDX-License-Identifier: MIT
// --diff in batch mode: two runs through the one per-rank pipeline, then the
// run diff (core/diff) as a text summary on stdout and --diff-report JSON.
#pragma once

#include "cliargs.h"
#include "clirequest.h"

#include <string>

namespace syncscope {

// One side of --diff: "DEVICE[,HOST]" (two files in either order, told apart by
// content) or a single device trace. A name that exists as a file is taken whole,
// commas and all.
struct DiffSideSpec {
    std::string devicePath, hostPath;
    bool jobFolder = false; // a directory: a job folder (devicePath holds it)
};
bool parseDiffSide(const std::string &text, DiffSideSpec &out, std::string &error);

// The baseline (--diff's value) and the candidate (the one positional argument).
bool diffSides(const CliArgs &args, DiffSideSpec &baseline, DiffSideSpec &candidate, std::string &error);

// The analysis request of one side: the command line's options, the whole trace
// as the window unless --annotation/--instance narrow it, and every step's path.
AnalysisRequest diffRequest(const CliRequest &cli, const CliArgs &args, const DiffSideSpec &side);

int runBatchDiff(const CliArgs &args, const CliRequest &cli);

// Both runs job folders: ranks discovered in each (core/job/discovery), every rank
// found in both diffed one at a time, the rank diffs merged (core/diff/jobdiff).
int runJobDiff(const CliArgs &args, const CliRequest &cli, const std::string &baseDir, const std::string &candDir);

} // namespace syncscope
