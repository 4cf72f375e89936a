// SPDX-License-Identifier: MIT
// The GUI entry point called by app/main.cpp: the inspector window, or with
// --screenshot a headless render of it to a PNG.
#pragma once

#include "cliargs.h"

namespace syncscope {

int runGui(int argc, char **argv, const CliArgs &cli);

} // namespace syncscope
