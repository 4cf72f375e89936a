// SPDX-License-Identifier: MIT
// The command line as an analysis request, shared by batch mode and the GUI:
// input files (flags, or plain files in either order, or --sample), linking
// and critical-path options, and the GUI's window options.
#pragma once

#include "cliargs.h"
#include "session/analysis.h"

#include <string>

namespace syncscope {

struct CliRequest {
    AnalysisRequest request;          // options; paths set when files were given
    bool hasInputs = false;           // a device trace (or a pair) was named
    std::string screenshot;           // --screenshot FILE
    int width = 1600, height = 1000;  // --size WxH
    std::string select;               // --select NAME
    std::string rankOrder;            // --rank-order rank|step|waits (jobs)
    std::string theme;                // --theme light|dark|system (the window)
    bool openPair = false;            // --open-pair
};

// Returns false with `error` set for a usage error.
bool buildCliRequest(const CliArgs &args, const char *argv0, CliRequest &out, std::string &error);

// "1600x1000" -> (1600, 1000); false when malformed or out of [200, 10000].
bool parseSize(const std::string &text, int &width, int &height);

} // namespace syncscope
