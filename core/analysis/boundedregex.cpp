// SPDX-License-Identifier: MIT
#include "boundedregex.h"

#include <re2/re2.h>

namespace syncscope {

namespace {

// At most `max` bytes of `s`, cut at a UTF-8 character boundary, with "..." when cut.
std::string shortened(const std::string &s, size_t max)
{
    if (s.size() <= max)
        return s;
    size_t n = max;
    while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80)
        --n;
    return s.substr(0, n) + "...";
}

} // namespace

std::shared_ptr<const re2::RE2> compileBoundedRegex(std::string_view pattern, size_t maxBytes, std::string &error)
{
    if (pattern.size() > maxBytes) {
        error = "the pattern is " + std::to_string(pattern.size()) + " bytes long; a pattern may have at most " +
                std::to_string(maxBytes) + " bytes";
        return nullptr;
    }
    re2::RE2::Options options;
    options.set_encoding(re2::RE2::Options::EncodingUTF8);
    options.set_log_errors(false); // the caller reports, once, in its own words
    options.set_max_mem(kBoundedRegexMaxMem);
    options.set_never_capture(true); // only "is there a match" is asked
    auto re = std::make_shared<const re2::RE2>(re2::StringPiece(pattern.data(), pattern.size()), options);
    if (re->ok())
        return re;
    const std::string &arg = re->error_arg();
    switch (re->error_code()) {
    case re2::RE2::ErrorBadEscape:
        if (arg.size() >= 2 && arg[0] == '\\' && arg[1] >= '0' && arg[1] <= '9') {
            error = "back-references (" + shortened(arg, 24) +
                    ", ...) are not supported: patterns are RE2 syntax, matched in linear time";
            return nullptr;
        }
        break;
    case re2::RE2::ErrorBadPerlOp:
        if (arg == "(?=" || arg == "(?!") {
            error = "look-ahead (\"" + arg + "\") is not supported: patterns are RE2 syntax, matched in linear time";
            return nullptr;
        }
        if (arg == "(?<") {
            error = "\"(?<\" is not supported: look-behind does not exist in RE2 syntax (patterns run in linear "
                    "time), and a named group is written (?P<name>...)";
            return nullptr;
        }
        break;
    case re2::RE2::ErrorPatternTooLarge:
        error = "the pattern is too large to run (its compiled program would exceed RE2's " +
                std::to_string(kBoundedRegexMaxMem >> 20) +
                " MiB bound; large repetition counts such as {1000} are the usual cause)";
        return nullptr;
    default: break;
    }
    error = "not a valid RE2 regular expression (" + shortened(re->error(), 160) + ")";
    return nullptr;
}

bool boundedRegexSearch(const re2::RE2 &re, std::string_view text)
{
    return re2::RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), re);
}

} // namespace syncscope
