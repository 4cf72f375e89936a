// SPDX-License-Identifier: MIT
#include "outputfile.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
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
    bool ready = false;
    std::string out;
    ~Deflater()
    {
        if (ready)
            deflateEnd(&z);
    }
};

namespace {

// Temporary files of unfinished outputs, readable from a signal handler: fixed
// storage, one atomic state per slot (0 free, 1 being filled, 2 live).
constexpr int kTmpSlots = 64;
constexpr size_t kTmpPathMax = 4096;
struct TmpSlot {
    std::atomic<int> state{0};
    char path[kTmpPathMax];
};
TmpSlot g_tmpSlots[kTmpSlots];

int registerTemporary(const std::string &path)
{
    if (path.size() >= kTmpPathMax)
        return -1; // not covered on signals; the destructor still removes it
    for (int i = 0; i < kTmpSlots; ++i) {
        int expected = 0;
        if (g_tmpSlots[i].state.compare_exchange_strong(expected, 1)) {
            std::memcpy(g_tmpSlots[i].path, path.c_str(), path.size() + 1);
            g_tmpSlots[i].state.store(2);
            return i;
        }
    }
    return -1;
}

void unregisterTemporary(int slot)
{
    if (slot >= 0)
        g_tmpSlots[slot].state.store(0);
}

extern "C" void removeTemporariesAndDie(int sig)
{
    removeTemporaryOutputs();
    ::raise(sig); // the handler was reset (SA_RESETHAND): the default action ends the process
}

std::string errnoText(int err)
{
    std::string text = std::strerror(err);
    if (err == EFBIG)
        text += " (the file size limit, ulimit -f, was reached)";
    return text;
}

// A name for the temporary file that is unlikely to be taken; O_EXCL decides.
std::string temporaryName(const fs::path &dir, const std::string &base, unsigned attempt)
{
    static std::atomic<unsigned> counter{0};
    static const char digits[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    uint64_t x = static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) ^
                 (static_cast<uint64_t>(::getpid()) << 32) ^ (uint64_t(counter++) * 0x9E3779B97F4A7C15ull) ^ attempt;
    std::string suffix;
    for (int i = 0; i < 6; ++i) {
        x ^= x >> 29;
        x *= 0xBF58476D1CE4E5B9ull;
        suffix.push_back(digits[x % (sizeof digits - 1)]);
    }
    return (dir / ("." + base + ".tmp-" + suffix)).string();
}

} // namespace

int removeTemporaryOutputs() noexcept
{
    int removed = 0;
    for (auto &slot : g_tmpSlots)
        if (slot.state.load() == 2 && ::unlink(slot.path) == 0)
            ++removed;
    return removed;
}

void installOutputSignalHandlers()
{
    std::signal(SIGXFSZ, SIG_IGN);
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
        struct sigaction old {};
        if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN)
            continue; // keep an inherited "ignore" (nohup, background jobs)
        struct sigaction sa {};
        sa.sa_handler = removeTemporariesAndDie;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESETHAND;
        ::sigaction(sig, &sa, nullptr);
    }
}

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

namespace {

// Follows a symlink chain by hand (weakly_canonical keeps a dangling link's own
// name). `viaProc` is set when a hop is a /proc magic link (/dev/stdout ->
// /proc/self/fd/1), which names an open file, not a place to rename onto.
fs::path followLinks(const std::string &path, bool *viaProc = nullptr, int *ownFd = nullptr)
{
    std::error_code ec;
    fs::path p = fs::absolute(path, ec);
    if (ec)
        p = path;
    for (int hops = 0; hops < 40; ++hops) {
        struct stat st {};
        if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode))
            break;
        const fs::path link = fs::read_symlink(p, ec);
        if (ec)
            break;
        p = link.is_absolute() ? link : p.parent_path() / link;
        if (viaProc && p.string().rfind("/proc/", 0) == 0)
            *viaProc = true;
        // /proc/self/fd/N (or our own pid): one of this process's descriptors.
        const std::string text = p.string();
        for (const std::string &prefix : {std::string("/proc/self/fd/"), "/proc/" + std::to_string(::getpid()) + "/fd/"})
            if (ownFd && text.rfind(prefix, 0) == 0 && text.size() > prefix.size() &&
                text.find_first_not_of("0123456789", prefix.size()) == std::string::npos)
                *ownFd = std::atoi(text.c_str() + prefix.size());
    }
    return p;
}

} // namespace

std::string outputTargetPath(const std::string &path)
{
    const fs::path p = followLinks(path);
    std::error_code ec;
    const fs::path canonical = fs::weakly_canonical(p, ec);
    return (ec ? p : canonical).lexically_normal().string();
}

bool sameOutputTarget(const std::string &a, const std::string &b)
{
    if (a == b)
        return true;
    struct stat sa {}, sb {};
    if (::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
        sa.st_ino == sb.st_ino)
        return true;
    return outputTargetPath(a) == outputTargetPath(b);
}

std::string outputPathProblem(const std::string &path, const std::vector<std::string> &inputs)
{
    if (path.empty())
        return "an empty output file name was given";
    for (const auto &in : inputs)
        if (!in.empty() && sameFile(path, in))
            return path + ": refusing to overwrite an input file (" + in + "); choose another output path";
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return path + ": is a directory, expected an output file name";
        if (S_ISSOCK(st.st_mode))
            return path + ": is a socket, expected an output file name";
    }
    return {};
}

OutputFile::OutputFile(std::string path, const std::vector<std::string> &inputs, Compression compression)
    : m_path(std::move(path))
{
    if (const std::string problem = outputPathProblem(m_path, inputs); !problem.empty())
        throw OutputError(problem);
    // Everything that may throw comes before the file is opened (a throwing
    // constructor runs no destructor, which would leave the temporary file).
    m_buffer.reserve(kBufferSize + 4096);
    if (compression == Compression::Gzip) {
        m_deflate = std::make_unique<Deflater>();
        m_deflate->out.resize(1 << 20);
        // Level 1: exports are large and written interactively; speed beats ratio.
        m_deflate->ready = deflateInit2(&m_deflate->z, 1, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) == Z_OK;
        if (!m_deflate->ready)
            throw OutputError(m_path + ": cannot initialise zlib");
    }
    struct stat st {};
    const bool exists = ::stat(m_path.c_str(), &st) == 0;
    bool viaProc = false;
    int ownFd = -1;
    if (exists)
        followLinks(m_path, &viaProc, &ownFd);
    if (exists && ownFd >= 0 && (m_fd = ::fcntl(ownFd, F_DUPFD_CLOEXEC, 0)) >= 0) {
        // /dev/stdout and friends: write to the descriptor itself, sharing its offset
    } else if (exists && !S_ISREG(st.st_mode)) {
        openDirect(0); // a FIFO or device: write through it, never replace it
    } else if (exists && viaProc) {
        openDirect(O_APPEND); // another process's open file: add to it, never replace it
    } else {
        m_targetPath = outputTargetPath(m_path);
        struct stat target {};
        if (exists && (::stat(m_targetPath.c_str(), &target) != 0 || target.st_dev != st.st_dev ||
                       target.st_ino != st.st_ino))
            openDirect(O_TRUNC); // the link leads elsewhere than its name says: write through
        else
            openTemporary(m_targetPath, exists, st.st_mode, st.st_uid, st.st_gid);
    }
}

void OutputFile::openDirect(int extraFlags)
{
    // O_NONBLOCK so a FIFO nobody reads fails (ENXIO) instead of hanging.
    m_fd = ::open(m_path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | extraFlags);
    if (m_fd < 0) {
        const int err = errno;
        struct stat st {};
        if (err == ENXIO && ::stat(m_path.c_str(), &st) == 0 && S_ISFIFO(st.st_mode))
            throw OutputError(m_path + ": is a FIFO that no process is reading; start the reader first");
        throw OutputError(m_path + ": cannot open for writing: " + errnoText(err));
    }
    const int flags = ::fcntl(m_fd, F_GETFL);
    if (flags >= 0)
        ::fcntl(m_fd, F_SETFL, flags & ~O_NONBLOCK);
}

void OutputFile::openTemporary(const std::string &target, bool existed, unsigned mode, unsigned uid, unsigned gid)
{
    const fs::path t(target);
    const fs::path dir = t.has_parent_path() ? t.parent_path() : fs::path(".");
    for (unsigned attempt = 0; attempt < 100 && m_fd < 0; ++attempt) {
        m_tmpPath = temporaryName(dir, t.filename().string(), attempt);
        // 0666 and the umask decide a new file's mode, as for any other program's output.
        m_fd = ::open(m_tmpPath.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (m_fd < 0 && errno != EEXIST)
            break;
    }
    if (m_fd < 0) {
        const int err = errno;
        m_tmpPath.clear();
        throw OutputError(m_path + ": cannot create a temporary file in " + dir.string() + ": " + errnoText(err));
    }
    m_tmpSlot = registerTemporary(m_tmpPath);
    if (existed) { // the replacement keeps the old file's owner (where allowed) and mode
        if (::fchown(m_fd, uid, gid) != 0) {
            // best effort: only root may give a file away
        }
        ::fchmod(m_fd, mode & 07777);
    }
}

OutputFile::~OutputFile()
{
    if (!m_committed) {
        if (m_fd >= 0)
            ::close(m_fd);
        if (!m_tmpPath.empty())
            ::unlink(m_tmpPath.c_str());
    }
    unregisterTemporary(m_tmpSlot);
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
            throw OutputError(m_path + ": write failed: " + errnoText(errno));
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

std::string OutputFile::detachTemporaryPath()
{
    if (m_tmpPath.empty() || m_fd < 0)
        return {};
    flushBuffer();
    ::close(m_fd); // the external writer opens the file itself
    m_fd = -1;
    m_detached = true;
    return m_tmpPath;
}

void OutputFile::commit()
{
    if (m_detached) { // the external writer wrote and closed the file
        if (::rename(m_tmpPath.c_str(), m_targetPath.c_str()) != 0)
            throw OutputError(m_path + ": cannot move the finished file into place: " + errnoText(errno));
        m_committed = true;
        unregisterTemporary(m_tmpSlot);
        m_tmpSlot = -1;
        return;
    }
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
        throw OutputError(m_path + ": closing the output failed: " + errnoText(errno));
    }
    m_fd = -1;
    if (m_tmpPath.empty()) { // written through a FIFO or device
        m_committed = true;
        return;
    }
    if (::rename(m_tmpPath.c_str(), m_targetPath.c_str()) != 0)
        throw OutputError(m_path + ": cannot move the finished file into place: " + errnoText(errno));
    m_committed = true;
    unregisterTemporary(m_tmpSlot);
    m_tmpSlot = -1;
}

void writeFileAtomically(const std::string &path, std::string_view data, const std::vector<std::string> &inputs)
{
    OutputFile out(path, inputs);
    out.write(data);
    out.commit();
}

} // namespace syncscope
