// SPDX-License-Identifier: MIT
#include "pyrequest.h"

#include "columns.h"

namespace syncscope::py {

namespace pyb = pybind11;

ParsedRequest parseRequest(const std::vector<std::string> &argv)
{
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
    if (!m_active)
        return;
    std::lock_guard<std::mutex> lock(m_mutex);
    const auto now = std::chrono::steady_clock::now();
    if (m_error || (stage == m_lastStage && fraction < 1.0 && now - m_last < std::chrono::milliseconds(100)))
        return;
    m_lastStage = stage;
    m_last = now;
    pyb::gil_scoped_acquire gil;
    try {
        m_callback(pyText(stage), fraction);
    } catch (pyb::error_already_set &e) {
        m_error = std::make_shared<pyb::error_already_set>(std::move(e));
        m_cancel = true;
    }
}

std::function<void(const char *, double)> ProgressSink::function()
{
    if (!m_active)
        return {};
    return [this](const char *stage, double fraction) { report(stage, fraction); };
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
