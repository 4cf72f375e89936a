// SPDX-License-Identifier: MIT
// One rank, end to end: the analysis (runAnalysis) plus the files batch mode
// writes for it (ET+, Chakra .et, critical path, overlay) and the exit code
// they add up to. Single-pair --batch and every rank of a job (--job, MPI) go
// through this one code path.
#pragma once

#include "report/batchreport.h"
#include "session/analysis.h"

#include <memory>
#include <string>
#include <vector>

namespace syncscope {

struct RankOutputPaths {
    std::string etPlus;       // --output
    std::string chakraEt;     // --chakra-et
    std::string criticalPath; // --critical-path
    std::string overlay;      // --overlay
    std::string sqlite;       // --sqlite: the trace and every analysis as one SQLite database
    bool overlayAllEvents = false;
    // A failed critical path fails the run (exit 6) when it was asked for: an output
    // that needs it, a window option, or a run whose only product is the analysis.
    // Otherwise its errors become warnings.
    bool criticalPathAsked = true;
};

struct RankRun {
    std::shared_ptr<Analysis> analysis;
    std::vector<OutputRecord> outputs;
    int exitCode = 0;
};

// Never throws for bad input or an unwritable output: both become diagnostics
// and the exit code (README "Exit codes").
RankRun runRankPipeline(const AnalysisRequest &request, const RankOutputPaths &outputs);

// The files of `outputs` for a finished analysis, each on its own (one that
// fails does not stop the others), never over one of `inputs`: what
// runRankPipeline writes, for an analysis already at hand (the GUI's job
// export). Problems go to `diagnostics`, one record per requested file to
// `records`; returns the exit code they call for (0, 4 or 6).
int writeRankOutputs(const Analysis &analysis, const RankOutputPaths &outputs, const std::vector<std::string> &inputs,
                     Diagnostics &diagnostics, std::vector<OutputRecord> &records);

} // namespace syncscope
