// SPDX-License-Identifier: MIT
// Exports are written atomically: data goes to a temporary file in the target
// directory, which is renamed over the target only after everything was
// written. A failed or cancelled export leaves no partial file.
//
// Rules every output follows (README "Output files"):
// - an input is never overwritten (same device and inode, so hard links,
//   symlinks and other spellings are caught);
// - a symlink is kept: the file it points to is replaced atomically;
// - a FIFO or a device node (/dev/null, /dev/stdout on a pipe) is written
//   through directly, never replaced by a regular file;
// - a new file gets 0666 minus the umask; a replaced file keeps its mode;
// - live temporary files are removed when SIGINT/SIGTERM/SIGHUP arrives
//   (see installOutputSignalHandlers).
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

// The file an output path writes to: symlinks followed to their final target
// (which may not exist yet), made absolute.
std::string outputTargetPath(const std::string &path);

// True when writing `a` and `b` would write the same file: the same target
// once symlinks and spelling are resolved, or hard links to one inode.
bool sameOutputTarget(const std::string &a, const std::string &b);

// Returns an empty string when `path` could be an output, else why not:
// empty, a directory, a socket, or one of `inputs`.
std::string outputPathProblem(const std::string &path, const std::vector<std::string> &inputs);

class OutputFile
{
public:
    enum class Compression { None, Gzip };

    // Throws OutputError when `path` is one of `inputs` (we never overwrite an
    // input), is not something we can write, or the temporary file cannot be created.
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
    // Flushes and renames the temporary file onto the target (or, for a FIFO
    // or device written through, just closes it).
    void commit();
    const std::string &path() const { return m_path; }
    // For a writer that opens the file itself by name (SQLite): closes this
    // object's descriptor and returns the temporary file's path, which commit()
    // then renames onto the target as usual. Empty when the output is written
    // through (a FIFO, a device, another process's file): use write() then.
    std::string detachTemporaryPath();

private:
    static constexpr size_t kBufferSize = 1 << 20;
    void flushBuffer();
    void writeRaw(const char *data, size_t n);
    void openDirect(int extraFlags);
    void openTemporary(const std::string &target, bool existed, unsigned mode, unsigned uid, unsigned gid);

    std::string m_path;
    std::string m_targetPath; // where the temporary file is renamed to (a symlink's target)
    std::string m_tmpPath;
    int m_tmpSlot = -1;       // in the signal-safe registry of temporary files
    int m_fd = -1;
    bool m_committed = false;
    bool m_detached = false; // detachTemporaryPath() was called
    std::string m_buffer;
    struct Deflater;
    std::unique_ptr<Deflater> m_deflate;
};

// Convenience: writes `data` atomically to `path`.
void writeFileAtomically(const std::string &path, std::string_view data,
                         const std::vector<std::string> &inputs = {});

// Ignores SIGXFSZ (an output over `ulimit -f` then fails with EFBIG and a
// message instead of killing the process) and, on SIGINT, SIGTERM and SIGHUP,
// removes the temporary files of unfinished outputs, then dies of the signal
// as before. Call once at startup.
void installOutputSignalHandlers();

// Removes every registered temporary file; async-signal-safe. Returns how many.
int removeTemporaryOutputs() noexcept;

} // namespace syncscope
