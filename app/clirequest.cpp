// SPDX-License-Identifier: MIT
#include "clirequest.h"

#include "session/samplepair.h"

#include <cstdio>

namespace syncscope {

namespace {

bool parseInt(const std::string &text, int64_t &out)
{
    try {
        size_t used = 0;
        out = std::stoll(text, &used);
        return used == text.size();
    } catch (...) {
        return false;
    }
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

bool buildCliRequest(const CliArgs &args, const char *argv0, CliRequest &out, std::string &error)
{
    AnalysisRequest &req = out.request;
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
        if (!parseInt(args.value("--rank"), rank) || rank < 0) {
            error = "--rank needs a non-negative integer";
            return false;
        }
        req.rank = rank;
    }
    if (args.has("--annotation"))
        req.cpa.annotation = args.value("--annotation");
    if (args.has("--instance")) {
        const std::string inst = args.value("--instance");
        int64_t a = 0, b = 0;
        const auto comma = inst.find(',');
        if (inst == "all") {
            req.allSteps = true; // instance 0 plus one critical path per step
        } else if (comma != std::string::npos && parseInt(inst.substr(0, comma), a) &&
                   parseInt(inst.substr(comma + 1), b) && a >= 0 && b >= a) {
            req.cpa.instanceFirst = static_cast<int>(a);
            req.cpa.instanceLast = static_cast<int>(b);
        } else if (parseInt(inst, a) && a >= 0) {
            req.cpa.instanceFirst = req.cpa.instanceLast = static_cast<int>(a);
        } else {
            error = "--instance takes N, A,B or all (got '" + inst + "')";
            return false;
        }
    }
    if (args.has("--hta-version") && !parseHtaVersion(args.value("--hta-version"), req.cpa.htaVersion)) {
        error = "--hta-version takes f4d0062 or d731cc2e (got '" + args.value("--hta-version") + "')";
        return false;
    }
    req.cpa.zeroWeightLaunchEdges = args.has("--zero-weight-launch-edges");
    out.openPair = args.has("--open-pair");
    out.screenshot = args.value("--screenshot");
    out.select = args.value("--select");
    if (args.has("--size") && !parseSize(args.value("--size"), out.width, out.height)) {
        error = "--size takes WIDTHxHEIGHT between 200 and 10000 pixels (got '" + args.value("--size") + "')";
        return false;
    }
    if (!out.screenshot.empty() && !out.hasInputs) {
        error = "--screenshot needs a trace (files or --sample)";
        return false;
    }
    return true;
}

} // namespace syncscope
