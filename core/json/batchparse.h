// SPDX-License-Identifier: MIT
// A streamed batch parsed as one simdjson document. AsyncJsonStreamHandler parses a
// batch on the streaming thread when its worker is behind (that thread would only
// wait), so scanning, parsing and building the model share two cores evenly.
#pragma once

#include "jsonstream.h"

#include <simdjson.h>

namespace syncscope {

struct PreParsedBatch {
    simdjson::dom::parser parser; // travels with the batch buffer, so its memory is reused
    simdjson::dom::element doc;
    bool ok = false;
};

// Parses the batch's "[...]" into `parser` (the sink's own) unless it was parsed
// already; throws simdjson's error as parse() does.
simdjson::dom::element parseBatch(const ElementBatch &batch, simdjson::dom::parser &parser);

} // namespace syncscope
