// SPDX-License-Identifier: MIT
// The floor a trace's analysis is measured against (issue 40, class 11): one pass over the
// file on one core with simdjson: read it (from the page cache), parse it, and visit every
// value once (what any reader of every event must do). Prints the best of three in seconds.
//   syncscope-jsonfloor FILE
#include <simdjson.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace {

// Every value once: strings' lengths and numbers read, containers walked.
size_t visit(simdjson::dom::element e, size_t &bytes)
{
    size_t n = 1;
    switch (e.type()) {
    case simdjson::dom::element_type::ARRAY: {
        const simdjson::dom::array a = e.get_array().value_unsafe();
        for (simdjson::dom::element c : a)
            n += visit(c, bytes);
        break;
    }
    case simdjson::dom::element_type::OBJECT: {
        const simdjson::dom::object o = e.get_object().value_unsafe();
        for (const simdjson::dom::key_value_pair kv : o) {
            bytes += kv.key.size();
            n += visit(kv.value, bytes);
        }
        break;
    }
    case simdjson::dom::element_type::STRING:
        bytes += e.get_string().value_unsafe().size();
        break;
    case simdjson::dom::element_type::DOUBLE:
        bytes += e.get_double().value_unsafe() > 0;
        break;
    default:
        break;
    }
    return n;
}

} // namespace

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: syncscope-jsonfloor FILE\n");
        return 2;
    }
    double best = 1e30;
    size_t seen = 0, bytes = 0;
    for (int k = 0; k < 3; ++k) {
        const auto t0 = std::chrono::steady_clock::now();
        simdjson::padded_string text;
        if (simdjson::padded_string::load(argv[1]).get(text)) {
            std::fprintf(stderr, "syncscope-jsonfloor: %s: cannot read\n", argv[1]);
            return 3;
        }
        simdjson::dom::parser parser;
        simdjson::dom::element root;
        if (parser.parse(text).get(root)) {
            std::fprintf(stderr, "syncscope-jsonfloor: %s: not valid JSON\n", argv[1]);
            return 4;
        }
        seen = visit(root, bytes);
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    std::printf("%.4f\n", best);
    std::fprintf(stderr, "%zu values, %zu string bytes\n", seen, bytes);
    return 0;
}
