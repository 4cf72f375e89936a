// SPDX-License-Identifier: MIT
// What-if speed (issue 15): one analysis of a pair, then what-if evaluations
// on its critical-path graph, which is reused and never rebuilt. Prints the
// input size, the analysis time and the median time of each evaluation
// (target: <= 100 ms on the 200 MB pair's step).
//
//   syncscope-whatifbench DEVICE_TRACE [HOST_ET] [--rule RULE]... [--repeat N] [--whole-trace]
#include "analysis/whatif.h"
#include "session/analysis.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

using namespace syncscope;

namespace {

double since(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double fileMb(const std::string &path)
{
    std::error_code ec;
    const auto bytes = path.empty() ? 0 : std::filesystem::file_size(path, ec);
    return ec ? 0 : static_cast<double>(bytes) / 1e6;
}

} // namespace

int main(int argc, char **argv)
{
    AnalysisRequest req;
    std::vector<std::string> ruleTexts;
    int repeat = 5;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--rule" && i + 1 < argc)
            ruleTexts.push_back(argv[++i]);
        else if (a == "--whole-trace") // the whole trace as the window instead of the first step
            req.cpa.annotation.clear();
        else if (a == "--repeat" && i + 1 < argc)
            repeat = std::max(1, std::atoi(argv[++i]));
        else if (req.devicePath.empty())
            req.devicePath = a;
        else
            req.hostPath = a;
    }
    if (req.devicePath.empty()) {
        std::fprintf(stderr, "usage: syncscope-whatifbench DEVICE_TRACE [HOST_ET] [--rule RULE]... [--repeat N] [--whole-trace]\n");
        return 2;
    }
    if (ruleTexts.empty())
        ruleTexts = {"cat=kernel*0.5", "name~gemm*0.5", "cat=cpu_op*0.8", "compute=0", "comm*0.5"};

    const auto t0 = std::chrono::steady_clock::now();
    const std::shared_ptr<Analysis> a = runAnalysis(req);
    const double analysisS = since(t0);
    if (!a->device || !a->criticalPath || !a->criticalPath->success) {
        std::fprintf(stderr, "no critical path: %s\n", a->criticalPath ? a->criticalPath->reason.c_str() : "not run");
        return 1;
    }
    const CriticalPathResult &cp = *a->criticalPath;
    std::printf("input     %.1f MB (device %.1f MB, host %.1f MB), %zu events\n",
                fileMb(req.devicePath) + fileMb(req.hostPath), fileMb(req.devicePath), fileMb(req.hostPath),
                a->device->events.size());
    std::printf("analysis  %.2f s (once); window %s; critical-path graph %d nodes, %d edges, path %.1f us\n",
                analysisS, cp.window.wholeTrace ? "whole trace" : "first ProfilerStep", cp.graph.nodeCount(),
                cp.graph.edgeCount(), cp.weightUs);

    const auto t1 = std::chrono::steady_clock::now();
    const WhatIfEngine engine(*a->device, cp, a->device->distributed.rank);
    std::printf("engine    %.1f ms (once per analysis: topological order, baseline times)\n", since(t1) * 1e3);

    double worst = 0;
    for (const std::string &text : ruleTexts) {
        WhatIfRule rule;
        std::string error;
        if (!parseWhatIfRule(text, rule, error)) {
            std::fprintf(stderr, "%s\n", error.c_str());
            return 2;
        }
        std::vector<double> ms;
        WhatIfResult r;
        for (int k = 0; k < repeat; ++k) {
            const auto t = std::chrono::steady_clock::now();
            r = engine.evaluate({rule});
            ms.push_back(since(t) * 1e3);
        }
        std::sort(ms.begin(), ms.end());
        const double median = ms[ms.size() / 2];
        worst = std::max(worst, median);
        if (r.ok)
            std::printf("what-if   %-24s %8.1f ms median of %d  (%lld matched, %.1f -> %.1f us, %.2fx, %.0f edges/ms)\n",
                        text.c_str(), median, repeat, static_cast<long long>(r.rules[0].matched), r.baselineUs,
                        r.projectedUs, r.speedup, cp.graph.edgeCount() / std::max(median, 1e-9));
        else
            std::printf("what-if   %-24s %8.1f ms median of %d  (%s)\n", text.c_str(), median, repeat, r.error.c_str());
    }
    std::printf("slowest   %.1f ms per what-if (target <= 100 ms)\n", worst);
    return 0;
}
