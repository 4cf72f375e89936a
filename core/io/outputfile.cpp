// SPDX-License-Identifier: MIT
#include "outputfile.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

namespace syncscope {

namespace fs = std::filesystem;

struct OutputFile::Deflater {
    z_stream z{};
    std::string out;
};

bool sameFile(const std::string &a, const std::string &b)
{
    struct stat sa {}, sb {};
    if (::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    std::error_code ec;
    const auto pa = fs::weakly_canonical(fs::absolute(a, ec), ec);
    const auto pb = fs::weakly_canonical(fs::absolute(b, ec), ec);
    return pa == pb;
}

OutputFile::OutputFile(std::string path, const std::vector<std::string> &inputs, Compression compression)
    : m_path(std::move(path))
{
    for (const auto &in : inputs) {
        if (!in.empty() && sameFile(m_path, in))
            throw OutputError(m_path + ": refusing to overwrite an input file; choose another output path");
    }
    struct stat st {};
    if (::stat(m_path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
        throw OutputError(m_path + ": is a directory, expected an output file name");
    fs::path target(m_path);
    const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
    std::string tmpl = (dir / ("." + target.filename().string() + ".tmp-XXXXXX")).string();
    m_fd = ::mkstemp(tmpl.data());
    if (m_fd < 0)
        throw OutputError(m_path + ": cannot create a temporary file in " + dir.string() + ": " +
                          std::strerror(errno));
    m_tmpPath = tmpl;
    ::fchmod(m_fd, 0644);
    m_buffer.reserve(kBufferSize + 4096);
    if (compression == Compression::Gzip) {
        m_deflate = std::make_unique<Deflater>();
        // Level 1: exports are large and written interactively; speed beats ratio.
        if (deflateInit2(&m_deflate->z, 1, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
            throw OutputError(m_path + ": cannot initialise zlib");
        m_deflate->out.resize(1 << 20);
    }
}

OutputFile::~OutputFile()
{
    if (m_deflate)
        deflateEnd(&m_deflate->z);
    if (!m_committed) {
        if (m_fd >= 0)
            ::close(m_fd);
        if (!m_tmpPath.empty())
            ::unlink(m_tmpPath.c_str());
    }
}

void OutputFile::write(std::string_view data)
{
    if (m_buffer.size() + data.size() > kBufferSize)
        flushBuffer();
    if (data.size() > kBufferSize) {
        if (m_deflate) {
            m_buffer.append(data);
            flushBuffer();
        } else {
            writeRaw(data.data(), data.size());
        }
        return;
    }
    m_buffer.append(data);
}

void OutputFile::writeRaw(const char *data, size_t n)
{
    while (n > 0) {
        const ssize_t w = ::write(m_fd, data, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            throw OutputError(m_path + ": write failed: " + std::strerror(errno));
        }
        data += w;
        n -= static_cast<size_t>(w);
    }
}

void OutputFile::flushBuffer()
{
    if (m_buffer.empty())
        return;
    if (!m_deflate) {
        writeRaw(m_buffer.data(), m_buffer.size());
        m_buffer.clear();
        return;
    }
    auto &z = m_deflate->z;
    z.next_in = reinterpret_cast<Bytef *>(m_buffer.data());
    z.avail_in = static_cast<uInt>(m_buffer.size());
    while (z.avail_in > 0) {
        z.next_out = reinterpret_cast<Bytef *>(m_deflate->out.data());
        z.avail_out = static_cast<uInt>(m_deflate->out.size());
        deflate(&z, Z_NO_FLUSH);
        writeRaw(m_deflate->out.data(), m_deflate->out.size() - z.avail_out);
    }
    m_buffer.clear();
}

void OutputFile::commit()
{
    flushBuffer();
    if (m_deflate) {
        auto &z = m_deflate->z;
        int rc = Z_OK;
        do {
            z.next_out = reinterpret_cast<Bytef *>(m_deflate->out.data());
            z.avail_out = static_cast<uInt>(m_deflate->out.size());
            rc = deflate(&z, Z_FINISH);
            writeRaw(m_deflate->out.data(), m_deflate->out.size() - z.avail_out);
        } while (rc == Z_OK);
    }
    if (::close(m_fd) != 0) {
        m_fd = -1;
        throw OutputError(m_path + ": closing the output failed: " + std::strerror(errno));
    }
    m_fd = -1;
    if (::rename(m_tmpPath.c_str(), m_path.c_str()) != 0)
        throw OutputError(m_path + ": cannot move the finished file into place: " + std::strerror(errno));
    m_committed = true;
}

void writeFileAtomically(const std::string &path, std::string_view data, const std::vector<std::string> &inputs)
{
    OutputFile out(path, inputs);
    out.write(data);
    out.commit();
}

} // namespace syncscope
