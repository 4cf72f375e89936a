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
// Writes a device trace to the temp dir as NAME.kineto.json; returns its path.
std::string writeKineto(const std::string &json, const std::string &name);
// runAnalysis on a device trace given as JSON text (no host trace), as the GUI's loader asks for it.
std::shared_ptr<syncscope::Analysis> analyseKineto(const std::string &json, bool htaExact = false);

// A device trace recorded without the profiler's cuda_sync events except one (issue 28),
// by traceEvents index:
//   0 cudaLaunchKernel -> 1 kernel a (stream 7, ends 136 µs)
//   2 cudaStreamSynchronize 110-139 µs, no cuda_sync row: inferred Stream Sync 1 -> 2
//   3 cudaLaunchKernel -> 4 kernel gemm (ends 206 µs)
//   5 Memcpy DtoH (Device -> Pageable) 206-210 µs, 6 its cudaMemcpyAsync 160-213 µs:
//     inferred Blocking Copy 5 -> 6
//   7 cudaGraphLaunch (correlation 5) -> 8, 9, 10 kernels g0, g1, g2: one graph replay
//   11 cudaLaunchKernel -> 12 kernel k (ends 336 µs)
//   13 cudaStreamSynchronize 310-339 µs with 14, its cuda_sync "Stream Sync" row:
//     recorded (not inferred) Stream Sync 12 -> 13
std::string inferredSyncTrace();

} // namespace uitest
