// SPDX-License-Identifier: MIT
#pragma once

#include "cliargs.h"

#include <string>

namespace syncscope {

// Runs --batch mode: load, link, analyse, export, report. Returns the exit code.
int runBatch(const CliArgs &args);

// Where the bundled sample pair is (installed or in the source tree); empty if not found.
struct SamplePair {
    std::string host;
    std::string device;
};
SamplePair findSamplePair(const char *argv0);

} // namespace syncscope
