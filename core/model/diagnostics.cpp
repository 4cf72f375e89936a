// SPDX-License-Identifier: MIT
#include "diagnostics.h"

namespace syncscope {

const char *severityName(Severity s)
{
    switch (s) {
    case Severity::Info:
        return "info";
    case Severity::Warning:
        return "warning";
    case Severity::Error:
        return "error";
    }
    return "info";
}

void Diagnostics::add(Severity severity, std::string code, std::string message, std::string file,
                      int64_t offset)
{
    for (auto &d : m_items) {
        if (d.code == code && d.file == file && d.severity == severity) {
            ++d.count;
            return;
        }
    }
    m_items.push_back({severity, std::move(code), std::move(message), std::move(file), offset, 1});
}

void Diagnostics::info(std::string code, std::string message, std::string file)
{
    add(Severity::Info, std::move(code), std::move(message), std::move(file));
}

void Diagnostics::warning(std::string code, std::string message, std::string file, int64_t offset)
{
    add(Severity::Warning, std::move(code), std::move(message), std::move(file), offset);
}

void Diagnostics::error(std::string code, std::string message, std::string file, int64_t offset)
{
    add(Severity::Error, std::move(code), std::move(message), std::move(file), offset);
}

void Diagnostics::append(const Diagnostics &other)
{
    for (const auto &d : other.m_items) {
        for (int64_t i = 0; i < d.count; ++i)
            add(d.severity, d.code, d.message, d.file, d.offset);
    }
}

void Diagnostics::appendNew(const Diagnostics &other)
{
    for (const auto &d : other.m_items) {
        bool known = false;
        for (const auto &mine : m_items)
            known |= mine.code == d.code && mine.file == d.file && mine.message == d.message;
        if (!known)
            m_items.push_back(d);
    }
}

void Diagnostics::demoteErrors(const std::string &codePrefix)
{
    for (auto &d : m_items)
        if (d.severity == Severity::Error && d.code.rfind(codePrefix, 0) == 0)
            d.severity = Severity::Warning;
}

bool Diagnostics::hasErrors() const
{
    return count(Severity::Error) > 0;
}

int Diagnostics::count(Severity s) const
{
    int n = 0;
    for (const auto &d : m_items)
        n += d.severity == s ? 1 : 0;
    return n;
}

const Diagnostic *Diagnostics::find(const std::string &code) const
{
    for (const auto &d : m_items)
        if (d.code == code)
            return &d;
    return nullptr;
}

} // namespace syncscope
