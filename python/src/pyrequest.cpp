// SPDX-License-Identifier: MIT
#include "pyrequest.h"

#include <thread>

#include "columns.h"

namespace syncscope::py {

namespace pyb = pybind11;

void requireNoNul(const std::string &text, const char *what)
{
    const size_t nul = text.find('\0');
    if (nul != std::string::npos)
        throw UsageError(std::string(what) + " contains a NUL byte at offset " + std::to_string(nul) +
                         ": a path cannot (it would be cut there)");
}

ParsedRequest parseRequest(const std::vector<std::string> &argv)
{
    for (const std::string &a : argv)
        requireNoNul(a, "an argument");
    ParsedRequest out;
    out.args = parseCli(argv);
    if (!out.args.error.empty())
        throw UsageError(out.args.error);
    std::string error;
    if (!buildCliRequest(out.args, "syncscope", out.cli, error))
        throw UsageError(error);
    return out;
}

std::string errorText(const Diagnostics &diagnostics, const std::string &prefix)
{
    std::string text;
    for (const auto &d : diagnostics.items())
        if (d.severity == Severity::Error)
            text += (text.empty() ? "" : "\n") + prefix + d.message;
    return text;
}

ProgressSink::ProgressSink(pyb::object callback)
    : m_callback(std::move(callback))
{
    m_active = m_callback && !m_callback.is_none();
}

ProgressSink::~ProgressSink() = default;

void ProgressSink::report(const std::string &stage, double fraction)
{
    std::lock_guard<std::mutex> lock(m_mutex);
    const auto now = std::chrono::steady_clock::now();
    if (m_error || (stage == m_lastStage && fraction < 1.0 && now - m_last < std::chrono::milliseconds(100)))
        return;
    m_lastStage = stage;
    m_last = now;
    pyb::gil_scoped_acquire gil;
    try {
        // Ctrl+C during a call: the signal handler runs here (on the main thread), so a
        // KeyboardInterrupt cancels the work now, not when the call returns (issue 40).
        if (PyErr_CheckSignals() != 0)
            throw pyb::error_already_set();
        if (m_active)
            m_callback(pyText(stage), fraction);
    } catch (pyb::error_already_set &e) {
        m_error = std::make_shared<pyb::error_already_set>(std::move(e));
        m_cancel = true;
    }
}

std::function<void(const char *, double)> ProgressSink::function()
{
    return [this](const char *stage, double fraction) { report(stage, fraction); };
}

void ProgressSink::fail(pyb::error_already_set error)
{
    std::lock_guard<std::mutex> lock(m_mutex);
    if (!m_error)
        m_error = std::make_shared<pyb::error_already_set>(std::move(error));
    m_cancel = true;
}

void runInterruptible(ProgressSink &sink, const std::function<void()> &work)
{
    std::exception_ptr thrown;
    std::atomic<bool> done{false};
    std::thread worker([&] {
        try {
            work();
        } catch (...) {
            thrown = std::current_exception();
        }
        done = true;
    });
    {
        pyb::gil_scoped_release release;
        for (int tick = 1; !done; ++tick) {
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
            if (tick % 10 != 0 || done)
                continue;
            pyb::gil_scoped_acquire gil;
            if (PyErr_CheckSignals() != 0)
                sink.fail(pyb::error_already_set());
        }
        worker.join();
    }
    if (thrown)
        std::rethrow_exception(thrown);
}

void ProgressSink::rethrowIfFailed()
{
    if (m_error) {
        auto e = std::move(m_error);
        e->restore();
        throw pyb::error_already_set();
    }
}

} // namespace syncscope::py
