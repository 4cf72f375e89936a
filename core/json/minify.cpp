// SPDX-License-Identifier: MIT
#include "minify.h"

#include <simdjson.h>

#include <cstring>

namespace syncscope {

TextArena::Handle appendMinified(TextArena &arena, const char *json, size_t length, uint32_t &outLength)
{
    char *dst = arena.reserve(length);
    size_t used = 0;
    if (simdjson::minify(json, length, dst, used) != simdjson::SUCCESS) {
        std::memcpy(dst, json, length);
        used = length;
    }
    outLength = static_cast<uint32_t>(used);
    return arena.commit(used);
}

} // namespace syncscope
