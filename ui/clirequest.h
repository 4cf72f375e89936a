// SPDX-License-Identifier: MIT
// The command line as an analysis request for the GUI: input files (either
// order), --sample, and the linking / critical-path options batch mode also takes.
#pragma once

#include "cliargs.h"
#include "session/analysis.h"

#include <string>

namespace syncscope::ui {

struct GuiCli {
    AnalysisRequest request;   // options; paths set when files were given
    bool hasInputs = false;
    std::string screenshot;    // --screenshot FILE
    int width = 1600, height = 1000; // --size WxH
    std::string select;        // --select NAME
};

// Returns false with `error` set for a usage error.
bool guiCliFromArgs(const CliArgs &args, const char *argv0, GuiCli &out, std::string &error);

// "1600x1000" -> (1600, 1000); false when malformed or out of [200, 10000].
bool parseSize(const std::string &text, int &width, int &height);

} // namespace syncscope::ui
