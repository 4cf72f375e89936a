// SPDX-License-Identifier: MIT
// Where the sample pair that ships with Syncscope is: $SYNCSCOPE_SAMPLE_DIR,
// next to the executable (../share/syncscope/sample), the install prefix, or
// the source tree of a development build.
#pragma once

#include <string>

namespace syncscope {

struct SamplePair {
    std::string host;
    std::string device;
};

// Empty paths when the pair cannot be found.
SamplePair findSamplePair(const char *argv0);

} // namespace syncscope
