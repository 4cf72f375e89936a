// SPDX-License-Identifier: MIT
// Diagnostics are data: every reader and analysis appends to a list that the
// batch report, the stderr summary and the GUI's Diagnostics panel all show.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace syncscope {

enum class Severity { Info, Warning, Error };

const char *severityName(Severity s);

struct Diagnostic {
    Severity severity = Severity::Info;
    std::string code;    // stable machine-readable id, e.g. "kineto.no_cuda_sync"
    std::string message; // one human sentence; names the file when one is involved
    std::string file;    // input the diagnostic is about (may be empty)
    int64_t offset = -1; // byte offset in the (decompressed) input, -1 when unknown
    int64_t count = 1;   // how many times the same code/file was reported
};

// Collects diagnostics; repeated codes for the same file are folded into one
// entry with a count so a trace with a million broken events stays readable.
class Diagnostics
{
public:
    void add(Severity severity, std::string code, std::string message, std::string file = {},
             int64_t offset = -1);
    void info(std::string code, std::string message, std::string file = {});
    void warning(std::string code, std::string message, std::string file = {}, int64_t offset = -1);
    void error(std::string code, std::string message, std::string file = {}, int64_t offset = -1);

    // Appends an item as it is, count included (lists read back from bytes).
    void addItem(Diagnostic item) { m_items.push_back(std::move(item)); }
    void append(const Diagnostics &other);
    // Like append, but skips entries this list already has with the same code,
    // file and message (two analyses reporting the same fact about one trace).
    void appendNew(const Diagnostics &other);

    // Lowers every Error whose code starts with `codePrefix` to a Warning: a failed
    // analysis the user did not ask for must not read as a failed run.
    void demoteErrors(const std::string &codePrefix);

    const std::vector<Diagnostic> &items() const { return m_items; }
    bool hasErrors() const;
    int count(Severity s) const;
    const Diagnostic *find(const std::string &code) const;

private:
    std::vector<Diagnostic> m_items;
};

} // namespace syncscope
