// SPDX-License-Identifier: MIT
#include "testutil.h"

#include "io/bytesource.h"

#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <vector>
#include <zlib.h>

namespace testutil {

std::string fixture(const std::string &relative)
{
    return std::string(SYNCSCOPE_TEST_DATA_DIR) + "/" + relative;
}

static std::string sharedRoot()
{
    const QByteArray env = qgetenv("SYNCSCOPE_SHARED_DATA");
    return env.isEmpty() ? std::string(SYNCSCOPE_SHARED_DATA_DIR) : env.toStdString();
}

bool sharedDataAvailable()
{
    return std::filesystem::exists(sharedRoot() + "/README.md");
}

std::string sharedData(const std::string &relative)
{
    return sharedRoot() + "/" + relative;
}

std::string tempDir()
{
    static std::vector<std::unique_ptr<QTemporaryDir>> dirs;
    dirs.push_back(std::make_unique<QTemporaryDir>());
    return dirs.back()->path().toStdString();
}

std::string readText(const std::string &path)
{
    return syncscope::readWholeFile(path);
}

std::string gzipped(const std::string &data)
{
    std::string out(compressBound(static_cast<uLong>(data.size())) + 64, '\0');
    z_stream z {};
    deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
    z.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(data.data()));
    z.avail_in = static_cast<uInt>(data.size());
    z.next_out = reinterpret_cast<Bytef *>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    deflate(&z, Z_FINISH);
    out.resize(z.total_out);
    deflateEnd(&z);
    return out;
}

void writeText(const std::string &path, const std::string &text)
{
    std::ofstream out(path, std::ios::binary);
    out << text;
}

static bool compareWithFile(const std::string &actual, const std::string &goldenPath);

bool matchesGolden(const std::string &actual, const std::string &goldenPath)
{
    if (qEnvironmentVariableIntValue("SYNCSCOPE_UPDATE_GOLDEN") == 1) {
        writeText(goldenPath, actual);
        return true;
    }
    return compareWithFile(actual, goldenPath);
}

bool matchesReference(const std::string &actual, const std::string &referencePath)
{
    return compareWithFile(actual, referencePath);
}

static bool compareWithFile(const std::string &actual, const std::string &goldenPath)
{
    std::string expected;
    try {
        expected = readText(goldenPath);
    } catch (const std::exception &e) {
        qWarning("cannot read golden file %s: %s", goldenPath.c_str(), e.what());
    }
    if (expected == actual)
        return true;
    // Next to the golden file when possible, else in the temp dir (read-only checkouts).
    std::string actualPath = goldenPath + ".actual";
    if (!QFileInfo(QFileInfo(QString::fromStdString(goldenPath)).path()).isWritable())
        actualPath = tempDir() + "/" + QFileInfo(QString::fromStdString(goldenPath)).fileName().toStdString() + ".actual";
    writeText(actualPath, actual);
    QProcess diff;
    diff.start(QStringLiteral("diff"), {QStringLiteral("-u"), QString::fromStdString(goldenPath),
                                        QString::fromStdString(actualPath)});
    diff.waitForFinished(10000);
    const QByteArray out = diff.readAllStandardOutput();
    qWarning("golden mismatch for %s (actual written to %s):\n%s", goldenPath.c_str(), actualPath.c_str(),
             out.left(20000).constData());
    return false;
}

} // namespace testutil
