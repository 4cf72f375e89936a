// SPDX-License-Identifier: MIT
// What every entry point of the module shares: the options as the command line
// takes them (the Python half turns keyword arguments into CLI arguments, and
// app/'s parser makes the request, so Python, CLI and GUI read options alike),
// the progress callback, and the exceptions Python sees.
#pragma once

#include "cliargs.h"
#include "clirequest.h"
#include "model/diagnostics.h"

#include <pybind11/pybind11.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace syncscope::py {

// Mapped to syncscope.UsageError (ValueError), InputError (ValueError),
// OutputError (OSError) and AnalysisError (RuntimeError) by module.cpp.
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};
struct InputError : std::runtime_error {
    using std::runtime_error::runtime_error;
};
struct ExportError : std::runtime_error {
    using std::runtime_error::runtime_error;
};
struct AnalysisError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The command line (without argv[0]) parsed as `syncscope` parses it. Throws UsageError
// with the CLI's message.
struct ParsedRequest {
    CliArgs args;
    CliRequest cli;
};
ParsedRequest parseRequest(const std::vector<std::string> &argv);
// Throws UsageError when `text` (a path, an argument) holds a NUL byte.
void requireNoNul(const std::string &text, const char *what);

// The Error diagnostics joined into one message ("" when none).
std::string errorText(const Diagnostics &diagnostics, const std::string &prefix = {});

// A Python callable(stage: str, fraction: float), called from any thread with the
// GIL taken, at most every 100 ms per stage (stage changes and 1.0 always pass).
// An exception it raises cancels the work and is re-raised by rethrowIfFailed().
class ProgressSink
{
public:
    explicit ProgressSink(pybind11::object callback);
    ~ProgressSink();
    bool active() const { return m_active; }
    void report(const std::string &stage, double fraction);
    std::function<void(const char *, double)> function();
    const std::atomic<bool> *cancelFlag() const { return &m_cancel; }
    void rethrowIfFailed(); // with the GIL held
    // Records a Python error raised outside the callback (a KeyboardInterrupt) and cancels.
    void fail(pybind11::error_already_set error);

private:
    pybind11::object m_callback;
    bool m_active = false;
    std::atomic<bool> m_cancel{false};
    std::mutex m_mutex;
    std::string m_lastStage;
    std::chrono::steady_clock::time_point m_last{};
    std::shared_ptr<pybind11::error_already_set> m_error;
};

// Runs `work` on a worker thread, the GIL released, while the calling thread (called with
// the GIL held: Python's main thread, which alone runs signal handlers) checks for signals
// every 50 ms: Ctrl+C cancels the work through the sink's flag, and rethrowIfFailed raises
// the KeyboardInterrupt once it stopped. An exception `work` throws is rethrown here.
void runInterruptible(ProgressSink &sink, const std::function<void()> &work);

} // namespace syncscope::py
