#include "parse/traceloader.h"
#include <chrono>
#include <cstdio>
#include <sys/resource.h>
using namespace syncscope;
int main(int argc, char **argv)
{
    for (int i = 1; i < argc; ++i) {
        Diagnostics diag;
        auto t0 = std::chrono::steady_clock::now();
        LoadedTrace t = loadTrace(argv[i], diag);
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        size_t n = t.device ? t.device->events.size() : t.host ? t.host->nodes.size() : 0;
        uint64_t bytes = t.device ? t.device->inputBytes : t.host ? t.host->inputBytes : 0;
        struct rusage ru; getrusage(RUSAGE_SELF, &ru);
        std::printf("%s: %s n=%zu %.1f MB %.3f s %.0f MB/s rss=%ld MB\n", argv[i], traceKindName(t.kind), n, bytes / 1e6, s, bytes / 1e6 / s, ru.ru_maxrss / 1024);
        for (auto &d : diag.items()) std::printf("  %s %s %s\n", severityName(d.severity), d.code.c_str(), d.message.c_str());
    }
}
