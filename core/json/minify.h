// SPDX-License-Identifier: MIT
#pragma once

#include "model/textarena.h"

#include <cstddef>

namespace syncscope {

// Appends the minified form of `length` bytes of JSON (copied as is when
// simdjson cannot minify it) and returns its handle and length.
TextArena::Handle appendMinified(TextArena &arena, const char *json, size_t length, uint32_t &outLength);

} // namespace syncscope
