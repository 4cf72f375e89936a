// SPDX-License-Identifier: MIT
// File names are bytes, not text: a path put into a JSON document must be made
// valid UTF-8 first (nlohmann::json throws on invalid UTF-8 when it dumps, which
// would fail a whole report over one odd file name).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace syncscope {

// `s` with every byte that is not part of a well-formed UTF-8 sequence (RFC 3629:
// no overlong forms, no surrogates, nothing above U+10FFFF) replaced by U+FFFD.
// Valid text comes back unchanged.
inline std::string validUtf8(std::string_view s)
{
    std::string out;
    out.reserve(s.size());
    for (size_t i = 0; i < s.size();) {
        const auto b0 = static_cast<unsigned char>(s[i]);
        if (b0 < 0x80) {
            out.push_back(static_cast<char>(b0));
            ++i;
            continue;
        }
        size_t len = 0;
        unsigned char lo = 0x80, hi = 0xbf; // the range of the second byte
        if (b0 >= 0xc2 && b0 <= 0xdf) {
            len = 2;
        } else if (b0 >= 0xe0 && b0 <= 0xef) {
            len = 3;
            lo = b0 == 0xe0 ? 0xa0 : 0x80;
            hi = b0 == 0xed ? 0x9f : 0xbf;
        } else if (b0 >= 0xf0 && b0 <= 0xf4) {
            len = 4;
            lo = b0 == 0xf0 ? 0x90 : 0x80;
            hi = b0 == 0xf4 ? 0x8f : 0xbf;
        }
        bool ok = len > 0 && i + len <= s.size();
        for (size_t k = 1; ok && k < len; ++k) {
            const auto b = static_cast<unsigned char>(s[i + k]);
            ok = k == 1 ? (b >= lo && b <= hi) : (b >= 0x80 && b <= 0xbf);
        }
        if (ok) {
            out.append(s.substr(i, len));
            i += len;
        } else {
            out += "\xef\xbf\xbd"; // U+FFFD for the first byte; resynchronise on the next
            ++i;
        }
    }
    return out;
}

} // namespace syncscope
