// SPDX-License-Identifier: MIT
// Exports are written atomically: data goes to a temporary file in the target
// directory, which is renamed over the target only after everything was
// written and flushed. A failed or cancelled export leaves no partial file.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace syncscope {

class OutputError : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

// True when `a` and `b` name the same existing file (same device and inode),
// or the same path once made absolute.
bool sameFile(const std::string &a, const std::string &b);

class OutputFile
{
public:
    enum class Compression { None, Gzip };

    // Throws OutputError when `path` is one of `inputs` (we never overwrite an
    // input) or when the temporary file cannot be created.
    OutputFile(std::string path, const std::vector<std::string> &inputs = {},
               Compression compression = Compression::None);
    ~OutputFile();
    OutputFile(const OutputFile &) = delete;
    OutputFile &operator=(const OutputFile &) = delete;

    void write(std::string_view data);
    void write(char c)
    {
        if (m_buffer.size() + 1 > kBufferSize)
            flushBuffer();
        m_buffer.push_back(c);
    }
    // Buffer for callers that format directly into it; call wrote() afterwards.
    std::string &buffer() { return m_buffer; }
    void maybeFlush()
    {
        if (m_buffer.size() >= kBufferSize)
            flushBuffer();
    }
    // Flushes, syncs and renames the temporary file onto the target.
    void commit();
    const std::string &path() const { return m_path; }

private:
    static constexpr size_t kBufferSize = 1 << 20;
    void flushBuffer();
    void writeRaw(const char *data, size_t n);

    std::string m_path;
    std::string m_tmpPath;
    int m_fd = -1;
    bool m_committed = false;
    std::string m_buffer;
    struct Deflater;
    std::unique_ptr<Deflater> m_deflate;
};

// Convenience: writes `data` atomically to `path`.
void writeFileAtomically(const std::string &path, std::string_view data,
                         const std::vector<std::string> &inputs = {});

} // namespace syncscope
