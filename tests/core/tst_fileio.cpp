// SPDX-License-Identifier: MIT
// core/io's file rules: inputs that are not regular files are refused without
// blocking; outputs never replace an input, keep symlinks, write through FIFOs
// and devices, honour the umask and an existing mode, and leave no temporary
// file behind on EFBIG or SIGTERM.
#include "io/bytesource.h"
#include "io/outputfile.h"
#include "testutil.h"

#include <QtTest>

#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace syncscope;
namespace fs = std::filesystem;

namespace {

mode_t modeOf(const std::string &path)
{
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 ? (st.st_mode & 07777) : 0;
}

int entries(const std::string &dir)
{
    int n = 0;
    for ([[maybe_unused]] const auto &e : fs::directory_iterator(dir))
        ++n;
    return n;
}

bool throwsOutputError(const std::string &path, const std::vector<std::string> &inputs, QString *message = nullptr)
{
    try {
        writeFileAtomically(path, "new", inputs);
    } catch (const OutputError &e) {
        if (message)
            *message = QString::fromUtf8(e.what());
        return true;
    }
    return false;
}

// Runs `body` in a child process (so it may change limits and die of signals);
// returns the wait status. The child is killed after 20 s: nothing here may hang.
template <typename Body>
int inChild(Body body)
{
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::alarm(20);
        _exit(body());
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    return status;
}

} // namespace

class TestFileIo : public QObject
{
    Q_OBJECT
private slots:
    void init() { ::alarm(60); } // a test that blocks (a FIFO) fails instead of hanging the suite
    void cleanup() { ::alarm(0); }
    void nonRegularInputsAreRefusedWithoutBlocking();
    void inputsAreNeverOverwrittenHoweverNamed();
    void emptyOrDirectoryOutputIsRefused();
    void symlinkOutputKeepsTheLink();
    void fifoOutputIsWrittenThrough();
    void fifoWithoutReaderFailsAtOnce();
    void deviceOutputIsWrittenThrough();
    void newFilesHonourTheUmask();
    void replacedFileKeepsItsMode();
    void sameOutputTargetSeesThroughSpellings();
    void fileSizeLimitIsAnErrorNotASignal();
    void sigtermRemovesTheTemporaryFile();
};

void TestFileIo::nonRegularInputsAreRefusedWithoutBlocking()
{
    const std::string fifo = testutil::tempDir() + "/trace.json";
    QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
    for (const std::string &path : {fifo, std::string("/dev/zero")}) {
        try {
            openByteSource(path);
            QFAIL(qPrintable(QString::fromStdString(path + " was accepted")));
        } catch (const InputError &e) {
            QCOMPARE(QString::fromStdString(e.code()), QStringLiteral("input.not_regular"));
            QVERIFY2(QString::fromUtf8(e.what()).contains(QString::fromStdString(path)), e.what());
            QVERIFY2(QString::fromUtf8(e.what()).contains("not a regular file"), e.what());
        }
    }
    try {
        openByteSource(testutil::tempDir());
        QFAIL("a directory was accepted");
    } catch (const InputError &e) {
        QCOMPARE(QString::fromStdString(e.code()), QStringLiteral("input.directory"));
    }
}

void TestFileIo::inputsAreNeverOverwrittenHoweverNamed()
{
    const std::string dir = testutil::tempDir();
    const std::string input = dir + "/host.json";
    testutil::writeText(input, "{}");
    fs::create_hard_link(input, dir + "/hard.json");
    fs::create_symlink("host.json", dir + "/soft.json");
    fs::create_directory(dir + "/sub");
    for (const std::string &out : {input, dir + "/hard.json", dir + "/soft.json", dir + "/sub/../host.json"}) {
        QString message;
        QVERIFY2(throwsOutputError(out, {"", input}, &message), out.c_str());
        QVERIFY2(message.contains("refusing to overwrite an input"), qPrintable(message));
    }
    QCOMPARE(testutil::readText(input), std::string("{}"));
    QVERIFY(fs::is_symlink(dir + "/soft.json"));
    QCOMPARE(entries(dir), 4); // no temporary file left
}

void TestFileIo::emptyOrDirectoryOutputIsRefused()
{
    QString message;
    QVERIFY(throwsOutputError("", {}, &message));
    QVERIFY2(message.contains("empty"), qPrintable(message));
    QVERIFY(throwsOutputError(testutil::tempDir(), {}, &message));
    QVERIFY2(message.contains("is a directory"), qPrintable(message));
}

void TestFileIo::symlinkOutputKeepsTheLink()
{
    const std::string dir = testutil::tempDir();
    fs::create_directory(dir + "/real");
    testutil::writeText(dir + "/real/out.json", "old");
    fs::create_symlink("real/out.json", dir + "/link.json");
    fs::create_symlink("real/new.json", dir + "/dangling.json");
    writeFileAtomically(dir + "/link.json", "new");
    writeFileAtomically(dir + "/dangling.json", "fresh");
    QVERIFY(fs::is_symlink(dir + "/link.json"));
    QVERIFY(fs::is_symlink(dir + "/dangling.json"));
    QCOMPARE(testutil::readText(dir + "/real/out.json"), std::string("new"));
    QCOMPARE(testutil::readText(dir + "/real/new.json"), std::string("fresh"));
    QCOMPARE(entries(dir), 3);
    QCOMPARE(entries(dir + "/real"), 2);
}

void TestFileIo::fifoOutputIsWrittenThrough()
{
    const std::string fifo = testutil::tempDir() + "/out.fifo";
    QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
    const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
    QVERIFY(reader >= 0);
    writeFileAtomically(fifo, "through the pipe");
    char buf[64] = {};
    const ssize_t n = ::read(reader, buf, sizeof buf);
    ::close(reader);
    QCOMPARE(std::string(buf, n > 0 ? size_t(n) : 0), std::string("through the pipe"));
    struct stat st {};
    QCOMPARE(::lstat(fifo.c_str(), &st), 0);
    QVERIFY(S_ISFIFO(st.st_mode));
}

void TestFileIo::fifoWithoutReaderFailsAtOnce()
{
    const std::string fifo = testutil::tempDir() + "/out.fifo";
    QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
    QString message;
    QVERIFY(throwsOutputError(fifo, {}, &message));
    QVERIFY2(message.contains("no process is reading"), qPrintable(message));
    struct stat st {};
    QCOMPARE(::lstat(fifo.c_str(), &st), 0);
    QVERIFY(S_ISFIFO(st.st_mode));
}

void TestFileIo::deviceOutputIsWrittenThrough()
{
    writeFileAtomically("/dev/null", "discarded");
    struct stat st {};
    QCOMPARE(::lstat("/dev/null", &st), 0);
    QVERIFY(S_ISCHR(st.st_mode));
}

void TestFileIo::newFilesHonourTheUmask()
{
    const std::string dir = testutil::tempDir();
    const mode_t old = ::umask(027);
    writeFileAtomically(dir + "/a.json", "x");
    ::umask(0);
    writeFileAtomically(dir + "/b.json", "x");
    ::umask(old);
    QCOMPARE(modeOf(dir + "/a.json"), mode_t(0640));
    QCOMPARE(modeOf(dir + "/b.json"), mode_t(0666));
}

void TestFileIo::replacedFileKeepsItsMode()
{
    const std::string path = testutil::tempDir() + "/out.json";
    testutil::writeText(path, "old");
    ::chmod(path.c_str(), 0600);
    writeFileAtomically(path, "new");
    QCOMPARE(modeOf(path), mode_t(0600));
    ::chmod(path.c_str(), 0664);
    writeFileAtomically(path, "newer");
    QCOMPARE(modeOf(path), mode_t(0664));
    QCOMPARE(testutil::readText(path), std::string("newer"));
}

void TestFileIo::sameOutputTargetSeesThroughSpellings()
{
    const std::string dir = testutil::tempDir();
    testutil::writeText(dir + "/a.json", "a");
    fs::create_hard_link(dir + "/a.json", dir + "/hard.json");
    fs::create_symlink("b.json", dir + "/to-b.json"); // b.json does not exist yet
    fs::create_directory(dir + "/sub");
    QVERIFY(sameOutputTarget(dir + "/a.json", dir + "/sub/../a.json"));
    QVERIFY(sameOutputTarget(dir + "/a.json", dir + "/hard.json"));
    QVERIFY(sameOutputTarget(dir + "/to-b.json", dir + "/b.json"));
    QVERIFY(sameOutputTarget(dir + "/new.json", dir + "/./new.json"));
    QVERIFY(!sameOutputTarget(dir + "/a.json", dir + "/b.json"));
    QVERIFY(!sameOutputTarget(dir + "/x.json", dir + "/y.json"));
}

void TestFileIo::fileSizeLimitIsAnErrorNotASignal()
{
    const std::string dir = testutil::tempDir();
    const int status = inChild([&] {
        installOutputSignalHandlers();
        struct rlimit limit {4096, 4096};
        ::setrlimit(RLIMIT_FSIZE, &limit);
        try {
            writeFileAtomically(dir + "/big.json", std::string(1 << 16, 'x'));
        } catch (const OutputError &e) {
            return std::string(e.what()).find("File too large") != std::string::npos ? 42 : 43;
        }
        return 44;
    });
    QVERIFY2(WIFEXITED(status), "killed by a signal (SIGXFSZ?)");
    QCOMPARE(WEXITSTATUS(status), 42);
    QCOMPARE(entries(dir), 0);
}

void TestFileIo::sigtermRemovesTheTemporaryFile()
{
    const std::string dir = testutil::tempDir();
    const int status = inChild([&] {
        installOutputSignalHandlers();
        OutputFile out(dir + "/out.json");
        out.write(std::string(1 << 21, 'x')); // flushed to the temporary file
        ::raise(SIGTERM);
        return 0;
    });
    QVERIFY(WIFSIGNALED(status));
    QCOMPARE(WTERMSIG(status), SIGTERM);
    QCOMPARE(entries(dir), 0);
}

QTEST_GUILESS_MAIN(TestFileIo)
#include "tst_fileio.moc"
