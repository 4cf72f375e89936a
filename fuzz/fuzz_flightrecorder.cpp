// SPDX-License-Identifier: MIT
// PyTorch NCCL flight-recorder dumps (issue 29): arbitrary bytes through the reader,
// as they are (pickle, JSON or gzip by their first bytes) and forced down the pickle
// path (a PROTO 2 prefix) and the JSON path (a '{' prefix), in memory and from a file.
// Invariants: a refusal names the input and a byte offset; an accepted dump's vectors
// are bounded by the input's (decompressed) size, however the memo shares values; the
// file and the in-memory reader agree. Never a global, a call or a crash.
#include "fuzzinput.h"

#include "hang/flightrecorder.h"
#include "hang/frpickle.h"

#include <cstdlib>
#include <string>
#include <string_view>

using namespace syncscope;

namespace {

void check(bool ok)
{
    if (!ok)
        std::abort(); // a broken invariant is a finding
}

size_t items(const FrDump &d)
{
    size_t n = d.pgConfig.size() + d.pgStatus.size() + d.entries.size();
    for (const auto &g : d.pgConfig)
        n += g.ranks.size();
    for (const auto &e : d.entries) {
        n += e.inputDtypes.size() + e.outputDtypes.size() + e.frames.size() + e.inputSizes.size() + e.outputSizes.size();
        for (const auto &s : e.inputSizes)
            n += s.size();
        for (const auto &s : e.outputSizes)
            n += s.size();
    }
    return n;
}

void one(std::string_view bytes, const std::string &name)
{
    FrDump d;
    std::string error;
    const bool gz = bytes.size() >= 2 && uint8_t(bytes[0]) == 0x1f && uint8_t(bytes[1]) == 0x8b;
    if (!parseFlightRecorderDump(bytes, name, d, error)) {
        check(error.rfind(name + ": byte ", 0) == 0);
        check(error.size() < 4096);
        return;
    }
    check(error.empty() && d.path == name);
    // zlib inflates at most ~1032 bytes per input byte.
    const size_t bound = frItemBudget(gz ? bytes.size() * 1100 : bytes.size());
    check(items(d) <= bound);
}

} // namespace

extern "C" int SYNCSCOPE_FUZZ_ENTRY(const uint8_t *data, size_t size)
{
    const std::string_view bytes(reinterpret_cast<const char *>(data), size);
    one(bytes, "dump");
    for (const char *prefix : {"\x80\x02", "{"}) {
        std::string forced(prefix);
        forced.append(reinterpret_cast<const char *>(data), size);
        one(forced, forced[0] == '{' ? "json" : "pickle");
    }

    // The file reader agrees with the in-memory one.
    syncscope::fuzz::MemFile file(data, size);
    FrDump a, b;
    std::string ea, eb;
    const bool okA = readFlightRecorderDump(file.path(), a, ea);
    const bool okB = parseFlightRecorderDump(bytes, file.path(), b, eb);
    check(okA == okB && ea == eb);
    if (okA)
        check(a.entries.size() == b.entries.size() && a.pgConfig.size() == b.pgConfig.size() && a.json == b.json);
    return 0;
}
