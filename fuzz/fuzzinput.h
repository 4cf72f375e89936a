// SPDX-License-Identifier: MIT
// Shared by the libFuzzer harnesses: the loaders read files by path, so each
// input is put in an anonymous in-memory file (memfd, a regular file) and
// handed over as /proc/self/fd/N. No disk I/O, nothing left behind.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

// The harness entry point: libFuzzer's, or a distinct name per harness when the
// replay test links them all into one executable.
#ifndef SYNCSCOPE_FUZZ_ENTRY
#define SYNCSCOPE_FUZZ_ENTRY LLVMFuzzerTestOneInput
#endif

namespace syncscope::fuzz {

class MemFile
{
public:
    MemFile(const uint8_t *data, size_t size);
    ~MemFile();
    MemFile(const MemFile &) = delete;
    MemFile &operator=(const MemFile &) = delete;
    const std::string &path() const { return m_path; }

private:
    int m_fd = -1;
    std::string m_path;
};

} // namespace syncscope::fuzz
