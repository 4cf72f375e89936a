// SPDX-License-Identifier: MIT
// Python str() rendering of JSON values. Chakra's converter stores a node's
// inputs/outputs as str(json.load(...)[...]) in the .et IOInfo strings
// (trace_link_spec 5.3), so reproducing its files byte for byte means
// rendering JSON text the way CPython 3 prints the decoded objects:
//   [1, 2.0, 'a', True, None, {'k': [1e-05]}]
#pragma once

#include <string>
#include <string_view>

namespace syncscope {

// Appends str(json.loads(json)) to `out`. Lists "[a, b]", objects "{'k': v}"
// (duplicate keys: the last value, at the first key's place, as a dict does),
// true/false/null -> True/False/None, integers as their digits ("-0" -> "0",
// any size), other numbers as Python float repr ("1.0", "1e-05", "inf", "nan";
// NaN/Infinity literals accepted like Python's json module), strings as repr().
// Iterative (no recursion), so any nesting depth is fine. Returns false, with
// `out` unspecified past its old size, when `json` is not one valid value.
bool appendPyStr(std::string &out, std::string_view json);

// repr() of the string whose UTF-8 bytes are `utf8`: single quotes unless the
// text has ' but no ", backslash escapes for the quote, \\, \t, \n, \r, and
// \xNN / \uNNNN / \UNNNNNNNN for characters Python does not consider printable
// (str.isprintable() of CPython 3.11, Unicode 14.0: controls, format
// characters, separators other than ' ', surrogates, private use, unassigned);
// printable non-ASCII stays UTF-8. Invalid UTF-8 bytes render as U+FFFD.
void appendPyRepr(std::string &out, std::string_view utf8);

// The same for a JSON string body (the text between the quotes, with JSON
// escapes; lone \uD800-\uDFFF escapes stay surrogates, as in Python).
void appendPyReprOfJsonString(std::string &out, std::string_view body);

// Convenience wrapper; returns "" for invalid JSON.
std::string pyStr(std::string_view json);

} // namespace syncscope
