// SPDX-License-Identifier: MIT
// Regular expressions typed by users (what-if name~REGEX, data-load patterns):
// RE2, which matches in time linear in the text, without recursion or
// back-tracking, and whose compiled program is bounded by max_mem. The standard
// library's regex is used nowhere in core: it recurses per character and back-tracks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace re2 {
class RE2;
}

namespace syncscope {

constexpr int64_t kBoundedRegexMaxMem = int64_t(1) << 21; // RE2::Options::max_mem (2 MiB)

// Compiles `pattern` (RE2 syntax, UTF-8, case-sensitive, no logging to stderr,
// max_mem kBoundedRegexMaxMem). Null, with a sentence in `error`, when the pattern is
// longer than `maxBytes` or RE2 refuses it (bad syntax, a back-reference or
// look-around, which RE2 does not have, or a program over max_mem).
std::shared_ptr<const re2::RE2> compileBoundedRegex(std::string_view pattern, size_t maxBytes, std::string &error);

// Is there a match of `re` anywhere in `text` (Python's re.search)? Linear in text.
bool boundedRegexSearch(const re2::RE2 &re, std::string_view text);

} // namespace syncscope
