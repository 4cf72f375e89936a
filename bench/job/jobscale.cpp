// SPDX-License-Identifier: MIT
// syncscope-jobscale: how the cross-rank analysis scales with the number of ranks
// (issue 12: near-linear, no all-pairs matching). For each N it generates a job
// of N small ranks, runs the per-rank pipeline on each (serially) and extracts
// the summaries, then times analyzeJob alone and reports memory.
#include "job/jobanalysis.h"
#include "job/jobreport.h"
#include "session/analysis.h"
#include "tracegen.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace {

double seconds(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// kB from /proc/self/status (VmRSS, VmHWM).
long procStatus(const char *key)
{
    std::ifstream in("/proc/self/status");
    std::string k;
    long v = 0;
    std::string unit;
    while (in >> k) {
        if (k == key) {
            in >> v;
            return v;
        }
        std::getline(in, unit);
    }
    return -1;
}

} // namespace

int main(int argc, char **argv)
{
    std::string work = "/tmp/syncscope-jobscale";
    std::vector<int> sizes;
    std::vector<std::string> devices; // --devices: analyse these traces and print the job JSON
    int layers = 1, steps = 1, repeat = 1;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--work" && i + 1 < argc)
            work = argv[++i];
        else if (a == "--layers" && i + 1 < argc)
            layers = std::atoi(argv[++i]);
        else if (a == "--repeat" && i + 1 < argc) // for profiling the analysis alone
            repeat = std::max(1, std::atoi(argv[++i]));
        else if (a == "--steps" && i + 1 < argc)
            steps = std::atoi(argv[++i]);
        else if (a == "--devices") {
            while (i + 1 < argc)
                devices.push_back(argv[++i]);
        } else if (a.find_first_not_of("0123456789") == std::string::npos)
            sizes.push_back(std::atoi(a.c_str()));
        else {
            std::fprintf(stderr, "usage: syncscope-jobscale [--work DIR] [--layers L] [--steps S] [--repeat K] N... | --devices KINETO...\n");
            return 2;
        }
    }
    if (!devices.empty()) {
        std::vector<syncscope::RankSummary> ranks;
        for (const std::string &d : devices) {
            syncscope::AnalysisRequest request;
            request.devicePath = d;
            ranks.push_back(syncscope::extractRankSummary(*syncscope::runAnalysis(request), 0));
        }
        for (const auto &r : ranks) {
            int kernels = 0, gpu = 0;
            for (const auto &op : r.criticalPath.ops) {
                kernels += op.collective >= 0;
                gpu += op.stream >= 0;
            }
            std::fprintf(stderr,
                         "rank %lld: critical path %s %.1f us, %zu ops (%d GPU, %d collective kernels), %zu edges, "
                         "summary %.1f KB\n",
                         static_cast<long long>(r.rank), r.criticalPath.valid ? "valid" : "invalid",
                         r.criticalPath.weightUs, r.criticalPath.ops.size(), gpu, kernels, r.criticalPath.edges.size(),
                         syncscope::serializeRankSummary(r).size() / 1024.0);
        }
        const syncscope::JobAnalysis a = syncscope::analyzeJob(ranks, {});
        nlohmann::json out = syncscope::jobAnalysisJson(a);
        for (const auto &r : a.ranks)
            out["ranks"][std::to_string(r.rank)] = syncscope::rankJobJson(r);
        std::printf("%s\n", out.dump(1).c_str());
        return 0;
    }
    if (sizes.empty())
        sizes = {8, 64, 256, 1024};
    std::printf("%7s %11s %9s %13s %11s %9s %9s %11s %9s %10s\n", "ranks", "collectives", "gen s", "per-rank s",
                "summary KB", "truth", "analyze s", "us/rank", "json s", "peak MB");
    for (int n : sizes) {
        tracegen::JobOptions o;
        o.dir = work + "/job" + std::to_string(n);
        o.ranks = n;
        o.layers = layers;
        o.steps = steps;
        o.straggler = n / 3;
        auto t0 = std::chrono::steady_clock::now();
        const tracegen::JobResult job = tracegen::generateJob(o);
        const double gen = seconds(t0);
        t0 = std::chrono::steady_clock::now();
        std::vector<syncscope::RankSummary> ranks;
        size_t bytes = 0;
        for (const tracegen::Result &r : job.ranks) {
            syncscope::AnalysisRequest request;
            request.devicePath = r.devicePath;
            request.hostPath = r.hostPath;
            ranks.push_back(syncscope::extractRankSummary(*syncscope::runAnalysis(request), 0));
            bytes += syncscope::serializeRankSummary(ranks.back()).size();
        }
        const double perRank = seconds(t0);
        t0 = std::chrono::steady_clock::now();
        for (int k = 1; k < repeat; ++k)
            syncscope::analyzeJob(ranks, {});
        const syncscope::JobAnalysis a = syncscope::analyzeJob(ranks, {});
        const double analyze = seconds(t0) / repeat;
        t0 = std::chrono::steady_clock::now();
        const std::string report = syncscope::jobAnalysisJson(a).dump();
        const double json = seconds(t0);
        const bool ok = !a.stragglers.empty() && a.stragglers.front() == o.straggler && a.criticalPath.valid;
        std::printf("%7d %11zu %9.2f %13.2f %11.0f %9s %9.3f %11.1f %9.3f %10.1f\n", n, a.collectives.size(), gen,
                    perRank, bytes / 1024.0, ok ? "ok" : "WRONG", analyze, analyze * 1e6 / n, json,
                    procStatus("VmHWM:") / 1024.0);
        std::fflush(stdout);
    }
    return 0;
}
