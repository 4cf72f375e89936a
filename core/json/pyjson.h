// SPDX-License-Identifier: MIT
// Writing JSON the way Python's json.dump(obj, f, indent=N) does, so files we
// produce in Chakra-compatible mode match the reference byte for byte:
// ", " -> ",\n" + indent, ": " after keys, ensure_ascii escaping, float repr.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace syncscope {

// Python repr() of a float: shortest round-trip digits; fixed notation when the
// decimal exponent is in [-4, 16), scientific ("1e-05", "1e+16") otherwise.
void appendPyFloat(std::string &out, double v);
std::string pyFloat(double v);

// A number that Python would hold as int or float.
struct PyNumber {
    double value = 0;
    bool isInt = true;
};
void appendPyNumber(std::string &out, PyNumber n);

// JSON string literal with Python's ensure_ascii escaping.
void appendPyJsonString(std::string &out, std::string_view utf8);

// Re-formats `json` (any valid JSON value, e.g. minified text) as json.dump would
// with the given indent width, the value starting at nesting `level`.
// Returns false (and appends nothing useful) when the text is not valid JSON or
// nests deeper than kMaxJsonDepth (json/jsonscan.h).
bool appendPyJson(std::string &out, std::string_view json, int indent, int level);

// Appends "\n" + indent*level spaces.
void appendNewlineIndent(std::string &out, int indent, int level);

// Decodes a JSON string literal body (without the quotes) to UTF-8.
std::string decodeJsonString(std::string_view body);

} // namespace syncscope
