// SPDX-License-Identifier: MIT
// The GUI entry point called by app/main.cpp: the inspector window, or with
// --screenshot a headless render of it to a PNG.
#pragma once

#include "session/analysis.h"

#include <string>

namespace syncscope {

// What app/ parsed from the command line for the GUI.
struct GuiOptions {
    AnalysisRequest request;          // options, and the files when hasInputs
    bool hasInputs = false;
    std::string screenshot;           // non-empty: render to this PNG and exit
    int width = 1600, height = 1000;
    std::string select;               // op to select (by name) before the screenshot
    std::string rankOrder;            // jobs: "rank" (default), "step" or "waits"
    std::string theme;                // --theme: "light", "dark", "system"; "" the saved one
    bool openPair = false;            // start with the Open pair dialog
    // --diff BASELINE CANDIDATE: the compare window (ui/diff) instead of the inspector.
    bool diff = false;
    AnalysisRequest diffBaseline, diffCandidate;
};

// Returns an exit code (session/exitcodes.h).
int runGui(int argc, char **argv, const GuiOptions &options);

} // namespace syncscope
