// SPDX-License-Identifier: MIT
// Helpers of the UI tests: the bundled sample pair, analysed as the GUI does it.
#pragma once

#include "session/analysis.h"

#include <memory>
#include <string>

namespace uitest {

std::string sampleHost();
std::string sampleDevice();
// runAnalysis on the sample pair with keepRawEvents (what the GUI's loader asks for).
std::shared_ptr<syncscope::Analysis> sampleAnalysis();
// A Kineto trace from JSON text, written to a temp file and loaded by core.
std::shared_ptr<const syncscope::KinetoTrace> loadKineto(const std::string &json);

} // namespace uitest
