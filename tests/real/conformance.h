// SPDX-License-Identifier: MIT
// The invariants the real-trace conformance suite checks: facts that hold on any
// trace torch.profiler wrote, whatever its shape (docs/conformance.md).
#pragma once

#include "realtraces.h"

#include <string>
#include <vector>

namespace realtraces {

struct Violation {
    std::string invariant; // gpu_rows, whole_path, step_path, blocking_calls, et_replay, errors, finite
    std::string detail;
};

// Runs the pair (or the device trace alone) through the batch pipeline
// (runRankPipeline, with a .et export when there is an ET) and checks every
// invariant. `scratch` is a folder for the .et.
std::vector<Violation> checkPair(const PairCase &c, const std::string &scratch);

// A whole job folder through discovery, every rank's pipeline and the job analysis.
std::vector<Violation> checkJob(const std::string &dir);

// A folder of flight recorder dumps through the hang analysis.
std::vector<Violation> checkHangFolder(const std::string &dir);

// An ET without its Kineto trace: it loads completely, without errors.
std::vector<Violation> checkHostOnly(const std::string &path);

// HTA f4d0062's critical path for the golden's call, with --hta-exact.
std::vector<Violation> checkHtaGolden(const std::string &goldenPath);

// Non-finite numbers in a report (null where a figure belongs; nan/inf in text).
void checkFiniteJson(const std::string &json, const std::string &what, std::vector<Violation> &out);
void checkFiniteText(const std::string &text, const std::string &what, std::vector<Violation> &out);

} // namespace realtraces
