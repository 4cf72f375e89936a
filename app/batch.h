// SPDX-License-Identifier: MIT
#pragma once

#include "cliargs.h"

#include <string>

namespace syncscope {

struct CliRequest;

// Runs --batch mode: load, link, analyse, export, report. Returns the exit code.
int runBatch(const CliArgs &args, const CliRequest &request);

} // namespace syncscope
