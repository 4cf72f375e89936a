// SPDX-License-Identifier: MIT
// The code that copies, re-indents and re-renders JSON values into outputs:
// json.dump(indent=4) re-formatting (--compat chakra ET+), Python str()
// rendering (.et IOInfo strings), member/element scanning (ET+ nodes, Chakra
// fields) and the overlay's "critical" marker.
// Oracle: whatever strict JSON (nlohmann accepts) within the nesting limit is
// re-formatted successfully, and the result parses again.
#include "fuzzinput.h"

#include "export/overlaywriter.h"
#include "json/jsonscan.h"
#include "json/pyjson.h"
#include "json/pystr.h"

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <cstdio>

using namespace syncscope;

namespace {

bool hasNonStandardToken(const std::string &s)
{
    return s.find("NaN") != std::string::npos || s.find("Infinity") != std::string::npos;
}

[[noreturn]] void fail(const char *what)
{
    std::fprintf(stderr, "fuzz_jsonrewrite: %s\n", what);
    std::abort();
}

} // namespace

extern "C" int SYNCSCOPE_FUZZ_ENTRY(const uint8_t *data, size_t size)
{
    const std::string_view in(reinterpret_cast<const char *>(data), size);
    // nlohmann's lexer takes a NUL byte for the end of the input ("1\0junk" is
    // accepted) and skips a leading UTF-8 BOM; Python's json module and our readers
    // do neither: not strict JSON.
    const bool bom = in.substr(0, 3) == "\xEF\xBB\xBF";
    const bool strict = !bom && in.find('\0') == std::string_view::npos && nlohmann::json::accept(in);
    const bool shallow = jsonNestingDepth(in) <= kMaxJsonDepth;

    std::string out;
    const bool ok = appendPyJson(out, in, 4, 1);
    if (strict && shallow && !ok)
        fail("appendPyJson rejected valid JSON");
    if (ok && strict && !hasNonStandardToken(out) && !nlohmann::json::accept(out))
        fail("appendPyJson wrote invalid JSON");

    std::string str;
    (void)appendPyStr(str, in);

    for (const auto &m : jsonObjectMembers(in))
        (void)m;
    (void)forEachElement(in, [](std::string_view v) { (void)jsonValueLength(v); });

    if (strict && !in.empty() && in.front() == '{') {
        const std::string marked = markEventCritical(in);
        if (!nlohmann::json::accept(marked))
            fail("markEventCritical wrote invalid JSON");
    }
    return 0;
}
