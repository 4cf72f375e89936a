// SPDX-License-Identifier: MIT
#include "clirequest.h"

#include "session/samplepair.h"

#include <charconv>
#include <climits>
#include <cstdio>

namespace syncscope {

namespace {

bool parseInt(const std::string &text, int64_t &out)
{
    const char *end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, out);
    return ec == std::errc() && ptr == end && !text.empty();
}

// An integer in [lo, hi]; false with `error` saying the allowed range (a number
// too big for any integer type is out of range too, never "not a number").
bool parseBounded(const std::string &option, const std::string &text, int64_t lo, int64_t hi, int64_t &out,
                  std::string &error)
{
    const bool digits = !text.empty() && text.find_first_not_of("0123456789", text[0] == '-' ? 1 : 0) ==
                                             std::string::npos && text != "-";
    if (digits && (!parseInt(text, out) || out < lo || out > hi)) {
        error = option + " is out of range: " + text + " (allowed: " + std::to_string(lo) + " to " +
                std::to_string(hi) + ")";
        return false;
    }
    if (!digits) {
        error = option + " needs an integer from " + std::to_string(lo) + " to " + std::to_string(hi) + " (got '" +
                text + "')";
        return false;
    }
    return true;
}

// Options that name a file: an empty name is a usage error, never "not given".
const char *const kPathOptions[] = {"--host",    "--device",        "--inspect", "--output", "--chakra-et",
                                    "--overlay", "--critical-path", "--report",  "--screenshot",
                                    "--diff",    "--diff-report", "--sqlite"};

// --step N | A,B | all: ProfilerStep#N by the number in its name (README "Steps and HTA instances").
bool parseStep(const CliArgs &args, AnalysisRequest &req, std::string &error)
{
    if (!args.has("--step"))
        return true;
    const std::string text = args.value("--step");
    req.window = WindowKind::Step;
    if (text == "all") {
        req.allSteps = true; // the first step plus one critical path per step
        return true;
    }
    const auto comma = text.find(',');
    int64_t a = 0, b = 0;
    if (!parseBounded("--step", text.substr(0, comma), 0, INT_MAX, a, error) ||
        (comma != std::string::npos && !parseBounded("--step", text.substr(comma + 1), 0, INT_MAX, b, error))) {
        error += "; --step takes N, A,B or all";
        return false;
    }
    if (comma != std::string::npos && b < a) {
        error = "--step A,B needs A <= B (got '" + text + "')";
        return false;
    }
    req.stepFirst = a;
    req.stepLast = comma == std::string::npos ? a : b;
    return true;
}

} // namespace

bool parseSize(const std::string &text, int &width, int &height)
{
    const auto x = text.find_first_of("xX");
    int64_t w = 0, h = 0;
    if (x == std::string::npos || !parseInt(text.substr(0, x), w) || !parseInt(text.substr(x + 1), h))
        return false;
    if (w < 200 || h < 200 || w > 10000 || h > 10000)
        return false;
    width = static_cast<int>(w);
    height = static_cast<int>(h);
    return true;
}

// In job mode these outputs take no file: each rank's goes to --output-dir.
static bool jobSwitch(const char *option)
{
    for (const auto &o : cliOptions())
        if (std::string_view(o.name) == option)
            return (o.flags & CliOptionalValue) != 0;
    return false;
}

bool buildCliRequest(const CliArgs &args, const char *argv0, CliRequest &out, std::string &error)
{
    AnalysisRequest &req = out.request;
    for (const char *option : kPathOptions)
        if (args.has(option) && args.value(option).empty() && !(args.has("--job") && jobSwitch(option))) {
            error = std::string(option) + " needs a file name (got an empty string)";
            return false;
        }
    for (const auto &p : args.positional)
        if (p.empty()) {
            error = "an empty string was given as an input file name";
            return false;
        }
    req.hostPath = args.value("--host");
    req.devicePath = args.value("--device");
    req.rolesGiven = args.has("--host") || args.has("--device");
    if (args.has("--sample")) {
        const SamplePair sample = findSamplePair(argv0);
        if (sample.host.empty()) {
            error = "the bundled sample pair was not found (set SYNCSCOPE_SAMPLE_DIR)";
            return false;
        }
        if (req.hostPath.empty())
            req.hostPath = sample.host;
        if (req.devicePath.empty())
            req.devicePath = sample.device;
    }
    for (const auto &p : args.positional) {
        if (args.has("--diff"))
            break; // the candidate run of --diff BASELINE CANDIDATE (app/batchdiff)
        if (req.hostPath.empty())
            req.hostPath = p;
        else if (req.devicePath.empty())
            req.devicePath = p;
        else {
            error = "too many input files";
            return false;
        }
    }
    if (req.devicePath.empty() && !req.hostPath.empty() && !args.has("--host")) {
        req.devicePath = req.hostPath; // one file: a device trace on its own
        req.hostPath.clear();
    }
    out.hasInputs = !req.devicePath.empty();
    if (args.has("--compat")) {
        if (args.value("--compat") != "chakra") {
            error = "--compat takes 'chakra' (got '" + args.value("--compat") + "')";
            return false;
        }
        req.mode = LinkMode::Chakra;
    }
    if (args.has("--rank")) {
        int64_t rank = 0;
        if (!parseBounded("--rank", args.value("--rank"), 0, INT_MAX, rank, error))
            return false;
        req.rank = rank;
    }
    if (args.has("--step") && (args.has("--instance") || args.has("--annotation"))) {
        error = std::string("--step cannot be combined with ") + (args.has("--instance") ? "--instance" : "--annotation") +
                ": --step picks ProfilerStep#N by the number in its name, --instance/--annotation HTA's window";
        return false;
    }
    if (!parseStep(args, req, error))
        return false;
    if (args.has("--annotation") || args.has("--instance"))
        req.window = WindowKind::HtaInstance; // HTA's numbering, exactly as asked
    if (args.has("--annotation"))
        req.cpa.annotation = args.value("--annotation");
    if (args.has("--instance")) {
        const std::string inst = args.value("--instance");
        int64_t a = 0, b = 0;
        const auto comma = inst.find(',');
        if (inst == "all") {
            req.allSteps = true; // instance 0 plus one critical path per step
        } else if (comma != std::string::npos) {
            if (!parseBounded("--instance", inst.substr(0, comma), 0, INT_MAX, a, error) ||
                !parseBounded("--instance", inst.substr(comma + 1), 0, INT_MAX, b, error))
                return false;
            if (b < a) {
                error = "--instance A,B needs A <= B (got '" + inst + "')";
                return false;
            }
            req.cpa.instanceFirst = static_cast<int>(a);
            req.cpa.instanceLast = static_cast<int>(b);
        } else {
            if (!parseBounded("--instance", inst, 0, INT_MAX, a, error)) {
                error += "; --instance takes N, A,B or all";
                return false;
            }
            req.cpa.instanceFirst = req.cpa.instanceLast = static_cast<int>(a);
        }
    }
    if (args.has("--hta-version") && !parseHtaVersion(args.value("--hta-version"), req.cpa.htaVersion)) {
        error = "--hta-version takes f4d0062 or d731cc2e (got '" + args.value("--hta-version") + "')";
        return false;
    }
    // d731cc2e is reproduced exactly or not at all.
    req.cpa.htaExact = args.has("--hta-exact") || isHtaExact(req.cpa);
    req.chakraMetadataNodes = args.has("--chakra-metadata-nodes");
    req.graphCapturePath = args.value("--graph-capture");
    req.cpa.zeroWeightLaunchEdges = args.has("--zero-weight-launch-edges");
    out.openPair = args.has("--open-pair");
    out.screenshot = args.value("--screenshot");
    out.select = args.value("--select");
    out.rankOrder = args.value("--rank-order");
    if (args.has("--rank-order") && out.rankOrder != "rank" && out.rankOrder != "step" && out.rankOrder != "waits") {
        error = "--rank-order takes rank, step or waits (got '" + out.rankOrder + "')";
        return false;
    }
    out.theme = args.value("--theme");
    if (args.has("--theme") && out.theme != "light" && out.theme != "dark" && out.theme != "system") {
        error = "--theme takes light, dark or system (got '" + out.theme + "')";
        return false;
    }
    if (args.has("--size") && !parseSize(args.value("--size"), out.width, out.height)) {
        error = "--size takes WIDTHxHEIGHT between 200 and 10000 pixels (got '" + args.value("--size") + "')";
        return false;
    }
    // The report carries the breakdowns, and the summary shows them with --step all.
    out.request.breakdowns =
        !args.has("--no-breakdowns") && (args.has("--report") || (out.request.allSteps && !args.has("--quiet")));
    if (!out.screenshot.empty() && !out.hasInputs && !args.has("--diff")) {
        error = "--screenshot needs a trace (files or --sample)";
        return false;
    }
    return true;
}

} // namespace syncscope
