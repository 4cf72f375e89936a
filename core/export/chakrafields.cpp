// SPDX-License-Identifier: MIT
#include "chakrafields.h"

#include "json/jsonscan.h"
#include "json/numbers.h"
#include "json/pyjson.h"

#include <cmath>
#include <limits>
#include <vector>

namespace syncscope {

const char *const kChakraAttrNames[kChakraAttrSlots] = {"rf_id", "fw_parent", "seq_id", "scope",
                                                        "tid",   "fw_tid",    "op_schema"};

namespace {


int attrSlot(std::string_view name)
{
    for (int s = 0; s < kChakraAttrSlots; ++s)
        if (name == kChakraAttrNames[s])
            return s;
    return -1;
}

void scanIoObject(std::string_view obj, std::string_view &values, std::string_view &shapes,
                  std::string_view &types)
{
    forEachMember(obj, [&](std::string_view key, std::string_view value) {
        if (key == "values")
            values = value;
        else if (key == "shapes")
            shapes = value;
        else if (key == "types")
            types = value;
    });
}

void scanAttrs(std::string_view list, ChakraHostFields &out)
{
    forEachElement(list, [&](std::string_view attr) {
        std::string_view name, value;
        bool hasValue = false;
        forEachMember(attr, [&](std::string_view key, std::string_view v) {
            if (key == "name")
                name = v;
            else if (key == "value") {
                value = v;
                hasValue = true;
            }
        });
        if (name.size() < 2 || !hasValue)
            return;
        name = name.substr(1, name.size() - 2);
        if (name == "pg_name")
            out.pgNameAttr = value;
        else if (const int s = attrSlot(name); s >= 0)
            out.attr[s] = value;
    });
}

// One tensor [id, storage, offset, numel, elem_bytes, device]: numel * elem_bytes
// added to `total`. False when the product or the sum overflows int64.
bool addTensorBytes(std::string_view tensor, int64_t &total)
{
    int64_t items[6] = {};
    int n = 0;
    bool ok = true;
    forEachElement(tensor, [&](std::string_view v) {
        if (n < 5 && !jsonToInt64(v, items[n]))
            ok = false;
        ++n;
    });
    if (!ok || n != 6)
        return true; // not a tensor record: skipped
    int64_t bytes = 0;
    return !__builtin_mul_overflow(items[3], items[4], &bytes) && !__builtin_add_overflow(total, bytes, &total);
}

} // namespace

bool scanChakraHostFields(std::string_view text, HostLayout layout, ChakraHostFields &out)
{
    out = ChakraHostFields{};
    const bool flat = layout == HostLayout::Flat;
    return forEachMember(text, [&](std::string_view key, std::string_view value) {
        if (key == "inputs") {
            out.hasInputs = true;
            if (flat)
                out.inValues = value;
            else
                scanIoObject(value, out.inValues, out.inShapes, out.inTypes);
        } else if (key == "outputs") {
            out.hasOutputs = true;
            if (flat)
                out.outValues = value;
            else
                scanIoObject(value, out.outValues, out.outShapes, out.outTypes);
        } else if (key == "attrs") {
            scanAttrs(value, out);
        } else if (key == "pg_name") {
            out.pgNameTop = value;
        } else if (key == "cat") {
            out.catPresent = value != "null";
        } else if (flat) {
            if (key == "input_shapes")
                out.inShapes = value;
            else if (key == "input_types")
                out.inTypes = value;
            else if (key == "output_shapes")
                out.outShapes = value;
            else if (key == "output_types")
                out.outTypes = value;
            else if (const int s = attrSlot(key); s >= 0)
                out.attr[s] = value;
        }
    });
}

bool jsonToInt64(std::string_view raw, int64_t &value)
{
    const ParsedNumber n = parseJsonNumber(raw);
    if (!n.ok || !n.isInteger)
        return false;
    value = n.integer;
    return true;
}

bool jsonTruncToInt64(std::string_view raw, int64_t &value)
{
    if (jsonToInt64(raw, value))
        return true;
    const ParsedNumber n = parseJsonNumber(raw);
    if (!n.ok || !std::isfinite(n.value))
        return false;
    const double t = std::trunc(n.value);
    if (t < -9.2233720368547758e18 || t >= 9.2233720368547758e18)
        return false;
    value = static_cast<int64_t>(t);
    return true;
}

bool jsonToString(std::string_view raw, std::string &value)
{
    raw = trimJson(raw);
    if (raw.size() < 2 || raw.front() != '"' || raw.back() != '"')
        return false;
    value = decodeJsonString(raw.substr(1, raw.size() - 2));
    return true;
}

std::optional<int64_t> chakraCommSize(std::string_view values, std::string_view types)
{
    bool fits = true;
    std::vector<std::string_view> valueList, typeList;
    forEachElement(values, [&](std::string_view v) { valueList.push_back(v); });
    forEachElement(types, [&](std::string_view t) { typeList.push_back(t); });
    int64_t total = 0;
    for (size_t k = 0; k < valueList.size() && k < typeList.size(); ++k) {
        std::string type;
        if (!jsonToString(typeList[k], type) || type.find("Tensor") == std::string::npos)
            continue;
        if (type.rfind("GenericList[Tensor", 0) == 0)
            forEachElement(valueList[k], [&](std::string_view t) { fits &= addTensorBytes(t, total); });
        else
            fits &= addTensorBytes(valueList[k], total);
    }
    if (!fits)
        return std::nullopt;
    return total;
}

} // namespace syncscope
