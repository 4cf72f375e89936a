// SPDX-License-Identifier: MIT
// The JSON form of a flight recorder dump (dump_json) as the same value tree as a pickle:
// simdjson first, nlohmann only to say where a document simdjson refused is wrong.
#include "hang/frpickle.h"

#include "hang/flightrecorder.h"

#include <nlohmann/json.hpp>
#include <simdjson.h>

#include <algorithm>

namespace syncscope {

namespace {

// Nesting of JSON text outside strings, so a hostile document is refused before the
// parser builds it.
bool jsonDepthOk(std::string_view text, std::string &error)
{
    size_t depth = 0;
    bool inString = false;
    for (size_t k = 0; k < text.size(); ++k) {
        const char c = text[k];
        if (inString) {
            if (c == '\\')
                ++k;
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            if (++depth > kFrMaxDepth) {
                error = "byte " + std::to_string(k) + ": nesting deeper than " + std::to_string(kFrMaxDepth) + " levels";
                return false;
            }
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
        }
    }
    return true;
}

template <typename Json>
const FrValue *fromJson(const Json &j, FrTree &tree)
{
    using K = FrValue::Kind;
    FrValue *x = nullptr;
    switch (j.type()) {
    case Json::value_t::boolean:
        x = tree.make(K::Bool);
        x->b = j.template get<bool>();
        break;
    case Json::value_t::number_integer:
        x = tree.make(K::Int);
        x->i = j.template get<int64_t>();
        break;
    case Json::value_t::number_unsigned: {
        const uint64_t u = j.template get<uint64_t>();
        if (u <= uint64_t(INT64_MAX)) {
            x = tree.make(K::Int);
            x->i = int64_t(u);
        } else {
            x = tree.make(K::Float);
            x->f = double(u);
        }
        break;
    }
    case Json::value_t::number_float:
        x = tree.make(K::Float);
        x->f = j.template get<double>();
        break;
    case Json::value_t::string:
        x = tree.make(K::String);
        x->s = tree.own(j.template get_ref<const std::string &>());
        break;
    case Json::value_t::array:
        x = tree.make(K::List);
        x->items.reserve(j.size());
        for (const auto &v : j) {
            const FrValue *c = fromJson(v, tree);
            x->depth = std::max<uint32_t>(x->depth, c->depth + 1);
            x->items.push_back(c);
        }
        break;
    case Json::value_t::object:
        x = tree.make(K::Dict);
        x->items.reserve(j.size() * 2);
        for (auto it = j.begin(); it != j.end(); ++it) {
            FrValue *key = tree.make(K::String);
            key->s = tree.own(it.key());
            const FrValue *c = fromJson(it.value(), tree);
            x->depth = std::max<uint32_t>(x->depth, c->depth + 1);
            x->items.push_back(key);
            x->items.push_back(c);
        }
        break;
    default:
        x = tree.make(K::Null);
        break;
    }
    return x;
}

// The JSON tree as values; strings point into the parser's buffer (kept by the tree).
// Depth is bounded by jsonDepthOk before parsing.
const FrValue *fromSimdjson(simdjson::dom::element j, FrTree &tree)
{
    using K = FrValue::Kind;
    using T = simdjson::dom::element_type;
    FrValue *x = nullptr;
    switch (j.type()) {
    case T::BOOL:
        x = tree.make(K::Bool);
        x->b = bool(j.get_bool().value_unsafe());
        break;
    case T::INT64:
        x = tree.make(K::Int);
        x->i = j.get_int64().value_unsafe();
        break;
    case T::UINT64: {
        const uint64_t u = j.get_uint64().value_unsafe();
        x = tree.make(u <= uint64_t(INT64_MAX) ? K::Int : K::Float);
        if (x->kind == K::Int)
            x->i = int64_t(u);
        else
            x->f = double(u);
        break;
    }
    case T::DOUBLE:
        x = tree.make(K::Float);
        x->f = j.get_double().value_unsafe();
        break;
    case T::STRING:
        x = tree.make(K::String);
        x->s = j.get_string().value_unsafe();
        break;
    case T::ARRAY: {
        x = tree.make(K::List);
        const simdjson::dom::array a = j.get_array().value_unsafe();
        x->items.reserve(a.size());
        for (simdjson::dom::element v : a) {
            const FrValue *c = fromSimdjson(v, tree);
            x->depth = std::max<uint32_t>(x->depth, c->depth + 1);
            x->items.push_back(c);
        }
        break;
    }
    case T::OBJECT: {
        x = tree.make(K::Dict);
        const simdjson::dom::object o = j.get_object().value_unsafe();
        x->items.reserve(o.size() * 2);
        for (const simdjson::dom::key_value_pair kv : o) {
            FrValue *key = tree.make(K::String);
            key->s = kv.key;
            const FrValue *c = fromSimdjson(kv.value, tree);
            x->depth = std::max<uint32_t>(x->depth, c->depth + 1);
            x->items.push_back(key);
            x->items.push_back(c);
        }
        break;
    }
    default:
        x = tree.make(K::Null);
        break;
    }
    return x;
}

} // namespace

bool frParseJson(std::string_view bytes, FrTree &tree, std::string &error)
{
    if (!jsonDepthOk(bytes, error))
        return false;
    // simdjson first (several times faster, strings stay in its buffer); nlohmann only
    // to say where a document it refused is wrong.
    // The document simdjson builds holds about 15 bytes per input byte (a padded copy, an
    // 8-byte tape slot and a 4-byte index per structural, the string buffer): charged
    // before it is built.
    if (tree.share)
        tree.share->charge(bytes.size() * 15 + 4096);
    // One parser per thread: its buffers are reused from dump to dump, up to 8 MB of
    // input; a larger document's parser is the tree's, freed with the tree's values.
    thread_local simdjson::dom::parser kept;
    simdjson::dom::parser *parser = &kept;
    if (bytes.size() > (size_t(8) << 20)) {
        auto big = std::make_shared<simdjson::dom::parser>();
        parser = big.get();
        tree.keepAlive = std::move(big);
    }
    const simdjson::padded_string padded(bytes.data(), bytes.size());
    simdjson::dom::element root;
    const simdjson::error_code refused = parser->parse(padded).get(root);
    if (!refused) {
        tree.root = fromSimdjson(root, tree);
        return true;
    }
    // nlohmann's document is several times larger: asked where the error is only for a
    // small one.
    if (bytes.size() > (size_t(8) << 20)) {
        error = "byte 0: not valid JSON (" + std::string(simdjson::error_message(refused)) + ")";
        return false;
    }
    // Ordered, so pg_config and pg_status keep the order they were written in.
    nlohmann::ordered_json j;
    try {
        j = nlohmann::ordered_json::parse(bytes.begin(), bytes.end());
    } catch (const nlohmann::json::parse_error &e) {
        error = "byte " + std::to_string(e.byte > 0 ? e.byte - 1 : 0) + ": not valid JSON (" + e.what() + ")";
        return false;
    } catch (const nlohmann::json::exception &e) { // a number out of range (1e400), ...
        error = "byte 0: not valid JSON (" + std::string(e.what()) + ")";
        return false;
    }
    tree.root = fromJson(j, tree);
    return true;
}

} // namespace syncscope
