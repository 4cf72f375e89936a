// SPDX-License-Identifier: MIT
// Which machine a rank ran on, from what its Kineto trace says (ranksummary.h, rankHost).
#include "analysis/ranksummary.h"

#include "model/kinetotrace.h"

#include <charconv>
#include <map>

namespace syncscope {

namespace {

bool allDigits(std::string_view s)
{
    return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}

} // namespace

std::string hostFromTraceName(std::string_view name, int64_t pid)
{
    if (const size_t slash = name.find_last_of("/\\"); slash != std::string_view::npos)
        name.remove_prefix(slash + 1);
    auto strip = [&](std::string_view suffix) {
        const bool has = name.size() > suffix.size() && name.substr(name.size() - suffix.size()) == suffix;
        if (has)
            name.remove_suffix(suffix.size());
        return has;
    };
    strip(".gz");
    if (!strip(".pt.trace.json")) // tensorboard_trace_handler: <worker>.<ms>.pt.trace.json[.gz]
        return {};
    const size_t dot = name.find_last_of('.');
    if (dot == std::string_view::npos || !allDigits(name.substr(dot + 1)))
        return {};
    const std::string_view worker = name.substr(0, dot);
    const size_t underscore = worker.find_last_of('_');
    if (underscore == std::string_view::npos || underscore == 0 || !allDigits(worker.substr(underscore + 1)))
        return {};
    int64_t written = -1;
    const std::string_view digits = worker.substr(underscore + 1);
    std::from_chars(digits.data(), digits.data() + digits.size(), written);
    if (pid >= 0 && written != pid) // a custom worker name that merely ends in a number
        return {};
    return std::string(worker.substr(0, underscore));
}

std::string rankHost(const KinetoTrace &trace, int64_t rank, int64_t pid)
{
    for (const auto &[key, raw] : trace.topLevel)
        if (key == "traceName" && raw.size() >= 2 && raw.front() == '"' && raw.back() == '"') {
            const std::string host = hostFromTraceName(std::string_view(raw).substr(1, raw.size() - 2), pid);
            if (!host.empty())
                return host;
        }
    if (trace.deviceCount < 2 || rank < 0)
        return {};
    std::map<int64_t, int64_t> kernelsOn; // the GPU this process ran its kernels on
    for (const KinetoEvent &e : trace.events)
        if (e.kind == EventKind::Kernel && e.device >= 0)
            ++kernelsOn[e.device];
    int64_t device = -1, most = 0;
    for (const auto &[d, n] : kernelsOn)
        if (n > most) {
            device = d;
            most = n;
        }
    if (device < 0 || device > rank || device >= trace.deviceCount)
        return {};
    return "node@" + std::to_string(rank - device);
}

} // namespace syncscope
