// SPDX-License-Identifier: MIT
// Shared helpers for the Qt Test suites: fixture paths and golden-file checks.
#pragma once

#include <QString>

#include <string>

namespace testutil {

// tests/data/<relative>
std::string fixture(const std::string &relative);
// ../shared/data/<relative> (or $SYNCSCOPE_SHARED_DATA/<relative>). Fails the
// calling test when the shared data set is missing, unless
// SYNCSCOPE_ALLOW_MISSING_SHARED=1, in which case it skips it.
std::string sharedData(const std::string &relative);
bool sharedDataAvailable();

// A fresh temporary directory for one test function (removed at exit).
std::string tempDir();

// Compares `actual` with the golden file; on mismatch writes `<golden>.actual`,
// prints `diff -u`, and returns false. SYNCSCOPE_UPDATE_GOLDEN=1 rewrites the golden file.
bool matchesGolden(const std::string &actual, const std::string &goldenPath);
// The same for a reference tool's output, which SYNCSCOPE_UPDATE_GOLDEN never rewrites.
bool matchesReference(const std::string &actual, const std::string &referencePath);

std::string readText(const std::string &path); // gzip is inflated transparently
std::string gzipped(const std::string &data);
void writeText(const std::string &path, const std::string &text);

} // namespace testutil

// Skips (or fails, see sharedData) when the shared data set is not there.
#define REQUIRE_SHARED_DATA()                                                                                   \
    do {                                                                                                        \
        if (!testutil::sharedDataAvailable()) {                                                                 \
            if (qEnvironmentVariableIntValue("SYNCSCOPE_ALLOW_MISSING_SHARED") == 1)                            \
                QSKIP("../shared/data is not available");                                                       \
            QFAIL("../shared/data is missing: set SYNCSCOPE_SHARED_DATA or SYNCSCOPE_ALLOW_MISSING_SHARED=1");  \
        }                                                                                                       \
    } while (0)
