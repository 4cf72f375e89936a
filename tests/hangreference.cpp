// SPDX-License-Identifier: MIT
#include "hangreference.h"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace testutil {

namespace {

std::string trim(std::string s)
{
    const auto b = s.find_first_not_of(" \t\r");
    const auto e = s.find_last_not_of(" \t\r");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

// "9,14" or "[12, 14]": the numbers in it.
std::vector<int64_t> numbers(const std::string &s)
{
    std::vector<int64_t> out;
    std::string cur;
    for (char c : s + ",") {
        if (c >= '0' && c <= '9') {
            cur += c;
        } else if (!cur.empty()) {
            out.push_back(std::stoll(cur));
            cur.clear();
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::string list(const std::vector<int64_t> &v)
{
    std::string o;
    for (size_t i = 0; i < v.size(); ++i)
        o += (i ? "," : "") + std::to_string(v[i]);
    return "[" + o + "]";
}

} // namespace

HangReference readHangReference(const std::string &dir)
{
    HangReference ref;
    std::ifstream in(dir + "/reference_output.txt");
    std::string line;
    bool header = true;
    while (in && std::getline(in, line)) {
        ref.found = true;
        if (header || trim(line).empty()) {
            header = false;
            continue;
        }
        std::vector<std::string> cells;
        std::stringstream ss(line);
        for (std::string cell; std::getline(ss, cell, '|');)
            cells.push_back(trim(cell));
        if (cells.size() < 6)
            continue;
        ref.rows.push_back({cells[0], cells[2], cells[3], cells[4], numbers(cells[5])});
    }
    std::ifstream log(dir + "/fault_injection.log");
    while (log && std::getline(log, line))
        if (line.rfind("Fault ranks:", 0) == 0)
            ref.faultRanks = numbers(line.substr(12));
    return ref;
}

std::vector<std::string> compareHangReference(const syncscope::HangAnalysis &a, const HangReference &ref)
{
    std::vector<std::string> out;
    auto matches = [](const syncscope::HangSuspect &s, const HangReferenceRow &r) {
        return s.pgName == r.pg && s.missingRanks == r.missing;
    };
    if (ref.rows.empty())
        return out;
    const HangReferenceRow &first = ref.rows.front();
    if (a.suspects.empty()) {
        out.push_back("no suspect; the reference has pg " + first.pg + " missing " + list(first.missing));
        return out;
    }
    const syncscope::HangSuspect &head = a.suspects.front();
    if (!matches(head, first) || head.op != first.op)
        out.push_back("first suspect pg " + head.pgName + " " + head.op + " missing " + list(head.missingRanks) +
                      "; the reference: pg " + first.pg + " " + first.op + " missing " + list(first.missing));
    for (const HangReferenceRow &r : ref.rows)
        if (std::none_of(a.suspects.begin(), a.suspects.end(), [&](const auto &s) { return matches(s, r); }))
            out.push_back("the reference's pg " + r.pg + " missing " + list(r.missing) + " is no suspect");
    if (!ref.faultRanks.empty())
        for (const syncscope::HangSuspect &s : a.suspects)
            for (int64_t rank : s.missingRanks)
                if (s.root && !std::binary_search(s.heldRanks.begin(), s.heldRanks.end(), rank) &&
                    !std::binary_search(ref.faultRanks.begin(), ref.faultRanks.end(), rank))
                    out.push_back("root pg " + s.pgName + " blames rank " + std::to_string(rank) +
                                  ", outside the injected faults " + list(ref.faultRanks));
    return out;
}

} // namespace testutil
