// SPDX-License-Identifier: MIT
#include "bytesource.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>
#include <zlib.h>

namespace syncscope {

namespace {

class Fd
{
public:
    explicit Fd(int fd) : m_fd(fd) {}
    ~Fd()
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    Fd(const Fd &) = delete;
    Fd &operator=(const Fd &) = delete;
    int get() const { return m_fd; }

private:
    int m_fd;
};

size_t readSome(int fd, char *dst, size_t n, const std::string &path)
{
    for (;;) {
        const ssize_t r = ::read(fd, dst, n);
        if (r >= 0)
            return static_cast<size_t>(r);
        if (errno == EINTR)
            continue;
        throw InputError("input.unreadable", path + ": read failed: " + std::strerror(errno));
    }
}

class FileSource : public ByteSource
{
public:
    FileSource(std::unique_ptr<Fd> fd, std::string path, uint64_t size, std::string prefix)
        : m_fd(std::move(fd)), m_path(std::move(path)), m_size(size), m_prefix(std::move(prefix))
    {
    }
    size_t read(char *dst, size_t n) override
    {
        if (m_prefixPos < m_prefix.size()) {
            const size_t k = std::min(n, m_prefix.size() - m_prefixPos);
            std::memcpy(dst, m_prefix.data() + m_prefixPos, k);
            m_prefixPos += k;
            m_consumed += k;
            return k;
        }
        const size_t k = readSome(m_fd->get(), dst, n, m_path);
        m_consumed += k;
        return k;
    }
    uint64_t consumed() const override { return m_consumed; }
    uint64_t fileSize() const override { return m_size; }
    bool compressed() const override { return false; }

private:
    std::unique_ptr<Fd> m_fd;
    std::string m_path;
    uint64_t m_size;
    std::string m_prefix; // bytes already read while sniffing the magic
    size_t m_prefixPos = 0;
    uint64_t m_consumed = 0;
};

class GzipSource : public ByteSource
{
public:
    GzipSource(std::unique_ptr<Fd> fd, std::string path, uint64_t size, std::string prefix)
        : m_fd(std::move(fd)), m_path(std::move(path)), m_size(size), m_in(1 << 20)
    {
        std::memset(&m_z, 0, sizeof m_z);
        // 16 + MAX_WBITS: gzip wrapper only.
        if (inflateInit2(&m_z, 16 + MAX_WBITS) != Z_OK)
            throw InputError("input.unreadable", m_path + ": cannot initialise zlib");
        std::memcpy(m_in.data(), prefix.data(), prefix.size());
        m_z.next_in = reinterpret_cast<Bytef *>(m_in.data());
        m_z.avail_in = static_cast<uInt>(prefix.size());
        m_consumed = prefix.size();
    }
    ~GzipSource() override { inflateEnd(&m_z); }

    size_t read(char *dst, size_t n) override
    {
        if (m_done)
            return 0;
        m_z.next_out = reinterpret_cast<Bytef *>(dst);
        m_z.avail_out = static_cast<uInt>(std::min<size_t>(n, 1u << 30));
        while (m_z.avail_out > 0) {
            if (m_z.avail_in == 0 && !m_eof) {
                const size_t k = readSome(m_fd->get(), m_in.data(), m_in.size(), m_path);
                m_consumed += k;
                if (k == 0)
                    m_eof = true;
                m_z.next_in = reinterpret_cast<Bytef *>(m_in.data());
                m_z.avail_in = static_cast<uInt>(k);
            }
            if (m_z.avail_in == 0 && m_eof) {
                if (m_memberOpen)
                    throw InputError("input.truncated_gzip",
                                     m_path + ": the gzip stream is truncated (ends before the end of "
                                              "its last member); the file was probably cut off while "
                                              "being written or copied",
                                     static_cast<int64_t>(m_produced + (n - m_z.avail_out)));
                m_done = true;
                break;
            }
            const int rc = inflate(&m_z, Z_NO_FLUSH);
            m_memberOpen = true;
            if (rc == Z_STREAM_END) {
                m_memberOpen = false;
                // A gzip file may hold several members (e.g. `cat a.gz b.gz`); continue with the next.
                if (m_z.avail_in == 0) {
                    const size_t k = readSome(m_fd->get(), m_in.data(), m_in.size(), m_path);
                    m_consumed += k;
                    m_z.next_in = reinterpret_cast<Bytef *>(m_in.data());
                    m_z.avail_in = static_cast<uInt>(k);
                    if (k == 0) {
                        m_eof = true;
                        m_done = true;
                        break;
                    }
                }
                if (skipZeroPadding()) {
                    m_done = true;
                    break;
                }
                inflateReset(&m_z);
                continue;
            }
            if (rc == Z_BUF_ERROR && m_z.avail_in == 0)
                continue; // needs more input
            if (rc != Z_OK)
                throw InputError("input.corrupt_gzip",
                                 m_path + ": the gzip data is corrupt (" +
                                     (m_z.msg ? std::string(m_z.msg) : std::string("zlib error")) + ")");
        }
        const size_t produced = n - m_z.avail_out;
        m_produced += produced;
        return produced;
    }
    uint64_t consumed() const override { return m_consumed - m_z.avail_in; }
    uint64_t fileSize() const override { return m_size; }
    bool compressed() const override { return true; }
    uint64_t sizeHint() const override
    {
        // ISIZE (last 4 bytes) is the uncompressed size mod 2^32; a compression ratio
        // below ~1 means it wrapped, then guess a typical JSON ratio instead.
        unsigned char tail[4];
        if (m_size >= 18 && ::pread(m_fd->get(), tail, 4, static_cast<off_t>(m_size - 4)) == 4) {
            const uint64_t isize = tail[0] | (tail[1] << 8) | (tail[2] << 16) | (uint64_t(tail[3]) << 24);
            if (isize >= m_size)
                return isize;
        }
        return m_size * 12;
    }

private:
    // After a member: zero bytes up to the end of the file are padding (tape
    // blocks, preallocated files; `gzip -d` accepts them). True when only
    // padding was left; false when another member (or garbage) follows.
    bool skipZeroPadding()
    {
        for (;;) {
            while (m_z.avail_in > 0 && *m_z.next_in == 0) {
                ++m_z.next_in;
                --m_z.avail_in;
                m_sawPadding = true;
            }
            if (m_z.avail_in > 0)
                return false;
            if (!m_sawPadding)
                return false; // the caller has just refilled: a real end is handled there
            const size_t k = readSome(m_fd->get(), m_in.data(), m_in.size(), m_path);
            m_consumed += k;
            m_z.next_in = reinterpret_cast<Bytef *>(m_in.data());
            m_z.avail_in = static_cast<uInt>(k);
            if (k == 0) {
                m_eof = true;
                return true;
            }
        }
    }

    std::unique_ptr<Fd> m_fd;
    std::string m_path;
    uint64_t m_size;
    std::vector<char> m_in;
    z_stream m_z;
    uint64_t m_consumed = 0;
    uint64_t m_produced = 0;
    bool m_eof = false;
    bool m_done = false;
    bool m_memberOpen = false;
    bool m_sawPadding = false;
};

} // namespace

namespace {

const char *fileKind(mode_t mode)
{
    if (S_ISFIFO(mode))
        return "a FIFO (named pipe)";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISSOCK(mode))
        return "a socket";
    return "not a regular file";
}

} // namespace

std::unique_ptr<ByteSource> openByteSource(const std::string &path)
{
    // O_NONBLOCK: opening a FIFO must not wait for a writer; fstat on the open
    // descriptor then decides, so the file cannot change kind in between.
    auto fd = std::make_unique<Fd>(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
    if (fd->get() < 0) {
        if (errno == ENOENT)
            throw InputError("input.missing", path + ": no such file");
        throw InputError("input.unreadable", path + ": cannot open: " + std::strerror(errno));
    }
    struct stat st {};
    if (::fstat(fd->get(), &st) != 0)
        throw InputError("input.unreadable", path + ": cannot access: " + std::strerror(errno));
    if (S_ISDIR(st.st_mode))
        throw InputError("input.directory", path + ": is a directory, expected a trace file");
    // Inputs are read more than once (the overlay re-reads the device trace), and a
    // pipe or device could block or never end: only regular files are accepted.
    if (!S_ISREG(st.st_mode))
        throw InputError("input.not_regular", path + ": is " + fileKind(st.st_mode) +
                                                  ", not a regular file; save the trace to a file and give that");
    ::fcntl(fd->get(), F_SETFL, ::fcntl(fd->get(), F_GETFL) & ~O_NONBLOCK);
    char magic[2] = {0, 0};
    size_t got = 0;
    while (got < 2) {
        const size_t k = readSome(fd->get(), magic + got, 2 - got, path);
        if (k == 0)
            break;
        got += k;
    }
    std::string prefix(magic, got);
    const auto size = static_cast<uint64_t>(st.st_size);
    if (got == 2 && static_cast<unsigned char>(magic[0]) == 0x1f && static_cast<unsigned char>(magic[1]) == 0x8b)
        return std::make_unique<GzipSource>(std::move(fd), path, size, std::move(prefix));
    return std::make_unique<FileSource>(std::move(fd), path, size, std::move(prefix));
}

std::string readWholeFile(const std::string &path)
{
    auto src = openByteSource(path);
    std::string out;
    std::vector<char> buf(1 << 20);
    for (;;) {
        const size_t k = src->read(buf.data(), buf.size());
        if (k == 0)
            break;
        out.append(buf.data(), k);
    }
    return out;
}

} // namespace syncscope
