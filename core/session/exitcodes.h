// SPDX-License-Identifier: MIT
// The documented exit codes, shared by batch mode and the GUI's headless paths.
#pragma once

namespace syncscope {

enum ExitCode : int {
    ExitOk = 0,
    ExitInternal = 1,      // unexpected failure (a bug: please report it)
    ExitUsage = 2,         // bad command line
    ExitBadInput = 3,      // an input is missing, unreadable, of the wrong kind or invalid
    ExitLinkedNothing = 4, // the pair loaded but not a single host op could be linked
    ExitOutput = 5,        // an output could not be written
    ExitAnalysis = 6,      // the requested analysis failed (e.g. --compat chakra on a trace without ProfilerStep)
};

} // namespace syncscope
