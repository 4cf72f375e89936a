// SPDX-License-Identifier: MIT
// syncscope-tracegen: writes a synthetic host ET + Kineto trace pair.
#include "replicate.h"
#include "tracegen.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>

namespace {

int usage()
{
    std::fprintf(stderr,
                 "usage: syncscope-tracegen --out PREFIX [--steps N | --target-mb MB] [--layers L] [--seed S]\n"
                 "                          [--rank R] [--world-size W] [--gzip] [--sample]\n"
                 "       syncscope-tracegen --replicate KINETO --times N --out FILE\n"
                 "Writes PREFIX.et.json and PREFIX.kineto.json (or .json.gz with --gzip); --replicate\n"
                 "repeats a real Kineto trace N times in time, with unique ids.\n");
    return 2;
}

} // namespace

int main(int argc, char **argv)
{
    tracegen::Options o;
    std::string replicate;
    int times = 1;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto next = [&]() -> const char * { return i + 1 < argc ? argv[++i] : nullptr; };
        const char *v = nullptr;
        if (a == "--out" && (v = next()))
            o.prefix = v;
        else if (a == "--steps" && (v = next()))
            o.steps = std::atoi(v);
        else if (a == "--target-mb" && (v = next())) {
            o.targetMb = std::atof(v);
            o.steps = 0;
        } else if (a == "--layers" && (v = next()))
            o.layers = std::atoi(v);
        else if (a == "--seed" && (v = next()))
            o.seed = std::strtoull(v, nullptr, 10);
        else if (a == "--rank" && (v = next()))
            o.rank = std::atoi(v);
        else if (a == "--world-size" && (v = next()))
            o.worldSize = std::atoi(v);
        else if (a == "--gzip")
            o.gzip = true;
        else if (a == "--sample")
            o.sample = true;
        else if (a == "--replicate" && (v = next()))
            replicate = v;
        else if (a == "--times" && (v = next()))
            times = std::atoi(v);
        else
            return usage();
    }
    try {
        if (!replicate.empty()) {
            const auto r = tracegen::replicateKineto(replicate, o.prefix, times);
            std::printf("%s: %llu events, %.1f MB\n", o.prefix.c_str(), static_cast<unsigned long long>(r.events),
                        r.bytes / 1e6);
            return 0;
        }
        const tracegen::Result r = tracegen::generate(o);
        std::printf("%s: %llu nodes, %.1f MB\n%s: %llu events, %.1f MB\n%d steps\n", r.hostPath.c_str(),
                    static_cast<unsigned long long>(r.hostNodes), r.hostBytes / 1e6, r.devicePath.c_str(),
                    static_cast<unsigned long long>(r.deviceEvents), r.deviceBytes / 1e6, r.steps);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "syncscope-tracegen: %s\n", e.what());
        return 1;
    }
    return 0;
}
