// SPDX-License-Identifier: MIT
// A safe reader for the pickles PyTorch's flight recorder writes (protocol 2, from
// torch::jit::Pickler with tag_aggregates off: builtin dicts, lists, tuples, strings,
// numbers, None) and for what Python's pickle module writes for the same data
// (protocols 2-5). A small stack machine over the opcodes builtin data needs; it never
// resolves a global, calls anything (REDUCE, BUILD, INST, OBJ, NEWOBJ), or looks up
// an extension code or a persistent id: those are refused with the byte offset.
// The JSON form of a dump is turned into the same value tree. Internal to core/hang.
#pragma once

#include "frbudget.h"

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace syncscope {

// One value. Containers point at other values of the same FrTree (the memo can make
// two containers share a value, or a container hold itself: readers of the tree only
// descend as far as the dump's fixed shape, never recursively).
struct FrValue {
    enum class Kind : uint8_t { Null, Bool, Int, Float, String, Bytes, List, Tuple, Dict, Set };
    Kind kind = Kind::Null;
    bool b = false;
    int64_t i = 0;
    double f = 0;
    std::string_view s;                   // String (UTF-8 as written) and Bytes: into the input or FrTree::text
    std::vector<const FrValue *> items;   // List, Tuple, Set; Dict: key, value, key, value...
    uint32_t depth = 1;                   // nesting below and including this value (as built)

    bool isString() const { return kind == Kind::String; }
    bool isSequence() const { return kind == Kind::List || kind == Kind::Tuple; }
    // Dict lookup by string key (the last one written wins, as in Python); null if absent.
    const FrValue *get(std::string_view key) const;
};

// Thrown by FrTree::make past FrTree::maxValues (the JSON form: one value per JSON value).
struct FrTooManyValues {
};

// Owns every value (flat, so freeing a deep or self-referencing tree never recurses).
// Strings point into the parsed input where they are stored as-is (pickle), into the
// JSON parser's buffer (valid until the thread's next frParseJson), or into `text`: the
// input must outlive the tree. reset() keeps the values' memory (and their item lists'
// capacity) for the next dump, so a reader of many dumps hardly allocates.
struct FrTree {
    const FrValue *root = nullptr;
    std::deque<std::string> text;
    FrBudgetShare *share = nullptr; // charged for values in use and copied strings (throws FrOverBudget)
    size_t maxValues = size_t(-1);  // more values throw FrTooManyValues
    std::shared_ptr<void> keepAlive; // what strings point into besides the input (a large JSON document's parser)

    FrValue *make(FrValue::Kind kind);
    std::string_view own(std::string s)
    {
        if (share)
            share->charge(s.size() + sizeof(std::string));
        text.push_back(std::move(s));
        return text.back();
    }
    // Forgets every value; keeps up to kKeepValues of them allocated.
    void reset();
    size_t size() const { return m_used; }

private:
    static constexpr size_t kBlock = 4096;
    // Kept from dump to dump per reading thread (about 5 MB: a real dump of 2,000
    // entries makes about 60,000 values).
    static constexpr size_t kKeepValues = size_t(1) << 16;
    std::vector<std::unique_ptr<FrValue[]>> m_blocks;
    size_t m_used = 0;
};

// Most values (and stack pushes) one input may make: a bound proportional to its size.
size_t frItemBudget(size_t inputBytes);

// Unpickles `bytes` into `tree`. False with `error` = "byte N: what" (N from the start
// of `bytes`) for a refused opcode, a truncation, a bound exceeded or malformed data.
bool frUnpickle(std::string_view bytes, FrTree &tree, std::string &error);

// Parses JSON text into `tree` (objects -> Dict, arrays -> List). Same error form. Its
// strings stay valid until the calling thread parses JSON again.
bool frParseJson(std::string_view bytes, FrTree &tree, std::string &error);

} // namespace syncscope
