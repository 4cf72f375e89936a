// SPDX-License-Identifier: MIT
// The fields of one host-ET node that Chakra's converter reads (trace_link_spec
// 5.2/5.3), located in the node's minified JSON text without building a DOM.
// Both layouts are understood: nested (1.0.2+: inputs{values,shapes,types},
// attrs[]) and flat (1.0.1: inputs/input_shapes/input_types, attrs as keys).
#pragma once

#include "model/hosttrace.h"

#include <cstdint>
#include <string>
#include <optional>
#include <string_view>

namespace syncscope {

// The attrs the converter copies into every node, in its order (5.3).
enum ChakraAttrSlot { kRfId, kFwParent, kSeqId, kScope, kTid, kFwTid, kOpSchema, kChakraAttrSlots };
extern const char *const kChakraAttrNames[kChakraAttrSlots];

struct ChakraHostFields {
    // Raw JSON values; empty views where the key is missing.
    std::string_view inValues, inShapes, inTypes;
    std::string_view outValues, outShapes, outTypes;
    bool hasInputs = false, hasOutputs = false; // nested: the objects exist; flat: "inputs"/"outputs"
    std::string_view attr[kChakraAttrSlots];   // from attrs[] (nested) or top-level keys (flat)
    std::string_view pgNameAttr;               // attrs[].pg_name (overrides the top-level key, 5.2)
    std::string_view pgNameTop;                // top-level "pg_name"
    bool catPresent = false;                   // top-level "cat" that is not null (marks a GPU node)
};

// Scans `text` (one node object). Returns false when it is not an object.
// Later duplicates win, as with Python's json.load and setattr.
bool scanChakraHostFields(std::string_view text, HostLayout layout, ChakraHostFields &out);

// A JSON integer as int64. Returns false for non-integers and values outside int64.
bool jsonToInt64(std::string_view raw, int64_t &value);
// A JSON number truncated toward zero, like Python's int() of the decoded value;
// false for non-numbers, NaN and infinities, and values outside int64.
bool jsonTruncToInt64(std::string_view raw, int64_t &value);
// A JSON string's decoded text; false when `raw` is not a string.
bool jsonToString(std::string_view raw, std::string &value);

// Chakra's comm_size (5.4): bytes of the tensors among the inputs, numel (item 3)
// times element size (item 4) of every Tensor / GenericList[Tensor...] input.
// Entries that are not 6-lists of numbers are skipped (the reference would fail).
// nullopt when the size does not fit int64 (numel 2^62 x 8 bytes): never wrapped.
std::optional<int64_t> chakraCommSize(std::string_view values, std::string_view types);

} // namespace syncscope
