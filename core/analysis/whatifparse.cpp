// SPDX-License-Identifier: MIT
// The what-if rule language (docs/what_if.md, "Rules" and "Limits"): parsing and
// its bounds, checked when a rule is parsed, never per event.
#include "whatif.h"

#include "boundedregex.h"

#include <charconv>
#include <cmath>
#include <tuple>

namespace syncscope {

namespace {

std::string_view trim(std::string_view s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
        s.remove_suffix(1);
    return s;
}

bool parseDouble(std::string_view s, double &out)
{
    s = trim(s);
    if (s.empty())
        return false;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && p == s.data() + s.size() && std::isfinite(out);
}

bool parseInt(std::string_view s, int64_t &out)
{
    s = trim(s);
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return !s.empty() && ec == std::errc() && p == s.data() + s.size();
}

// "250", "250us", "1.5ms", "2s", "800ns" -> µs; false unless it is a number in
// [0, 2^60 ns] (checked in ns, where the bound is exact).
bool parseDuration(std::string_view s, double &us)
{
    s = trim(s);
    double scale = 1, nsPerUnit = 1e3;
    for (auto [suffix, factor, ns] : {std::tuple<std::string_view, double, double>{"ns", 1e-3, 1}, {"us", 1, 1e3},
                                      {"µs", 1, 1e3}, {"ms", 1e3, 1e6}, {"s", 1e6, 1e9}})
        if (s.size() > suffix.size() && s.substr(s.size() - suffix.size()) == suffix) {
            s.remove_suffix(suffix.size());
            scale = factor;
            nsPerUnit = ns;
            break;
        }
    double value = 0;
    if (!parseDouble(s, value) || !(value >= 0 && value * nsPerUnit <= kWhatIfMaxDurationNs))
        return false;
    us = value * scale;
    return true;
}

// The rule as a message quotes it: whole, or its first 100 bytes (at a UTF-8
// boundary) and its length when longer than 120 bytes.
std::string inQuotes(std::string_view text)
{
    std::string out(1, '"');
    if (text.size() <= 120) {
        out.append(text);
        out += '"';
        return out;
    }
    size_t n = 100;
    while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80)
        --n;
    out.append(text.substr(0, n));
    out += "...\" (";
    out += std::to_string(text.size());
    out += " bytes)";
    return out;
}

bool parseSelector(std::string_view text, WhatIfSelector &sel, std::string &error)
{
    using Term = WhatIfSelector::Term;
    sel.terms.clear();
    size_t start = 0;
    while (start <= text.size()) {
        const size_t amp = text.find('&', start);
        const std::string_view part = trim(text.substr(start, amp == std::string_view::npos ? text.npos : amp - start));
        start = amp == std::string_view::npos ? text.size() + 1 : amp + 1;
        if (part.empty()) {
            error = "an empty selector term";
            return false;
        }
        Term t;
        if (part.substr(0, 5) == "name~") {
            t.kind = Term::NameRegex;
            t.text = std::string(part.substr(5));
            std::string why;
            t.regex = compileBoundedRegex(t.text, kWhatIfMaxPatternBytes, why);
            if (!t.regex) {
                error = "name~" + inQuotes(t.text) + ": " + why;
                return false;
            }
        } else if (part.substr(0, 5) == "name=") {
            t.kind = Term::NameEquals;
            t.text = std::string(part.substr(5));
        } else if (part.substr(0, 4) == "cat=") {
            t.kind = Term::Category;
            t.text = std::string(part.substr(4));
            static const std::pair<const char *, EventKind> kCats[] = {
                {"kernel", EventKind::Kernel}, {"cpu_op", EventKind::CpuOp}, {"runtime", EventKind::Runtime},
                {"memcpy", EventKind::Memcpy}, {"memset", EventKind::Memset},
                {"user_annotation", EventKind::UserAnnotation}};
            bool found = false;
            for (const auto &[name, kind] : kCats)
                if (t.text == name) {
                    t.category = kind;
                    found = true;
                }
            if (!found) {
                error = "unknown category " + inQuotes(t.text) +
                        " (kernel, cpu_op, runtime, memcpy, memset, user_annotation)";
                return false;
            }
        } else if (part == "comm") {
            t.kind = Term::Comm;
        } else if (part == "compute") {
            t.kind = Term::Compute;
        } else if (part.substr(0, 7) == "stream=" || part.substr(0, 5) == "rank=" || part.substr(0, 6) == "event=") {
            const size_t eq = part.find('=');
            t.kind = part[0] == 's' ? Term::Stream : part[0] == 'r' ? Term::Rank : Term::Event;
            t.text = std::string(part.substr(eq + 1));
            if (!parseInt(t.text, t.number)) {
                error = inQuotes(part) + " needs an integer";
                return false;
            }
        } else if (part.substr(0, 5) == "coll=" || part.substr(0, 3) == "pg=") {
            t.kind = part[0] == 'c' ? Term::Coll : Term::Pg;
            t.text = std::string(trim(part.substr(part.find('=') + 1)));
            if (t.text.empty()) {
                error = inQuotes(part) + (t.kind == Term::Coll ? " needs a collective name (e.g. coll=allreduce)"
                                                             : " needs a process group name (e.g. pg=0)");
                return false;
            }
        } else if (part.substr(0, 5) == "step=") {
            t.kind = Term::Step;
            t.text = std::string(part.substr(5));
            if (!parseInt(t.text, t.number) || t.number < 0 || t.number > kWhatIfMaxStep) {
                error = inQuotes(part) + " needs a step number N in [0, 2^53] (ProfilerStep#N)";
                return false;
            }
        } else if (part.find_first_of("=~") != std::string_view::npos) {
            error = "unknown selector " + inQuotes(part) +
                    " (name~REGEX, name=NAME, cat=..., comm, compute, stream=N, rank=N, event=N, coll=NAME, "
                    "pg=NAME, step=N, or a name)";
            return false;
        } else {
            t.kind = Term::NameEquals;
            t.text = std::string(part);
        }
        sel.terms.push_back(std::move(t));
    }
    return true;
}

} // namespace

bool parseWhatIfRule(std::string_view text, WhatIfRule &rule, std::string &error)
{
    rule = WhatIfRule{};
    if (text.size() > kWhatIfMaxRuleBytes) {
        error = "what-if rule " + inQuotes(text) + " is too long: a rule may have at most " +
                std::to_string(kWhatIfMaxRuleBytes) + " bytes";
        return false;
    }
    rule.text = std::string(text);
    text = trim(text);
    std::string_view selector;
    if (text.substr(0, 5) == "sync:") {
        const std::string_view rest = text.substr(5);
        const size_t eq = rest.rfind('=');
        if (eq == std::string_view::npos || trim(rest.substr(eq + 1)) != "drop") {
            error = "what-if rule " + inQuotes(rule.text) + ": a sync rule is sync:SELECTOR=drop";
            return false;
        }
        rule.action = WhatIfRule::DropSync;
        selector = rest.substr(0, eq);
    } else {
        const size_t star = text.rfind('*'), eq = text.rfind('=');
        const bool scale = star != std::string_view::npos && (eq == std::string_view::npos || star > eq);
        if (!scale && eq == std::string_view::npos) {
            error = "what-if rule " + inQuotes(rule.text) +
                    " has no action: write SELECTOR*FACTOR, SELECTOR=DURATION, SELECTOR=median|mean|min or "
                    "sync:SELECTOR=drop";
            return false;
        }
        const size_t at = scale ? star : eq;
        selector = text.substr(0, at);
        const std::string_view value = text.substr(at + 1);
        if (scale) {
            rule.action = WhatIfRule::Scale;
            if (!parseDouble(value, rule.factor) || !(rule.factor >= 0 && rule.factor <= kWhatIfMaxFactor)) {
                error = "what-if rule " + inQuotes(rule.text) + ": the factor " + inQuotes(trim(value)) +
                        " is not a number in [0, 1e6] (the allowed factors)";
                return false;
            }
        } else if (const std::string_view v = trim(value); v == "median" || v == "mean" || v == "min") {
            rule.action = WhatIfRule::SetStatistic;
            rule.statistic = v == "median" ? WhatIfRule::Median : v == "mean" ? WhatIfRule::Mean : WhatIfRule::Min;
        } else {
            rule.action = WhatIfRule::Set;
            if (!parseDuration(value, rule.durationUs)) {
                error = "what-if rule " + inQuotes(rule.text) + ": the duration " + inQuotes(trim(value)) +
                        " is not a time in [0, 2^60 ns] (about 36.5 years; µs, or with ns/us/ms/s) nor median, "
                        "mean or min";
                return false;
            }
        }
    }
    std::string why;
    if (!parseSelector(trim(selector), rule.selector, why)) {
        error = "what-if rule " + inQuotes(rule.text) + ": " + why;
        return false;
    }
    return true;
}

} // namespace syncscope
