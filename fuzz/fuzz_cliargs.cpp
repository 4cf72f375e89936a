// SPDX-License-Identifier: MIT
// The command line as the CLI and the Python module's argument layer read it (issue 40):
// the input split at NUL bytes into at most 64 arguments, through parseCli and
// buildCliRequest (python/src/pyrequest.cpp parseRequest). Nothing is opened or run.
// Invariants: no crash; a refusal has a message; an accepted request's steps are not
// negative unless unset.
#include "fuzzinput.h"

#include "cliargs.h"
#include "clirequest.h"

#include <cstdlib>
#include <string>
#include <vector>

using namespace syncscope;

namespace {

void check(bool ok)
{
    if (!ok)
        std::abort(); // a broken invariant is a finding
}

} // namespace

extern "C" int SYNCSCOPE_FUZZ_ENTRY(const uint8_t *data, size_t size)
{
    std::vector<std::string> argv(1);
    for (size_t i = 0; i < size && argv.size() <= 64; ++i) {
        if (data[i] == 0)
            argv.emplace_back();
        else
            argv.back() += static_cast<char>(data[i]);
    }
    const CliArgs args = parseCli(argv);
    if (!args.error.empty())
        return 0;
    CliRequest request;
    std::string error;
    if (!buildCliRequest(args, "syncscope", request, error)) {
        check(!error.empty());
        return 0;
    }
    check(request.request.stepFirst >= -1 && request.request.stepLast >= -1);
    return 0;
}
