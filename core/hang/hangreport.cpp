// SPDX-License-Identifier: MIT
// The hang analysis as people read it: the text summary, root cause first, and the
// report's `hang` object (hanganalysis.h).
#include "hang/hanganalysis.h"

#include <algorithm>
#include <cstdio>
#include <string_view>
#include <unordered_map>

namespace syncscope {

std::string hangSizesText(const std::vector<std::vector<int64_t>> &sizes)
{
    std::string out;
    for (size_t i = 0; i < sizes.size(); ++i) {
        if (i)
            out += ",";
        if (sizes[i].empty())
            out += "scalar";
        for (size_t j = 0; j < sizes[i].size(); ++j) {
            if (j)
                out += "x";
            out += std::to_string(sizes[i][j]);
        }
    }
    return out;
}

std::string hangDtypeText(const std::string &dtypes)
{
    static const std::unordered_map<std::string_view, const char *> shortName = {
        {"BFloat16", "bf16"}, {"Float", "f32"},  {"Half", "f16"},   {"Double", "f64"},
        {"Int", "i32"},       {"Long", "i64"},   {"Short", "i16"},  {"Char", "i8"},
        {"Byte", "u8"},       {"Bool", "bool"},  {"Float8_e4m3fn", "fp8e4m3"}, {"Float8_e5m2", "fp8e5m2"}};
    std::string out;
    std::string_view rest = dtypes;
    while (true) {
        const size_t c = rest.find(',');
        std::string_view one = rest.substr(0, c);
        auto it = shortName.find(one);
        if (!out.empty())
            out += ",";
        out += it == shortName.end() ? std::string(one) : std::string(it->second);
        if (c == std::string_view::npos)
            break;
        rest.remove_prefix(c + 1);
    }
    // Collapse identical dtypes ("bf16,bf16" -> "bf16").
    std::string_view o = out;
    const size_t c = o.find(',');
    if (c != std::string_view::npos) {
        std::string_view first = o.substr(0, c);
        bool same = true;
        size_t p = 0;
        while (p <= o.size()) {
            size_t q = o.find(',', p);
            if (o.substr(p, q == std::string_view::npos ? std::string_view::npos : q - p) != first)
                same = false;
            if (q == std::string_view::npos)
                break;
            p = q + 1;
        }
        if (same)
            return std::string(first);
    }
    return out;
}

namespace {

std::string rankList(const std::vector<int64_t> &ranks)
{
    std::string out = ranks.size() == 1 ? "rank " : "ranks ";
    const size_t shown = std::min<size_t>(ranks.size(), 8);
    for (size_t i = 0; i < shown; ++i) {
        if (i)
            out += ", ";
        out += std::to_string(ranks[i]);
    }
    if (ranks.size() > shown)
        out += ", ... (" + std::to_string(ranks.size()) + " ranks)";
    return out;
}

std::string opText(const HangSuspect &s)
{
    std::string out = "pg " + s.pgName;
    if (!s.pgDesc.empty())
        out += " " + s.pgDesc;
    out += " " + (s.op.empty() ? std::string("?") : s.op);
    const std::string sz = hangSizesText(s.inputSizes);
    if (!sz.empty())
        out += " " + sz;
    if (!s.dtype.empty())
        out += " " + hangDtypeText(s.dtype);
    out += s.p2p ? " p2p seq " + std::to_string(s.p2pSeqId) : " seq " + std::to_string(s.collectiveSeqId);
    return out;
}

std::string whatText(const HangSuspect &s)
{
    std::vector<std::string> parts;
    std::vector<int64_t> seen;
    auto held = [&](int64_t r) { return std::binary_search(s.heldRanks.begin(), s.heldRanks.end(), r); };
    for (int64_t r : s.missingRanks)
        if (!std::binary_search(s.emptyDumpRanks.begin(), s.emptyDumpRanks.end(), r) &&
            !std::binary_search(s.noDumpRanks.begin(), s.noDumpRanks.end(), r) && !held(r))
            seen.push_back(r);
    if (!seen.empty())
        parts.push_back(rankList(seen) + " never entered");
    if (!s.emptyDumpRanks.empty())
        parts.push_back(rankList(s.emptyDumpRanks) + " dumped no entries");
    if (!s.noDumpRanks.empty())
        parts.push_back(rankList(s.noDumpRanks) + (s.noDumpRanks.size() == 1 ? " has" : " have") + " no dump");
    for (size_t i = 0; i < s.mismatches.size() && i < 4; ++i) {
        const auto &m = s.mismatches[i];
        std::string t = "rank " + std::to_string(m.rank) + " entered " + m.op;
        const std::string sz = hangSizesText(m.inputSizes);
        if (!sz.empty())
            t += " " + sz;
        if (!m.dtype.empty())
            t += " " + hangDtypeText(m.dtype);
        parts.push_back(t);
    }
    if (s.mismatches.size() > 4)
        parts.push_back(std::to_string(s.mismatches.size()) + " ranks entered it differently");
    // Held ranks that have a dump: held elsewhere, named after the ranks the hang starts with.
    for (size_t i = 0; i < s.heldRanks.size() && i < 4; ++i)
        if (std::find(seen.begin(), seen.end(), s.heldRanks[i]) == seen.end() &&
            !std::binary_search(s.emptyDumpRanks.begin(), s.emptyDumpRanks.end(), s.heldRanks[i]) &&
            !std::binary_search(s.noDumpRanks.begin(), s.noDumpRanks.end(), s.heldRanks[i]))
            parts.push_back("rank " + std::to_string(s.heldRanks[i]) + " is held in " + s.heldIn[i]);
    if (s.heldRanks.size() > 4)
        parts.push_back(std::to_string(s.heldRanks.size()) + " missing ranks are held in other findings");
    std::string out;
    for (size_t i = 0; i < parts.size(); ++i)
        out += (i ? "; " : "") + parts[i];
    const size_t w = s.waitingRanks.size();
    out += "; " + std::to_string(w) + (w == 1 ? " rank waits" : " ranks wait");
    return out;
}

std::string msText(double ms)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, ms < 10 ? "%.2f" : "%.0f", ms);
    return buf;
}

// "  rank 12: last entry pg 74 ... seq 20536 (scheduled), 1.56 ms before this op was first
// entered; at f (file:1)": what the missing rank did last.
std::string lastEntryText(const HangSuspect &s, const HangLastEntry &l)
{
    std::string out = "  rank " + std::to_string(l.rank) + ": ";
    if (l.dump == "none")
        return out + "no dump\n";
    if (l.dump == "empty") {
        out += "no active entry in its dump (everything it enqueued completed";
        if (l.groupLastEnqueued >= 0)
            out += "; last enqueued in pg " + s.pgName + ": seq " + std::to_string(l.groupLastEnqueued);
        return out + "): it stopped issuing work before this op (a blocked CPU: a hung Python thread, the GIL, I/O)\n";
    }
    out += "last entry pg " + l.pgName;
    if (!l.pgDesc.empty())
        out += " " + l.pgDesc;
    out += " " + l.op + (l.p2p ? " p2p seq " + std::to_string(l.p2pSeqId) : " seq " + std::to_string(l.collectiveSeqId));
    if (!l.state.empty())
        out += " (" + l.state + ")";
    if (l.timeCreatedNs >= 0 && s.timeCreatedNs >= 0) {
        const double ms = double(s.timeCreatedNs - l.timeCreatedNs) / 1e6;
        out += ms >= 0 ? ", " + msText(ms) + " ms before this op was first entered"
                       : ", " + msText(-ms) + " ms after this op was first entered";
    }
    if (!l.frames.empty())
        out += "; at " + l.frames.front();
    return out + "\n";
}

} // namespace

std::string hangSummaryText(const HangAnalysis &a)
{
    if (a.suspects.empty())
        return "no hang found: every process group's members agree on their last collectives\n";
    std::string out;
    size_t consequences = 0;
    for (size_t i = 0; i < a.suspects.size(); ++i) {
        const HangSuspect &s = a.suspects[i];
        if (!s.root) {
            ++consequences;
            continue;
        }
        out += (i == 0 ? "hang: " : "also: ") + opText(s) + " - " + whatText(s) + " [" + s.kind + "]";
        if (!s.explains.empty())
            out += " (explains " + std::to_string(s.explains.size()) + " other finding" +
                   (s.explains.size() == 1 ? ")" : "s)");
        out += "\n";
        for (size_t k = 0; k < s.lastEntries.size() && k < 8; ++k)
            out += lastEntryText(s, s.lastEntries[k]);
    }
    if (consequences) {
        out += std::to_string(consequences) + (consequences == 1 ? " consequence:\n" : " consequences:\n");
        for (const HangSuspect &s : a.suspects) {
            if (s.root)
                continue;
            out += "  " + opText(s) + " - " + whatText(s) + " (because of pg ";
            for (size_t j = 0; j < s.explainedBy.size(); ++j)
                out += (j ? ", pg " : "") + a.suspects[s.explainedBy[j]].pgName;
            out += ")\n";
        }
    }
    return out;
}

namespace {

nlohmann::json lastEntriesJson(const HangSuspect &s)
{
    using nlohmann::json;
    json out = json::array();
    auto optional = [](int64_t v) { return v >= 0 ? json(v) : json(nullptr); };
    for (const HangLastEntry &l : s.lastEntries)
        out.push_back({{"rank", l.rank},
                       {"dump", l.dump},
                       {"pg_id", l.pgName.empty() ? json(nullptr) : json(l.pgName)},
                       {"pg_desc", l.pgDesc},
                       {"op", l.op},
                       {"state", l.state},
                       {"p2p", l.p2p},
                       {"collective_seq_id", optional(l.collectiveSeqId)},
                       {"p2p_seq_id", optional(l.p2pSeqId)},
                       {"time_created_ns", optional(l.timeCreatedNs)},
                       {"frames", l.frames},
                       {"group_last_enqueued", optional(l.groupLastEnqueued)}});
    return out;
}

} // namespace

nlohmann::json hangAnalysisJson(const HangAnalysis &a)
{
    using nlohmann::json;
    json suspects = json::array();
    for (const HangSuspect &s : a.suspects) {
        json mism = json::array();
        for (const auto &m : s.mismatches)
            mism.push_back({{"rank", m.rank}, {"op", m.op}, {"input_sizes", m.inputSizes}, {"dtype", m.dtype}});
        suspects.push_back({{"pg_id", s.pgName},
                            {"pg_desc", s.pgDesc},
                            {"op", s.op},
                            {"input_sizes", s.inputSizes},
                            {"dtype", s.dtype},
                            {"p2p", s.p2p},
                            {"collective_seq_id", s.collectiveSeqId >= 0 ? json(s.collectiveSeqId) : json(nullptr)},
                            {"p2p_seq_id", s.p2pSeqId >= 0 ? json(s.p2pSeqId) : json(nullptr)},
                            {"missing_ranks", s.missingRanks},
                            {"mismatched_ranks", s.mismatchedRanks},
                            {"waiting_ranks", s.waitingRanks},
                            {"empty_dump_ranks", s.emptyDumpRanks},
                            {"no_dump_ranks", s.noDumpRanks},
                            {"mismatches", mism},
                            {"kind", s.kind},
                            {"root", s.root},
                            {"time_created_ns", s.timeCreatedNs >= 0 ? json(s.timeCreatedNs) : json(nullptr)},
                            {"explains", s.explains},
                            {"explained_by", s.explainedBy},
                            {"held_ranks", s.heldRanks},
                            {"held_in", s.heldIn},
                            {"last_entries", lastEntriesJson(s)}});
    }
    json groups = json::array();
    for (const HangGroupStatus &g : a.groups) {
        json ranks = json::array();
        for (const auto &m : g.members)
            ranks.push_back({{"rank", m.rank},
                             {"last_enqueued", m.lastEnqueued},
                             {"last_started", m.lastStarted},
                             {"last_completed", m.lastCompleted},
                             {"state", m.state},
                             {"dump", m.dump}});
        groups.push_back({{"pg_id", g.pgName}, {"pg_desc", g.pgDesc}, {"ranks", ranks}});
    }
    return {{"suspects", suspects}, {"groups", groups}, {"warnings", a.warnings}, {"summary", hangSummaryText(a)}};
}

} // namespace syncscope
