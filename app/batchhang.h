// SPDX-License-Identifier: MIT
// Hang mode of the command line (--batch --flight-recorder DIR, issue 29): reads every
// NCCL flight recorder dump under DIR, runs the cross-rank hang analysis
// (core/hang/hanganalysis.h), prints the root cause first and writes the --report.
// docs/hang_diagnosis.md.
#pragma once

#include "cliargs.h"

namespace syncscope {

int runBatchHang(const CliArgs &args);

} // namespace syncscope
