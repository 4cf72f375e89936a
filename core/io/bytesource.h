// SPDX-License-Identifier: MIT
// Sequential readers over an input file. Gzip is recognised by its magic bytes
// (1f 8b), never by the file name, and inflated while streaming so a large
// trace is never held twice in memory.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

namespace syncscope {

// Thrown for unreadable or corrupt input; `what()` is a complete sentence that
// names the file. Loaders turn it into an Error diagnostic.
class InputError : public std::runtime_error
{
public:
    InputError(std::string code, const std::string &message, int64_t offset = -1)
        : std::runtime_error(message), m_code(std::move(code)), m_offset(offset)
    {
    }
    const std::string &code() const { return m_code; }
    int64_t offset() const { return m_offset; }

private:
    std::string m_code;
    int64_t m_offset;
};

class ByteSource
{
public:
    virtual ~ByteSource() = default;
    // Reads up to `n` bytes; returns 0 only at the end of the data. Throws InputError.
    virtual size_t read(char *dst, size_t n) = 0;
    // Bytes of the underlying file consumed so far (compressed bytes for gzip), for progress.
    virtual uint64_t consumed() const = 0;
    virtual uint64_t fileSize() const = 0;
    virtual bool compressed() const = 0;
    // Expected number of bytes read() will return: the file size, or for gzip the
    // uncompressed size its trailer records (modulo 4 GiB, so only a hint).
    virtual uint64_t sizeHint() const { return fileSize(); }
};

// Opens `path`; throws InputError ("input.missing", "input.directory", "input.unreadable").
std::unique_ptr<ByteSource> openByteSource(const std::string &path);

// Reads a whole (possibly gzip'd) file into memory. For small inputs and tests.
std::string readWholeFile(const std::string &path);

} // namespace syncscope
