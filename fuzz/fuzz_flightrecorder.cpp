// SPDX-License-Identifier: MIT
// PyTorch NCCL flight-recorder dumps (issue 29): arbitrary bytes through the reader,
// as they are (pickle, JSON or gzip by their first bytes) and forced down the pickle
// path (a PROTO 2 prefix) and the JSON path (a '{' prefix), in memory and from a file.
// Invariants: a refusal names the input and a byte offset; an accepted dump's vectors
// are bounded by the input's (decompressed) size, however the memo shares values; the
// file and the in-memory reader agree. Never a global, a call or a crash. An accepted dump
// also goes through the hang analysis, alone and with a copy of itself as another rank
// (issue 40): its report and summary are valid UTF-8 JSON and text, every named rank lies
// within kFrMaxRank.
#include "fuzzinput.h"

#include "hang/flightrecorder.h"
#include "hang/frbudget.h"
#include "hang/frpickle.h"
#include "hang/hanganalysis.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

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

void analyse(const FrDump &d)
{
    std::vector<FrDump> dumps{d, d};
    const int64_t r = std::clamp<int64_t>(d.rank.value_or(0), -1, kFrMaxRank); // no overflow below
    dumps[1].rank = r + 1;
    const HangAnalysis a = analyzeHang(dumps, {r + 2}, 4);
    try {
        const std::string text = hangAnalysisJson(a).dump(); // throws on invalid UTF-8
        check(!text.empty());
    } catch (const nlohmann::json::exception &) {
        check(false);
    }
    for (const HangSuspect &s : a.suspects)
        for (const auto *v : {&s.missingRanks, &s.waitingRanks, &s.mismatchedRanks})
            for (int64_t r : *v)
                check(r >= 0 && r <= kFrMaxRank);
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
    analyse(d);
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

    // Under a folder's memory budget: read as without one, or refused for the budget; every
    // byte charged is given back.
    FrMemoryBudget budget(size_t(1) << 20);
    bool over = false;
    FrDump c;
    std::string ec;
    FrReadOptions counted;
    counted.budget = &budget;
    counted.overBudget = &over;
    const bool okC = readFlightRecorderDump(file.path(), c, ec, counted);
    check(budget.peak() <= budget.limit() && budget.take(budget.limit()));
    if (over)
        check(!okC && ec.find("memory budget of 1 MiB") != std::string::npos);
    else
        check(okC == okA && ec == ea);
    return 0;
}
